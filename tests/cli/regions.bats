#!/usr/bin/env bats
# Big regions (issue 33 part 5): a 1 GiB region of which the thread writes
# its first 1 MiB (tests/fixtures/big_region/mib.yaml) costs what was
# written, not the region's size: the run's peak resident memory (GNU
# time's maxrss, which does not vary the way time does) stays under
# 100 MB, and so do `read-region`'s and `kmrun test`'s (its SHA-256);
# the region file holds the same bytes, as a sparse file.  bench/regions measures both cases, time too.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixture=$KMRUN_TOP/tests/fixtures/big_region
    [ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) is not installed"
    # A sanitizer's build maps shadow memory: its resident size is not kmrun's.
    case ${KMRUN_BUILD##*/} in build-*) skip "a sanitizer's build (${KMRUN_BUILD##*/})" ;; esac
}

# peak_kib FILE: the peak resident KiB GNU time wrote to FILE.
peak_kib() { tail -1 "$1"; }

@test "regions: a 1 GiB region written 1 MiB: peak memory under 100 MB, the bytes as written" {
    run --separate-stderr /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/run.time" \
        kmrun run --run-dir "$runs" "$fixture/mib.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.threads[0] | [.state, .code, .words[0]] | @csv')" = '"returned",0,1048576' ]
    [ "$(field '.regions[0].bytes')" = 1073741824 ]
    kib=$(peak_kib "$BATS_TEST_TMPDIR/run.time")
    echo "peak: $kib KiB"
    [ "$kib" -le 97656 ] # 100 MB (it was 1.06 GB: a whole copy of the region)
    # The file: the region's size, its bytes the thread's, the rest a hole.
    file=$runs/latest/regions/cluster1/big.bin
    [ "$(stat -c %s "$file")" = 1073741824 ]
    [ "$(sha256sum <"$file" | cut -d' ' -f1)" = \
        551b575c6895491668322b28333b881e2a286f8e01e7e10614a6de4401e9fd90 ]
    [ "$(stat -c %b "$file")" -le $((8 * 1024 * 2)) ] # at most 8 MiB of 512-byte blocks
}

@test "regions: read-region of a 1 GiB region reads what was written, not the holes" {
    kmrun run --run-dir "$runs" "$fixture/mib.yaml" >/dev/null
    run --separate-stderr /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/read.time" \
        kmrun read-region --run-dir "$runs" --format u32 --offset 1048568 --length 16 big
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # Word pair 131071 (i * 0x9e3779b97f4a7c15, little-endian), then zeros.
    expect stdout <<'OUT'
2027914219
1429963995
0
0
OUT
    kib=$(peak_kib "$BATS_TEST_TMPDIR/read.time")
    echo "peak: $kib KiB"
    [ "$kib" -le 97656 ]
}

@test "regions: kmrun test holds the 1 GiB region to its SHA-256 without reading the holes" {
    run --separate-stderr /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/test.time" \
        kmrun test --rerun "$fixture/mib.yaml"
    [ "$status" -eq 0 ] || { echo "$output$stderr"; false; }
    [ "${lines[-1]}" = "1 passed, 0 failed" ]
    kib=$(peak_kib "$BATS_TEST_TMPDIR/test.time")
    echo "peak: $kib KiB"
    [ "$kib" -le 97656 ]
}
