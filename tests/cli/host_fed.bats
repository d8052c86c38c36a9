#!/usr/bin/env bats
# Host-fed programs: a manifest's `commands` go through the host ring to
# the dispatcher and the Tensix grid, in order, each waited for unless it
# says `wait: false`; the run's JSON lists each one's handle, event,
# result word and modeled time (programs/04_host_fed/README.md).

# shellcheck disable=SC2154 # output, stderr: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    program=$KMRUN_TOP/programs/04_host_fed/program.yaml
}

@test "host-fed: 04_host_fed's commands end as its README predicts" {
    run_json "$program"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # (but for the one line ASan prints at the grid's first stack switch
    # in a MODE=asan build: device/sim/README.md, "ASan")
    rest=$(grep -v "ASan doesn't fully support makecontext/swapcontext" <<<"$stderr" || true)
    [ -z "$rest" ]
    [ "$(field '.threads | length')" = 0 ]
    [ "$(field '.commands | length')" = 6 ]
    # index, handler, handle, event, reason, result: fill, then sum gives
    # 3 * 1024; the same sum without `result` gives null; weigh (the
    # program's kernel) gives 3 * 1024 * 1025 / 2.
    [ "$(field '.commands[] | [.index, .handler, .handle, .event, .reason, .result] | @csv')" = \
'0,"fill",1,"done",0,
1,"sum",2,"done",0,3072
2,"sum",3,"done",0,
3,"spend",4,"done",0,
4,"nop",5,"done",0,
5,"weigh",6,"done",0,1574400' ]
    [ "$(field '[.commands[].microseconds > 0] | all')" = true ]
    # spend's 20 us are in its modeled time.
    [ "$(field '.commands[3].microseconds >= 20')" = true ]
}

@test "host-fed: the README's JSON is what the program gives" {
    run_json "$program"
    [ "$status" -eq 0 ]
    readme=$KMRUN_TOP/programs/04_host_fed/README.md
    # The README's "commands" block, between its ```json fences.
    want=$(awk '/^```json/ { on = 1; next } /^```/ { on = 0 } on' "$readme")
    diff -u <(jq -S . <<<"$want") <(field '{commands, device_microseconds}' | jq -S .)
}

@test "host-fed: wait: false submits the next command at once" {
    run_json "$program"
    [ "$status" -eq 0 ]
    spend=$(field '.commands[3].microseconds')
    nop=$(field '.commands[4].microseconds')
    # nop went in while spend ran, and ended first.
    [ "$(jq -n "$nop < $spend")" = true ]
    not_waited=$(field .device_microseconds)
    # The same program with spend waited for runs longer.
    sed 's/^    wait: false$//' "$program" >"$BATS_TEST_TMPDIR/waited.yaml"
    cp -r "$KMRUN_TOP/programs/04_host_fed/kernels" "$BATS_TEST_TMPDIR/"
    [ "$(grep -c '^ *wait: false' "$BATS_TEST_TMPDIR/waited.yaml")" = 0 ]
    run_json "$BATS_TEST_TMPDIR/waited.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field "[.commands[].event] | unique | @csv")" = '"done"' ]
    [ "$(jq -n "$(field .device_microseconds) > $not_waited")" = true ]
}

@test "host-fed: result is null without result: true" {
    run_json "$program"
    [ "$status" -eq 0 ]
    [ "$(field '[.commands[] | select(.handler == "sum")] | map(.result) | @json')" = '[3072,null]' ]
}

@test "host-fed: the same program gives the same JSON twice, schema-valid" {
    run_json "$program"
    [ "$status" -eq 0 ]
    first=$output
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
    run_json "$program"
    [ "$status" -eq 0 ]
    diff -u <(stable "$first") <(stable "$output")
}

@test "host-fed: an unknown handler is the manifest's error, before any run" {
    sed 's/handler: nop/handler: nope/' "$program" >"$BATS_TEST_TMPDIR/bad.yaml"
    cp -r "$KMRUN_TOP/programs/04_host_fed/kernels" "$BATS_TEST_TMPDIR/"
    run_json "$BATS_TEST_TMPDIR/bad.yaml"
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ $stderr == *nope* ]]
}

@test "host-fed: at --timeout a command without its event is null, status 1" {
    printf 'name: slow\ncommands:\n  - handler: spend\n    args: [500000]\n  - handler: nop\n' \
        >"$BATS_TEST_TMPDIR/slow.yaml"
    run_json --timeout 0.0001 "$BATS_TEST_TMPDIR/slow.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.commands[] | [.handle, .event, .reason, .result, .microseconds] | @csv')" = \
'1,,,,
,,,,' ]
    [ "$(field .device_microseconds)" = 100 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
}

@test "host-fed: commands rejected busy go in again after the wake and all end done" {
    {
        echo 'name: busy'
        echo 'commands:'
        for _ in $(seq 24); do
            printf '  - handler: spend\n    group: {first: 0, count: 1}\n    args: [1000]\n    wait: false\n'
        done
    } >"$BATS_TEST_TMPDIR/busy.yaml"
    run_json "$BATS_TEST_TMPDIR/busy.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '[.commands[].event] | unique | @csv')" = '"done"' ]
    # More handles than commands: some went in more than once.
    [ "$(field '[.commands[].handle] | max > 24')" = true ]
}
