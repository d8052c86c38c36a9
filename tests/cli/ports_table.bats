#!/usr/bin/env bats
# X280 ports on the host side: the dealing in the run JSON (`ports`), the
# port waits (`port_waits`), the ports settings and table the host writes
# into each cluster's local memory (read back by the fixtures' thread,
# tests/fixtures/ports/README), the host fallback, `kmrun check` refusing
# a program with ports, the schema and `validate --json`'s dealing.  The
# dealing's rules are in tests/unit/lib/manifest/ports_test.c.

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixtures=$KMRUN_TOP/tests/fixtures/ports
    schema=$KMRUN_TOP/schemas/run.schema.json
    check=$KMRUN_TOP/tests/cli/schema_check.py
}

# valid: the last run's JSON follows schemas/run.schema.json.
valid() {
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    /usr/bin/python3 "$check" "$schema" "$BATS_TEST_TMPDIR/run.json"
}

# dealt: each X280 core of `ports` as "cluster x280_core first-last" (or
# "cluster x280_core -" when it serves none), checking that its cores run
# without a gap.
dealt() {
    field '.ports[] | "\(.cluster) \(.x280_core) " +
        (if (.cores | length) == 0 then "-"
         elif .cores == [range(.cores[0]; .cores[-1] + 1)] then "\(.cores[0])-\(.cores[-1])"
         else "gaps \(.cores)" end)'
}

# table CLUSTER: what the thread on CLUSTER copied from its local memory,
# as the host wrote it: the ports settings (enabled served window_first
# cores control), then the table as runs of cores with the same X280 core
# and consecutive windows ("first-last x280_core window-window", or
# "first-last none" for cores it does not serve: x280_core 0xFF, window 0),
# then the tiles of six cores.  "table zero" when every entry is zero.
# The run is the one whose JSON is in $json.
table() {
    local id
    id=$(jq -r .run <<<"$json")
    kmrun read-region --run-dir "$runs" --run "$id" --cluster "$1" --format raw out |
        /usr/bin/python3 -c '
import struct, sys
b = sys.stdin.buffer.read()
enabled, served, first, cores, control = struct.unpack_from("<IIIIQ", b, 0)
print(enabled, served, first, cores, hex(control))
entries = [struct.unpack_from("<BBBBHH", b, 64 + 8 * core) for core in range(120)]
if not any(any(e) for e in entries):
    print("table zero")
    sys.exit(0)
runs = []
for core, (x280, x, y, r0, window, r1) in enumerate(entries):
    key = "none" if x280 == 0xFF and window == 0 else x280
    last = runs[-1] if runs else None
    if last and last[2] == key and (key == "none" or window == last[4] + 1):
        last[1], last[4] = core, window
    else:
        runs.append([core, core, key, window, window])
for a, z, key, w0, w1 in runs:
    print(f"{a}-{z} none" if key == "none" else f"{a}-{z} {key} {w0}-{w1}")
print("tiles", " ".join(f"{c}:{entries[c][1]},{entries[c][2]}" for c in (0, 6, 7, 11, 12, 119)))
'
}

TILES="tiles 0:1,2 6:7,2 7:10,2 11:14,2 12:1,3 119:14,11"

@test "ports: default on one cluster: four X280 cores of thirty, in the JSON and in its table" {
    run_json "$fixtures/one.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # ports are live: no warning
    rest=$(grep -v "ASan doesn't fully support makecontext/swapcontext" <<<"$stderr" || true)
    [ -z "$rest" ]
    valid
    [ "$(field '.port_waits | @json')" = '[]' ]
    json=$output
    output=$(dealt)
    expect stdout <<'END'
1 0 0-29
1 1 30-59
1 2 60-89
1 3 90-119
END
    output=$(table 1)
    expect stdout <<END
1 120 56 120 0x140
0-29 0 56-85
30-59 1 86-115
60-89 2 116-145
90-119 3 146-175
$TILES
END
}

@test "ports: default on three clusters: twelve X280 cores of ten; each cluster ranks its own windows" {
    run_json "$fixtures/three.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    valid
    [ "$(field '.port_waits | length')" = 0 ]
    json=$output
    output=$(dealt)
    expect stdout <<'END'
1 0 0-9
1 1 10-19
1 2 20-29
1 3 30-39
2 0 40-49
2 1 50-59
2 2 60-69
2 3 70-79
3 0 80-89
3 1 90-99
3 2 100-109
3 3 110-119
END
    output=$(table 1)
    expect stdout <<END
1 40 56 40 0x140
0-9 0 56-65
10-19 1 66-75
20-29 2 76-85
30-39 3 86-95
40-119 none
$TILES
END
    output=$(table 2)
    expect stdout <<END
1 40 56 80 0x140
0-39 none
40-49 0 56-65
50-59 1 66-75
60-69 2 76-85
70-79 3 86-95
80-119 none
$TILES
END
    output=$(table 3)
    expect stdout <<END
1 40 56 120 0x140
0-79 none
80-89 0 56-65
90-99 1 66-75
100-109 2 76-85
110-119 3 86-95
$TILES
END
}

@test "ports: a serve map deals only the cores it names; a cluster's windows follow grid order" {
    run_json "$fixtures/serve.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    valid
    [ "$(field '[.ports[] | [.cluster, .x280_core, .cores]] | @json')" = \
        '[[2,0,[60]],[2,1,[0,7]],[2,2,[]],[2,3,[]],[3,0,[]],[3,1,[]],[3,2,[119]],[3,3,[]]]' ]
    json=$output
    output=$(table 2)
    expect stdout <<END
1 3 56 61 0x140
0-0 1 56-56
1-6 none
7-7 1 57-57
8-59 none
60-60 0 58-58
61-119 none
$TILES
END
    output=$(table 3)
    expect stdout <<END
1 1 56 120 0x140
0-118 none
119-119 2 56-56
$TILES
END
}

@test "ports: without ports, ports is null, port_waits empty, the settings zero, every core none" {
    run_json "$fixtures/none.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    valid
    [ "$(field '[.ports, .port_waits] | @json')" = '[null,[]]' ]
    json=$output
    output=$(table 2)
    expect stdout <<END
0 0 0 0 0x0
0-119 none
$TILES
END
}

@test "ports: a pull alone deals by default, and nothing is said not to be live" {
    run_json "$fixtures/pull.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    valid
    rest=$(grep -v "ASan doesn't fully support makecontext/swapcontext" <<<"$stderr" || true)
    [ -z "$rest" ]
    json=$output
    output=$(dealt)
    expect stdout <<'END'
3 0 0-29
3 1 30-59
3 2 60-89
3 3 90-119
END
    [ "$(table 3 | head -n 1)" = "1 120 56 120 0x140" ]
}

@test "ports: the host fallback runs a program with ports as before: the dealing listed, no waits" {
    run_json --thread host "$fixtures/three.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ -z "$stderr" ]
    valid
    [ "$(field '.backend, .times')" = "host
host" ]
    [ "$(field '[.threads[].state] | @csv')" = '"returned","returned","returned"' ]
    [ "$(field '.ports | length')" = 12 ]
    [ "$(field '.ports[4] | [.cluster, .x280_core, .cores[0], .cores[-1]] | @csv')" = 2,0,40,49 ]
    [ "$(field '.port_waits | @json')" = '[]' ]
}

@test "ports: kmrun check refuses a program with X280 ports, before running anything" {
    run -2 --separate-stderr kmrun check --run-dir "$runs" "$fixtures/one.yaml"
    [ -z "$output" ]
    [ "$stderr" = "kmrun: cannot check 'ports_one': it uses X280 ports (ports:), which need the card; the host fallback cannot run them" ]
    [ ! -e "$runs" ]
    run -2 --separate-stderr kmrun check --json --run-dir "$runs" "$fixtures/serve.yaml"
    [ -z "$output" ]
    [[ $stderr == "kmrun: cannot check 'ports_serve': it uses X280 ports (ports:)"* ]]
}

@test "ports: kmrun check refuses a program with a pull, which runs over the ports" {
    run -2 --separate-stderr kmrun check --run-dir "$runs" "$fixtures/pull.yaml"
    [ "$stderr" = "kmrun: cannot check 'ports_pull': it uses the pull (pull:) over X280 ports, which need the card; the host fallback cannot run them" ]
    [ ! -e "$runs" ]
}

@test "ports: the run schema checks ports and port_waits" {
    run_json "$fixtures/serve.yaml"
    [ "$status" -eq 0 ]
    good=$output
    bad() {
        jq "$1" <<<"$good" >"$BATS_TEST_TMPDIR/$2.json"
    }
    bad '.ports[0].x280_core = 4' x280_core
    bad '.ports[0].cores = [120]' core
    bad '.ports[0] += {"extra": 1}' extra
    bad 'del(.ports)' missing
    bad 'del(.port_waits)' missing_waits
    bad '.ports = {}' object
    wait='{"core": 5, "handler": "nop", "where": "x280_answer", "why": "limit", "microseconds": 10000.5}'
    bad ".port_waits = [$wait | .where = \"x280_ask\"]" where
    bad ".port_waits = [$wait | .why = \"late\"]" why
    bad ".port_waits = [$wait | del(.microseconds)]" microseconds
    bad ".port_waits = [$wait | .core = 120]" wait_core
    run /usr/bin/python3 "$check" --expect-invalid "$schema" "$BATS_TEST_TMPDIR"/{x280_core,core,extra,missing,missing_waits,object,where,why,microseconds,wait_core}.json
    echo "$output"
    [ "$status" -eq 0 ]
    # and what the card may report follows it
    jq ".port_waits = [$wait, $wait | .handler = null | .where = \"x280_owner\" | .why = \"refused\"]" \
        <<<"$good" >"$BATS_TEST_TMPDIR/waits.json"
    run /usr/bin/python3 "$check" "$schema" "$BATS_TEST_TMPDIR/waits.json"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "ports: validate --json prints the dealing the run uses" {
    run_json "$fixtures/serve.yaml"
    [ "$status" -eq 0 ]
    from_run=$(field '.ports | @json')
    run --separate-stderr kmrun validate --json "$fixtures/serve.yaml"
    [ "$status" -eq 0 ]
    [ "$(field '.ports.kind')" = serve ]
    [ "$(field '.ports.dealing | @json')" = "$from_run" ]
    run --separate-stderr kmrun validate --json "$fixtures/none.yaml"
    [ "$(field '.ports')" = null ]
}
