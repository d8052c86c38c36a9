#!/usr/bin/env bats
# The cache hazards between a thread and the Tensix grid (issue 4, point
# 5): handlers reach a thread's region over the NoC, around the cluster's
# cache, so a thread sees a handler's write only after kmx_invalidate and
# a handler sees a thread's write only after kmx_flush.  The thread and
# the handler are in tests/fixtures/grid_hazards/ (its README lists the
# result words).

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixtures=$KMRUN_TOP/tests/fixtures/grid_hazards
}

# check_hazards: the words of a hazard.c run in $output.
check_hazards() {
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(field '.threads[0].state')" = returned ]
    # the ring never failed
    [ "$(field '.threads[0].words[7]')" = 0 ]
    # cached 5; the grid wrote 9: still 5; after kmx_invalidate 9
    [ "$(field '.threads[0].words[2:5] | @csv')" = 5,5,9 ]
    # the thread wrote 7: the grid reads 0; after kmx_flush 7
    [ "$(field '.threads[0].words[5:7] | @csv')" = 0,7 ]
}

@test "grid hazards: a handler's write is seen after kmx_invalidate, a thread's after kmx_flush" {
    run_json "$fixtures/hazard.yaml"
    check_hazards
}

@test "grid hazards: the same with the ring in cached memory" {
    run_json "$fixtures/hazard_cached.yaml"
    check_hazards
}

@test "grid hazards: km_region_address gives the (bank, bank address) the run's JSON lists" {
    run_json "$fixtures/hazard.yaml"
    [ "$status" -eq 0 ]
    local address bank
    address=$(field '.regions[] | select(.name == "data" and .cluster == 1) | .bank_address')
    bank=$(field '.regions[] | select(.name == "data" and .cluster == 1) | .bank')
    [ "$bank" = 6 ]
    [ "$(field '.threads[0].words[1]')" = "$bank" ]
    [ "$(field '.threads[0].words[0]')" = "$((address & 0xFFFFFFFF))" ]
}
