#!/usr/bin/env bats
# The cache's remote storage (issue 34) against a real redis-server on a
# free loopback port, nothing persisted, stopped after each test: caches
# that share builds through it get the same bytes and build nothing; a
# value damaged, truncated, foreign or another key's is refused and built
# here; a server killed mid-build, refusing or hung costs its timeouts and
# a counter, never a failed build; `kmrun test` reuses a stored result.
# Without redis-server every test is skipped, and says why.

load build_helpers

setup() {
    command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
        skip "no redis-server or redis-cli (./setup installs redis-server): the remote storage is not tested"
    prog=$BATS_TEST_TMPDIR/prog
    cp -R "$KMRUN_TOP/tests/fixtures/build" "$prog"
    hello=$BATS_TEST_TMPDIR/hello
    cp -R "$KMRUN_TOP/programs/01_hello" "$hello"
    export KMRUN_RUNS=$BATS_TEST_TMPDIR/runs
    unset KMRUN_CACHE
    start_redis
    export KMRUN_REMOTE_STORAGE=redis://127.0.0.1:$port
}

teardown() {
    stop_redis
    if [ -n "${hang_pid:-}" ]; then kill "$hang_pid" 2>/dev/null || true; wait "$hang_pid" 2>/dev/null || true; fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_redis() {
    local tries
    for tries in 1 2 3; do
        port=$(free_port)
        redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
            --dir "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/redis.log" 2>&1 &
        redis_pid=$!
        for _ in $(seq 100); do
            [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && return 0
            kill -0 "$redis_pid" 2>/dev/null || break
            sleep 0.05
        done
        kill "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
    done
    echo "redis-server did not start:" >&2
    cat "$BATS_TEST_TMPDIR/redis.log" >&2
    return 1
}

stop_redis() {
    if [ -n "${redis_pid:-}" ]; then
        kill "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
        redis_pid=
    fi
}

rcli() {
    redis-cli -p "$port" "$@"
}

# cache NAME: KMRUN_CACHE for a cache of this test's.
cache() {
    export KMRUN_CACHE=$BATS_TEST_TMPDIR/cache-$1
}

# counter FIELD: a counter of `kmrun cache stats --json`.
counter() {
    kmrun cache stats --json | jq -r ".$1"
}

# images: each built file's SHA-256 and its bytes' SHA-256 (they must agree).
images() {
    local p
    for p in $(jq -r '.threads[].image.path, .kernels.path' <<<"$output"); do
        sha256sum <"$p" | cut -d' ' -f1
    done
}

@test "two empty caches on one server: the second builds nothing, its files are the first's byte for byte" {
    cache a
    build
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(jq -r .misses <<<"$output")" = 2 ]
    [ "$(counter remote_stored)" = 2 ]
    [ "$(counter remote_misses)" -ge 1 ]
    first=$(images)
    # Two entries and two records, compressed as this kmrun can.
    [ "$(rcli --scan --pattern 'kmrun:1:entry:*' | wc -l)" = 2 ]
    [ "$(rcli --scan --pattern 'kmrun:1:record:*' | wc -l)" = 2 ]
    cache b
    build --verbose
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(jq -r '.misses, .hits' <<<"$output" | paste -sd,)" = 0,2 ]
    [ "$(counter remote_hits)" = 2 ]
    [ "$(counter remote_errors)" = 0 ]
    [ "$(images)" = "$first" ]
    [[ "$stderr" == *"thread on cluster 1: remote hit"* ]]
    [[ "$stderr" == *"kernels"*"remote hit"* ]]
    # The same, again, is local.
    build
    [ "$(counter remote_hits)" = 2 ]
    [ "$(counter hits)" = 4 ]
}

@test "every remote value overwritten with garbage: a third cache builds the same files here" {
    cache a
    build
    first=$(images)
    for k in $(rcli --scan --pattern 'kmrun:1:entry:*'); do rcli set "$k" "garbage" >/dev/null; done
    cache c
    build --verbose
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(jq -r .misses <<<"$output")" = 2 ]
    [ "$(images)" = "$first" ]
    [ "$(counter remote_hits)" = 0 ]
    [ "$(counter remote_errors)" -ge 2 ]
    [[ "$stderr" == *"refused (not a kmrun value"* ]]
    # Built here, stored again: the remote is whole once more.
    cache d
    build
    [ "$(counter remote_hits)" = 2 ]
    [ "$(images)" = "$first" ]
}

@test "a truncated value, one with a flipped payload byte, and a zstd bomb's header are refused" {
    cache a
    build
    first=$(images)
    keys=($(rcli --scan --pattern 'kmrun:1:entry:*'))
    # Truncated: its last half gone (in the server: Lua).
    rcli eval "local v = redis.call('get', KEYS[1]) return redis.call('set', KEYS[1], string.sub(v, 1, math.floor(#v / 2)))" 1 "${keys[0]}" >/dev/null
    # A payload byte flipped: the header intact, its digest not the payload's.
    rcli eval "local v = redis.call('get', KEYS[1]) local n = #v - 2 return redis.call('setrange', KEYS[1], n - 1, string.char((string.byte(v, n) + 1) % 256))" 1 "${keys[1]}" >/dev/null
    cache c
    build --verbose
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(images)" = "$first" ]
    [ "$(counter remote_hits)" = 0 ]
    [ "$(counter remote_errors)" = 2 ]
    [[ "$stderr" == *"truncated"* ]]
    # A header that claims a payload of 4 GiB: refused before anything is allocated.
    key=$(rcli --scan --pattern 'kmrun:1:entry:*' | head -1)
    hex=${key#kmrun:1:entry:}
    printf 'KMRUN-REMOTE 1\n{"key":"%s","kind":"entry","compression":"zstd","bytes":4294967296,"stored_bytes":4,"sha256":"00","files":[]}\nABCD' "$hex" >"$BATS_TEST_TMPDIR/bomb"
    rcli -x set "$key" <"$BATS_TEST_TMPDIR/bomb" >/dev/null
    cache e
    build --verbose
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(images)" = "$first" ]
    [[ "$stderr" == *"its header is damaged"* ]]
}

@test "a key holding another key's entry is refused: the image is built here" {
    cache a
    run --separate-stderr kmrun build "$hello/program.yaml"
    hello_sha=$(jq -r '.threads[0].image.sha256' <<<"$output")
    hello_key=$(jq -r '.threads[0].image.key' <<<"$output")
    build
    prog_key=$(jq -r '.threads[0].image.key' <<<"$output")
    [ "$hello_key" != "$prog_key" ]
    rcli eval "return redis.call('set', KEYS[2], redis.call('get', KEYS[1]))" 2 "kmrun:1:entry:$prog_key" "kmrun:1:entry:$hello_key" >/dev/null
    cache c
    run --separate-stderr kmrun build --verbose "$hello/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(jq -r '.threads[0].image.sha256' <<<"$output")" = "$hello_sha" ]
    [ "$(jq -r '.threads[0].image.cache' <<<"$output")" = miss ]
    [[ "$stderr" == *"refused (it claims another key"* ]]
    [ "$(counter remote_errors)" = 1 ]
    [ "$(counter remote_hits)" = 0 ]
}

@test "the server killed mid-build: the build succeeds, remote_errors counts it" {
    cache a
    # The compiler kills the server: the lookups before it were answered,
    # the stores after it find no one.
    cat >"$BATS_TEST_TMPDIR/cc" <<EOF
#!/bin/sh
kill -9 $redis_pid 2>/dev/null
exec riscv64-unknown-elf-gcc "\$@"
EOF
    chmod +x "$BATS_TEST_TMPDIR/cc"
    KMRUN_CC=$BATS_TEST_TMPDIR/cc build --verbose
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    ! kill -0 "$redis_pid" 2>/dev/null
    [ "$(counter remote_errors)" -ge 1 ]
    [ "$(counter remote_stored)" = 0 ]
    [[ "$stderr" == *"failed"* ]]
    # A dead server from the start: refused connections, a few, then no more.
    cache b
    build --verbose
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(counter remote_errors)" -ge 1 ]
    [[ "$stderr" == *"not asking it again in this command"* ]]
}

@test "a server that accepts and never answers costs one operation timeout" {
    python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
held = []
while True:
    held.append(s.accept()[0])' >"$BATS_TEST_TMPDIR/hang.port" &
    hang_pid=$!
    for _ in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/hang.port" ] && break; sleep 0.05; done
    cache a
    KMRUN_REMOTE_STORAGE="redis://127.0.0.1:$(cat "$BATS_TEST_TMPDIR/hang.port")|connect-timeout=200|operation-timeout=300" build --verbose
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(jq -r .misses <<<"$output")" = 2 ]
    [ "$(counter remote_errors)" = 1 ]
    [[ "$stderr" == *"no answer within 300 ms (operation-timeout)); not asking it again in this command"* ]]
    [[ "$stderr" == *"remote lookup skipped"* ]]
}

@test "read-only: lookups, no stores" {
    cache a
    KMRUN_REMOTE_STORAGE="$KMRUN_REMOTE_STORAGE|read-only" build
    [ "$status" -eq 0 ]
    [ "$(rcli dbsize)" = 0 ]
    [ "$(counter remote_stored)" = 0 ]
    [ "$(counter remote_misses)" -ge 1 ]
}

@test "--remote-storage wins over the environment, a config file names one, and a malformed URL is a usage error" {
    cache a
    KMRUN_REMOTE_STORAGE=redis://127.0.0.1:1 build --remote-storage "redis://127.0.0.1:$port/2"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(rcli -n 2 dbsize)" = 4 ]
    [ "$(rcli -n 0 dbsize)" = 0 ]
    # The project's .kmrun/config, read in the working folder.
    unset KMRUN_REMOTE_STORAGE
    mkdir -p "$BATS_TEST_TMPDIR/work/.kmrun"
    echo "remote_storage = redis://127.0.0.1:$port/3  # db 3" >"$BATS_TEST_TMPDIR/work/.kmrun/config"
    sed -i 's/  # db 3//' "$BATS_TEST_TMPDIR/work/.kmrun/config"
    cache b
    (cd "$BATS_TEST_TMPDIR/work" && kmrun build --verbose "$prog/program.yaml" >/dev/null 2>"$BATS_TEST_TMPDIR/err")
    grep -q 'remote storage redis://127.0.0.1:'"$port"'/3 (.kmrun/config' "$BATS_TEST_TMPDIR/err"
    [ "$(rcli -n 3 dbsize)" = 4 ]
    run --separate-stderr kmrun build --remote-storage 'http://127.0.0.1:1' "$prog/program.yaml"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"invalid remote storage 'http://127.0.0.1:1': not a redis:// or redis+unix:// URL"* ]]
    run --separate-stderr kmrun build --remote-storage "redis://127.0.0.1:$port|colour=blue" "$prog/program.yaml"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"unknown attribute 'colour=blue'"* ]]
}

@test "kmrun test twice with nothing changed: the second reuses the results; --rerun and a change run again" {
    cache a
    run --separate-stderr kmrun test "$hello"
    [ "$status" -eq 0 ] || { echo "$output$stderr"; false; }
    [[ "$output" != *reused* ]]
    runs=$(ls "$KMRUN_RUNS" | grep -vc latest)
    [ "$runs" = 2 ]
    # Another cache on the same server: nothing built, nothing run.
    cache b
    run --separate-stderr kmrun test --junit "$BATS_TEST_TMPDIR/j.xml" "$hello"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^ok   .* \[.*\] (reused) [0-9.]* s$' <<<"$output")" = 2 ]
    [[ "$output" == *"2 passed, 0 failed"* ]]
    [ "$(grep -c '<property name="reused" value="true"/>' "$BATS_TEST_TMPDIR/j.xml")" = 2 ]
    [ "$(counter results_reused)" = 2 ]
    # The same program in another folder (another checkout): the same key.
    mkdir "$BATS_TEST_TMPDIR/elsewhere"
    cp -R "$hello" "$BATS_TEST_TMPDIR/elsewhere/"
    cache c
    run --separate-stderr kmrun test "$BATS_TEST_TMPDIR/elsewhere/hello"
    [ "$(grep -c '(reused)' <<<"$output")" = 2 ]
    cache b
    [ "$(ls "$KMRUN_RUNS" | grep -vc latest)" = "$runs" ]
    run --separate-stderr kmrun test --rerun "$hello"
    [ "$status" -eq 0 ]
    [[ "$output" != *reused* ]]
    # A source changed (its image with it): its key changes, it runs.
    echo '__attribute__((used)) static int changed(int x) { return 3 * x; }' >>"$hello/thread/hello.c"
    run --separate-stderr kmrun test --tap "$hello"
    [ "$status" -eq 0 ]
    [[ "$output" != *reused* ]]
    run --separate-stderr kmrun test --tap "$hello"
    [ "$(grep -c '^ok [0-9]* - .* \[.*\] (reused)$' <<<"$output")" = 2 ]
    # The manifest changed (its expect: too): runs again.
    echo '# changed' >>"$hello/program.yaml"
    run --separate-stderr kmrun test "$hello"
    [[ "$output" != *reused* ]]
}
