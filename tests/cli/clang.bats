#!/usr/bin/env bats
# A thread's `compiler: clang`: its sources compiled by Debian's clang-19
# for the X280 (rv64gcv_zba_zbb), linked by gcc with the same runtime and
# checked by the same rules; the cache keys the compiler; the results are
# the gcc build's.

# shellcheck disable=SC2154 # output, status: set by run
load helpers

setup() {
    command -v clang-19 >/dev/null || { echo "no clang-19 (Debian's package): ./setup installs it"; false; }
    export KMRUN_CACHE=$BATS_TEST_TMPDIR/cache
    prog=$BATS_TEST_TMPDIR/sum
    cp -R "$KMRUN_TOP/programs/02_parallel_sum" "$prog"
}

# with_compiler NAME [CFLAGS]: the program's thread built by NAME.
with_compiler() {
    local extra=""
    [ -n "${2:-}" ] && extra="\\n    cflags: [$2]"
    sed "s|    sources: \[thread/sum.c\]|    sources: [thread/sum.c]\n    compiler: $1$extra|" \
        "$KMRUN_TOP/programs/02_parallel_sum/program.yaml" >"$prog/program.yaml"
}

@test "clang: a thread built by clang-19 returns what the gcc build returns; the cache keys the compiler" {
    with_compiler gcc
    run --separate-stderr kmrun build "$prog/program.yaml"
    [ "$status" -eq 0 ]
    gcc_image=$(jq -r '.threads[0].image.sha256' <<<"$output")
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" "$prog/program.yaml"
    [ "$status" -eq 0 ]
    gcc_words=$(jq -c '.threads[0].words' <<<"$output")

    # scalar: the simulated X280's vector unit is issue 16's
    with_compiler clang "-fno-vectorize, -fno-slp-vectorize"
    run --separate-stderr kmrun build "$prog/program.yaml"
    [ "$status" -eq 0 ]
    [ "$(jq -r '.threads[0].image.cache' <<<"$output")" = miss ]
    clang_image=$(jq -r '.threads[0].image.sha256' <<<"$output")
    [ "$clang_image" != "$gcc_image" ]
    path=$(jq -r '.threads[0].image.path' <<<"$output")
    # clang's code, gcc's link: DWARF 4 (Debian 12's ld cannot link
    # clang 19's DWARF 5), and the image's ISA attribute carries V
    riscv64-unknown-elf-readelf --debug-dump=info "$path" | grep -q "DW_AT_producer.*clang version 19"
    riscv64-unknown-elf-readelf -A "$path" | grep -q "_v1p0"
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" "$prog/program.yaml"
    [ "$status" -eq 0 ]
    [ "$(jq -c '.threads[0].words' <<<"$output")" = "$gcc_words" ]
    # again: a hit
    run --separate-stderr kmrun build "$prog/program.yaml"
    [ "$(jq -r '.threads[0].image.cache' <<<"$output")" = hit ]
}

@test "clang: a missing clang is a clear system error (exit 4)" {
    with_compiler clang
    KMRUN_CLANG=/nonexistent/clang-19 run --separate-stderr kmrun build "$prog/program.yaml"
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"/nonexistent/clang-19"* ]]
}
