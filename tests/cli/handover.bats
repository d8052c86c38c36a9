#!/usr/bin/env bats
# The hand-over checker's user side: --check-handover (run, check) and
# the manifest's check_handover turn it on, a key that is not a boolean is
# a positioned error, the host fallback says it does not check, and the
# run JSON's `handover` (null off, a list on) follows the schema.  The
# naming and the diagnostic lines are in tests/unit/lib/run/handover_test.c; the
# hazards themselves, found end to end, come with the simulator's side.

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    hello=$KMRUN_TOP/programs/01_hello
    schema=$KMRUN_TOP/schemas/run.schema.json
    check=$KMRUN_TOP/tests/cli/schema_check.py
}

# hello_with VALUE: 01_hello with `check_handover: VALUE` (no key for
# "none"), its path in $manifest.
hello_with() {
    manifest=$BATS_TEST_TMPDIR/program.yaml
    {
        echo "name: hello"
        if [ "$1" != none ]; then echo "check_handover: $1"; fi
        echo "threads:"
        echo "  - cluster: 1"
        echo "    sources: [$hello/thread/hello.c]"
        echo "    regions: {out: 4KiB}"
        echo "    words: [7, 6]"
    } >"$manifest"
}

valid() {
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    /usr/bin/python3 "$check" "$schema" "$BATS_TEST_TMPDIR/run.json"
}

NOTE="kmrun: note: the host fallback does not check hand-overs (its cache copies are emulated but not tracked line by line); run on the simulated card (--thread sim) to check them"

@test "handover: off, the run JSON's handover is null and nothing more is printed" {
    run_json "$hello/program.yaml"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(field '.handover')" = null ]
    valid
}

@test "handover: --check-handover on a clean program: an empty list, nothing on stderr, exit 0" {
    run_json --check-handover "$hello/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ -z "$stderr" ]
    [ "$(field '.handover | @json')" = '[]' ]
    [ "$(field '.threads[0].state')" = returned ]
    valid
}

@test "handover: check_handover: true turns it on, false leaves it to the flag" {
    hello_with true
    run_json "$manifest"
    [ "$status" -eq 0 ]
    [ "$(field '.handover | @json')" = '[]' ]
    hello_with false
    run_json "$manifest"
    [ "$(field '.handover')" = null ]
    run_json --check-handover "$manifest"
    [ "$(field '.handover | @json')" = '[]' ]
    run --separate-stderr kmrun validate --quiet "$manifest"
    [ "$status" -eq 0 ]
}

@test "handover: check_handover that is not a boolean is a positioned error, exit 2" {
    for value in 1 yes '"true"' '[true]' ''; do
        hello_with "$value"
        run --separate-stderr kmrun validate "$manifest"
        [ "$status" -eq 2 ] || { echo "$value: $status $stderr"; false; }
        [[ "${stderr_lines[0]}" == "$manifest:2:"*": "*"check_handover"*"(expected true or false)" ]] ||
            { echo "$value: ${stderr_lines[0]}"; false; }
        run_json "$manifest"
        [ "$status" -eq 2 ]
        [ -z "$output" ]
    done
}

@test "handover: the manifest schema takes check_handover as a boolean only" {
    hello_with true
    run /usr/bin/python3 "$check" "$KMRUN_TOP/schemas/program.schema.json" "$manifest"
    echo "$output"
    [ "$status" -eq 0 ]
    hello_with '"yes"'
    run /usr/bin/python3 "$check" --expect-invalid "$KMRUN_TOP/schemas/program.schema.json" "$manifest"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "handover: the host fallback says once that it does not check, and runs" {
    run_json --thread host --check-handover "$hello/program.yaml"
    [ "$status" -eq 0 ]
    [ "$stderr" = "$NOTE" ]
    [ "$(field '.handover')" = null ]
    valid
    hello_with true
    run_json --thread host "$manifest"
    [ "$status" -eq 0 ]
    [ "$stderr" = "$NOTE" ]
    run_json --thread host "$hello/program.yaml"
    [ -z "$stderr" ]
}

@test "handover: kmrun check --check-handover runs the card's run with it, agrees, exit 0" {
    run --separate-stderr kmrun check --run-dir "$runs" --check-handover "$hello/program.yaml"
    [ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
    [ -z "$stderr" ]
    [[ "$output" == "kmrun: check: 'hello' agrees"* ]]
    # the sim run's folder keeps a checked JSON, the host run's an unchecked one
    sim=$(jq -r 'select(.backend == "sim") | .handover | @json' "$runs"/2*/result.json)
    host=$(jq -r 'select(.backend == "host") | .handover | @json' "$runs"/2*/result.json)
    [ "$sim" = '[]' ]
    [ "$host" = null ]
}

@test "handover: --check-handover is in run's and check's help" {
    run -0 kmrun help run
    [[ "$output" == *"--check-handover"* ]]
    run -0 kmrun help check
    [[ "$output" == *"--check-handover"* ]]
    run --separate-stderr kmrun run --check-handover=yes "$hello/program.yaml"
    [ "$status" -eq 2 ]
}

@test "handover: the run schema takes findings of every kind and refuses malformed ones" {
    run_json --check-handover "$hello/program.yaml"
    [ "$status" -eq 0 ]
    good=$output
    x280='{"kind": "x280", "cluster": 1, "core": 2, "handler": null, "pc": 420,
           "source": {"file": "thread/sum.c", "line": 42, "function": "kmx_main"}, "microseconds": 1300}'
    handler='{"kind": "handler", "cluster": null, "core": 5, "handler": "fill", "pc": 752,
              "source": null, "microseconds": 1204.5}'
    host='{"kind": "host", "cluster": null, "core": null, "handler": null, "pc": null,
           "source": null, "microseconds": 0}'
    finding="{\"kind\": \"stale_read\", \"region\": \"out\", \"id\": 0, \"cluster\": 1, \"offset\": 4160,
              \"bytes\": 8, \"bank\": 6, \"bank_address\": 16781440, \"end_offset\": 4168,
              \"end_address\": 16781448, \"lines\": 1, \"at\": $x280,
              \"writer\": $handler, \"fill\": $x280, \"missing\": \"kmx_invalidate(0)\"}"
    jq ".handover = [$finding,
                     $finding | .kind = \"stale_shared_read\" | .writer = $x280,
                     $finding | .kind = \"lost_write\" | .missing = \"kmx_flush(1)\",
                     $finding | .kind = \"unflushed_read\" | .fill = null | .at = $host,
                     $finding | .kind = \"latent_read\" | .fill = null | .writer = $host
                              | .end_offset = 1048576 | .lines = 16319,
                     $finding | .region = null | .id = null | .cluster = null | .offset = null
                              | .missing = \"kmx_flush\",
                     $finding | .kind = \"unknown\" | .missing = null]" \
        <<<"$good" >"$BATS_TEST_TMPDIR/all.json"
    run /usr/bin/python3 "$check" "$schema" "$BATS_TEST_TMPDIR/all.json"
    echo "$output"
    [ "$status" -eq 0 ]
    bad() {
        jq ".handover = [$finding | $1]" <<<"$good" >"$BATS_TEST_TMPDIR/$2.json"
    }
    bad '.kind = "stale"' kind
    bad 'del(.missing)' missing
    bad '.missing = "kmx_invalidate_all()"' call
    bad '.at.kind = "tensix"' site
    bad '.at += {"extra": 1}' extra
    bad '.bytes = 65' bytes
    bad '.cluster = 4' cluster
    bad '.lines = 0' lines
    bad 'del(.end_offset)' end
    jq 'del(.handover)' <<<"$good" >"$BATS_TEST_TMPDIR/absent.json"
    run /usr/bin/python3 "$check" --expect-invalid "$schema" \
        "$BATS_TEST_TMPDIR"/{kind,missing,call,site,extra,bytes,cluster,lines,end,absent}.json
    echo "$output"
    [ "$status" -eq 0 ]
}
