#!/usr/bin/env bats
# kmrun check and kmrun run --thread host: the host fallback beside the
# simulated grid, compared with the simulated card byte for byte.  The
# threads are in tests/fixtures/check/ and tests/fixtures/grid_hazards/
# (each README says what they return).

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixtures=$KMRUN_TOP/tests/fixtures
}

@test "check: the card and the host agree on a thread that hands bytes to the grid and back" {
    run --separate-stderr kmrun check --run-dir "$runs" "$fixtures/grid_hazards/hazard.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "${#lines[@]}" -eq 1 ]
    [[ $output == "kmrun: check: 'grid_hazard' agrees on the simulated card and the host: 1 thread, 1 region (4,096 bytes) identical (runs "* ]]
    # both run folders are kept
    [ "$(find "$runs" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 2 ]
}

@test "check: the host fallback has the card's hazards: stale without kmx_invalidate, old without kmx_flush" {
    run_json --thread host "$fixtures/grid_hazards/hazard.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(field '.backend')" = host ]
    [ "$(field '.times')" = host ]
    [ "$(field '.threads[0].words[2:8] | @csv')" = 5,5,9,0,7,0 ]
}

@test "check: a thread that differs on purpose is caught: the region, the offset, both values" {
    run --separate-stderr kmrun check --run-dir "$runs" "$fixtures/check/differ.yaml"
    [ "$status" -eq 1 ]
    [[ ${lines[0]} == "kmrun: check: 'differ' differs between the simulated card and the host (runs "* ]]
    printf '%s\n' "${lines[@]:1}" >"$BATS_TEST_TMPDIR/rest"
    output=$(cat "$BATS_TEST_TMPDIR/rest")
    expect stdout <<'END'
thread on cluster 1: result word 1: sim 0, host 1
region 'out' of cluster 1: 1 byte differs, the first at offset 100 (0x64)
  sim  at 0x60: 60 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f
  host at 0x60: 60 61 62 63 aa 65 66 67 68 69 6a 6b 6c 6d 6e 6f
END
}

@test "check: --json follows schemas/check.schema.json, agreeing and not" {
    run --separate-stderr kmrun check --json --run-dir "$runs" "$fixtures/check/differ.yaml"
    [ "$status" -eq 1 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/differ.json"
    [ "$(jq -r '.agree' "$BATS_TEST_TMPDIR/differ.json")" = false ]
    [ "$(jq -c '.differences[] | select(.kind == "region") | [.region, .offset, .bytes]' "$BATS_TEST_TMPDIR/differ.json")" = '["out",100,1]' ]
    run --separate-stderr kmrun check --json --run-dir "$runs" "$fixtures/grid_hazards/hazard.yaml"
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/agree.json"
    [ "$(jq -r '.agree' "$BATS_TEST_TMPDIR/agree.json")" = true ]
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" --check-schema "$KMRUN_TOP/schemas/check.schema.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/check.schema.json" \
        "$BATS_TEST_TMPDIR/differ.json" "$BATS_TEST_TMPDIR/agree.json"
}

@test "check: the examples that the fallback can run agree" {
    for p in 01_hello 02_parallel_sum; do
        run --separate-stderr kmrun check --run-dir "$runs" "$KMRUN_TOP/programs/$p/program.yaml"
        [ "$status" -eq 0 ] || { echo "$p: $output $stderr"; false; }
    done
}

@test "run --thread host: a call the fallback cannot honour is an error that names it" {
    run_json --thread host "$fixtures/check/unsupported.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0].state')" = failed ]
    [ "$(field '.threads[0].error')" = host ]
    [[ $(field '.threads[0].message') == "kmx_port_open is not available in the host fallback"* ]]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/unsupported.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/unsupported.json"
}

@test "run --thread: anything but sim or host is a usage error" {
    run -2 --separate-stderr kmrun run --thread card "$fixtures/check/differ.yaml"
    [[ ${stderr} == "kmrun: invalid --thread 'card' (expected sim or host)"* ]]
}

@test "check: a program with no thread has nothing to check" {
    run -2 --separate-stderr kmrun check "$KMRUN_TOP/programs/04_host_fed/program.yaml"
    [ "$stderr" = "kmrun: program 'host_fed' has no thread: there is no host fallback to check" ]
}

@test "build --host: each thread's host fallback is built and cached like the rest" {
    run --separate-stderr kmrun build --quiet --host "$fixtures/check/differ.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/build.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/build.schema.json" \
        "$BATS_TEST_TMPDIR/build.json"
    local path
    path=$(jq -r '.threads[0].host.path' "$BATS_TEST_TMPDIR/build.json")
    [[ $path == */thread_host.so ]]
    nm -D --defined-only "$path" | grep -q ' T kmx_host_run$'
    # the second time, both come from the cache
    run --separate-stderr kmrun build --quiet --host "$fixtures/check/differ.yaml"
    [ "$(jq -r '[.threads[0].image.cache, .threads[0].host.cache] | @csv' <<<"$output")" = '"hit","hit"' ]
    # without --host there is no host entry
    run --separate-stderr kmrun build --quiet "$fixtures/check/differ.yaml"
    [ "$(jq -r '.threads[0] | has("host")' <<<"$output")" = false ]
}

@test "run --thread host: a fault in thread code is a trap with its source line, as on the card" {
    local line
    line=$(grep -n 'the faulting load' "$fixtures/check/thread/trap.c" | cut -d: -f1)
    run_json --thread host "$fixtures/check/trap.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0].state')" = trapped ]
    [ "$(field '.threads[0].error')" = trap ]
    [ "$(field '.threads[0].where')" = 1 ]
    [ "$(field '.threads[0].trap.name')" = "Segmentation fault (host fallback, SEGV)" ]
    [ "$(field '.threads[0].trap.mtval')" = 16 ]
    [ "$(field '.threads[0].trap.source | "\(.file):\(.line):\(.function)"')" = "thread/trap.c:$line:kmx_main" ]
    # the same program traps on the card at the same line, and check agrees
    run_json "$fixtures/check/trap.yaml"
    [ "$(field '.threads[0].trap.name')" = "load access fault" ]
    [ "$(field '.threads[0].trap.source.line')" = "$line" ]
    run --separate-stderr kmrun check --run-dir "$runs" "$fixtures/check/trap.yaml"
    [ "$status" -eq 0 ]
}

@test "check: host-fed commands beside a thread are compared too, event and result word" {
    run --separate-stderr kmrun check --json --run-dir "$runs" "$fixtures/check/commands.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(jq -r '.agree' <<<"$output")" = true ]
    local sim
    sim=$(jq -r '.sim_run' <<<"$output")
    [ "$(jq -r '.commands[1] | "\(.event) \(.result)"' "$runs/$sim/result.json")" = "done 3072" ]
}

@test "run --thread host: one image on two clusters gets two copies, each with its own globals" {
    run_json --thread host "$fixtures/check/two.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(field '[.threads[] | .words | @csv] | join(" ")')" = "2,2 3,2" ]
    run --separate-stderr kmrun read-region --run-dir "$runs" --cluster 2 --format u32 --offset 128 --length 4 both
    [ "$output" = 14 ]
    run --separate-stderr kmrun read-region --run-dir "$runs" --cluster 3 --format u32 --offset 192 --length 4 both
    [ "$output" = 21 ]
    run --separate-stderr kmrun check --run-dir "$runs" "$fixtures/check/two.yaml"
    [ "$status" -eq 0 ]
}

@test "run --thread host: a loop that never polls the stop is stuck, with its source line" {
    local line
    line=$(grep -n 'SPIN' "$fixtures/hazards/thread/stuck.c" | head -1 | cut -d: -f1)
    run_json --thread host --timeout 0.2 "$fixtures/hazards/stuck.yaml"
    [ "$status" -eq 1 ]
    [ "$(field '.threads[0].state')" = stuck ]
    [ "$(field '.threads[0].stuck.source | "\(.file):\(.line)"')" = "thread/stuck.c:$line" ]
    [[ $(field '.threads[0].stuck.detail') == *"never polls the stop"* ]]
}
