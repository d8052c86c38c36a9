#!/usr/bin/env bats
# The card's hazards, reproduced by the simulated card (DESIGN.md: "a
# thread that is wrong on the card is wrong here too, loudly and with the
# source line"): stale lines, unflushed writes, a dirty line written back
# over newer data, a misaligned access into a region, a loop that never
# polls the stop, a trap handler that faults, a deadline passed; and the
# start-up checks that fail.
# The threads are in tests/fixtures/hazards/thread/, each saying what it
# returns.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    hazards=$KMRUN_TOP/tests/fixtures/hazards
}

# line_of FILE MARK: the line number of the comment MARK in FILE.
line_of() {
    grep -n "$2" "$1" | head -1 | cut -d: -f1
}

# stuck_at T CORE FILE MARK: thread T of the run's JSON is stuck, its
# core CORE named and listed alone, spinning on the line of MARK in
# $hazards/FILE, with the pc and line in the reset message.
stuck_at() {
    local t=$1 core=$2 file=$3 line pc
    line=$(line_of "$hazards/$file" "$4")
    [ "$(field ".threads[$t] | [.ran, .state, .code, .microseconds, .trap] | @csv")" = \
        'false,"stuck",,,' ] || { field ".threads[$t]"; false; }
    [ "$(field ".threads[$t].stuck | [.core, .source.file, .source.line] | @csv")" = \
        "$core,\"$file\",$line" ] || { field ".threads[$t].stuck"; false; }
    [ "$(field ".threads[$t].stuck | [.cores[] | [.core, .pc, .source.line, .running]] | @json")" = \
        "$(field ".threads[$t].stuck | [[.core, .pc, .source.line, true]] | @json")" ]
    pc=$(printf '0x%x' "$(field ".threads[$t].stuck.pc")")
    [ "$(field ".threads[$t].stuck.detail")" = \
        "core $core did not return within 1 s of the stop flag: it still runs at pc $pc ($file:$line in $(field ".threads[$t].stuck.source.function")), in a loop that never polls the stop (kmx_stop_requested); the cluster needs a reset" ]
}

@test "hazard: DRAM changed behind the cache is not seen through a cached line until kmx_invalidate" {
    run_json "$hazards/stale.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # cached before, after the uncached write (stale), after kmx_invalidate
    [ "$(field '.threads[0].words | @csv')" = 5,5,9 ]
}

@test "hazard: a write through the cache is not in DRAM until kmx_flush or an eviction" {
    run_json "$hazards/unflushed.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # DRAM after the cached write, after kmx_flush, after an eviction
    [ "$(field '.threads[0].words | @csv')" = 0,7,11 ]
}

@test "hazard: a dirty line swept by kmx_invalidate is written back over newer DRAM data" {
    run_json "$hazards/writeback.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # DRAM after the newer write, DRAM after the sweep, the cached value
    [ "$(field '.threads[0].words | @csv')" = 2,1,1 ]
}

@test "hazard: a 64-bit store at offset 4 of a region traps, with its source line" {
    run_json "$hazards/misaligned.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = \
        'false,"trapped","trap",,1' ]
    [ "$(field '.threads[0].trap | [.core, .mcause, .name] | @csv')" = \
        '0,6,"store/AMO address misaligned"' ]
    # mtval: the region's cached address + 4
    [ "$(field '.threads[0].trap.mtval - (.regions[0].bank_address + 70369549484032)')" = 4 ]
    [ "$(field '.threads[0].trap.source | [.file, .line, .function] | @csv')" = \
        "\"thread/misaligned.c\",$(line_of "$hazards/thread/misaligned.c" MISALIGNED),\"kmx_main\"" ]
}

@test "hazard: a stack overflow traps with the error stack and its line, not what it wrote over" {
    run_json "$hazards/overflow.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.state, .error, .code, .where] | @csv')" = '"trapped","stack",,0' ]
    [ "$(field '.threads[0].words | length')" = 0 ]
    # The store that left local memory, below its first byte.
    [ "$(field '.threads[0].trap | [.core, .mcause, .mtval < 134217728] | @csv')" = '0,7,true' ]
    [ "$(field '.threads[0].trap.source | [.file, .line, .function] | @csv')" = \
        "\"thread/overflow.c\",$(line_of "$hazards/thread/overflow.c" OVERFLOW),\"deep\"" ]
}

@test "hazard: a store over the result block fails the thread, said so, its block not believed" {
    run_json "$hazards/overwrite.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.state, .error, .code, .trap] | @csv')" = '"failed","none",,' ]
    [[ "$(field .threads[0].message)" == "the thread's result block was overwritten"* ]]
}

@test "hazard: a loop that never polls the stop ends stuck, with its line; its cached write never lands" {
    run_json --timeout 0.001 "$hazards/stuck.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where, .microseconds] | @csv')" = \
        'false,"stuck","none",,7,' ]
    # The stop at 1 ms, the grace of 1 s after it.
    [ "$(field .device_microseconds)" = 1001000 ]
    line=$(line_of "$hazards/thread/stuck.c" SPIN)
    [ "$(field '.threads[0].stuck | [.core, .source.file, .source.line, .source.function] | @csv')" = \
        "0,\"thread/stuck.c\",$line,\"kmx_main\"" ]
    [[ "$(field .threads[0].stuck.detail)" == "core 0 did not return within 1 s of the stop flag"*"thread/stuck.c:$line"* ]]
    stuck_at 0 0 thread/stuck.c SPIN
    # data[0] = 0xAB went into the cache only: DRAM still holds 0.
    run kmrun read-region --run-dir "$runs" --format u32 --length 4 data
    [ "$output" = 0 ]
}

# A worker core (1-3) that never polls the stop: its core 0 gives up
# waiting for it and writes a final state, but the core still runs; the
# thread is stuck as when core 0 spins, naming that core.
@test "hazard: a worker core spinning in kmx_parallel past the deadline ends stuck, named with its line" {
    run_json "$hazards/stuck_parallel.yaml"
    [ "$status" -eq 1 ]
    stuck_at 0 1 thread/stuck_parallel.c SPIN
    [ "$(field '.threads[0] | [.error, .where] | @csv')" = '"none",2' ]
    # The runtime's end 100 ms after the deadline (1 ms): the stop, then its grace.
    [ "$(field '.device_microseconds > 1100000 and .device_microseconds < 1102000')" = true ]
}

@test "hazard: a spawned function that never polls the stop ends stuck, named with its line" {
    run_json --timeout 0.001 "$hazards/stuck_spawn.yaml"
    [ "$status" -eq 1 ]
    stuck_at 0 2 thread/stuck_spawn.c SPIN
    # The stop at 1 ms, the grace of 1 s after it, as for core 0.
    [ "$(field .device_microseconds)" = 1001000 ]
}

@test "hazard: a core spinning in kmx_parallel_all on twelve cores makes its cluster stuck, the others late" {
    run_json "$hazards/stuck_all.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '[.threads[] | [.cluster, .state]] | @json')" = '[[1,"late"],[2,"stuck"],[3,"late"]]' ]
    stuck_at 1 3 thread/stuck_all.c SPIN
    [ "$(field '[.threads[0, 2].stuck] | @json')" = '[null,null]' ]
}

@test "hazard: a core spinning in a port serve (kmx_port_run) ends stuck, named with its line" {
    run_json "$hazards/stuck_serve.yaml"
    [ "$status" -eq 1 ]
    stuck_at 0 1 thread/stuck_serve.c SPIN
    # kmx_port_run gave up at the deadline: KMX_LATE.
    [ "$(field '.threads[0].words | @csv')" = 4 ]
}

@test "hazard: several cores that never poll the stop are all listed, core 0 named first" {
    run_json --timeout 0.001 "$hazards/stuck_cores.yaml"
    [ "$status" -eq 1 ]
    line0=$(line_of "$hazards/thread/stuck_cores.c" SPIN0)
    line3=$(line_of "$hazards/thread/stuck_cores.c" SPIN3)
    [ "$(field '.threads[0] | [.state, .stuck.core, .stuck.source.line] | @csv')" = "\"stuck\",0,$line0" ]
    [ "$(field '.threads[0].stuck.cores | [.[] | [.core, .source.file, .source.line, .source.function, .running]] | @json')" = \
        "[[0,\"thread/stuck_cores.c\",$line0,\"kmx_main\",true],[3,\"thread/stuck_cores.c\",$line3,\"spin\",true]]" ]
    pc3=$(printf '0x%x' "$(field '.threads[0].stuck.cores[1].pc')")
    [[ "$(field .threads[0].stuck.detail)" == "core 0 did not return within 1 s of the stop flag: it still runs at pc "*"(thread/stuck_cores.c:$line0 in kmx_main), in a loop that never polls the stop (kmx_stop_requested); core 3 did not return either: it still runs at pc $pc3 (thread/stuck_cores.c:$line3 in spin); the cluster needs a reset" ]]
    # stuck.cores is in the schema.
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
}

@test "hazard: a trap handler that faults too loops until the run finds the thread stuck, named as a trap loop" {
    # 10 s of modeled time to the stop, 1 s of grace: 1.1e10 traps, which
    # took over a minute to run one by one; a trap loop is parked, so the
    # run ends at once (the timeout only keeps a regression from hanging).
    run --separate-stderr timeout 30 kmrun run --run-dir "$runs" --timeout 10 "$hazards/trap_loop.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where, .trap] | @csv')" = \
        'false,"stuck","none",,3,' ]
    [ "$(field .device_microseconds)" = 11000000 ]
    [ "$(field '.threads[0].stuck | [.core, .pc, .source] | @csv')" = '0,16,' ]
    [ "$(field .threads[0].stuck.detail)" = "core 0 did not return within 1 s of the stop flag: it traps at pc 0x10 again and again (instruction access fault), its trap handler (mtvec) being where it traps; the cluster needs a reset" ]
}

@test "hazard: a loop that polls kmx_stop_requested ends late at its deadline" {
    run_json "$hazards/late.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = \
        'false,"late","none",0,2' ]
    [ "$(field '.threads[0].words | @csv')" = 1 ]
    [ "$(field '.threads[0].microseconds >= 1000 and .threads[0].microseconds < 1010')" = true ]
}

# The start-up checks catch what no manifest can produce, so the loader
# damages what it writes: KMRUN_SIM_FAULT (device/sim/README.md, "Load
# and run"; a test-only hook).
@test "start-up: an argument block that is not this run's fails with args" {
    KMRUN_SIM_FAULT=args run_json "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = 'false,"args","args",,0' ]
}

@test "start-up: a region out of range fails with region" {
    KMRUN_SIM_FAULT=region run_json "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.state, .error, .code] | @csv')" = '"region","region",' ]
}

@test "start-up: a region in another bank, or a bank check line that differs, fails with bank" {
    KMRUN_SIM_FAULT=bank run_json "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.state, .error, .code] | @csv')" = '"bank","bank",' ]
    KMRUN_SIM_FAULT=check run_json "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.state, .error, .code] | @csv')" = '"bank","bank",' ]
    # The region was never written: the thread did not start.
    run kmrun read-region --run-dir "$runs" --format u32 --offset 4 --length 4 out
    [ "$output" = 0 ]
}

@test "start-up: a ring line the runtime cannot use fails with ring" {
    KMRUN_SIM_FAULT=ring run_json "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.state, .error, .code] | @csv')" = '"failed","ring",' ]
}

@test "start-up: an unknown KMRUN_SIM_FAULT is a usage error" {
    KMRUN_SIM_FAULT=nonsense run_json "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 2 ]
    [[ $stderr == *"unknown KMRUN_SIM_FAULT 'nonsense'"* ]]
}
