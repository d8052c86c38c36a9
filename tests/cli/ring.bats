#!/usr/bin/env bats
# The thread command ring on the simulated card (spec "The command ring";
# kmx_submit, kmx_wait, kmx_poll): result words, slot reuse at depth, the
# 32 kept events, reason 11 and its one wake, exclusive overlap, the
# kernel's time limit, a wait ended by a deadline or a stop, ring calls
# from cores 1-3, and the ring in cached lines (`ring: cached`).  The
# threads are in tests/fixtures/ring/thread/, each saying what it
# returns; tests/fixtures/ring/README lists them.
#
# Events come back as packed words (thread/ring.h): handle | kind << 16 |
# reason << 24, so DONE of handle h is h + 65536, a busy rejection
# (REJECTED, reason 11) h + 184745984 and a wake 262144.
#
# Not here: a bad ring descriptor caught at start-up (the library error
# `ring`).  No manifest produces one and KMRUN_SIM_FAULT (the loader's
# test hook) has no fault for the ring line yet.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

DONE=65536
BUSY=184745984
WAKE=262144

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    ring=$KMRUN_TOP/tests/fixtures/ring
}

# word N: result word N of the run's only thread.
word() {
    field ".threads[0].words[$1]"
}

# returned: the run's only thread returned 0 (else its JSON, and failure).
returned() {
    [ "$status" -eq 0 ] || { echo "$stderr"; echo "$output"; false; }
    [ "$(field '.threads[0] | [.ran, .state, .error, .code] | @csv')" = 'true,"returned","none",0' ]
}

# check_sum KIND: thread/sum.c's words, with the ring of KIND (1 remote,
# 2 cached).  Per command: submit status, handle, wait status, kind,
# reason, handle, ticks.
check_sum() {
    returned
    [ "$(field '.threads[0].words[0:7] | @csv')" = 0,1,0,1,0,1,0 ]         # fill: 0 shares outside
    [ "$(field '.threads[0].words[7:14] | @csv')" = 0,2,0,1,0,2,67111936 ] # 1024 x 0x00010003
    [ "$(field '.threads[0].words[14:21] | @csv')" = 0,3,0,1,0,3,33555968 ] # 512 of them
    # Without KM_FLAG_RESULT, ticks is the run time: not the sum.
    [ "$(field '.threads[0].words[21:27] | @csv')" = 0,4,0,1,0,4 ]
    [ "$(word 27)" -gt 0 ]
    [ "$(word 27)" -ne 67111936 ]
    [ "$(word 28)" = "$1" ]
    [ "$(field '.threads[0].words | length')" = 29 ]
}

# check_depth KIND: thread/depth.c's words.
check_depth() {
    returned
    # In turn: 40 OK submits, handles 1..40, each DONE; never KMX_FULL.
    [ "$(field '.threads[0].words[0:3] | @csv')" = 40,40,0 ]
    # The burst: KMX_FULL at least once, all 40 DONE, no other event, no
    # other status; its last handle 80 plus one per busy resubmission.
    [ "$(word 3)" -gt 0 ]
    [ "$(word 4)" = 40 ]
    [ "$(field '.threads[0].words[7:9] | @csv')" = 0,0 ]
    [ "$(word 9)" = $((80 + $(word 5))) ]
    [ "$(word 10)" = "$1" ]
}

# check_keep: thread/keep.c without a word: handle 34 stays in the ring.
check_keep() {
    returned
    [ "$(field '.threads[0].words[0:2] | @csv')" = 0,34 ] # every nop submitted
    [ "$(word 3)" = 2 ]                                   # kmx_wait(1): KMX_FULL
    [ "$(field '.threads[0].words[4:9] | @csv')" = "0,0,33,0,$((DONE + 1))" ]
    # The polls: 2..33 (kept), 34 (from the ring), each DONE, in order.
    [ "$(field ".threads[0].words[9:] == [range(2; 35) | . + $DONE]")" = true ]
}

# check_wake: thread/wake.c without a word.
check_wake() {
    returned
    [ "$(field '.threads[0].words[0:7] | @csv')" = \
        "0,0,$((BUSY + 2)),0,$((BUSY + 3)),0,$((DONE + 1))" ]
    # One wake, then nothing; the resubmission (handle 4) runs.
    [ "$(field '.threads[0].words[7:] | @csv')" = "0,0,0,$WAKE,5,4,0,$((DONE + 4)),5" ]
}

@test "ring: a fill and sums with KM_FLAG_RESULT; the event's ticks is the sum" {
    run_json "$ring/sum.yaml"
    check_sum 1
    # 1024 words of 0x00010003 are in bank 4 (no region: the run lists none).
    [ "$(field '.regions | length')" = 0 ]
}

@test "ring: 40 commands in turn reuse the 16 slots; a burst gets KMX_FULL and all complete" {
    run_json "$ring/depth.yaml"
    check_depth 1
}

@test "ring: kmx_wait keeps 32 events and answers KMX_FULL; kmx_poll returns them in order, then the 33rd" {
    run_json "$ring/keep.yaml"
    check_keep
}

@test "ring: kmx_wait takes a handle out of the middle of the kept events; the rest keep their order" {
    run_json "$ring/keep_middle.yaml"
    returned
    [ "$(field '.threads[0].words[0:9] | @csv')" = "0,34,$(word 2),2,0,$((DONE + 17)),32,0,$((DONE + 1))" ]
    [ "$(field ".threads[0].words[9:] == [range(2; 35) | select(. != 17) | . + $DONE]")" = true ]
}

@test "ring: the kept events wrap around their 32 places and keep their order" {
    run_json "$ring/keep_wrap.yaml"
    returned
    [ "$(field '.threads[0].words[0:4] | @csv')" = "2,2,0,$((DONE + 1))" ]
    [ "$(field ".threads[0].words[4:47] == [range(2; 45) | . + $DONE]")" = true ]
    [ "$(word 47)" = 5 ]
}

@test "ring: two busy rejections (reason 11) give exactly one wake; kmx_poll returns it, then KMX_EMPTY" {
    run_json "$ring/wake.yaml"
    check_wake
}

@test "ring: kmx_wait passes the wake over; kmx_poll still returns it afterwards, once" {
    run_json "$ring/wake_pass.yaml"
    returned
    [ "$(field '.threads[0].words[0:7] | @csv')" = \
        "0,0,$((BUSY + 2)),0,$((BUSY + 3)),0,$((DONE + 1))" ]
    # kmx_wait(4): its DONE, not the wake; then the wake, then nothing.
    [ "$(field '.threads[0].words[7:] | @csv')" = "0,$((DONE + 4)),0,$WAKE,5,5,0,$((DONE + 5)),5" ]
}

@test "ring: exclusive overlap is rejected busy both ways; beside, or neither exclusive, runs" {
    run_json "$ring/overlap.yaml"
    returned
    # 1 spend 0..3; 2 exclusive on 2..5; 3 exclusive spend 10..13; 4 on
    # 12..15; 5 exclusive spend 20..23; 6 on 24..27; 7 exclusive on
    # 28..31; 8 on 0..1.
    [ "$(field '.threads[0].words | @csv')" = "0,0,$((DONE + 1)),$((BUSY + 2)),$((DONE + 3)),$((BUSY + 4)),$((DONE + 5)),$((DONE + 6)),$((DONE + 7)),$((DONE + 8))" ]
}

@test "ring: a command past the kernel's 1 s limit ends KM_EVENT_TIMEOUT" {
    run_json "$ring/timeout.yaml"
    returned
    [ "$(field '.threads[0].words[0:3] | @csv')" = "0,0,$((2 * 65536 + 1))" ]
    # Its time: just over the limit (50,000,000 ticks), not the 1.2 s asked.
    ticks=$(word 3)
    [ "$ticks" -gt 50000000 ]
    [ "$ticks" -lt 50005000 ]
    [ "$(field '.threads[0].microseconds > 1000000 and .threads[0].microseconds < 1001000')" = true ]
}

@test "ring: kmx_wait's own deadline passing returns KMX_LATE and ends the run late" {
    run_json "$ring/late_call.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = 'false,"late","none",0,2' ]
    # submit OK, kmx_wait KMX_LATE, no event, no stop asked
    [ "$(field '.threads[0].words | @csv')" = 0,4,0,0 ]
    # 50 us after the submit, long before the 2 ms spend ends.
    [ "$(field '.threads[0].microseconds > 50 and .threads[0].microseconds < 200')" = true ]
}

@test "ring: the thread's deadline passing while kmx_wait waits ends the run late" {
    run_json "$ring/late_thread.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = 'false,"late","none",0,2' ]
    [ "$(field '.threads[0].words | @csv')" = 0,4,0,1 ]
    [ "$(field '.threads[0].microseconds >= 100 and .threads[0].microseconds < 200')" = true ]
}

@test "ring: a stop while kmx_wait waits ends the run stopped" {
    run_json --timeout 0.0002 "$ring/stopped.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = 'false,"stopped","none",0,2' ]
    [ "$(field '.threads[0].words | @csv')" = 0,3,0,1 ]
    [ "$(field '.threads[0].microseconds >= 200 and .threads[0].microseconds < 300')" = true ]
}

@test "ring: kmx_submit, kmx_poll or kmx_wait from core 1 is the library error parallel; the run stops" {
    for call in submit poll wait; do
        run_json "$ring/parallel_$call.yaml"
        [ "$status" -eq 1 ] || { echo "$call: $stderr $output"; false; }
        [ "$(field '.threads[0] | [.ran, .state, .error, .code] | @csv')" = 'false,"failed","parallel",7' ]
        # The call returned KMX_STOPPED on core 1; core 0 sees the stop.
        # (kmx_join's own answer, OK or STOPPED, depends on which it saw first.)
        [ "$(word 0),$(word 2)" = 3,1 ] || { echo "$call: $(field '.threads[0].words')"; false; }
        [[ "$(word 1)" == [03] ]]
    done
}

@test "ring: each work cluster's ring: the same fill and sums on clusters 1, 2 and 3" {
    run_json "$ring/three.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; echo "$output"; false; }
    [ "$(field '[.threads[].cluster] | @csv')" = 1,2,3 ]
    for t in 0 1 2; do
        [ "$(field ".threads[$t] | [.ran, .state, .error, .code] | @csv")" = 'true,"returned","none",0' ]
        [ "$(field ".threads[$t].words[7:14] | @csv")" = 0,2,0,1,0,2,67111936 ]
        [ "$(field ".threads[$t].words[14:21] | @csv")" = 0,3,0,1,0,3,33555968 ]
    done
}

@test "ring: an exclusive command from cluster 1 rejects cluster 2's overlapping one; cluster 2 is woken on its own ring" {
    run_json "$ring/cross.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; echo "$output"; false; }
    [ "$(field '.threads[0] | [.cluster, .state] | @csv')" = '1,"returned"' ]
    [ "$(field '.threads[1] | [.cluster, .state] | @csv')" = '2,"returned"' ]
    [ "$(field '.threads[0].words[0:3] | @csv')" = "0,0,$((DONE + 1))" ]
    [ "$(field '.threads[1].words[0:3] | @csv')" = "0,0,$((BUSY + 1))" ]
    [ "$(field '[.threads[1].words[4,5]] | @csv')" = "0,$WAKE" ]
    [ "$(field '.threads[1].words[7:] | @csv')" = "2,0,$((DONE + 2)),5" ]
    # The wake came when cluster 1's spend ended (within 10 us of cluster
    # 1 seeing its event), at least 200 us after the rejection.
    [ "$(field '(.threads[1].words[6] - .threads[0].words[3]) | fabs < 500')" = true ]
    [ "$(field '.threads[1].words[6] - .threads[1].words[3] > 10000')" = true ]
}

@test "ring: cached: result words, slot reuse, the kept events and the wake with the ring in the bank" {
    run_json "$ring/sum_cached.yaml"
    check_sum 2
    run_json "$ring/depth_cached.yaml"
    check_depth 2
    run_json "$ring/keep_cached.yaml"
    check_keep
    run_json "$ring/wake_cached.yaml"
    check_wake
}
