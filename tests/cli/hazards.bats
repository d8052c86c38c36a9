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
    # data[0] = 0xAB went into the cache only: DRAM still holds 0.
    run kmrun read-region --run-dir "$runs" --format u32 --length 4 data
    [ "$output" = 0 ]
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
