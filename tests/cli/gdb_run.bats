#!/usr/bin/env bats
# kmrun run --gdb: a real gdb-multiarch on the simulated card's X280 cores
# (lib/gdb/km_gdb_card.h over device/sim's observers): a breakpoint at a source
# line, a local, a step, another core's thread, watchpoints on a region
# word and on a word another core writes, a trap and a stuck core as
# stops at their lines, Ctrl-C, the end as the process's exit — and the
# run's JSON the same as without the debugger; after it leaves, whatever
# it left (a wild pc), the run ends as the card's would.

# shellcheck disable=SC2154 # output, status: set by run
load helpers
load gdb_helpers

setup() {
    need_gdb
    cd "$BATS_TEST_TMPDIR"
}

@test "gdb run: break at a line, a local, a step, watch a region word and another core's write, switch threads; the JSON as without" {
    local manifest=$KMRUN_TOP/programs/02_parallel_sum/program.yaml
    start_run "$manifest"
    gdb_batch "info threads" "break sum.c:62" "continue" "print j.words" "next" \
        "rwatch -l *j.data" "watch -l j.sum[2]" "delete 1" "continue" "delete 2" "continue" \
        "info threads" "thread 2" "info registers pc" "stepi" "info registers pc" "delete" \
        "continue"
    [ "$status" -eq 0 ]
    # every core a thread, named by cluster and core, halted at the start
    [[ "$output" == *'Thread 4 "c1.3"   _start ()'* ]]
    # the runtime's sources, from the data folder
    [[ "$output" == *$'\n26\t    la gp, __global_pointer$'* ]]
    [[ "$output" == *'Thread 1 "c1.0" hit Breakpoint 1, kmx_main (core=core@entry=0) at thread/sum.c:62'* ]]
    [[ "$output" == *'$1 = 262144'* ]]                       # the local: 1 MiB of words
    [[ "$output" == *$'\n63\t    if (kmx_parallel(sum_chunks, &j) != KMX_OK)'* ]] # next
    # the region's first word, read by core 0's loop (the manifest's fill)
    [[ "$output" == *'Thread 1 "c1.0" hit Hardware read watchpoint 2: -location *j.data'*'Value = 2654435769'* ]]
    # core 2 writes its partial sum into core 0's job: 65536 words of the fill
    [[ "$output" == *'Thread 3 "c1.2" hit Hardware watchpoint 3: -location j.sum[2]'*'New value = 173961102557184'* ]]
    [[ "$output" == *'[Switching to thread 2 (Thread 2)]'* ]]
    pcs=$(printf '%s\n' "$output" | sed -n 's/^pc  *\(0x[0-9a-f]*\).*/\1/p')
    [ "$(printf '%s\n' "$pcs" | wc -l)" -eq 2 ]
    [ "$(printf '%s\n' "$pcs" | head -1)" != "$(printf '%s\n' "$pcs" | tail -1)" ] # stepi moved thread 2
    [[ "$output" == *'[Inferior 1 (Remote target) exited normally]'* ]]
    wait_run
    [ "$run_status" -eq 0 ]
    same_as_plain 0 "$manifest"
}

@test "gdb run: watch a region's word: the store that writes it stops the run, with the old and new values" {
    local manifest=$KMRUN_TOP/programs/08_parallel_thread/program.yaml
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" "$manifest"
    [ "$status" -eq 0 ]
    # the region's first word (IN[0], which core 0's init_part writes), as
    # the cores see it: the cached window of the bank (blackhole.h)
    local at
    at=$(jq -r '.regions[0].bank_address' <<<"$output")
    at=$(printf '0x%x' $((0x400030000000 + at)))
    start_run "$manifest"
    gdb_batch "watch *(unsigned int *)$at" "continue" "delete" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Thread 1 \"c1.0\" hit Hardware watchpoint 1: *(unsigned int *)$at"*"Old value = 0"*"New value = 74565"*"init_part (core=core@entry=0"* ]]
    [[ "$output" == *'[Inferior 1 (Remote target) exited normally]'* ]]
    wait_run
    [ "$run_status" -eq 0 ]
    same_as_plain 0 "$manifest"
}

@test "gdb run: with --timeline too, both observers at once: the timeline is the plain run's, byte for byte" {
    local manifest=$KMRUN_TOP/programs/02_parallel_sum/program.yaml
    start_run --timeline debugged.trace.json "$manifest"
    gdb_batch "break sum.c:49" "continue" "continue" "delete" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'Thread 2 "c1.1" hit Breakpoint 1'* ]]
    wait_run
    [ "$run_status" -eq 0 ]
    same_as_plain 0 --timeline plain.trace.json "$manifest"
    cmp debugged.trace.json plain.trace.json
}

@test "gdb run: a trap is a stop at the trapping line; the run then ends trapped, as without" {
    local manifest=$KMRUN_TOP/tests/fixtures/hazards/misaligned.yaml
    start_run "$manifest"
    gdb_batch "continue" "info registers mcause" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'Thread 1 "c1.0" received signal SIGBUS'*'misaligned.c:12'* ]]
    [[ "$output" == *'[Inferior 1 (Remote target) exited with code 01]'* ]]
    wait_run
    [ "$run_status" -eq 1 ]
    [ "$(jq -r '.threads[0].state' run.out)" = trapped ]
    same_as_plain 1 "$manifest"
}

@test "gdb run: a core the run finds stuck is a stop at its loop; the run then ends stuck, as without" {
    local manifest=$KMRUN_TOP/tests/fixtures/hazards/stuck.yaml
    start_run --timeout 0.001 "$manifest"
    gdb_batch "continue" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'Thread 1 "c1.0" received signal SIGXCPU'*'stuck.c:14'* ]]
    [[ "$output" == *'[Inferior 1 (Remote target) exited with code 01]'* ]]
    wait_run
    [ "$run_status" -eq 1 ]
    [ "$(jq -r '.threads[0].state' run.out)" = stuck ]
    same_as_plain 1 --timeout 0.001 "$manifest"
}

@test "gdb run: a run whose pc the debugger left wild ends in a documented state: stuck in a fetch-fault loop at pc 0" {
    # Before the first instruction the runtime has set no trap handler:
    # the fetch at the wild pc faults to mtvec 0, which faults too, as on
    # an X280 until a reset.  Whether GDB detaches or just goes away, the
    # run ends at its stop (10 s of modeled time, 1 s of grace) as a run
    # without the debugger would, in under a second of real time: the run
    # limit fails a regression, which took minutes.
    local manifest=$KMRUN_TOP/programs/01_hello/program.yaml
    for leave in D close; do
        run_limit=20 start_run --timeout 10 "$manifest"
        send_packets "$port" Hg1 P20=ffffffffffffffff g "$leave"
        [[ "$reply" == *'$OK#9a'*'feffffffffffffff#'* ]] # P's OK, and g: the pc, bit 0 dropped
        wait_run
        [ "$run_status" -eq 1 ]
        [ "$(jq -r '.threads[0] | [.state, .error, .stuck.core, .stuck.pc] | @csv' run.out)" = \
            '"stuck","none",0,0' ]
        [ "$(jq -r .device_microseconds run.out)" = 11000000 ]
        [[ "$(jq -r .threads[0].stuck.detail run.out)" == *"it traps at pc 0x0 again and again (instruction access fault)"* ]]
    done
}

@test "gdb run: a pc the debugger sets wild at a breakpoint is where the core goes: the thread traps there" {
    # The runtime's handler is set by then: it reports the fetch fault.
    local manifest=$KMRUN_TOP/programs/01_hello/program.yaml
    run_limit=60 start_run "$manifest"
    gdb_batch "break kmx_main" "continue" 'set $pc = 0xfffffffffffffffe' "detach"
    [ "$status" -eq 0 ]
    [[ "$output" == *'[Inferior 1 (Remote target) detached]'* ]]
    wait_run
    [ "$run_status" -eq 1 ]
    [ "$(jq -r '.threads[0] | [.state, .error, .trap.core, .trap.mcause, .trap.name] | @csv' run.out)" = \
        '"trapped","trap",0,1,"instruction access fault"' ]
}

@test "gdb run: Ctrl-C stops a core that spins; kill ends kmrun (exit 1, no result, no run folder)" {
    start_run "$KMRUN_TOP/tests/fixtures/hazards/stuck.yaml"
    interrupt_and_kill "$kmrun_pid" "$port"
    [[ "$reply" == '+$OK#9a$T02thread:'*';20:'*'#'* ]]
    wait_run
    [ "$run_status" -eq 1 ]
    grep -q "kmrun: the debugger killed the program before its end" run.err
    [ ! -s run.out ]
    # No run folder, no `latest` (runs/.lock orders the folder's writers).
    [ -z "$(ls -A runs 2>/dev/null | grep -vx '\.lock')" ]
}

@test "gdb run: --gdb wants a port, and the simulated card" {
    run kmrun run --gdb x "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"invalid --gdb port 'x'"* ]]
    run kmrun run --thread host --gdb 0 "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--gdb debugs the X280 cores of the simulated card"* ]]
}
