#!/usr/bin/env bats
# The manual pages: clean under mandoc's linter, and kmrun(1) in step with
# the command table and the exit codes.

# shellcheck disable=SC2154 # output, stderr, lines, stderr_lines: set by run
load helpers

@test "every man page is clean under mandoc -Tlint -Wwarning" {
    command -v mandoc >/dev/null || skip "mandoc is not installed"
    shopt -s nullglob
    pages=("$KMRUN_TOP"/man/*.[1-8])
    [ "${#pages[@]}" -gt 0 ]
    status_all=0
    for page in "${pages[@]}"; do
        run mandoc -Tlint -Wwarning "$page"
        if [ "$status" -ne 0 ] || [ -n "$output" ]; then
            echo "${page#"$KMRUN_TOP"/}: mandoc -Tlint -Wwarning (status $status):"
            echo "$output"
            status_all=1
        fi
    done
    [ "$status_all" -eq 0 ]
}

@test "kmrun(1) documents every command of the table" {
    for name in $(kmrun_commands); do
        grep -q "^\.It Nm Cm $name\( \|$\)" "$KMRUN_TOP/man/kmrun.1" ||
            { echo "man/kmrun.1: no '.It Nm Cm $name' in COMMANDS"; false; }
    done
}

@test "kmrun(1) lists the exit codes kmrun --help lists" {
    run -0 kmrun --help
    awk '/^Exit status:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' \
        <<<"$output" >"$BATS_TEST_TMPDIR/expect"
    awk '/^\.Sh / { on = ($0 == ".Sh EXIT STATUS"); next }
         on && /^\.It [0-9]+$/ { print $2 }' "$KMRUN_TOP/man/kmrun.1" \
        >"$BATS_TEST_TMPDIR/actual"
    diff -u "$BATS_TEST_TMPDIR/expect" "$BATS_TEST_TMPDIR/actual"
}

@test "kmrun(3) names and describes every function include/kmrun.h and kmrun_tools.h declare" {
    local fns name
    fns=$(cat "$KMRUN_TOP"/include/kmrun.h "$KMRUN_TOP"/include/kmrun_tools.h | grep -oE '\bkmrun_[a-z_]+\('  | tr -d '(' | sort -u)
    [ "$(wc -l <<<"$fns")" -ge 25 ]
    for name in $fns; do
        grep -q "^\.Nm $name\( ,\)\?$" "$KMRUN_TOP/man/kmrun.3" ||
            { echo "man/kmrun.3: no '.Nm $name' in NAME"; false; }
        grep -q "^\.Fn $name \"" "$KMRUN_TOP/man/kmrun.3" ||
            grep -q "^\.Fn $name void$" "$KMRUN_TOP/man/kmrun.3" ||
            { echo "man/kmrun.3: no '.Fn $name' in SYNOPSIS"; false; }
        # In the text: with no arguments, or punctuation after it.
        grep -qE "^\.Fn $name( [^\"v][^\"]*)?$" "$KMRUN_TOP/man/kmrun.3" ||
            { echo "man/kmrun.3: $name is not described"; false; }
    done
}

# The table (kmrun completion --options, cmd/cmd.c) as man_options.py
# reads it: "COMMAND OPTION" a line, every command's long and short
# options, and kmrun's own (--help, -h, --version) under "kmrun".
table() {
    local c o
    for c in $(kmrun completion --commands); do
        for o in $(kmrun completion --options "$c"); do echo "$c $o"; done
    done
    printf 'kmrun %s\n' --help -h --version
}

@test "every option of the table is in its command's help, and the help names no other" {
    local c want got
    for c in $(kmrun completion --commands); do
        want=$(kmrun completion --options "$c" | sort)
        run -0 kmrun help "$c"
        # The option list's lines: "  -j, --jobs N", "      --host", "  --run RUN".
        got=$(grep -oE '^  (-[a-zA-Z], |    )?--[a-z][a-z0-9-]*' <<<"$output" |
            grep -oE '(^  -[a-zA-Z],|--[a-z][a-z0-9-]*)' | tr -d ' ,' | sort)
        [ "$got" = "$want" ] || { echo "kmrun help $c lists:"; echo "$got"; echo "the table:"; echo "$want"; false; }
    done
}

@test "every option of the table is an item of its command in kmrun(1), and every option kmrun(1) names exists" {
    table >"$BATS_TEST_TMPDIR/table"
    run python3 "$KMRUN_TOP/tests/cli/man_options.py" "$BATS_TEST_TMPDIR/table" \
        "$KMRUN_TOP/man/kmrun.1"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -z "$output" ]
}

@test "kmrun(1) and the README list as taking --message-format the commands whose table has it" {
    local c want man readme
    want=$(for c in $(kmrun completion --commands); do
        kmrun completion --options "$c" | grep -qx -- --message-format && echo "$c"
    done | sort | paste -sd' ')
    [ -n "$want" ]
    man=$(awk '/^Every command that builds or checks$/ { on = 1; next } on { print; exit }' \
        "$KMRUN_TOP/man/kmrun.1" | sed -n 's/^\.Pq Cm //p' | tr -d ',' | tr -s ' ' '\n' | sort | paste -sd' ')
    [ "$man" = "$want" ] || { echo "man/kmrun.1: ($man), the table: ($want)"; false; }
    # shellcheck disable=SC2016 # the README's backticks, not an expansion
    readme=$(sed -n 's/^| `kmrun \([a-z|\\-]*\) --message-format=json` |.*/\1/p' "$KMRUN_TOP/README.md" |
        sed 's/\\|/ /g' | tr ' ' '\n' | sort | paste -sd' ')
    [ "$readme" = "$want" ] || { echo "README.md: ($readme), the table: ($want)"; false; }
}
