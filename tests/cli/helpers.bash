# tests/cli/helpers.bash: shared by the command-line tests (`load helpers`).
#
# tests/run exports KMRUN_BUILD and puts its bin/ first on PATH and a
# temporary KMRUN_CACHE; run alone (`bats tests/cli`), the tests use
# build/ and a cache of their own, never the user's.

# shellcheck disable=SC2034,SC2154 # bats sets output and stderr; tests use the rest
bats_require_minimum_version 1.5.0

KMRUN_TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
if [ -z "${KMRUN_BUILD:-}" ]; then
    export KMRUN_BUILD=$KMRUN_TOP/build
    export PATH=$KMRUN_BUILD/bin:$PATH
fi
if [ -z "${KMRUN_CACHE:-}" ]; then
    export KMRUN_CACHE=$BATS_RUN_TMPDIR/cache
fi
KMRUN_VERSION=$(cat "$KMRUN_TOP/VERSION")

# The commands `kmrun --help` lists, in its order.
kmrun_commands() {
    kmrun --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'
}

# expect stdout|stderr: compares the text on stdin with $output or $stderr
# of the last `run --separate-stderr`, as git's test_cmp does: a unified
# diff of expected against actual, and failure, when they differ.
expect() {
    local actual
    case $1 in
    stdout) actual=$output ;;
    stderr) actual=$stderr ;;
    *) echo "expect: stdout or stderr, not '$1'" >&2; return 2 ;;
    esac
    cat >"$BATS_TEST_TMPDIR/expect.$1"
    if [ -n "$actual" ]; then printf '%s\n' "$actual"; fi >"$BATS_TEST_TMPDIR/actual.$1"
    diff -u "$BATS_TEST_TMPDIR/expect.$1" "$BATS_TEST_TMPDIR/actual.$1"
}

# The usage line kmrun prints after a usage error of its own.
KMRUN_USAGE='usage: kmrun [--version] [--help] <command> [<args>]'

# For the tests of `kmrun run` (a test's setup sets $runs):
# run_json ARGS...: kmrun run --run-dir $runs ARGS, stdout in $output,
# stderr in $stderr, status in $status.
run_json() {
    run --separate-stderr kmrun run --run-dir "$runs" "$@"
}

# returns MANIFEST WORDS: runs $example/MANIFEST (a test's setup sets
# $example and $runs): its thread returned with code 0 and the result words
# WORDS (as jq's @csv), and no Tensix core's port wait gave up.  The
# examples' programs check their own work, so this is their pass.
returns() {
    run_json "$example/$1"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.threads[0] | [.state, .error, .code] | @csv')" = '"returned","none",0' ] ||
        { field '.threads[0]'; false; }
    [ "$(field '.threads[0].words | @csv')" = "$2" ] || { field '.threads[0].words'; false; }
    [ "$(field '.port_waits | length')" = 0 ]
}

# recorded DIR NAME: the words programs/DIR/NAME.yaml's first thread
# returns as tests/golden records them, comma-separated (golden.bats holds
# the whole run to its record; an example's test checks the same figures
# beside what it checks of the run, without a copy of its own to re-derive).
recorded() {
    jq -r '.threads[0].words | @csv' "$KMRUN_TOP/tests/golden/${1}_$2.json"
}

# field FILTER: jq -r FILTER on the last run's JSON.
field() {
    jq -r "$1" <<<"$output"
}

# stable JSON: the run's JSON without what may differ between two runs of
# the same inputs.
stable() {
    jq -S 'del(.run, .run_dir, .wall_seconds)' <<<"$1"
}

# cc ... against the build: the archives, HOST_LDLIBS and -rdynamic (the
# grid loads the handlers' object, which calls back into the program); the
# build's sanitizers when it has them (build-asan: MODE=asan's flags).
build_api() { # build_api SOURCE OUT
    local mode=release opt libs
    case ${KMRUN_BUILD##*/} in build-*) mode=${KMRUN_BUILD##*/build-} ;; esac
    opt=$(make -s --no-print-directory -C "$KMRUN_TOP" MODE="$mode" print-OPT)
    libs=$(make -s --no-print-directory -C "$KMRUN_TOP" print-HOST_LDLIBS)
    # shellcheck disable=SC2086 # the flags are words
    cc -std=c11 -Wall -Wextra -Werror $opt -I"$KMRUN_TOP/include" "$1" -o "$2" \
        "$KMRUN_BUILD/libkm.a" "$KMRUN_BUILD/libsim.a" "$KMRUN_BUILD/libks.a" $libs -rdynamic
}

# py_env: this shell's environment made the one tests/python/run gives an
# interpreter (the checkout's package over the build's libkmrun.so).
py_env() {
    local top=$KMRUN_TOP build=$KMRUN_BUILD
    # shellcheck source=tests/python/env.sh
    . "$KMRUN_TOP/tests/python/env.sh"
}
