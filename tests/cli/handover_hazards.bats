#!/usr/bin/env bats
# The hand-over checker on the card's hazards (issue 13): every hazard
# fixture reports the right kind, region, offset and both sides' source
# lines and names the missing call; the same program with the call added
# reports nothing; every example runs clean; the checker changes no
# modeled time.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fx=$KMRUN_TOP/tests/fixtures
}

# checked MANIFEST: kmrun run --check-handover MANIFEST (status, JSON,
# stderr as run_json leaves them).
checked() {
    run_json --check-handover "$1"
}

# finding N FILTER: jq FILTER on the run JSON's handover[N].
finding() {
    field ".handover[$1] | $2"
}

# A copy of fixture folder $1 with sed program $2 applied to file $3 in it;
# prints the copy's folder.
copy_with() {
    local to=$BATS_TEST_TMPDIR/copy
    rm -rf "$to"
    cp -r "$1" "$to"
    sed -i "$2" "$to/$3"
    echo "$to"
}

@test "handover: a stale read names the writer, the fill and the missing kmx_invalidate" {
    checked "$fx/hazards/stale.yaml"
    [ "$status" -eq 1 ] || { echo "$status $stderr"; false; }
    [ "$(field '.handover | length')" = 1 ]
    [ "$(finding 0 '[.kind, .region, .id, .cluster, .offset, .missing] | @csv')" = \
        '"stale_read","data",0,1,0,"kmx_invalidate(0)"' ]
    [ "$(finding 0 '[.at.source.line, .writer.source.line, .fill.source.line] | @csv')" = '15,14,13' ]
    [ "$(finding 0 '.at.source.file')" = thread/stale.c ]
    # stderr's files from the working folder, as gcc's (the JSON's from the manifest's)
    cd "$fx/hazards"
    checked stale.yaml
    [[ "$stderr" == "thread/stale.c:15: stale read of region 'data' +0x0 (cluster 1 core 0): "*"thread/stale.c:14"*"thread/stale.c:13"*"kmx_invalidate(0) is missing between them"* ]]
    cd "$fx"
    checked hazards/stale.yaml
    [[ "$stderr" == "hazards/thread/stale.c:15: stale read of region 'data' +0x0 (cluster 1 core 0): "*"hazards/thread/stale.c:14"*"hazards/thread/stale.c:13"* ]]
    # With the call: nothing, and exit 0.
    copy=$(copy_with "$fx/hazards" 's|^    w\[1\] = cached\[0\];|    kmx_invalidate(0);\n&|' thread/stale.c)
    checked "$copy/stale.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.handover | length')" = 0 ]
    [ -z "$(grep -v "ASan doesn't fully support" <<<"$stderr" || true)" ]
}

@test "handover: a read of DRAM a cluster holds dirty is an unflushed read, kmx_flush missing" {
    checked "$fx/hazards/unflushed.yaml"
    [ "$status" -eq 1 ]
    [ "$(finding 0 '[.kind, .region, .offset, .missing, .at.source.line, .writer.source.line] | @csv')" = \
        '"unflushed_read","data",0,"kmx_flush(0)",16,15' ]
    copy=$(copy_with "$fx/hazards" 's|^    w\[0\] = uncached(cached)\[0\];.*|    kmx_flush(0);\n&|' thread/unflushed.c)
    checked "$copy/unflushed.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; field .handover; false; }
}

@test "handover: 1 KiB left unflushed is one finding, its byte range and its 16 lines" {
    checked "$fx/hazards/unflushed_kib.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.handover | length')" = 1 ] || { field .handover; false; }
    [ "$(finding 0 '[.kind, .region, .offset, .end_offset, .lines, .missing, .at.source.line, .writer.source.line] | @csv')" = \
        '"unflushed_read","data",0,1024,16,"kmx_flush(0)",19,15' ]
    [[ "$stderr" == *"unflushed_kib.c:19: unflushed read of region 'data' +0x0..+0x400 (16 lines) (cluster 1 core 0)"*"unflushed_kib.c:15"*"kmx_flush(0) is missing"* ]]
    # flushed first: nothing
    copy=$(copy_with "$fx/hazards" 's|^    volatile uint32_t \*dram = .*|    kmx_flush(0);\n&|' thread/unflushed_kib.c)
    checked "$copy/unflushed_kib.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; field .handover; false; }
    [ "$(field '.handover | length')" = 0 ]
}

@test "handover: 02_parallel_sum without its kmx_invalidate is a latent read that names kmx_invalidate" {
    # The run reads the right bytes (the cache held none of the lines the
    # host wrote), but a card whose cache held them reads them stale.
    copy=$(copy_with "$KMRUN_TOP/programs/02_parallel_sum" 's|^    kmx_invalidate(0);.*|    /* no invalidate */|' thread/sum.c)
    ! grep -q '^    kmx_invalidate' "$copy/thread/sum.c"
    checked "$copy/program.yaml"
    [ "$status" -eq 1 ] || { echo "$status $stderr"; false; }
    [ "$(field '.threads[0].words | @csv')" = '3873701888,162013,4084334592' ] # right this time
    [ "$(field '.handover | length')" = 1 ] || { field .handover; false; }
    [ "$(finding 0 '[.kind, .region, .offset, .end_offset, .lines, .missing, .writer.kind, .at.source.file] | @csv')" = \
        '"latent_read","data",0,1048576,16384,"kmx_invalidate(0)","host","thread/sum.c"' ]
    [[ "$stderr" == *"latent stale read of region 'data' +0x0..+0x100000 (16384 lines)"*"kmx_invalidate(0) is missing before the read"* ]]
    # kmx_invalidate after the other side's write is what clears it: with
    # the call where it belongs, nothing (the example itself runs clean:
    # the test after the next ones)
}

@test "handover: a dirty line written back over newer DRAM is a lost write" {
    checked "$fx/hazards/writeback.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '[.handover[] | .kind] | @csv')" = '"unflushed_read","lost_write"' ]
    [ "$(finding 1 '[.region, .offset, .missing, .at.source.line, .writer.source.line, .fill.source.line] | @csv')" = \
        '"data",0,"kmx_flush(0)",11,12,11' ]
    copy=$(copy_with "$fx/hazards" 's|^    uncached(cached)\[0\] = 2;.*|    kmx_flush(0);\n&|' thread/writeback.c)
    checked "$copy/writeback.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; field .handover; false; }
}

@test "handover: a handler's write read stale, and a handler reading what a thread did not flush" {
    checked "$fx/grid_hazards/hazard.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '[.handover[] | .kind] | @csv')" = '"stale_read","unflushed_read"' ]
    [ "$(finding 0 '[.writer.kind, .writer.handler, .writer.source.file, .at.source.file, .missing] | @csv')" = \
        '"handler","probe","kernels/probe.c","thread/hazard.c","kmx_invalidate(0)"' ]
    [ "$(finding 1 '[.at.kind, .at.handler, .at.source.file, .writer.source.file, .offset, .missing] | @csv')" = \
        '"handler","probe","kernels/probe.c","thread/hazard.c",4,"kmx_flush(0)"' ]
    [[ "$stderr" == *"kmx_flush(0) is missing before the kmx_submit"* ]]
    # Without the two reads that have no call before them: nothing.
    copy=$(copy_with "$fx/grid_hazards" '/^    w\[3\] = data\[0\];/d; /^    w\[5\] = probe(3, 0, 1, 4, &status);/d' thread/hazard.c)
    checked "$copy/hazard.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; field .handover; false; }
}

@test "handover: a push over a receiver's dirty line is a lost write; flushed first, nothing" {
    checked "$fx/handover/push.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.handover | length')" = 1 ]
    [ "$(finding 0 '[.kind, .region, .cluster, .writer.cluster, .writer.source.file, .writer.source.line, .at.source.line] | @csv')" = \
        '"lost_write","data",2,1,"thread/push.c",44,18' ]
    [ "$(finding 0 '.missing')" = 'kmx_flush(0)' ]
    [[ "$stderr" == *"the receiver's kmx_flush(0) is missing before the push"* ]]
    checked "$fx/handover/push_fixed.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; field .handover; false; }
}

@test "handover: a region shared by clusters 2 and 3 read again without kmx_invalidate" {
    checked "$fx/handover/shared.yaml"
    [ "$status" -eq 1 ]
    [ "$(finding 0 '[.kind, .region, .cluster, .at.cluster, .writer.cluster, .writer.source.line, .fill.source.line, .at.source.line, .missing] | @csv')" = \
        '"stale_shared_read","both",3,3,2,25,31,38,"kmx_invalidate(0)"' ]
    checked "$fx/handover/shared_fixed.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; field .handover; false; }
}

@test "handover: every example runs clean with the checker on" {
    for m in "$KMRUN_TOP"/programs/*/*.yaml; do
        checked "$m"
        [ "$status" -eq 0 ] || { echo "$m: $status $stderr"; false; }
        [ "$(field '.handover | length')" = 0 ] || { echo "$m"; field .handover; false; }
    done
}

@test "handover: the checker changes no modeled time, word or region" {
    m=$KMRUN_TOP/programs/08_parallel_thread/twelve.yaml
    run_json "$m"
    off=$(jq -c '[.device_microseconds, .instructions, [.threads[] | .words, .microseconds]]' <<<"$output")
    checked "$m"
    on=$(jq -c '[.device_microseconds, .instructions, [.threads[] | .words, .microseconds]]' <<<"$output")
    [ "$off" = "$on" ]
}
