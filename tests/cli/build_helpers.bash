# What the build and cache tests share (build.bats, cache_promises.bats):
# a fresh cache and a copy of tests/fixtures/build for each test.

load helpers

setup() {
    export KMRUN_CACHE=$BATS_TEST_TMPDIR/cache
    prog=$BATS_TEST_TMPDIR/prog
    cp -R "$KMRUN_TOP/tests/fixtures/build" "$prog"
}

# json EXPR: evaluates a Python expression over the JSON in $output as `d`.
json() {
    /usr/bin/python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' "$1" <<<"$output"
}

# build [OPTIONS]: kmrun build of the copy, stdout and stderr apart.
build() {
    run --separate-stderr kmrun build "$@" "$prog/program.yaml"
}

# entries: how many entries the cache holds.
entries() {
    kmrun cache stats --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["entries"])'
}
