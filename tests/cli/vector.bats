#!/usr/bin/env bats
# Vector code through the toolchain (tests/fixtures/vector): one sum built
# three ways — gcc's scalar build, clang-19's auto-vectoriser, clang-19
# with the RVV intrinsics — whose images hold vector instructions where
# clang made them, and whose results agree on the simulated card's vector
# unit and on the host fallback.

# shellcheck disable=SC2154 # output, status: set by run
load helpers

setup() {
    command -v clang-19 >/dev/null || { echo "no clang-19 (Debian's package): ./setup installs it"; false; }
    fixture=$KMRUN_TOP/tests/fixtures/vector/program.yaml
}

@test "vector: clang's auto-vectoriser and the RVV intrinsics give images with vector code; gcc's has none" {
    run --separate-stderr kmrun build "$fixture"
    [ "$status" -eq 0 ]
    for i in 0 1 2; do
        path=$(jq -r ".threads[$i].image.path" <<<"$output")
        # OP-V (major opcode 0x57), or vector loads and stores: Debian 12's
        # objdump shows some as words only.  The runtime's kmx_push (its
        # 512-byte vector stores, inline assembly) is in every image: the
        # count is of the thread's own functions.
        n=$(riscv64-unknown-elf-objdump -d "$path" | awk '
            /^[0-9a-f]+ <.*>:$/ { fn = $2 }
            /\t(\.4byte\t0x[0-9a-f]*[5d]7|v[a-z0-9.]+\t)/ { if (fn == "<kmx_push>:") push++; else own++ }
            END { print own + 0, push + 0 }')
        [ "${n#* }" -gt 0 ] || { echo "thread $i: no kmx_push vector stores"; false; }
        if [ "$i" -eq 0 ]; then [ "${n% *}" -eq 0 ]; else [ "${n% *}" -gt 0 ]; fi
    done
}

@test "vector: the host fallback builds the intrinsics thread's scalar path; every thread's words agree" {
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" --thread host "$fixture"
    [ "$status" -eq 0 ]
    [ "$(jq -c '[.threads[].words] | unique | length' <<<"$output")" = 1 ]
    [ "$(jq -c '.threads[0].words' <<<"$output")" = '[3731767296,10125,3073843200]' ]
}

@test "vector: on the simulated card the three builds return the same words; the vector ones in fewer modeled microseconds" {
    run --separate-stderr kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" "$fixture"
    [ "$status" -eq 0 ]
    [ "$(jq -c '[.threads[].state] | unique' <<<"$output")" = '["returned"]' ]
    [ "$(jq -c '[.threads[].words] | unique' <<<"$output")" = '[[3731767296,10125,3073843200]]' ]
    # 64 KiB of words: gcc's scalar loop against 512-bit vectors
    jq -e '.threads[1].microseconds < .threads[0].microseconds / 2 and
           .threads[2].microseconds < .threads[0].microseconds / 2' <<<"$output"
}

@test "vector: kmrun check — the card's vector builds and their host fallbacks agree" {
    run --separate-stderr kmrun check --run-dir "$BATS_TEST_TMPDIR/runs" "$fixture"
    echo "$stderr"
    [ "$status" -eq 0 ]
}
