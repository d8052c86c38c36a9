#!/usr/bin/env bats
# Diagnostics a tool can read (issue 30): --message-format=json (one JSON
# object a line on stderr, the same findings as the text), files shown
# from the working folder as gcc and cargo show them, --color with
# NO_COLOR and CLICOLOR_FORCE, and kmrun build --compile-commands.

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

setup() {
    export KMRUN_CACHE=$BATS_TEST_TMPDIR/cache
    unset NO_COLOR CLICOLOR_FORCE
    # the program in one folder, the person in another beside it
    prog=$BATS_TEST_TMPDIR/prog
    cp -R "$KMRUN_TOP/tests/fixtures/build" "$prog"
    here=$BATS_TEST_TMPDIR/here
    mkdir -p "$here"
    cd "$here"
}

# misspell: the thread's `sources:` written `sourcs:` (line 9, column 5).
misspell() {
    sed -i 's/^    sources: \[thread\/main.c\]/    sourcs: [thread\/main.c]/' "$prog/program.yaml"
    grep -q '^    sourcs:' "$prog/program.yaml"
}

# every_line_json: every line of $stderr is one JSON object that follows
# schemas/diagnostic.schema.json.
every_line_json() {
    [ -n "$stderr" ]
    /usr/bin/python3 -c '
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
for line in sys.stdin:
    try:
        v.validate(json.loads(line))
    except Exception as e:
        sys.exit("not a line of the schema: %s(%s)" % (line, e))
' "$KMRUN_TOP/schemas/diagnostic.schema.json" <<<"$stderr"
}

# diag N EXPR: jq EXPR over the N-th (0-based) line of $stderr.
diag() {
    sed -n "$(($1 + 1))p" <<<"$stderr" | jq -r "$2"
}

# a compile error on line 8 of the thread's source, column 5
break_source() {
    sed -i 's/^    return SCALE + HANDLER_SCALE;/    retur SCALE;/' "$prog/thread/main.c"
    grep -q '^    retur SCALE;' "$prog/thread/main.c"
}

@test "diagnostics: a misspelt key is one JSON line with its file from the working folder, line, column and code" {
    misspell
    run --separate-stderr kmrun validate --message-format=json ../prog/program.yaml
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [ "${#stderr_lines[@]}" -eq 1 ] || { echo "$stderr"; false; }
    every_line_json
    [ "$(diag 0 '[.type, .severity, .code, .file, .line, .column] | @csv')" = \
        '"diagnostic","error","manifest.unknown-key","../prog/program.yaml",9,5' ]
    [ "$(diag 0 .message)" = "unknown key 'sourcs' in a thread (did you mean 'sources'?)" ]
    [ "$(diag 0 .text)" = "    sourcs: [thread/main.c]" ]
    [ "$(diag 0 '.children | length')" = 0 ]
    # the same for build, run and check (the two-word form too)
    for cmd in build run check; do
        run --separate-stderr kmrun "$cmd" --message-format json ../prog/program.yaml
        [ "$status" -eq 2 ]
        [ "${#stderr_lines[@]}" -eq 1 ]
        [ "$(diag 0 '[.code, .file, .line, .column] | @csv')" = \
            '"manifest.unknown-key","../prog/program.yaml",9,5' ] || { echo "$cmd: $stderr"; false; }
    done
}

@test "diagnostics: human text is the text it was, its file as named" {
    misspell
    run --separate-stderr kmrun validate ../prog/program.yaml
    [ "$status" -eq 2 ]
    expect stderr <<'EOF'
../prog/program.yaml:9:5: unknown key 'sourcs' in a thread (did you mean 'sources'?)
      sourcs: [thread/main.c]
      ^
EOF
    # --message-format=human is the default
    run --separate-stderr kmrun validate --message-format=human ../prog/program.yaml
    [ "$status" -eq 2 ]
    [[ "$stderr" == "../prog/program.yaml:9:5: unknown key"* ]]
    [[ "$stderr" != *$'\033'* ]]
}

@test "diagnostics: a compile error is the compiler's finding as JSON, its source from the working folder" {
    break_source
    run --separate-stderr kmrun build --message-format=json ../prog/program.yaml
    [ "$status" -eq 3 ]
    [ -z "$output" ]
    every_line_json
    # gcc's first finding: the undeclared name at line 8, column 5
    [ "$(diag 0 '[.type, .severity, .code, .file, .line, .column] | @csv')" = \
        '"diagnostic","error","build.compile","../prog/thread/main.c",8,5' ] || { echo "$stderr"; false; }
    [[ "$(diag 0 .message)" == *"'retur' undeclared"* ]]
    [ "$(diag 0 .text)" = "    retur SCALE;" ]
    [ "$(diag 0 .end_column)" = 9 ]
    # its note is its child
    [ "$(diag 0 '.children[0] | [.severity, .file, .line] | @csv')" = '"note","../prog/thread/main.c",8' ]
    # the last line: kmrun's word on the step
    [ "$(tail -n 1 <<<"$stderr" | jq -r '[.code, .file, .message] | @csv')" = \
        '"build.failed","../prog/thread/main.c","cannot compile '"'"'../prog/thread/main.c'"'"' for the thread on cluster 1"' ]
    # nothing but JSON: no summary, no "kmrun:" line
    [[ "$stderr" != *"kmrun:"* ]]
}

@test "diagnostics: a compile error in human text names the source from the working folder" {
    break_source
    run --separate-stderr kmrun build ../prog/program.yaml
    [ "$status" -eq 3 ]
    [[ "$stderr" == "kmrun: cannot compile '../prog/thread/main.c' for the thread on cluster 1:"* ]]
    [[ "$stderr" == *$'\n../prog/thread/main.c:8:5: error: '"'retur' undeclared"* ]] || { echo "$stderr"; false; }
    [[ "$stderr" == *"    8 |     retur SCALE;"* ]]
    # from the program's own folder, as it always was
    cd "$prog"
    run --separate-stderr kmrun build program.yaml
    [ "$status" -eq 3 ]
    [[ "$stderr" == "kmrun: cannot compile 'thread/main.c' for the thread on cluster 1:"* ]]
    [[ "$stderr" == *$'\nthread/main.c:8:5: error: '* ]]
}

@test "diagnostics: a warning of a build that succeeds, as JSON with its option, and as the compiler's text" {
    printf 'static int unused_helper(void) { return 1; }\n' >>"$prog/thread/main.c"
    run --separate-stderr kmrun build --message-format=json ../prog/program.yaml
    [ "$status" -eq 0 ]
    jq -e .threads <<<"$output" >/dev/null
    every_line_json
    [ "${#stderr_lines[@]}" -eq 1 ] || { echo "$stderr"; false; }
    [ "$(diag 0 '[.severity, .code, .file, .line, .column, .option] | @csv')" = \
        '"warning","build.compile","../prog/thread/main.c",10,12,"-Wunused-function"' ]
    # the text: the compiler's, its file from here
    echo '/* again */' >>"$prog/thread/main.c"
    run --separate-stderr kmrun build ../prog/program.yaml
    [ "$status" -eq 0 ]
    [[ "$stderr" == "../prog/thread/main.c:10:12: warning: 'unused_helper' defined but not used [-Wunused-function]"* ]] ||
        { echo "$stderr"; false; }
}

@test "diagnostics: clang's text is read into the same findings" {
    command -v clang-19 >/dev/null || skip "no clang-19"
    sed -i 's|^    sources: \[thread/main.c\]|&\n    compiler: clang|' "$prog/program.yaml"
    break_source
    run --separate-stderr kmrun build --message-format=json ../prog/program.yaml
    [ "$status" -eq 3 ]
    every_line_json
    [ "$(diag 0 '[.severity, .code, .file, .line, .column] | @csv')" = \
        '"error","build.compile","../prog/thread/main.c",8,5' ] || { echo "$stderr"; false; }
    [[ "$(diag 0 .message)" == *"retur"* ]]
    [ "$(tail -n 1 <<<"$stderr" | jq -r .code)" = build.failed ]
}

@test "diagnostics: a run's finding is a JSON line with its source from the working folder" {
    cp -R "$KMRUN_TOP/tests/fixtures/hazards" "$BATS_TEST_TMPDIR/hazards"
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" --check-handover \
        --message-format=json ../hazards/stale.yaml
    [ "$status" -eq 1 ]
    jq -e '.handover | length == 1' <<<"$output" >/dev/null
    every_line_json
    [ "$(diag 0 '[.type, .code, .file, .line] | @csv')" = \
        '"diagnostic","run.handover","../hazards/thread/stale.c",15' ] || { echo "$stderr"; false; }
    [[ "$(diag 0 .message)" == "stale read of region 'data' +0x0"*"../hazards/thread/stale.c:14"* ]]
    # the run JSON keeps its own names, relative to the manifest
    [ "$(jq -r '.handover[0].at.source.file' <<<"$output")" = thread/stale.c ]
    # the text line too
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" --check-handover \
        ../hazards/stale.yaml
    [ "$status" -eq 1 ]
    [[ "$stderr" == "../hazards/thread/stale.c:15: stale read of region 'data' +0x0"* ]] || { echo "$stderr"; false; }
}

@test "diagnostics: in JSON a run's prints and progress markers are typed lines, stdout the run's document" {
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" --progress \
        --message-format=json "$KMRUN_TOP/tests/fixtures/print/once.yaml"
    [ "$status" -eq 0 ]
    jq -e '.threads[0].state == "returned"' <<<"$output" >/dev/null
    every_line_json
    [ "$(jq -sr '[.[] | select(.type == "print")][0] | [.core, .text] | @csv' <<<"$stderr")" = \
        '"c1.0","thread on cluster 1"' ] || { echo "$stderr"; false; }
}

@test "diagnostics: --color=always paints, never and NO_COLOR do not, CLICOLOR_FORCE does" {
    misspell
    run --separate-stderr kmrun validate --color=always ../prog/program.yaml
    [ "$status" -eq 2 ]
    [[ "$stderr" == $'\033[1m../prog/program.yaml:9:5:\033[0m unknown key'* ]] || { echo "$stderr" | cat -v; false; }
    [[ "$stderr" == *$'\033[1;32m^\033[0m'* ]]
    run --separate-stderr kmrun validate --color never ../prog/program.yaml
    [[ "$stderr" != *$'\033'* ]]
    NO_COLOR=1 run --separate-stderr kmrun validate ../prog/program.yaml
    [[ "$stderr" != *$'\033'* ]]
    CLICOLOR_FORCE=1 run --separate-stderr kmrun validate ../prog/program.yaml
    [[ "$stderr" == *$'\033[1m'* ]]
    NO_COLOR=1 CLICOLOR_FORCE=1 run --separate-stderr kmrun validate ../prog/program.yaml
    [[ "$stderr" != *$'\033'* ]]
    # the option outranks the environment
    NO_COLOR=1 run --separate-stderr kmrun validate --color=always ../prog/program.yaml
    [[ "$stderr" == *$'\033[1m'* ]]
    CLICOLOR_FORCE=1 run --separate-stderr kmrun validate --color=never ../prog/program.yaml
    [[ "$stderr" != *$'\033'* ]]
    # JSON is never painted
    run --separate-stderr kmrun validate --color=always --message-format=json ../prog/program.yaml
    [[ "$stderr" != *$'\033'* ]]
    every_line_json
}

@test "diagnostics: the compilers' colours with --color=always, none with NO_COLOR" {
    break_source
    run --separate-stderr kmrun build --color=always ../prog/program.yaml
    [ "$status" -eq 3 ]
    [[ "$stderr" == $'\033[1;31mkmrun:\033[0m cannot compile'* ]] || { echo "$stderr" | cat -v; false; }
    # gcc's own: its error word in red
    [[ "$stderr" == *$'\033[01;31m\033[Kerror: '* ]] || { echo "$stderr" | cat -v; false; }
    # and its file shown from here all the same
    [[ "$stderr" == *'../prog/thread/main.c:8:5:'* ]]
    NO_COLOR=1 run --separate-stderr kmrun build ../prog/program.yaml
    [ "$status" -eq 3 ]
    [[ "$stderr" != *$'\033'* ]]
    [[ "$stderr" != *'\033'* ]]
    CLICOLOR_FORCE=1 run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" \
        ../prog/program.yaml
    [ "$status" -eq 3 ]
    [[ "$stderr" == *$'\033[01;31m\033[Kerror: '* ]]
}

@test "diagnostics: the options are checked, taken by the commands that build or check, and told" {
    run --separate-stderr kmrun validate --color=bogus x.yaml
    [ "$status" -eq 2 ]
    [[ "$stderr" == "kmrun: invalid --color 'bogus' (expected auto, always or never)"* ]]
    run --separate-stderr kmrun build --message-format=xml x.yaml
    [ "$status" -eq 2 ]
    [[ "$stderr" == "kmrun: invalid --message-format 'xml' (expected human or json)"* ]]
    run --separate-stderr kmrun run --color
    [ "$status" -eq 2 ]
    [[ "$stderr" == "kmrun: option '--color' requires a value"* ]]
    # a usage error in JSON is a JSON line, its usage its note
    run --separate-stderr kmrun validate --message-format=json --bogus x.yaml
    [ "$status" -eq 2 ]
    every_line_json
    [ "$(diag 0 '[.code, .message, .children[0].message] | @csv')" = \
        '"kmrun.usage","unknown option '"'"'--bogus'"'"'","usage: kmrun validate [--quiet] [--json] program.yaml..."' ]
    # a command that does not take them says so
    run --separate-stderr kmrun cache stats --color=always
    [ "$status" -eq 2 ]
    # after --, a file's name
    run --separate-stderr kmrun validate -- --color=always
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"'--color=always'"* ]]
    # every command that takes them tells them, and so does kmrun(1)
    for cmd in build run check validate; do
        run -0 kmrun help "$cmd"
        [[ "$output" == *"--message-format=human|json"* ]] || { echo "kmrun help $cmd"; false; }
        [[ "$output" == *"--color=auto|always|never"* ]] || { echo "kmrun help $cmd"; false; }
    done
    run -0 kmrun help cache
    [[ "$output" != *"--message-format"* ]]
    grep -q 'Fl -message-format' "$KMRUN_TOP/man/kmrun.1"
    grep -q 'Fl -color' "$KMRUN_TOP/man/kmrun.1"
    grep -q 'Ev NO_COLOR' "$KMRUN_TOP/man/kmrun.1"
    grep -q 'Ev CLICOLOR_FORCE' "$KMRUN_TOP/man/kmrun.1"
}

@test "compile-commands: beside the manifest, every source, folders that exist, the build's own words" {
    run --separate-stderr kmrun build --compile-commands --host ../prog/program.yaml
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    db=$prog/compile_commands.json
    [ -f "$db" ]
    [ "$(jq -r .compile_commands <<<"$output")" = ../prog/compile_commands.json ]
    # no temporary file left beside it
    [ "$(find "$prog" -maxdepth 1 -name '*compile_commands*' | wc -l)" -eq 1 ]
    # the thread, its host fallback and the kernels
    [ "$(jq length "$db")" -eq 3 ]
    [ "$(jq -r '[.[].file] | sort | @csv' "$db")" = \
        "\"$prog/kernels/scale.c\",\"$prog/thread/main.c\",\"$prog/thread/main.c\"" ]
    real=$(cd "$prog" && pwd -P)
    [ "$(jq -r '[.[].directory] | unique | @csv' "$db")" = "\"$real\"" ]
    [ "$(jq -r '.[0].arguments[0]' "$db")" = "$(command -v riscv64-unknown-elf-gcc | xargs readlink -f)" ] ||
        [ "$(jq -r '.[0].arguments[0] | test("riscv64-unknown-elf-gcc$")' "$db")" = true ]
    # every -I folder there is, absolute
    local n=0 dir
    while IFS= read -r dir; do
        [[ "$dir" == /* ]] || { echo "relative: $dir"; false; }
        [ -d "$dir" ] || { echo "no folder: $dir"; false; }
        n=$((n + 1))
    done < <(jq -r '.[].arguments[] | select(startswith("-I")) | .[2:]' "$db")
    [ "$n" -ge 9 ]
    # the flags are the build's: what build.ninja runs
    ninja_file=$(find "$KMRUN_CACHE/work" -name build.ninja | head -n 1)
    for flag in $(jq -r '.[0].arguments[1:-4][]' "$db"); do
        grep -qF -- "$flag" "$ninja_file" || { echo "not in build.ninja: $flag"; false; }
    done
    # the recorded compile of the thread compiles it (syntax only)
    mapfile -t args < <(jq -r '.[0].arguments[:-4][]' "$db")
    (cd "$(jq -r '.[0].directory' "$db")" && "${args[@]}" -fsyntax-only "$(jq -r '.[0].arguments[-3]' "$db")")
}

@test "compile-commands: clangd opens a thread's file without errors, for gcc and clang threads" {
    command -v clangd >/dev/null || skip "no clangd"
    run --separate-stderr kmrun build --compile-commands ../prog/program.yaml
    [ "$status" -eq 0 ]
    run clangd --check="$prog/thread/main.c"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"All checks completed, 0 errors"* ]] || { echo "$output"; false; }
    command -v clang-19 >/dev/null || return 0
    sed -i 's|^    sources: \[thread/main.c\]|&\n    compiler: clang|' "$prog/program.yaml"
    run --separate-stderr kmrun build --compile-commands ../prog/program.yaml
    [ "$status" -eq 0 ]
    [ "$(jq -r '.[0].arguments[1]' "$prog/compile_commands.json")" = --target=riscv64-unknown-elf ]
    run clangd --check="$prog/thread/main.c"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"All checks completed, 0 errors"* ]]
}

@test "compile-commands: written even when a compile fails, so that an editor shows the error" {
    break_source
    run --separate-stderr kmrun build --compile-commands ../prog/program.yaml
    [ "$status" -eq 3 ]
    jq -e 'length == 2' "$prog/compile_commands.json" >/dev/null
}
