#!/usr/bin/env bats
# Every script of bench/ (each executable file directly in the folder, so
# a new one is held too) says how to run it and what it measures: --help
# and -h print "usage: bench/NAME ..." and a description and exit 0, at
# once and before any work (their TMPDIR does not exist: a script that
# makes its temporary folder fails, as one that runs past 10 s); an
# unknown option exits 2 with the usage on standard error, before any
# work too.  The shell scripts' text is their
# header comment (bench/lib.sh, bench_help); bench/fidelity's, argparse's.
# Never a timing: bench_speed.bats holds bench/speed's own usage line.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

# The scripts, one name a line.
bench_scripts() {
    local f
    for f in "$KMRUN_TOP"/bench/*; do
        if [ -f "$f" ] && [ -x "$f" ]; then echo "${f##*/}"; fi
    done
}

# bench NAME ARG...: bench/NAME ARG... with a TMPDIR that does not exist,
# at most 10 s; output, stderr and status as run's.
bench() {
    local name=$1
    shift
    run --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/none" \
        timeout 10 "$KMRUN_TOP/bench/$name" "$@"
}

@test "bench/ holds the scripts this test reads" {
    run bench_scripts
    [ "${#lines[@]}" -ge 13 ]
    [[ " ${lines[*]} " == *" iss "* ]]
    [[ " ${lines[*]} " == *" fidelity "* ]]
    [[ " ${lines[*]} " != *" lib.sh "* ]]
}

@test "every bench script: --help and -h print its usage and what it measures, exit 0, before any work" {
    local name opt n bad=""
    for name in $(bench_scripts); do
        for opt in --help -h; do
            bench "$name" "$opt"
            n=$(grep -c . <<<"$output" || true)
            if [ "$status" -ne 0 ] || [ "${lines[0]}" = "${lines[0]#"usage: bench/$name"}" ] ||
                [ "$n" -lt 5 ] || [ -n "$stderr" ]; then
                bad+="bench/$name $opt: status $status, $n lines, first '${lines[0]:-}', stderr '$stderr'"$'\n'
            fi
        done
    done
    [ -z "$bad" ] || { echo "$bad"; false; }
}

@test "every bench script: --help's description is its own, not another's" {
    local name bad=""
    for name in $(bench_scripts); do
        bench "$name" --help
        # The header (or docstring) opens "bench/NAME: ...".
        grep -q "^bench/$name: " <<<"$output" || bad+="bench/$name"$'\n'
    done
    [ -z "$bad" ] || { echo "no line 'bench/NAME: ' after the usage:"; echo "$bad"; false; }
}

@test "every bench script: an unknown option exits 2 with the usage on stderr, before any work" {
    local name bad=""
    for name in $(bench_scripts); do
        bench "$name" --no-such-option
        if [ "$status" -ne 2 ] || [ -n "$output" ] ||
            ! grep -q "^usage: bench/$name" <<<"$stderr"; then
            bad+="bench/$name: status $status, stdout '$output', stderr '$stderr'"$'\n'
        fi
        # The shell scripts' own message; bench/fidelity's is argparse's.
        if [ "$(head -c 20 "$KMRUN_TOP/bench/$name")" != "#!/usr/bin/env pytho" ] &&
            ! grep -qx "bench/$name: unknown option '--no-such-option'" <<<"$stderr"; then
            bad+="bench/$name: no \"unknown option\" line: '$stderr'"$'\n'
        fi
    done
    [ -z "$bad" ] || { echo "$bad"; false; }
}
