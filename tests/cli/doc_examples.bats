#!/usr/bin/env bats
# Every example in the READMEs runs and prints what its README says
# (issue 30): tests/cli/doc_examples.py runs each fenced block by its kind
# (sh run, its output and JSON compared, python run, yaml a program's
# manifest, c calls only declared functions; `text` is no example) and
# refuses a block of a kind it does not check.  One test per README; the
# last test fails when a README with examples is missing from this list.

load helpers

setup() {
    export KMRUN_RUNS=$BATS_TEST_TMPDIR/runs
    py_env
}

readmes=(README.md device/sim/README.md programs/01_hello/README.md
    programs/02_parallel_sum/README.md programs/03_ring/README.md
    programs/04_host_fed/README.md programs/05_from_host/README.md
    programs/07_work_cluster/README.md programs/08_parallel_thread/README.md
    programs/10_x280_ports/README.md programs/11_pull/README.md
    programs/12_host_loop/README.md tests/fuzz/README.md)

check() {
    cd "$KMRUN_TOP"
    run --separate-stderr python3 tests/cli/doc_examples.py "$1"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [[ $output == ok* ]] || { echo "no example checked in $1"; false; }
}

@test "doc examples: README.md (its sh ci block is readme.bats's)" { check README.md; }
@test "doc examples: device/sim/README.md" { check device/sim/README.md; }
@test "doc examples: programs/01_hello/README.md" { check programs/01_hello/README.md; }
@test "doc examples: programs/02_parallel_sum/README.md" { check programs/02_parallel_sum/README.md; }
@test "doc examples: programs/03_ring/README.md" { check programs/03_ring/README.md; }
@test "doc examples: programs/04_host_fed/README.md" { check programs/04_host_fed/README.md; }
@test "doc examples: programs/05_from_host/README.md" { check programs/05_from_host/README.md; }
@test "doc examples: programs/07_work_cluster/README.md" { check programs/07_work_cluster/README.md; }
@test "doc examples: programs/08_parallel_thread/README.md" { check programs/08_parallel_thread/README.md; }
@test "doc examples: programs/10_x280_ports/README.md" { check programs/10_x280_ports/README.md; }
@test "doc examples: programs/11_pull/README.md" { check programs/11_pull/README.md; }
@test "doc examples: programs/12_host_loop/README.md" { check programs/12_host_loop/README.md; }
@test "doc examples: tests/fuzz/README.md (make targets, not run)" { check tests/fuzz/README.md; }

@test "doc examples: every tracked README with a fenced block is checked above" {
    cd "$KMRUN_TOP"
    local f missing=
    for f in $(git ls-files '*.md' 2>/dev/null || find . -name '*.md' -not -path './build*'); do
        grep -q '^```' "$f" || continue
        [[ " ${readmes[*]} " == *" ${f#./} "* ]] || missing+=" $f"
    done
    [ -z "$missing" ] || { echo "not checked:$missing"; false; }
}

@test "doc examples: a stale number in an output block fails, naming the README's line" {
    cd "$KMRUN_TOP"
    mkdir -p "$BATS_TEST_TMPDIR/doc"
    sed 's/"where":2,"microseconds":[0-9.]*/"where":2,"microseconds":1.5/' \
        programs/01_hello/README.md >"$BATS_TEST_TMPDIR/doc/README.md"
    run --separate-stderr python3 tests/cli/doc_examples.py "$BATS_TEST_TMPDIR/doc/README.md"
    [ "$status" -eq 1 ]
    [[ $stderr == *"/doc/README.md:"*": not printed: '{\"cluster\":1,\"where\":2,\"microseconds\":1.5}'"* ]] ||
        { echo "$stderr"; false; }
}
