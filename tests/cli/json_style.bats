#!/usr/bin/env bats
# One style of key names in every JSON kmrun writes (issue 30): snake_case,
# as schemas/README.md says; the timeline's Chrome Trace Event keys aside.
# tests/cli/json_style.py checks the schemas' property names and the keys
# of real outputs.

load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    out=$BATS_TEST_TMPDIR/out
    mkdir -p "$out"
}

style() {
    run python3 "$KMRUN_TOP/tests/cli/json_style.py" "$@"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "json style: every schema's property names are snake_case, and each schema says so" {
    style "$KMRUN_TOP"/schemas/*.schema.json
    local s
    for s in "$KMRUN_TOP"/schemas/*.schema.json; do
        jq -e '."$comment" | test("snake_case")' "$s" >/dev/null || { echo "$s: no \$comment on key style"; false; }
    done
    grep -q '^## One style of key names' "$KMRUN_TOP/schemas/README.md"
}

@test "json style: run, build, validate, check, cache stats, read-region, progress, run folder, timeline, profile" {
    local p=$KMRUN_TOP/programs
    kmrun run --run-dir "$runs" --timeline "$out/timeline.json" "$p/04_host_fed/program.yaml" \
        >"$out/run04.json" 2>/dev/null
    kmrun run --run-dir "$runs" --progress "$p/07_work_cluster/program.yaml" \
        >"$out/run07.json" 2>"$out/progress.txt"
    kmrun run --run-dir "$runs" "$p/10_x280_ports/program.yaml" >"$out/run10.json" 2>/dev/null
    kmrun run --run-dir "$runs" "$p/11_pull/program.yaml" >"$out/run11.json" 2>/dev/null
    kmrun run --run-dir "$runs" --profile "$p/03_ring/program.yaml" >"$out/run03.json" 2>/dev/null
    cp "$runs"/latest/profile.json "$out/profile.json"
    kmrun profile --run-dir "$runs" --json >"$out/profile_top.json"
    kmrun run --run-dir "$runs" --check-handover "$p/02_parallel_sum/program.yaml" >"$out/run02.json" 2>/dev/null
    kmrun build -q --host "$p/07_work_cluster/program.yaml" >"$out/build.json"
    kmrun validate --json "$p/11_pull/program.yaml" >"$out/validate.json"
    kmrun check --json --run-dir "$runs" "$p/07_work_cluster/program.yaml" >"$out/check.json" 2>/dev/null
    kmrun cache stats --json >"$out/cache.json"
    kmrun read-region --run-dir "$runs" --format json --length 16 out >"$out/region.json"
    cp "$runs"/latest/regions.json "$out/regions.json"
    grep '^{' "$out/progress.txt" >"$out/progress.json"
    style "$out"/*.json
    # The rule is not vacuous: a camelCase key is caught.
    echo '{"threads": [{"whereMicroseconds": 1}]}' >"$BATS_TEST_TMPDIR/bad.json"
    run python3 "$KMRUN_TOP/tests/cli/json_style.py" "$BATS_TEST_TMPDIR/bad.json"
    [ "$status" -eq 1 ]
    [[ $output == *'$.threads[0].whereMicroseconds: not snake_case'* ]]
}
