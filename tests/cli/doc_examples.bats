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
    export KMRUN_DOC_SCRATCH=$BATS_TEST_TMPDIR/scratch
    py_env
    # A sanitized build's library links only with its flags: the pages'
    # `cc` lines get them from a cc first on PATH, as build_api adds them.
    local mode=release
    case ${KMRUN_BUILD##*/} in build-*) mode=${KMRUN_BUILD##*/build-} ;; esac
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\nexec /usr/bin/cc %s "$@"\n' \
        "$(make -s --no-print-directory -C "$KMRUN_TOP" MODE="$mode" print-OPT)" \
        >"$BATS_TEST_TMPDIR/bin/cc"
    chmod +x "$BATS_TEST_TMPDIR/bin/cc"
    PATH=$BATS_TEST_TMPDIR/bin:$PATH
}

# man_block PAGE N: the Nth literal block (1-based) of PAGE's EXAMPLES, as
# it shows (\e a backslash).
man_block() {
    awk -v n="$2" '/^\.Sh / { on = ($0 == ".Sh EXAMPLES") } on && /^\.Bd -literal/ { k++; lit = (k == n); next }
         lit && /^\.Ed$/ { exit } lit { print }' "$KMRUN_TOP/man/$1" | sed -e 's/\\e/\\/g' -e 's/^\\&//'
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

@test "doc examples: the man pages' EXAMPLES (sessions run, manifests validated)" {
    cd "$KMRUN_TOP"
    run --separate-stderr python3 tests/cli/doc_examples.py man/kmrun.1 man/kmrun.3 man/kmx.3 \
        man/km_device.3 man/kmrun-program.5
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(grep -c '^ok' <<<"$output")" -ge 14 ] || { echo "$output"; false; }
}

@test "doc examples: km_device.3's handler and kmx.3's thread build as the pages show them" {
    local prog=$BATS_TEST_TMPDIR/prog
    mkdir -p "$prog/kernels" "$prog/thread"
    man_block km_device.3 1 >"$prog/kernels/double.c"
    man_block kmx.3 1 >"$prog/thread/main.c"
    grep -q 'KM_HANDLER(double_it)' "$prog/kernels/double.c"
    grep -q 'int kmx_main' "$prog/thread/main.c"
    printf '%s\n' 'name: pages' 'kernels:' '  sources: [kernels/double.c]' '  handlers: [double_it]' \
        'threads:' '  - cluster: 1' '    sources: [thread/main.c]' '    regions: {input: 4KiB, out: 4KiB}' \
        >"$prog/program.yaml"
    run --separate-stderr kmrun build --quiet "$prog/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
}

@test "doc examples: kmx.3's link line links a thread (its -march is the build's)" {
    local kmx=$KMRUN_BUILD/share/kmrun/kmx tmp=$BATS_TEST_TMPDIR line
    line=$(awk '/^\.Sh IMPLEMENTATION NOTES/ { on = 1 } on && /^\.Bd -literal/ { lit = 1; next }
                lit && /^\.Ed$/ { exit } lit { print }' "$KMRUN_TOP/man/kmx.3" |
           sed -e 's/\\e$//' | paste -sd' ')
    [[ $line == riscv64-unknown-elf-gcc* ]] || { echo "$line"; false; }
    local march=${line#*-march=}
    march=${march%% *}
    grep -q "KM_IMAGE_MARCH \"$march\"" "$KMRUN_TOP/lib/build/km_build.h" ||
        { echo "-march=$march is not KM_IMAGE_MARCH (lib/build/km_build.h)"; false; }
    man_block kmx.3 1 >"$tmp/main.c"
    riscv64-unknown-elf-gcc -march="$march" -mabi=lp64d -mcmodel=medany -O2 -ffreestanding \
        -I"$kmx/include" -I"$KMRUN_BUILD/share/kmrun/device/include" -c "$tmp/main.c" -o "$tmp/thread.o"
    cd "$tmp"
    ln -sf "$kmx/kmx.ld" kmx.ld
    ln -sf "$kmx/lib/libkmx.a" libkmx.a
    # shellcheck disable=SC2086 # the page's words
    run $line -o thread.elf
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    riscv64-unknown-elf-readelf -h thread.elf | grep -q 'Entry point address: *0x8000000'
}

@test "doc examples: every tracked README with a fenced block is checked above" {
    cd "$KMRUN_TOP"
    local f missing=
    for f in $(git ls-files '*.md' 2>/dev/null || find . -name '*.md' -not -path './build*'); do
        grep -q '^```' "$f" || continue
        # kmrun new's templates: checked as it makes them (tests/cli/new.bats)
        [[ ${f#./} != templates/* ]] || continue
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
