#!/usr/bin/env bats
# The run JSON's `stats` on every example program (tests/cli/stats.bats
# says what the figures promise): one run of each, about 20 s, so it runs
# in `make test-long`, not `make test`.

# shellcheck disable=SC2154 # output, status: set by run
load ../cli/helpers
load ../cli/stats_helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
}

@test "stats: on every example, the schema's and the figures add up" {
    shopt -s nullglob
    files=("$KMRUN_TOP"/programs/*/*.yaml)
    [ ${#files[@]} -ge 10 ]
    for f in "${files[@]}"; do
        run_json "$f"
        [ "$status" -eq 0 ] || { echo "${f#"$KMRUN_TOP"/}: status $status"; echo "$stderr"; false; }
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
        python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
            "$BATS_TEST_TMPDIR/run.json" || { echo "${f#"$KMRUN_TOP"/}: schema"; false; }
        check_stats || {
            echo "${f#"$KMRUN_TOP"/}: the figures do not add up"
            jq '{instructions, stats}' <<<"$output"
            false
        }
    done
}
