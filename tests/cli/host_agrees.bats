#!/usr/bin/env bats
# The host fallback as the card's twin (issue 27): where the card's
# behaviour is defined — a worker core that never polls, a division the
# RISC-V defines, a misaligned load, a library error's later statuses, a
# serve whose lead never calls, a short timeout — `kmrun run --thread host`
# ends as `kmrun run` does, so that `kmrun check` compares and is not
# noise.  Each test runs its fixture on both backends.  The threads are in
# tests/fixtures/twin/ (its README says what each does and returns).

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    twin=$KMRUN_TOP/tests/fixtures/twin
}

# The line of thread/FILE that holds MARK.
line_of() {
    grep -n "$2" "$twin/thread/$1" | head -1 | cut -d: -f1
}

# on_both ARGS... MANIFEST: runs it on the simulated card, then on the
# host, each within 60 s of real time (a hang is a failure, not a hung
# suite); $sim and $host hold the two JSON documents.
on_both() {
    run --separate-stderr timeout 60 kmrun run --run-dir "$runs" --wall-timeout 50 "$@"
    [ "$status" -le 1 ] || { echo "sim: status $status: $stderr"; false; }
    sim=$output
    run --separate-stderr timeout 60 kmrun run --run-dir "$runs" --wall-timeout 50 --thread host "$@"
    [ "$status" -le 1 ] || { echo "host: status $status: $stderr"; false; }
    host=$output
}

# both FILTER: jq -r FILTER on each run; prints "sim: ..., host: ..." and
# fails when they differ; else leaves the value in $output.
both() {
    local s h
    s=$(jq -r "$1" <<<"$sim")
    h=$(jq -r "$1" <<<"$host")
    [ "$s" = "$h" ] || { echo "$1: sim $s, host $h"; false; }
    output=$s
}

@test "host agrees: a worker core spinning in kmx_parallel ends the run as on the card, kmrun does not hang" {
    on_both --timeout 0.2 "$twin/spin_worker.yaml"
    # core 0's join ends at the stop, kmx_main returns, the runtime gives
    # core 2 KMX_SETTLE_TICKS and writes its final state; core 2 spins on,
    # and the run driver reports the thread stuck on core 2 on both
    both '.threads[0] | [.state, .error, .code, .where, .stuck.core] | @csv'
    [ "$output" = '"stuck","none",,2,2' ]
    both '[.threads[0].stuck.cores[].core] | @csv'
    [ "$output" = 2 ]
    both '.threads[0].words | @csv'
    [ "$output" = 3 ]
    # (In a sanitizer build LeakSanitizer's end-of-process scan stops every
    # thread, the fallback's core still spinning in thread code among them,
    # and its tracer faults there: the scan is off for this one command.)
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        run --separate-stderr timeout 60 kmrun check --timeout 0.2 --run-dir "$runs" "$twin/spin_worker.yaml"
    [ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
}

@test "host agrees: integer division by zero and INT_MIN / -1 give RISC-V's results, not SIGFPE" {
    on_both "$twin/divide.yaml"
    both '.threads[0] | [.state, .error, .code, .trap.name] | @csv'
    [ "$output" = '"returned","none",0,' ]
    # by zero: all ones and the dividend; the overflow: INT_MIN and 0
    both '.threads[0].words | @csv'
    [ "$output" = 4294967295,7,2147483648,0,4294967295,7,4294967295,4294967295,4294967287,4294967295,2147483648,0,4294967295,4294967295 ]
    run --separate-stderr kmrun check --run-dir "$runs" "$twin/divide.yaml"
    [ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
}

@test "host agrees: a misaligned 64-bit load from a region traps, with its line; packed and memcpy do not" {
    on_both "$twin/misaligned.yaml"
    both '.threads[0] | [.state, .error, .where, .trap.mcause, .trap.core] | @csv'
    [ "$output" = '"trapped","trap",2,4,0' ]
    both '.threads[0].trap.source | "\(.file):\(.line)"'
    [ "$output" = "thread/misaligned.c:$(line_of misaligned.c MISALIGNED)" ]
    # the packed member and the copy, bytes 2..9 and 4..11 of 1, 2, 3, ...
    both '.threads[0].words | @csv'
    [ "$output" = 84148994,117835012 ]
    [ "$(jq -r '.threads[0].trap.name' <<<"$host")" = "load address misaligned (host fallback, alignment check)" ]
    run --separate-stderr kmrun check --run-dir "$runs" "$twin/misaligned.yaml"
    [ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
}

@test "host agrees: a 5 ms --timeout stops the host thread at 5 ms on its clock, never before" {
    run_json --timeout 0.005 "$twin/timeout.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.state, .error, .code] | @csv')" = '"stopped","none",0' ]
    local card
    card=$(field '.threads[0].words[0]')
    # the card: at 5 ms (250,000 ticks of 50 MHz) and a few ticks
    [ "$card" -ge 250000 ] && [ "$card" -lt 250500 ] || { echo "card: $card"; false; }
    # the host, several times (its scheduler varies): never before the
    # time asked on its clock (the old code, which wrote the stop on
    # kmrun's, saw it before 5 ms in 5 runs of 12), and within the documented
    # margin (README, kmrun(1): a fraction of a microsecond on a host that
    # runs the thread then, plus whatever a busy host's scheduler keeps it
    # off the CPU, 30 ms at worst measured under a load of 6 on 2 CPUs; a
    # bound far above that here, so that a busy machine does not fail it).
    local i seen
    for i in 1 2 3 4 5 6 7 8; do
        run_json --thread host --timeout 0.005 "$twin/timeout.yaml"
        [ "$status" -eq 1 ] || { echo "$stderr"; false; }
        [ "$(field '.threads[0] | [.state, .error, .code] | @csv')" = '"stopped","none",0' ]
        seen=$(field '.threads[0].words[0]')
        [ "$seen" -ge 249990 ] && [ "$seen" -lt 10250000 ] || { echo "host, run $i: $seen ticks"; false; }
    done
    run --separate-stderr kmrun check --timeout 0.005 --run-dir "$runs" "$twin/timeout.yaml"
    [ "$status" -eq 1 ] # the tick counts differ, as times do
    [ "$(grep -c '^thread on cluster 1: result word 0: sim ' <<<"$output")" = 1 ]
}

@test "host agrees: kmx_serve whose lead never calls ends late at the deadline, every run, as on the card" {
    local i
    for i in 1 2 3 4 5; do
        on_both "$twin/serve_late.yaml"
        both '[.threads[] | [.cluster, .state, .error, .code, (.words | @csv)] | @csv] | join(" ")'
        [ "$output" = '1,"late","none",0,"9" 2,"late","none",0,"4"' ]
    done
    run --separate-stderr kmrun check --run-dir "$runs" "$twin/serve_late.yaml"
    [ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
}

@test "host agrees: after a parallel error the later calls return KMX_STOPPED, and the message names the call and its line" {
    local y words line call core
    for y in parallel_error parallel_error_core1; do
        on_both "$twin/$y.yaml"
        both '.threads[0] | [.state, .error] | @csv'
        [ "$output" = '"failed","parallel"' ]
        both '.threads[0].words | @csv'
        words=$output
        both '.threads[0].message'
        if [ "$y" = parallel_error ]; then
            # kmx_parallel after its function's error, and the kmx_join
            # that made it; the last spawn: the run is stopping
            [ "$words" = 3,3,9,3 ]
            line=$(line_of parallel_error.c 'JOIN INSIDE')
            [ "$output" = "kmx_join was called on core 0 inside a function kmx_parallel or kmx_parallel_all runs (thread/parallel_error.c:$line in join_inside): a core-0 call (kmx(3)); it returned KMX_STOPPED and the run stopped" ]
        else
            # the spawn, then the join of the core that erred, and what
            # its kmx_parallel returned
            [ "$words" = 0,3,3,3 ]
            line=$(line_of parallel_error.c 'PARALLEL ON CORE 1')
            [ "$output" = "kmx_parallel was called on core 1 (thread/parallel_error.c:$line in parallel_on_core1): a core-0 call (kmx(3)); it returned KMX_STOPPED and the run stopped" ]
        fi
        run --separate-stderr kmrun check --run-dir "$runs" "$twin/$y.yaml"
        [ "$status" -eq 0 ] || { echo "$y: $output $stderr"; false; }
    done
}
