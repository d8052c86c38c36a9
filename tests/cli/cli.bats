#!/usr/bin/env bats
# The command line itself: help, version, dispatch, suggestions, usage
# errors and their exit codes (man/kmrun.1).

# shellcheck disable=SC2154 # output, stderr, lines, stderr_lines: set by run
load helpers

@test "--help prints the usage, the commands and the exit codes on stdout" {
    run -0 --separate-stderr kmrun --help
    expect stderr </dev/null
    [ "${lines[0]}" = "$KMRUN_USAGE" ]
    [[ $output == *"'man kmrun'"* ]]
    output=$(awk '/^Exit status:/ { on = 1; next } on && /^$/ { exit } on' <<<"$output")
    expect stdout <<'END'
   0   success
   1   a thread or a kernel failed, a check found a difference, a wrong hand-over or a wild write
   2   usage error, or an error in a manifest
   3   build error: a compile failure or a rejected image
   4   system error: I/O, a missing tool, an unusable cache
   5   internal error: a bug in kmrun
END
    run -0 kmrun_commands
    expect stdout <<'END'
build
run
check
test
new
validate
cache
read-region
profile
trace
exec
completion
help
version
END
}

@test "-h and help print the same overview as --help" {
    kmrun --help >"$BATS_TEST_TMPDIR/expect"
    kmrun -h >"$BATS_TEST_TMPDIR/actual.h"
    kmrun help >"$BATS_TEST_TMPDIR/actual.help"
    diff -u "$BATS_TEST_TMPDIR/expect" "$BATS_TEST_TMPDIR/actual.h"
    diff -u "$BATS_TEST_TMPDIR/expect" "$BATS_TEST_TMPDIR/actual.help"
}

@test "kmrun with no arguments prints the overview on stderr and exits 2" {
    kmrun --help >"$BATS_TEST_TMPDIR/expect"
    run -2 --separate-stderr kmrun
    expect stdout </dev/null
    printf '%s\n' "$stderr" | diff -u "$BATS_TEST_TMPDIR/expect" -
}

@test "--version prints the version and the target toolchain" {
    run -0 --separate-stderr kmrun --version
    expect stderr </dev/null
    [ "${lines[0]}" = "kmrun $KMRUN_VERSION" ]
    [[ ${lines[1]} =~ ^target:\ riscv64-unknown-elf,\ -march=rv64[a-z0-9_]+\ -mabi=lp64d ]]
    [ "${#lines[@]}" -eq 2 ]
}

@test "version prints what --version prints" {
    kmrun --version >"$BATS_TEST_TMPDIR/expect"
    kmrun version >"$BATS_TEST_TMPDIR/actual"
    diff -u "$BATS_TEST_TMPDIR/expect" "$BATS_TEST_TMPDIR/actual"
}

@test "help COMMAND prints the command's usage and help for every command" {
    for name in $(kmrun_commands); do
        run -0 --separate-stderr kmrun help "$name"
        expect stderr </dev/null
        [[ ${lines[0]} == "usage: kmrun $name"* ]] || { echo "help $name: ${lines[0]}"; false; }
        [ -n "${lines[1]}" ] # run drops the blank line; the help follows
        [ "${#lines[@]}" -ge 2 ]
    done
}

@test "COMMAND --help, COMMAND -h and --help COMMAND print help COMMAND" {
    for name in $(kmrun_commands); do
        kmrun help "$name" >"$BATS_TEST_TMPDIR/expect"
        for form in "$name --help" "$name -h" "--help $name" "$name x --help"; do
            # shellcheck disable=SC2086 # the words of $form are the arguments
            kmrun $form >"$BATS_TEST_TMPDIR/actual" || { echo "kmrun $form failed"; false; }
            diff -u "$BATS_TEST_TMPDIR/expect" "$BATS_TEST_TMPDIR/actual"
        done
    done
}

@test "help validate starts with its usage line" {
    run -0 kmrun help validate
    [ "${lines[0]}" = "usage: kmrun validate [--quiet] [--json] program.yaml..." ]
}

@test "a mistyped command gets a suggestion and exits 2" {
    run -2 --separate-stderr kmrun biuld
    expect stdout </dev/null
    expect stderr <<'END'
kmrun: 'biuld' is not a kmrun command (did you mean 'build'?)
kmrun: see 'kmrun --help'
END
    run -2 --separate-stderr kmrun valdate program.yaml
    expect stderr <<'END'
kmrun: 'valdate' is not a kmrun command (did you mean 'validate'?)
kmrun: see 'kmrun --help'
END
}

@test "an unknown command with nothing close exits 2 without a suggestion" {
    run -2 --separate-stderr kmrun frobnicate
    expect stdout </dev/null
    expect stderr <<'END'
kmrun: 'frobnicate' is not a kmrun command
kmrun: see 'kmrun --help'
END
}

@test "a misspelt command gets the nearest one" {
    run -2 --separate-stderr kmrun chekc
    [[ ${stderr} == "kmrun: 'chekc' is not a kmrun command (did you mean 'check'?)"* ]]
}

@test "help with an unknown command gets a suggestion and exits 2" {
    run -2 --separate-stderr kmrun help cahce
    expect stdout </dev/null
    expect stderr <<'END'
kmrun: 'cahce' is not a kmrun command (did you mean 'cache'?)
kmrun: see 'kmrun --help'
END
}

@test "an unknown option of kmrun exits 2 naming it" {
    run -2 --separate-stderr kmrun --frobnicate
    expect stdout </dev/null
    expect stderr <<END
kmrun: unknown option '--frobnicate'
$KMRUN_USAGE
END
}

@test "an unknown option of a command exits 2 naming it, with the usage" {
    run -2 --separate-stderr kmrun validate --frobnicate program.yaml
    expect stdout </dev/null
    expect stderr <<'END'
kmrun: unknown option '--frobnicate'
usage: kmrun validate [--quiet] [--json] program.yaml...
END
    run -2 --separate-stderr kmrun validate -x program.yaml
    expect stderr <<'END'
kmrun: unknown switch '-x'
usage: kmrun validate [--quiet] [--json] program.yaml...
END
    run -2 --separate-stderr kmrun validate --quiet=yes program.yaml
    expect stderr <<'END'
kmrun: option '--quiet' takes no value
usage: kmrun validate [--quiet] [--json] program.yaml...
END
    run -2 --separate-stderr kmrun version --short
    expect stderr <<'END'
kmrun: unknown option '--short'
usage: kmrun version
END
    run -2 --separate-stderr kmrun help -v
    expect stderr <<'END'
kmrun: unknown switch '-v'
usage: kmrun help [COMMAND]
END
}

@test "a misspelt option gets the nearest one, an ambiguous prefix what it could be, a bad value the accepted ones" {
    run -2 --separate-stderr kmrun run --threads host program.yaml
    expect stderr <<'END'
kmrun: unknown option '--threads' (did you mean '--thread'?)
usage: kmrun run [options] program.yaml
END
    run -2 --separate-stderr kmrun run --ti 1 program.yaml
    [ "${stderr_lines[0]}" = "kmrun: option '--ti' is ambiguous (it could be '--timeline' or '--timeout')" ]
    # An unambiguous prefix is the option, as getopt_long takes it.
    run -2 --separate-stderr kmrun run --thr card program.yaml
    [ "${stderr_lines[0]}" = "kmrun: invalid --thread 'card' (expected sim or host)" ]
    run -2 --separate-stderr kmrun read-region --format=yaml counts
    [ "${stderr_lines[0]}" = "kmrun: unknown format 'yaml' (expected raw, hex, u32 or json)" ]
    run -2 --separate-stderr kmrun build -j
    [ "${stderr_lines[0]}" = "kmrun: switch '-j' requires a value" ]
    run -2 --separate-stderr kmrun --verison
    expect stderr <<END
kmrun: unknown option '--verison' (did you mean '--version'?)
$KMRUN_USAGE
END
}

@test "extra arguments are usage errors, exit 2" {
    run -2 --separate-stderr kmrun version now
    expect stderr <<'END'
kmrun: unexpected argument 'now'
usage: kmrun version
END
    run -2 --separate-stderr kmrun help build cache
    expect stderr <<'END'
kmrun: unexpected argument 'cache'
usage: kmrun help [COMMAND]
END
}

@test "--help after -- is an argument, not a request for help" {
    run -2 --separate-stderr kmrun help -- --help
    [[ ${stderr} == "kmrun: '--help' is not a kmrun command"* ]]
}

@test "a failed write to stdout is a system error, exit 4" {
    [ -w /dev/full ] || skip "no /dev/full"
    run -4 --separate-stderr sh -c 'kmrun --help >/dev/full'
    expect stderr <<'END'
kmrun: cannot write to standard output: No space left on device
END
}

@test "the option table: within each command's options, every key and every name is its own" {
    # cmd_opts_next() returns an option's key for the command's switch: two
    # options with one key would run one case for both (a duplicate case
    # only fails to compile when both are handled).
    run python3 - "$KMRUN_TOP/cmd/cmd.c" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# the table's macros (rows two commands share) expanded first
macros = re.findall(r"^#define (\w+)[ \t]*((?:.*\\\n)*.*)$", text, re.M)
text = re.sub(r"^#define .*(?:\\\n.*)*$", "", text, flags=re.M)
for name, body in macros:
    text = re.sub(r"\b%s\b" % name, lambda m: body.replace("\\\n", "\n"), text)
bad, tables = [], 0
for name, body in re.findall(r"static const cmd_option (\w+)\[\] = \{(.*?)\n\};", text, re.S):
    tables += 1
    opts = re.findall(r'\{\.name = "([^"]+)", \.key = (\'.\'|\w+)', body)
    for what, items in (("key", [k for _, k in opts]), ("name", [n for n, _ in opts])):
        dup = sorted({x for x in items if items.count(x) > 1})
        if dup:
            bad.append(f"{name}: {what} {', '.join(dup)} more than once")
print("\n".join(bad))
sys.exit(1 if bad or tables < 10 else 0)
PY
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}
