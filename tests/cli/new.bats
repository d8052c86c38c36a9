#!/usr/bin/env bats
# kmrun new: a folder with a program from each template (thread, host-fed,
# ports) that `kmrun run` and `kmrun test` pass at once, its README's
# examples true (tests/cli/doc_examples.py); an existing
# folder refused (exit 2) and left as it was; bad names and templates are
# usage errors, and nothing is left behind.

# shellcheck disable=SC2154 # output, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    mkdir "$BATS_TEST_TMPDIR/work" && cd "$BATS_TEST_TMPDIR/work" || return 1
}

# made TEMPLATE NAME BACKENDS...: kmrun new makes NAME from TEMPLATE, it
# runs, and kmrun test holds it on each of BACKENDS.
made() {
    local template=$1 name=$2
    shift 2
    run -0 --separate-stderr kmrun new --template "$template" "$name"
    [ "$output" = "kmrun: made '$name' from the template '$template': run it with 'kmrun run $name/program.yaml', test it with 'kmrun test $name'" ]
    [ -f "$name/program.yaml" ] && [ -f "$name/README.md" ]
    grep -q "^name: $name\$" "$name/program.yaml"
    grep -q '^expect:' "$name/program.yaml"
    ! grep -rq '@NAME@' "$name"
    grep -q "^# $name\$" "$name/README.md"
    run -0 kmrun validate "$name/program.yaml"
    run_json "$name/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(jq -r .program <<<"$output")" = "$name" ]
    run -0 kmrun test --run-dir "$runs" "$name"
    local b i=0
    for b in "$@"; do
        [[ "${lines[$i]}" == "ok   $name/program.yaml [$b] "* ]] || { echo "$output"; false; }
        i=$((i + 1))
    done
    [ "${lines[$i]}" = "$# passed, 0 failed" ]
    # nothing beside it but the folder (and the runs)
    [ -z "$(find . -maxdepth 1 -name ".$name.new-*")" ]
    # its README's examples run and print what it says (tests/cli/doc_examples.py)
    KMRUN_RUNS=$runs run --separate-stderr python3 "$KMRUN_TOP/tests/cli/doc_examples.py" "$name/README.md"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [[ "$output" == ok* ]]
}

@test "kmrun new NAME: the thread template runs and holds on the simulated card and the host" {
    made thread demo sim host
    [ -f demo/thread/main.c ]
    run_json demo/program.yaml
    [ "$(jq -c '.threads[0] | [.state, .code, .words]' <<<"$output")" = '["returned",0,[42]]' ]
    [[ "$stderr" == *"] 7 * 6 = 42"* ]]
    # the default template is thread
    run -0 kmrun new other
    cmp demo/thread/main.c other/thread/main.c
}

@test "kmrun new --template host-fed: the host feeds the grid, on both backends" {
    made host-fed fed sim host
    [ -f fed/kernels/weigh.c ]
    run_json fed/program.yaml
    [ "$(jq -c '[.commands[] | [.event, .result]]' <<<"$output")" = '[["done",null],["done",768],["done",98688]]' ]
}

@test "kmrun new --template ports: a thread serves its Tensix cores through X280 ports" {
    made ports served sim
    [ -f served/thread/serve.c ] && [ -f served/kernels/ask.c ]
    run_json served/program.yaml
    [ "$(jq -c '.threads[0].words' <<<"$output")" = '[16,160]' ]
    [ "$(jq -r '.port_waits | length' <<<"$output")" = 0 ]
}

@test "kmrun new refuses a folder that exists, and leaves it as it was" {
    mkdir demo
    echo mine >demo/notes
    run -2 --separate-stderr kmrun new demo
    [ "$stderr" = "kmrun: 'demo' already exists (expected a new folder's name)" ]
    [ "$(ls -A demo)" = notes ] && [ "$(cat demo/notes)" = mine ]
    : >file
    run -2 --separate-stderr kmrun new file
    [ "$stderr" = "kmrun: 'file' already exists (expected a new folder's name)" ]
    [ ! -s file ]
    [ "$(ls -A)" = "$(printf 'demo\nfile')" ]
}

@test "kmrun new: bad names, templates and command lines are usage errors" {
    run -2 --separate-stderr kmrun new --template gpu demo
    [ "$stderr" = "kmrun: unknown template 'gpu' (expected host-fed, ports or thread)" ]
    run -2 --separate-stderr kmrun new 'a b'
    [ "$stderr" = "kmrun: bad program name 'a b' (expected a folder whose name is letters, digits, '_', '.' and '-', at most 64 characters)" ]
    run -2 --separate-stderr kmrun new
    [[ "$stderr" == "kmrun: no folder named (expected the new program's folder)
usage: kmrun new [--template thread|host-fed|ports] NAME" ]]
    run -2 --separate-stderr kmrun new one two
    [[ "$stderr" == "kmrun: unexpected argument 'two'"* ]]
    run -2 --separate-stderr kmrun new --template
    [[ "$stderr" == "kmrun: option '--template' requires a value"* ]]
    run -4 --separate-stderr kmrun new no/such/parent
    [[ "$stderr" == "kmrun: cannot make folder 'no/such/parent': No such file or directory" ]]
    [ -z "$(ls -A)" ]
}
