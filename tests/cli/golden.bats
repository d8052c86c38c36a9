#!/usr/bin/env bats
# Every example's run, bit for bit: results, modeled times, counters and
# port waits equal the ones recorded in tests/golden/ (tests/golden/record
# writes them).  The simulator's speed work must not move any of them.

load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
}

# same_run DIR NAME: programs/DIR/NAME.yaml's run equals its record.
same_run() {
    local want=$KMRUN_TOP/tests/golden/${1}_$2.json
    [ -f "$want" ] || { echo "no record $want: run tests/golden/record"; false; }
    run_json "$KMRUN_TOP/programs/$1/$2.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    printf '%s\n' "$output" | "$KMRUN_TOP/tests/golden/normalize" >"$BATS_TEST_TMPDIR/got.json"
    diff -u "$want" "$BATS_TEST_TMPDIR/got.json"
}

@test "every manifest under programs/ has a record, and every record a manifest" {
    local m r n=0
    for m in "$KMRUN_TOP"/programs/*/*.yaml; do
        r=${m#"$KMRUN_TOP"/programs/}
        [ -f "$KMRUN_TOP/tests/golden/$(dirname "$r")_$(basename "$r" .yaml).json" ] ||
            { echo "no record for $r"; false; }
        n=$((n + 1))
    done
    [ "$(find "$KMRUN_TOP/tests/golden" -name '*.json' | wc -l)" -eq "$n" ]
}

@test "01_hello runs as recorded" { same_run 01_hello program; }
@test "02_parallel_sum runs as recorded" { same_run 02_parallel_sum program; }
@test "03_ring runs as recorded" { same_run 03_ring program; }
@test "04_host_fed runs as recorded" { same_run 04_host_fed program; }
@test "07_work_cluster runs as recorded" { same_run 07_work_cluster program; }
@test "08_parallel_thread runs as recorded" { same_run 08_parallel_thread program; }
@test "08_parallel_thread twelve runs as recorded" { same_run 08_parallel_thread twelve; }
@test "08_parallel_thread vector runs as recorded" { same_run 08_parallel_thread vector; }
@test "10_x280_ports runs as recorded" { same_run 10_x280_ports program; }
@test "10_x280_ports one runs as recorded" { same_run 10_x280_ports one; }
@test "10_x280_ports four runs as recorded" { same_run 10_x280_ports four; }
@test "10_x280_ports latency runs as recorded" { same_run 10_x280_ports latency; }
@test "11_pull runs as recorded" { same_run 11_pull program; }
@test "11_pull one runs as recorded" { same_run 11_pull one; }
@test "11_pull four runs as recorded" { same_run 11_pull four; }
@test "12_host_loop runs as recorded (its thread alone)" { same_run 12_host_loop program; }
