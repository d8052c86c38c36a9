#!/usr/bin/env bats
# The X280 ports' rules on the simulated card (spec "X280 ports"; issue
# 11), one test a rule: the owners' table, asks answered by sequence,
# newest-wins tells both ways and a tell staying in the line,
# kmx_port_told's deadline, the four ends of a serve, the Tensix waits'
# give-ups and their `where`, the second sender refused, messages never
# torn, the host fallback.  The programs are in tests/fixtures/ports_rules
# (its README lists them; the thread's comments say what each result word
# is).  Each test compares words or JSON fields that breaking the rule
# would change.
#
# A command's outcome is one word: kmx_port_run's status * 100 + the
# event's kind * 10 + its reason (KM_WHERE_*).

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

DONE=10   # KMX_OK, KM_EVENT_DONE, reason 0
ANSWER=11 # ... reason KM_WHERE_X280_ANSWER
TELL=12   # ... reason KM_WHERE_X280_TELL
NONE=14   # ... reason KM_WHERE_X280_NONE
OWNER=15  # ... reason KM_WHERE_X280_OWNER
BAD=1
EMPTY=5

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    rules=$KMRUN_TOP/tests/fixtures/ports_rules
}

# words [THREAD] RANGE: result words RANGE (jq, "0:4" or "3") of thread
# THREAD (default 0) as CSV, -1 for 0xFFFFFFFF.
words() {
    local thread=0
    if [ $# -eq 2 ]; then thread=$1; shift; fi
    field "[.threads[$thread].words[$1]] | flatten | map(if . == 4294967295 then -1 else . end) | @csv"
}

# returned: every thread returned 0 (else the run's JSON, and failure).
returned() {
    [ "$status" -eq 0 ] || { echo "$stderr"; echo "$output"; false; }
    [ "$(field '[.threads[] | .state == "returned" and .code == 0] | all')" = true ] ||
        { echo "$output"; false; }
}

# waits: the run's port_waits, one "core handler where why" a line.
waits() {
    field '.port_waits[] | "\(.core) \(.handler) \(.where) \(.why)"'
}

# between N LOW HIGH: LOW <= N < HIGH.
between() {
    if [ "$1" -lt "$2" ] || [ "$1" -ge "$3" ]; then
        echo "$1 not in [$2, $3)"
        false
    fi
}

# ---- 1. kmx_port_cores, kmx_port_owner, and KMX_BAD ----------------------

@test "ports rules: ports: default on one cluster: 120 cores, each X280 core owns 30 in a block" {
    run_json "$rules/table_one.yaml"
    returned
    # cores; owned by X280 core 0..3; owned by none; first of each; last
    # of each; owner(-1), owner(120)
    [ "$(words 0:)" = 120,30,30,30,30,0,0,30,60,90,29,59,89,119,-1,-1 ]
}

@test "ports rules: ports: default on three clusters: each cluster's X280 cores own 10 each, the rest -1" {
    run_json "$rules/table_three.yaml"
    returned
    [ "$(words 0 0:)" = 40,10,10,10,10,80,0,10,20,30,9,19,29,39,-1,-1 ]
    [ "$(words 1 0:)" = 80,10,10,10,10,80,40,50,60,70,49,59,69,79,-1,-1 ]
    [ "$(words 2 0:)" = 120,10,10,10,10,80,80,90,100,110,89,99,109,119,-1,-1 ]
}

@test "ports rules: a serve map: only the named cores have an owner, -1 elsewhere" {
    run_json "$rules/table_serve.yaml"
    returned
    # cluster 1: 17 to X280 core 0, 5 and 64 to core 2; cluster 2: 100 to core 3
    [ "$(words 0 0:)" = 65,1,0,2,0,117,17,-1,5,-1,17,-1,64,-1,-1,-1 ]
    [ "$(words 1 0:)" = 101,0,0,0,1,119,-1,-1,-1,100,-1,-1,-1,100,-1,-1 ]
}

@test "ports rules: tell, asked, answer, told naming a core the calling X280 core does not serve: KMX_BAD" {
    run_json "$rules/bad.yaml"
    returned
    # The lead: its run word; then per cluster (the others after their
    # kmx_serve's KMX_OK): its own core, one of its X280 core 1, one of
    # another cluster; tell asked answer told of the X280 core 1's, of the
    # other cluster's; tell(120), told(-1); told and tell of its own.
    bads="$BAD,$BAD,$BAD,$BAD,$BAD,$BAD,$BAD,$BAD,$BAD,$BAD"
    [ "$(words 0 0:)" = "$DONE,0,10,40,$bads,$EMPTY,0" ]
    [ "$(words 1 0:)" = "0,40,50,0,$bads,$EMPTY,0" ]
    [ "$(words 2 0:)" = "0,80,90,0,$bads,$EMPTY,0" ]
    [ "$(field '.port_waits | length')" = 0 ]
}

# ---- 2. ask and answer --------------------------------------------------

@test "ports rules: an answer with the wrong sequence is not the answer; the call gives up after 10 ms (x280_answer)" {
    run_json "$rules/ask.yaml"
    returned
    # The event's reason: the call that gave up waited for an answer.
    [ "$(words 0)" = $ANSWER ]
    # Calls 1, 2 and 4 true, 3 false.
    [ "$(words 1)" = $((1 + 2 + 8)) ]
    # Call 1: 2q, the ask's sequence as the X280 core read it, the answer's.
    [ "$(words 2:5)" = 2000,1,1 ]
    # Call 2: not the wrong answer at once, the right one 1 ms later; no give-up.
    [ "$(words 5:7)" = 2002,2 ]
    between "$(words 7)" 1000 1100
    [ "$(words 8)" = 0 ]
    # Call 3: gave up at the wait limit, where KM_WHERE_X280_ANSWER.
    [ "$(words 9:11)" = 10000,1 ]
    # Call 4: the port still works, by its own sequence.
    [ "$(words 11:14)" = 2006,4,4 ]
    output=$(waits)
    expect stdout <<'END'
0 ask_wrong x280_answer limit
END
}

# ---- 3. and 8. tells ----------------------------------------------------

@test "ports rules: tells, newest wins both ways: three in a row, the receiver sees only the last, then nothing newer" {
    run_json "$rules/tell.yaml"
    returned
    [ "$(words 0)" = $DONE ]
    # The X280 core's three tells (w0 1, 2, 3): KMX_OK.
    [ "$(words 1:4)" = 0,0,0 ]
    # The handler's first look: w0 3, sequence 3; the second: nothing.
    [ "$(words 4:8)" = 1,3,3,0 ]
    # Its three tells (w0 11, 12, 13), then its ask: kmx_port_told took
    # the last one (KMX_OK, w0 13, sequence 3), then KMX_EMPTY.
    [ "$(words 8:12)" = "1,$((0 + EMPTY * 256)),13,3" ]
    # A later command's look: nothing (a tell already seen is not seen again).
    [ "$(words 12:16)" = "$DONE,0,0,0" ]
}

@test "ports rules: a tell stays in the line: telling a core that runs no look, or no command, is harmless and seen later" {
    run_json "$rules/tell.yaml"
    returned
    # A command on core 0 that never looks; meanwhile the X280 core tells
    # core 0 (w0 4) and core 1 (w0 5, running nothing): the run goes on.
    [ "$(words 16:19)" = "$DONE,0,0" ]
    # The next command's looks on cores 0 and 1 see them (newer than the
    # last each saw) ...
    [ "$(words 19:26)" = "$DONE,1,4,4,1,5,1" ]
    # ... and the one after sees nothing.
    [ "$(words 26:33)" = "$DONE,0,0,0,0,0,0" ]
    [ "$(field '.threads[0].words | length')" = 33 ]
}

# Before 5a64d3a the ask overwrote the tell before it landed.
@test "ports rules: a handler's tell followed at once by its ask reaches the X280 core" {
    run_json "$rules/tell_ask.yaml"
    returned
    # Tells 11, 12, 13 then the ask at once: kmx_port_told takes 13 ...
    [ "$(words 0:9)" = "$DONE,1,3,3,0,1,$((0 + EMPTY * 256)),13,3" ]
    # ... as it does when the ask comes 1 us later.
    [ "$(words 9:18)" = "$DONE,1,3,6,0,1,$((0 + EMPTY * 256)),13,6" ]
}

# ---- 4. kmx_port_told's deadline ----------------------------------------

@test "ports rules: kmx_port_told: without a deadline KMX_EMPTY at once; with one it waits for the tell, or returns KMX_EMPTY at it" {
    run_json "$rules/told.yaml"
    returned
    [ "$(words 0)" = $DONE ]
    # Deadline 0, nothing told: KMX_EMPTY in under 1 us (50 ticks).
    [ "$(words 1)" = $EMPTY ]
    between "$(words 2)" 0 50
    # Deadline 2 ms away: the tell (77, sequence 1) told 300 us into the
    # command, so the wait took 300 us or more and less than the deadline.
    [ "$(words 3)" = 0 ]
    between "$(words 4)" $((300 * 50)) $((2000 * 50))
    [ "$(words 5:7)" = 77,1 ]
    # Deadline 500 us away, no tell: KMX_EMPTY at the deadline.
    [ "$(words 7)" = $EMPTY ]
    between "$(words 8)" $((500 * 50)) $((510 * 50))
}

# ---- 5. the serve's ends ------------------------------------------------

@test "ports rules: the serve ends at the command's event; then tell and answer are KMX_BAD and store nothing" {
    run_json "$rules/end.yaml"
    returned
    # KMX_OK with KM_EVENT_DONE; the function ran on all four X280 cores
    # and each returned.
    [ "$(words 0:3)" = "$DONE,4,4" ]
    # After kmx_port_run: kmx_port_open 0, kmx_port_tell and
    # kmx_port_answer KMX_BAD ...
    [ "$(words 3:6)" = "0,$BAD,$BAD" ]
    # ... and the next command's look on that core sees no tell (w0 9).
    [ "$(words 6:)" = "$DONE,0,0,0" ]
}

@test "ports rules: a command past the 1 s limit ends the serve: KMX_OK, KM_EVENT_TIMEOUT with its where" {
    run_json "$rules/timeout.yaml"
    returned
    # KMX_OK, KM_EVENT_TIMEOUT, and the reason where the handler's port
    # wait gave up, KM_WHERE_X280_TELL (before 5a64d3a: 0, when the
    # dispatcher's time limit ended the command).
    [ "$(words 0)" = 22 ]
    # The command's time: just over the limit (50,000,000 ticks), not 1.2 s.
    between "$(words 1)" 50000000 50005000
    # kmx_port_tell after the serve: KMX_BAD.
    [ "$(words 2)" = $BAD ]
    [ "$(field '.threads[0].microseconds > 1000000 and .threads[0].microseconds < 1001000')" = true ]
    output=$(waits)
    expect stdout <<'END'
0 wait_spend x280_tell limit
END
}

@test "ports rules: a stop ends the serve: KMX_STOPPED, the thread stopped; the Tensix wait gives up at the stop" {
    run_json --timeout 0.0005 "$rules/stop.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = 'false,"stopped","none",0,2' ]
    # KMX_STOPPED (no event); then tell KMX_BAD, kmx_port_open 0, the stop asked.
    [ "$(words 0:)" = "300,$BAD,0,1" ]
    [ "$(field '.threads[0].microseconds >= 500 and .threads[0].microseconds < 600')" = true ]
    output=$(waits)
    expect stdout <<'END'
0 wait_spend x280_tell stop
END
}

@test "ports rules: the thread's deadline ends the serve: KMX_LATE, the thread late" {
    run_json "$rules/late.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = 'false,"late","none",0,2' ]
    [ "$(words 0:)" = "400,$BAD,0,1" ]
    [ "$(field '.threads[0].microseconds >= 500 and .threads[0].microseconds < 600')" = true ]
}

# ---- 6. and 7. what the Tensix side is refused or gives up --------------

@test "ports rules: a Tensix wait for a tell gives up after 10 ms (x280_tell); a core with no X280 core is refused (x280_none)" {
    run_json "$rules/wait.yaml"
    returned
    # km_port_wait false after 10 ms, km_port_where KM_WHERE_X280_TELL;
    # the event's reason says so.
    [ "$(words 0:4)" = "$TELL,0,2,10000" ]
    # Core 3 has no X280 core: call, tell, look, wait all false at once,
    # where KM_WHERE_X280_NONE.
    [ "$(words 4:8)" = "$NONE,0,4,0" ]
    # The give-up's time: 10 ms after the wait began (the first command).
    [ "$(field '.port_waits[0].microseconds > 10000 and .port_waits[0].microseconds < 10100')" = true ]
    output=$(waits)
    expect stdout <<'END'
0 wait_tell x280_tell limit
3 no_port x280_none refused
3 no_port x280_none refused
3 no_port x280_none refused
3 no_port x280_none refused
END
}

@test "ports rules: a second kernel's sends are refused (x280_owner); the first one's go through; any kernel looks" {
    run_json "$rules/owner.yaml"
    returned
    # Reader first, then writer first.  Per command: the event; true as
    # bits (1 first's call, 2 first's tell, 4 other's look, 8 other's
    # tell, 16 other's call); where after the other's sends; the answer
    # (2 * 5); the look (the X280 core's 55); the last tell the X280 core
    # took (66 + which came first: never the other's 99) and how many.
    [ "$(words 0:7)" = "$OWNER,7,5,10,55,66,1" ]
    [ "$(words 7:14)" = "$OWNER,7,5,10,55,67,1" ]
    output=$(waits)
    expect stdout <<'END'
0 two_kernels x280_owner refused
0 two_kernels x280_owner refused
0 two_kernels x280_owner refused
0 two_kernels x280_owner refused
END
}

# ---- 9. never torn ------------------------------------------------------

@test "ports rules: a message is never torn, both ways: bursts of tied words, sequences increasing" {
    run_json "$rules/torn.yaml"
    returned
    [ "$(field '.threads[0].words | length')" = 44 ]
    # Two commands (back to back, then 300 ns apart), cores 0, 1, 2 each:
    # the X280 core's taken, faults, last k; the handler's taken, faults,
    # last k, waits given up.
    for burst in 0 1; do
        at=$((burst * 22))
        [ "$(words $at)" = $DONE ]
        for core in 0 1 2; do
            w=$((at + 1 + core * 7))
            x280_taken=$(words $w) tensix_taken=$(words $((w + 3)))
            [ "$(words $((w + 1)):$((w + 3)))" = 0,100 ] || { echo "X280 side, burst $burst core $core"; false; }
            [ "$(words $((w + 4)):$((w + 7)))" = 0,100,0 ] || { echo "Tensix side, burst $burst core $core"; false; }
            # Each took more than the last message (every one lands, in
            # order: the receiver sees those newest when it looks).
            between "$x280_taken" 2 101
            between "$tensix_taken" 2 101
        done
    done
    [ "$(field '.port_waits | length')" = 0 ]
}

# ---- 10. the host fallback ----------------------------------------------

@test "ports rules: kmrun run --thread host of a ports program ends with the error host naming kmx_port_run" {
    run_json --thread host "$rules/bad.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.state, .error] | @csv')" = '"failed","host"' ]
    [[ $(field '.threads[0].message') == "kmx_port_run is not available in the host fallback"* ]]
    # kmx_port_run returned KMX_STOPPED; the other clusters' kmx_serve
    # ended when the lead did; nothing reached a Tensix core's port.
    [ "$(words 0 0:)" = 300 ]
    [ "$(field '[.threads[1:][] | .state] | @csv')" = '"returned","returned"' ]
    [ "$(field '.port_waits | @json')" = '[]' ]
}
