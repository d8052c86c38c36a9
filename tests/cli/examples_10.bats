#!/usr/bin/env bats
# programs/10_x280_ports: Tensix cores ask their X280 cores through their
# ports (programs/10_x280_ports/README.md): every answer checked by the
# program on 1, 4 and 12 X280 cores, the dealing in the run JSON, the
# modeled figures tests/golden records, and check's refusal.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    example=$KMRUN_TOP/programs/10_x280_ports
}

# (returns, helpers.bash: the handlers checked every answer and every
# echo, the thread every slot.)

@test "10_x280_ports: twelve X280 cores, ten Tensix cores each, every answer right" {
    returns program.yaml "$(recorded 10_x280_ports program)"
    [ "$(field '.ports | length')" = 12 ]
    [ "$(field '[.ports[] | .cores | length] | unique | @csv')" = 10 ]
    [ "$(field '.ports[4] | [.cluster, .x280_core, .cores[0], .cores[9]] | @csv')" = '2,0,40,49' ]
}

@test "10_x280_ports: four X280 cores, thirty each" {
    returns four.yaml "$(recorded 10_x280_ports four)"
    [ "$(field '[.ports[] | .cores | length] | @csv')" = '30,30,30,30' ]
}

@test "10_x280_ports: one X280 core serves all 120; its three others none" {
    returns one.yaml "$(recorded 10_x280_ports one)"
    [ "$(field '[.ports[] | .cores | length] | @csv')" = '120,0,0,0' ]
}

@test "10_x280_ports: one Tensix core on its X280 core, the spec's 0.94 us within 10 %" {
    returns latency.yaml "$(recorded 10_x280_ports latency)"
    # The README's figure against the spec's (modeled time: exact every run)
    awk -v ns="$(field '.threads[0].words[2]')" 'BEGIN { exit !(ns >= 846 && ns <= 1034) }'
}

@test "10_x280_ports: a wrong answer is caught by the program" {
    rm -rf "$BATS_TEST_TMPDIR/copy"
    cp -r "$example" "$BATS_TEST_TMPDIR/copy"
    sed -i 's/message.w\[0\] \* 2u, 0, 0);/message.w[0] * 2u + (core == 7), 0, 0);/' \
        "$BATS_TEST_TMPDIR/copy/thread/serve.c"
    grep -q '(core == 7)' "$BATS_TEST_TMPDIR/copy/thread/serve.c"
    run_json "$BATS_TEST_TMPDIR/copy/four.yaml"
    [ "$status" -eq 0 ] || { echo "status $status: $stderr"; false; }
    # The thread returned its own code: SLOT_WRONG (thread/serve.c)
    [ "$(field '.threads[0] | [.state, .code] | @csv')" = '"returned",5' ]
}

@test "10_x280_ports: kmrun check says the program needs the card" {
    run kmrun check "$example/program.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"it uses X280 ports (ports:), which need the card"* ]]
}
