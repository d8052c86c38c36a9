#!/usr/bin/env bats
# Wild writes (issue 27, item 9): a thread that stores through a NoC window
# into another cluster's local memory, or into the dispatcher's, corrupts
# them silently on a card.  The simulated card always reports each such
# write (writer core and line, target, address range) on stderr and in the
# run JSON's wild_writes, fails the run, and writes the run folder; the
# cluster whose image was zeroed ends stuck with the write named, in
# modeled time (its cores trap at the zeroed trap vector: a trap loop the
# hart takes whole).  The thread is tests/fixtures/noc_writes/thread/wild.c
# (the README says what each manifest does).

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixtures=$KMRUN_TOP/tests/fixtures/noc_writes
    wild_line=$(grep -n 'WILD' "$fixtures/thread/wild.c" | head -1 | cut -d: -f1)
}

# The run failed (exit 1) with its JSON, valid, and its run folder.
failed_with_folder() {
    [ "$status" -eq 1 ] || { echo "status $status: $output $stderr"; false; }
    local dir
    dir=$(field '.run_dir')
    [ -f "$dir/result.json" ] || { echo "no run folder '$dir'"; ls -a "$runs"; false; }
    [ "$(jq -c .wild_writes "$dir/result.json")" = "$(field '.wild_writes | tojson')" ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
}

# The one wild write of cluster 1's core 0, at the WILD line, into TARGET at
# TILE (x,y), [FIRST, END), BYTES in STORES stores.
one_wild_write() {
    [ "$(field '.wild_writes | length')" = 1 ] || { field .wild_writes; false; }
    [ "$(field '.wild_writes[0].writer | [.kind, .cluster, .core, .source.file, .source.line] | @csv')" = \
        "\"x280\",1,0,\"thread/wild.c\",$wild_line" ]
    [ "$(field '.wild_writes[0] | [.target, .tile[0], .tile[1], .address, .end, .bytes, .stores] | @csv')" = \
        "$1,$2,$(($3)),$(($4)),$5,$6" ]
}

@test "wild write: zeroing another cluster's local memory is a finding with its line; that cluster ends stuck, the write named" {
    run_json --timeout 0.01 "$fixtures/lim.yaml"
    failed_with_folder
    one_wild_write 2 8,5 0x8000000 0x8001000 4096 512
    [[ $stderr == *"thread/wild.c:$wild_line: wild write: cluster 1 core 0 wrote 4,096 bytes into cluster 2's local memory (tile (8, 5), 0x8000000..0x8000fff, 512 stores from "* ]] ||
        { echo "$stderr"; false; }
    # The writer returned; the cluster it wrote over traps at its zeroed trap
    # vector until the stuck verdict, 1 s after the stop.
    [ "$(field '.threads[0] | [.cluster, .state] | @csv')" = '1,"returned"' ]
    [ "$(field '.threads[1] | [.cluster, .state] | @csv')" = '2,"stuck"' ]
    [ "$(field .device_microseconds)" = 1010000 ]
    [[ $(field '.threads[1].message') == "its local memory was written by cluster 1 core 0 at thread/wild.c:$wild_line (0x8000000..0x8000fff): a wild write"* ]]
}

@test "wild write: a store into the dispatcher's local memory is a finding with its line (it had no effect before)" {
    run_json --timeout 0.01 "$fixtures/dispatcher.yaml"
    failed_with_folder
    one_wild_write 0 8,3 0x8000000 0x8000100 256 32
    [[ $stderr == *"thread/wild.c:$wild_line: wild write: cluster 1 core 0 wrote 256 bytes into the dispatcher's local memory (cluster 0, tile (8, 3), 0x8000000..0x80000ff, 32 stores from "*"only its own ring's lines, 0x8100000..0x8101fff for cluster 1"* ]] ||
        { echo "$stderr"; false; }
    [ "$(field '.threads[0].state')" = returned ]
    [ "$(field '.threads[1].state')" = stopped ]
}

@test "wild write: the runtime's own stores into other clusters and the ring are not findings" {
    # kmx_parallel_all writes the other clusters' cluster lines, kmx_serve the
    # lead's, a submit the dispatcher's ring area: none is a wild write.
    run_json "$KMRUN_TOP/programs/08_parallel_thread/twelve.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.wild_writes | length')" = 0 ]
    [ "$(field '.stats.noc_bytes.x280_to_lim > 0')" = true ]
    run_json "$KMRUN_TOP/programs/03_ring/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.wild_writes | length')" = 0 ]
}

@test "wild write: the host fallback has no NoC windows: the window's register store traps, nothing is wild" {
    run_json --thread host --timeout 0.5 "$fixtures/lim.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.wild_writes | length')" = 0 ]
    [ "$(field '.threads[0] | [.state, .trap.name, .trap.source.file] | @csv')" = \
        '"trapped","Segmentation fault (host fallback, SEGV)","thread/wild.c"' ]
}
