#!/usr/bin/env bats
# programs/12_host_loop: a host that steers its run (README.md there).  Its
# C host, built against the build, and its Python host each walk the
# Collatz sequence from 27 on the grid, a command a step, each command's
# argument the last one's result word: 111 commands, the thread's count
# the same; their run folders hold the same run JSON but for what differs
# from run to run, so the loop is deterministic whatever the host's
# language; `kmrun run` alone runs the thread, and `kmrun check` agrees.

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup_file() {
    build_api "$KMRUN_TOP/programs/12_host_loop/host.c" "$BATS_FILE_TMPDIR/host"
}

setup() {
    export KMRUN_DATA=$KMRUN_BUILD/share/kmrun
    dir=$KMRUN_TOP/programs/12_host_loop
}

readme_lines() {
    cat <<'OUT'
grid: 1 after 111 commands, highest 9232
thread: returned, 111 steps, highest 9232
OUT
}

@test "12_host_loop: the C host's 111 dependent commands, as the README says" {
    cd "$dir"
    KMRUN_RUNS=$BATS_TEST_TMPDIR/c run -0 --separate-stderr "$BATS_FILE_TMPDIR/host"
    [ -z "$stderr" ]
    diff -u <(readme_lines) <(printf '%s\n' "$output")
    local json=$BATS_TEST_TMPDIR/c/latest/result.json
    # Each command's argument is the last one's word: the words walk the
    # sequence, every one done, handles 1 to 111.
    run -0 jq -r '[.commands[] | select(.event == "done" and .handler == "collatz") | .result]
        | @csv' "$json"
    local n=27 want=()
    while [ "$n" -ne 1 ]; do
        if ((n % 2 == 0)); then n=$((n / 2)); else n=$((3 * n + 1)); fi
        want+=("$n")
    done
    [ "${#want[@]}" -eq 111 ]
    [ "$output" = "$(IFS=,; echo "${want[*]}")" ]
    run -0 jq -r '[.commands[].handle] == [range(1; 112)]' "$json"
    [ "$output" = true ]
    # The README's times.
    run -0 jq -r '[.commands[0].microseconds, .device_microseconds,
                   .threads[0].microseconds, .threads[0].state] | @tsv' "$json"
    [ "$output" = "$(printf '20.83\t2935\t11.44\treturned')" ]
}

@test "12_host_loop: the Python host gives the C host's lines and the same run JSON" {
    cd "$dir"
    KMRUN_RUNS=$BATS_TEST_TMPDIR/c run -0 --separate-stderr "$BATS_FILE_TMPDIR/host"
    py_env
    KMRUN_RUNS=$BATS_TEST_TMPDIR/py run -0 --separate-stderr python3 host.py
    [ -z "$stderr" ]
    diff -u <(readme_lines) <(printf '%s\n' "$output")
    diff -u <(stable "$(cat "$BATS_TEST_TMPDIR/c/latest/result.json")") \
        <(stable "$(cat "$BATS_TEST_TMPDIR/py/latest/result.json")")
}

@test "12_host_loop: a start the thread did not count from is told, exit 1" {
    cd "$dir"
    KMRUN_RUNS=$BATS_TEST_TMPDIR/c run -1 --separate-stderr "$BATS_FILE_TMPDIR/host" 7
    [ "${lines[0]}" = "grid: 1 after 16 commands, highest 52" ]
    [ "${lines[1]}" = "thread: returned, 111 steps, highest 9232" ]
}

@test "12_host_loop: kmrun run runs its thread alone, and kmrun check agrees" {
    run -0 --separate-stderr kmrun run "$dir/program.yaml"
    [ "$(jq -r '[.threads[0].words[0], (.commands | length)] | @csv' <<<"$output")" = "111,0" ]
    run -0 kmrun check "$dir/program.yaml"
}
