#!/usr/bin/env bats
# kmrun run on the simulated card: the examples, the runtime's calls on
# one cluster (tests/fixtures/run/api.yaml), several clusters, the JSON
# (schemas/run.schema.json), --progress, --timeout, --wall-timeout, usage
# errors and exit codes.  The card's hazards are in hazards.bats.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    programs=$KMRUN_TOP/programs
    fixtures=$KMRUN_TOP/tests/fixtures/run
}

@test "run: 01_hello returns 42 with its progress marker; read-region prints its region" {
    run_json "$programs/01_hello/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ -z "$stderr" ]
    [ "$(field '.threads | length')" = 1 ]
    [ "$(field '.threads[0] | [.cluster, .ran, .state, .error, .code, .where] | @csv')" = \
        '1,true,"returned","none",0,2' ]
    [ "$(field '.threads[0].words | @csv')" = 42 ]
    [ "$(field '.threads[0].where_microseconds > 0 and .threads[0].microseconds > .threads[0].where_microseconds')" = true ]
    [ "$(field '.program, .backend, .x280_mhz')" = "hello
sim
1000" ]
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 out
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1024 ]
    awk '$1 != 7 * (NR - 1) { print "word " NR - 1 ": " $1; bad = 1 } END { exit bad }' <<<"$output"
}

@test "run: 02_parallel_sum returns the sum the test computes from the region" {
    run_json "$programs/02_parallel_sum/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    words=$(field '.threads[0].words | @csv')
    kmrun read-region --run-dir "$runs" --format raw data >"$BATS_TEST_TMPDIR/data.bin"
    expected=$(python3 - "$BATS_TEST_TMPDIR/data.bin" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert len(data) == 1 << 20
words = struct.unpack("<%dI" % (len(data) // 4), data)
assert set(words) == {0x9E3779B9}, "the region holds the manifest's fill"
total = sum(words)
weighted = sum(w * (i + 1) for i, w in enumerate(words)) & 0xFFFFFFFF
print("%d,%d,%d" % (total & 0xFFFFFFFF, total >> 32, weighted))
PY
)
    [ "$words" = "$expected" ] || { echo "thread: $words, test: $expected"; false; }
}

@test "run: the same program twice gives the same JSON but for run, run_dir and wall_seconds" {
    run_json "$programs/02_parallel_sum/program.yaml"
    [ "$status" -eq 0 ]
    first=$output
    run_json "$programs/02_parallel_sum/program.yaml"
    [ "$status" -eq 0 ]
    [ "$(jq -r .run <<<"$first")" != "$(field .run)" ]
    diff -u <(stable "$first") <(stable "$output")
}

@test "run: the JSON follows schemas/run.schema.json and is the run folder's result.json" {
    run_json "$programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
    dir=$(field .run_dir)
    [ "$dir" = "$runs/$(field .run)" ]
    [ "$(readlink "$runs/latest")" = "$(field .run)" ]
    diff -u "$dir/result.json" <(printf '%s' "$output")
    [ -f "$dir/regions/cluster1/out.bin" ]
}

@test "run: every call of the runtime works on one cluster" {
    run_json "$fixtures/api.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # Word i is 1 when check i of thread/api.c passed; 19 checks.
    [ "$(field '.threads[0].words[0:19] | map(tostring) | join("")')" = 1111111111111111111 ] ||
        { field '.threads[0].words'; false; }
    [ "$(field '.threads[0].words | length')" = 48 ]
    [ "$(field '.threads[0].words[47]')" = $((0x5a5a)) ]
    [ "$(field '.threads[0].where')" = 5 ]
    # Written through the cache and never flushed by the thread: in DRAM
    # only through the runtime's final flush.
    run kmrun read-region --run-dir "$runs" --format u32 --offset 32 --length 4 small
    [ "$output" = $((0xfeed)) ]
}

@test "run: a core-0 call from core 1 is the library error parallel" {
    run_json "$fixtures/parallel_error.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code] | @csv')" = 'false,"failed","parallel",7' ]
    # kmx_spawn on core 1 returned KMX_STOPPED; core 0 saw the stop.
    [ "$(field '.threads[0].words | @csv')" = 3,1 ]
}

@test "run: a trap on core 1: core, mcause, mtval, the cause's name and the source line" {
    run_json "$fixtures/trap_worker.yaml"
    [ "$status" -eq 1 ]
    line=$(grep -n 'FAULT' "$fixtures/thread/trap_worker.c" | tail -1 | cut -d: -f1)
    [ "$(field '.threads[0] | [.state, .error, .code] | @csv')" = '"trapped","trap",3' ]
    [ "$(field '.threads[0].trap | [.core, .mcause, .mtval, .name] | @csv')" = \
        "1,5,$((0x10000000)),\"load access fault\"" ]
    [ "$(field '.threads[0].trap.source | [.file, .line, .function] | @csv')" = \
        "\"thread/trap_worker.c\",$line,\"bad\"" ]
}

@test "run: three clusters, each with its own copy, and a region clusters 2 and 3 share" {
    run_json "$fixtures/three.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(field '[.threads[] | .cluster] | @csv')" = 1,2,3 ]
    [ "$(field '[.threads[] | .state] | unique | @csv')" = '"returned"' ]
    # words: the cluster, kmx_clusters() (bit c for cluster c), kmx_lead()
    [ "$(field '[.threads[] | .words | @csv] | join(" ")')" = '1,2,1 2,12,2 3,12,2' ]
    [ "$(field '[.regions[] | "\(.name):\(.cluster):\(.bank):\(.shared)"] | join(" ")')" = \
        'own:1:6:false own:2:7:false both:2:7:true own:3:7:false both:3:7:true' ]
    [ "$(field '[.regions[] | select(.name == "both") | .bank_address] | unique | length')" = 1 ]
    for c in 1 2 3; do
        run kmrun read-region --run-dir "$runs" --cluster $c --format u32 --length 4 own
        [ "$output" = $((c * 100)) ]
    done
    # Each of clusters 2 and 3 wrote its own line of the shared region;
    # the rest is the manifest's fill.
    run kmrun read-region --run-dir "$runs" --cluster 3 --format u32 both
    [ "${lines[0]}" = $((0x51)) ]
    [ "${lines[32]}" = 2 ]
    [ "${lines[48]}" = 3 ]
}

@test "run: a program at 1750 MHz" {
    run_json "$fixtures/fast.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(field '.x280_mhz, .threads[0].state')" = "1750
returned" ]
}

@test "run: a thread and a host-fed command: both run, no warning" {
    run_json "$fixtures/commands.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # (but for the one line ASan prints at the grid's first stack switch
    # in a MODE=asan build: device/sim/README.md, "ASan")
    rest=$(grep -v "ASan doesn't fully support makecontext/swapcontext" <<<"$stderr" || true)
    [ -z "$rest" ]
    [ "$(field '.threads[0].state')" = returned ]
    [ "$(field '.commands | length')" = 1 ]
    [ "$(field '.commands[0] | [.index, .handler, .handle, .event, .reason, .result] | @csv')" = \
        '0,"nop",1,"done",0,' ]
    [ "$(field '.commands[0].microseconds > 0')" = true ]
}

@test "run: --progress prints each new marker as a JSON line on stderr" {
    run_json --progress "$programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    [ "${#stderr_lines[@]}" -eq 2 ] || { echo "$stderr"; false; }
    for i in 0 1; do
        [[ ${stderr_lines[$i]} =~ ^\{\"cluster\":1,\"where\":$((i + 1)),\"microseconds\":[0-9]+(\.[0-9]+)?\}$ ]]
    done
    last=$(jq -r .microseconds <<<"${stderr_lines[1]}")
    [ "$(field .threads[0].where_microseconds)" = "$last" ]
    jq -e . >/dev/null <<<"$output"
}

@test "run: --timeout asks a thread that polls the stop to stop: stopped, exit 1" {
    run_json --timeout 0.002 "$KMRUN_TOP/tests/fixtures/hazards/poll.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0] | [.ran, .state, .error, .code, .where] | @csv')" = 'false,"stopped","none",0,2' ]
    [ "$(field '.threads[0].microseconds >= 1990 and .threads[0].microseconds < 2010')" = true ]
    [ "$(field '.device_microseconds >= 2000 and .device_microseconds < 2010')" = true ]
}

@test "run: --wall-timeout gives up in real time: a system error, exit 4, no JSON" {
    run_json --timeout 100 --wall-timeout 0.3 "$KMRUN_TOP/tests/fixtures/hazards/stuck.yaml"
    [ "$status" -eq 4 ]
    [ -z "$output" ]
    [[ $stderr == "kmrun: the run took more than 0.3 s of real time (--wall-timeout)"* ]]
    [ ! -e "$runs/latest" ]
}

@test "run: usage errors exit 2 with the usage line" {
    local m=$programs/01_hello/program.yaml
    for args in "" "$m $m" "--timeout abc $m" "--timeout 0 $m" "--timeout -1 $m" \
        "--wall-timeout x $m" "-j 0 $m" "--frobnicate $m" "--timeout"; do
        # shellcheck disable=SC2086 # split on purpose
        run --separate-stderr kmrun run $args
        [ "$status" -eq 2 ] || { echo "args: $args -> $status"; false; }
        [ -z "$output" ]
        [[ ${stderr_lines[-1]} == "usage: kmrun run "* ]] || { echo "$stderr"; false; }
    done
    run --separate-stderr kmrun run --timeout abc "$m"
    [ "${stderr_lines[0]}" = "kmrun: invalid timeout 'abc' (expected seconds, such as 2 or 0.5)" ]
}

@test "run: exit codes: a manifest error 2, a compile error 3 with the compiler's message" {
    mkdir -p "$BATS_TEST_TMPDIR/p/thread"
    printf 'name: p\nthreads:\n  - cluster: 4\n    sources: [thread/t.c]\n' >"$BATS_TEST_TMPDIR/p/bad.yaml"
    printf 'int kmx_main(int core) { return nope; }\n' >"$BATS_TEST_TMPDIR/p/thread/t.c"
    run --separate-stderr kmrun run --run-dir "$runs" "$BATS_TEST_TMPDIR/p/bad.yaml"
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ $stderr == *"bad.yaml:3:"* ]]
    printf 'name: p\nthreads:\n  - cluster: 1\n    sources: [thread/t.c]\n' >"$BATS_TEST_TMPDIR/p/p.yaml"
    run --separate-stderr kmrun run --run-dir "$runs" "$BATS_TEST_TMPDIR/p/p.yaml"
    [ "$status" -eq 3 ]
    [ -z "$output" ]
    [[ $stderr == *"'nope' undeclared"* ]]
    # The run's folder was begun before its build; a build that failed, and
    # said so, leaves no run (nor a `latest`) behind.
    [ -z "$(ls "$runs")" ]
    [ ! -e "$runs/latest" ]
}

@test "run: the JSON names each image by the hash kmrun build gives it" {
    run --separate-stderr kmrun build "$programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    built=$(jq -r '.threads[0].image.sha256' <<<"$output")
    run_json "$programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    [ "$(field '.images[0].sha256')" = "$built" ]
    [ "$(field '.images[0].clusters | @csv')" = 1 ]
    [ "$(jq -r '.images[0].sha256' "$runs/latest/result.json")" = "$built" ]
}

@test "run: a killed run's folder is removed by the next run; until then read-region says so" {
    run_json "$programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    first=$(field .run)
    kmrun run --run-dir "$runs" --timeout 100 "$KMRUN_TOP/tests/fixtures/hazards/stuck.yaml" \
        >/dev/null 2>&1 3>&- &
    pid=$!
    for _ in $(seq 300); do
        compgen -G "$runs/.writing.*" >/dev/null && break
        sleep 0.1
    done
    kill -9 "$pid"
    wait "$pid" || true
    compgen -G "$runs/.writing.*"
    [ "$(readlink "$runs/latest")" = "$first" ]
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 --length 4 out
    [ "$status" -eq 4 ]
    [[ $stderr == *"was interrupted before its folder was written"*"--run $first)" ]]
    run_json "$programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    ! compgen -G "$runs/.writing.*"
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 --length 8 out
    [ "$status" -eq 0 ]
}

@test "run: a run folder that cannot be written loses no result: the JSON, then exit 4" {
    # A --run-dir under a regular file fails for root too.
    touch "$BATS_TEST_TMPDIR/file"
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/file/runs" \
        "$programs/01_hello/program.yaml"
    [ "$status" -eq 4 ]
    [ "$(field '.threads[0].words | @csv')" = 42 ]
    [ "$stderr" = "kmrun: the run folder was not written (the results are on stdout only): cannot create '$BATS_TEST_TMPDIR/file/runs': Not a directory" ]
    run --separate-stderr kmrun check --run-dir "$BATS_TEST_TMPDIR/file/runs" \
        "$programs/01_hello/program.yaml"
    [ "$status" -eq 4 ]
    [[ $output == "kmrun: check: 'hello' agrees on the simulated card and the host"* ]]
    [[ $stderr == "kmrun: the run folder was not written"* ]]
}
