#!/usr/bin/env bats
# kmrun read-region on a run folder laid out as km_rundir.h documents
# (written here by hand, so these tests stand without the simulator).

load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    run_dir=$runs/20261201T000000Z-abcdef
    mkdir -p "$run_dir/regions/cluster1" "$run_dir/regions/cluster2" "$run_dir/regions/cluster3"
    echo '{}' >"$run_dir/result.json"
    # counts: words 1, 2, 258, 0xffffffff; "data" on clusters 2 and 3.
    printf '\001\000\000\000\002\000\000\000\002\001\000\000\377\377\377\377' \
        >"$run_dir/regions/cluster1/counts.bin"
    printf 'hello, cluster 2' >"$run_dir/regions/cluster2/data.bin"
    printf 'hello, cluster 3' >"$run_dir/regions/cluster3/data.bin"
    cat >"$run_dir/regions.json" <<'JSON'
[{"name": "counts", "cluster": 1, "bank": 6, "bank_address": 4096, "bytes": 16, "file": "regions/cluster1/counts.bin"},
 {"name": "data", "cluster": 2, "bank": 7, "bank_address": 8192, "bytes": 16, "file": "regions/cluster2/data.bin"},
 {"name": "data", "cluster": 3, "bank": 7, "bank_address": 8192, "bytes": 16, "file": "regions/cluster3/data.bin"}]
JSON
    ln -s 20261201T000000Z-abcdef "$runs/latest"
    cd "$BATS_TEST_TMPDIR"
}

@test "read-region: u32 words of the latest run under --run-dir" {
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 counts
    [ "$status" -eq 0 ]
    expect stdout <<'OUT'
1
2
258
4294967295
OUT
}

@test "read-region: KMRUN_RUNS, a run id, an offset and a length" {
    KMRUN_RUNS=$runs run --separate-stderr kmrun read-region --run 20261201T000000Z-abcdef \
        --format u32 --offset 8 --length 4 counts
    [ "$status" -eq 0 ]
    [ "$output" = 258 ]
}

@test "read-region: a hex dump by default, raw bytes, json" {
    run --separate-stderr kmrun read-region --run "$run_dir" --cluster 2 data
    [ "$status" -eq 0 ]
    expect stdout <<'OUT'
00000000: 6865 6c6c 6f2c 2063 6c75 7374 6572 2032  hello, cluster 2
OUT
    run --separate-stderr kmrun read-region --run "$run_dir" --cluster 3 --format raw data
    [ "$output" = "hello, cluster 3" ]
    run --separate-stderr kmrun read-region --run-dir "$runs" --format json --length 8 counts
    [ "$status" -eq 0 ]
    [ "$(/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["u32"], d["cluster"])' <<<"$output")" = "[1, 2] 1" ]
}

@test "read-region: clear errors, exit 2, for unknown names, clusters and runs" {
    run --separate-stderr kmrun read-region --run-dir "$runs" cuonts
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"no region 'cuonts' in the run"*"(did you mean 'counts'?)"* ]]
    run --separate-stderr kmrun read-region --run-dir "$runs" data
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"region 'data' has a copy on clusters 2, 3: choose one with --cluster"* ]]
    run --separate-stderr kmrun read-region --run-dir "$runs" --cluster 1 data
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"region 'data' has no copy on cluster 1 (it is on 2, 3)"* ]]
    run --separate-stderr kmrun read-region --run-dir "$runs" --cluster 4 data
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"invalid cluster '4' (expected 1, 2 or 3)"* ]]
    run --separate-stderr kmrun read-region --run-dir "$runs" --run nope counts
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"no run 'nope'"* ]]
    run --separate-stderr kmrun read-region --run-dir "$BATS_TEST_TMPDIR/empty" counts
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"no run in"*"yet"* ]]
    run --separate-stderr kmrun read-region --run-dir "$runs" --offset 12 --length 8 counts
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"run past the end of region 'counts' (16 bytes)"* ]]
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 --offset 2 counts
    [ "$status" -eq 2 ]
    run --separate-stderr kmrun read-region --run-dir "$runs" --format yaml counts
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"unknown format 'yaml' (expected raw, hex, u32 or json)"* ]]
}

@test "read-region: no name reaches outside the run folder" {
    echo secret >"$BATS_TEST_TMPDIR/secret.bin"
    for name in ../../secret ../../../secret /etc/passwd '..'; do
        run --separate-stderr kmrun read-region --run-dir "$runs" --format raw "$name"
        [ "$status" -eq 2 ]
        [[ "$output" != *secret* ]]
    done
    # A listing that names a file outside the layout is refused as damaged.
    sed -i 's|regions/cluster1/counts.bin|../../secret.bin|' "$run_dir/regions.json"
    run --separate-stderr kmrun read-region --run-dir "$runs" --format raw counts
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"is damaged"* ]]
}

@test "read-region: a region file that is not what regions.json records is refused, exit 4" {
    f=$run_dir/regions/cluster1/counts.bin
    cp "$f" "$BATS_TEST_TMPDIR/counts.bin"
    truncate -s 12 "$f"
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 counts
    [ "$status" -eq 4 ]
    [ -z "$output" ]
    [[ "$stderr" == *"counts.bin' has 12 bytes, not the 16 regions.json records"* ]]
    truncate -s 20 "$f"
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 counts
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"has 20 bytes, not the 16"* ]]
    rm "$f" && mkfifo "$f"
    run --separate-stderr timeout 10 kmrun read-region --run-dir "$runs" counts
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"counts.bin' is not a regular file"* ]]
    rm "$f" && ln -s /dev/zero "$f"
    run --separate-stderr timeout 10 kmrun read-region --run-dir "$runs" counts
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"counts.bin' is not a regular file (a symbolic link)"* ]]
    rm "$f" && mkdir "$f"
    run --separate-stderr timeout 10 kmrun read-region --run-dir "$runs" counts
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"is not a regular file"* ]]
    rmdir "$f" && cp "$BATS_TEST_TMPDIR/counts.bin" "$f"
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 --length 4 counts
    [ "$status" -eq 0 ]
    [ "$output" = 1 ]
}

@test "read-region: latest is not shown when a newer run was interrupted, exit 4" {
    # A run killed while it ran leaves its .writing folder, which no live
    # kmrun holds locked; latest still names the run before it.
    mkdir -p "$runs/.writing.20261202T000000Z-123456.Ab12Cd/regions"
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 counts
    [ "$status" -eq 4 ]
    [ -z "$output" ]
    [[ "$stderr" == *"the newest run '20261202T000000Z-123456' in '$runs' was interrupted"* ]]
    [[ "$stderr" == *"(read that one with --run 20261201T000000Z-abcdef)"* ]]
    run --separate-stderr kmrun read-region --run-dir "$runs" --run 20261201T000000Z-abcdef \
        --format u32 --length 4 counts
    [ "$status" -eq 0 ]
    [ "$output" = 1 ]
    # One being written now (its lock held) is no reason to refuse latest.
    exec 5<"$runs/.writing.20261202T000000Z-123456.Ab12Cd"
    flock 5
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 --length 4 counts
    exec 5<&-
    [ "$status" -eq 0 ]
    [ "$output" = 1 ]
}
