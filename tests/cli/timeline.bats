#!/usr/bin/env bats
# kmrun run --timeline FILE: the run's timeline in the Chrome Trace Event
# format (Perfetto, chrome://tracing).  timeline_check.py checks the
# structure: every span closed, none overlapping another on its track,
# flows paired, every time within the run, the tracks named.

load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    check=$KMRUN_TOP/tests/cli/timeline_check.py
}

# timeline DIR NAME NEED...: runs programs/DIR/NAME.yaml with and without
# --timeline; the two runs' JSON are the same (their images' hashes too),
# and the file's structure holds with every NEED (timeline_check.py).
timeline() {
    local m=$KMRUN_TOP/programs/$1/$2.yaml
    shift 2
    run --separate-stderr kmrun run --run-dir "$runs" "$m"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    printf '%s\n' "$output" | "$KMRUN_TOP/tests/golden/normalize" >"$BATS_TEST_TMPDIR/plain.json"
    printf '%s\n' "$output" | jq -S .images >"$BATS_TEST_TMPDIR/plain.images"
    run --separate-stderr kmrun run --run-dir "$runs" --timeline "$BATS_TEST_TMPDIR/t.json" "$m"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    "$KMRUN_TOP/tests/golden/normalize" <"$BATS_TEST_TMPDIR/run.json" >"$BATS_TEST_TMPDIR/timed.json"
    diff -u "$BATS_TEST_TMPDIR/plain.json" "$BATS_TEST_TMPDIR/timed.json"
    # and the images are the same bytes (the timeline watches, never patches)
    jq -S .images "$BATS_TEST_TMPDIR/run.json" | diff -u "$BATS_TEST_TMPDIR/plain.images" -
    python3 "$check" "$BATS_TEST_TMPDIR/t.json" "$BATS_TEST_TMPDIR/run.json" "$@"
}

@test "timeline: twelve cores (08 twelve) — spans nest, markers, the same run as without" {
    timeline 08_parallel_thread twelve main:kmx_main main:kmx_serve function:init_part \
        function:checksum_part parallel:kmx_parallel parallel:kmx_parallel_all \
        "wait:join (kmx_parallel)" "wait:join (kmx_parallel_all)" marker:*
    # every core of the three clusters has a track
    [ "$(jq '[.traceEvents[] | select(.name == "thread_name" and .pid <= 3)] | length' \
        "$BATS_TEST_TMPDIR/t.json")" -eq 12 ]
}

@test "timeline: the ring (03) — submits, waits, handlers, passes, flows" {
    timeline 03_ring program main:kmx_main ring:kmx_submit wait:kmx_wait marker:* \
        handler:collatz dispatcher:pass ph=s ph=f
    local t=$BATS_TEST_TMPDIR/t.json
    # every submit's command reaches its handler, and every command's event its pass
    local submits flows
    submits=$(jq '[.traceEvents[] | select(.name == "kmx_submit")] | length' "$t")
    flows=$(jq '[.traceEvents[] | select(.ph == "s")] | length' "$t")
    [ "$submits" -gt 0 ]
    [ "$flows" -eq $((2 * submits)) ]
    # the grid and the dispatcher are processes of their own, named
    jq -e '[.traceEvents[] | select(.name == "process_name") | .args.name] |
        index("Tensix grid") and index("dispatcher (cluster 0)")' "$t"
}

@test "timeline: ports and pulls (10 latency, 11 one) — their waits and runs" {
    timeline 10_x280_ports latency wait:kmx_port_told ports:kmx_port_run handler:* ph=f
    timeline 11_pull one ports:kmx_pull_run function:serve_pulls handler:* ph=f
}

@test "timeline: the same file every run (modeled time)" {
    local m=$KMRUN_TOP/programs/03_ring/program.yaml
    kmrun run --run-dir "$runs" --timeline "$BATS_TEST_TMPDIR/a.json" "$m" >/dev/null
    kmrun run --run-dir "$runs" --timeline "$BATS_TEST_TMPDIR/b.json" "$m" >/dev/null
    cmp "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
}

@test "timeline: a thread that traps — kmx_main, never returning, ends at the stop" {
    run --separate-stderr kmrun run --run-dir "$runs" --timeline "$BATS_TEST_TMPDIR/t.json" \
        "$KMRUN_TOP/tests/fixtures/hazards/misaligned.yaml"
    [ "$status" -eq 1 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    jq -e '.threads[0].state == "trapped"' "$BATS_TEST_TMPDIR/run.json"
    python3 "$check" "$BATS_TEST_TMPDIR/t.json" "$BATS_TEST_TMPDIR/run.json" main:kmx_main
    # its span ends at the run's end
    [ "$(jq -r --argjson stop "$(jq .device_microseconds "$BATS_TEST_TMPDIR/run.json")" \
        '[.traceEvents[] | select(.name == "kmx_main") | (.ts + .dur) * 1000000 | round] ==
         [$stop * 1000000 | round]' "$BATS_TEST_TMPDIR/t.json")" = true ]
}

@test "timeline: host-fed commands (04) — handlers and their events without a thread's submit" {
    timeline 04_host_fed program handler:* dispatcher:pass ph=f
}

@test "timeline: the checker fails a file with an overlap, an open span, a lone flow" {
    cat >"$BATS_TEST_TMPDIR/bad.json" <<'JSON'
{"traceEvents":[
{"ph":"M","pid":1,"tid":1001,"name":"process_name","args":{"name":"c"}},
{"ph":"M","pid":1,"tid":1001,"name":"thread_name","args":{"name":"t"}},
{"ph":"X","pid":1,"tid":1001,"name":"a","cat":"x","ts":1.0,"dur":2.0},
{"ph":"X","pid":1,"tid":1001,"name":"b","cat":"x","ts":2.0,"dur":2.0},
{"ph":"B","pid":1,"tid":1001,"name":"c","cat":"x","ts":5.0},
{"ph":"s","pid":1,"tid":1001,"name":"f","cat":"flow","ts":1.5,"id":7},
{"ph":"X","pid":2,"tid":1001,"name":"d","cat":"x","ts":1.0,"dur":20.0},
{"ph":"X","pid":0,"tid":0,"name":"e","cat":"x","ts":1.0,"dur":2.0}
]}
JSON
    echo '{"device_microseconds": 10}' >"$BATS_TEST_TMPDIR/r.json"
    run python3 "$check" "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/r.json"
    [ "$status" -eq 1 ]
    [[ $output == *"overlaps"* ]]
    [[ $output == *"never closed"* ]]
    [[ $output == *"flow 7"* ]]
    [[ $output == *"tid 1001 is in processes 1 and 2"* ]]
    [[ $output == *"pid or tid 0"* ]]
    [[ $output == *"ends after the run"* ]]
}

@test "timeline: --thread host is a usage error (exit 2), nothing run" {
    run --separate-stderr kmrun run --thread host --timeline "$BATS_TEST_TMPDIR/t.json" \
        "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 2 ]
    [[ $stderr == *"--timeline needs the simulated card"* ]]
    [ ! -e "$BATS_TEST_TMPDIR/t.json" ]
}

@test "timeline: a file that cannot be created is a system error after the results (exit 4)" {
    run --separate-stderr kmrun run --run-dir "$runs" --timeline /nonexistent/dir/t.json \
        "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 4 ]
    [[ $stderr == *"the timeline was not written: cannot create '/nonexistent/dir/t.json'"* ]]
    printf '%s\n' "$output" | jq -e '.threads[0].state == "returned"'
}
