#!/usr/bin/env bats
# bench/speed's usage only: --help and a wrong option, never a timing (the
# bench itself measures, it asserts no time; README.md, "bench/speed").

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

@test "bench/speed: --help says how to run it and what it measures, and exits 0" {
    run --separate-stderr "$KMRUN_TOP/bench/speed" --help
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "usage: bench/speed [--no-perf] [BUILD_DIR]   (default BUILD_DIR: build)" ]
    [[ $output == *qemu-system-riscv64* ]]
    [ -z "$stderr" ]
}

@test "bench/speed: an unknown option is refused with the usage, exit 2, before any work" {
    run --separate-stderr "$KMRUN_TOP/bench/speed" --fast
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ $stderr == "bench/speed: unknown option '--fast'"* ]]
    [[ $stderr == *"usage: bench/speed"* ]]
}
