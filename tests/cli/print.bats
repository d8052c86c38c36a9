#!/usr/bin/env bats
# Prints from a thread (kmx_print) and from a Tensix handler (km_print):
# the lines on stderr as `[c1.2 104.22µs] text`, in the run folder's
# prints.txt, in the run JSON's `prints` and `prints_dropped`; four cores
# at once; a full buffer that drops and counts; the host fallback's same
# text.  The programs are in tests/fixtures/print/ (its README).

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixtures=$KMRUN_TOP/tests/fixtures/print
}

# The text each core of four.yaml prints first.
four_text() {
    local core=$1 hex
    hex=$(printf '%08x' $((0xbeef * (core + 1))))
    printf 'core %d of 4: hex %s|%-6d|    7|%s|hi|ok  |%%|-1234567890123|123456789abc|18446744073709551615' \
        "$core" "$hex" $((-42 - core)) "$(printf "\\x$(printf %x $((65 + core)))")"
}

@test "print: four cores print at once; stderr, prints.txt and the JSON list the same lines" {
    run_json "$fixtures/four.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.threads[0].state')" = returned ]
    [ "$(field '.prints | length')" = 8 ]
    [ "$(field '.prints_dropped | length')" = 0 ]
    for core in 0 1 2 3; do
        [ "$(field ".prints[] | select(.core == \"c1.$core\") | .text" | head -1)" = "$(four_text "$core")" ]
        [ "$(field ".prints[] | select(.core == \"c1.$core\") | .text" | tail -1)" = "core $core again" ]
        [ "$(field "[.prints[] | select(.cluster == 1 and .x280_core == $core and .tensix == null)] | length")" = 2 ]
    done
    # In time order; each line as stderr showed it, and prints.txt the same.
    [ "$(field '[.prints[].microseconds] | . == sort')" = true ]
    field '.prints[] | "[\(.core) \(.microseconds * 100 | round / 100 | tostring | if test("\\.") then . else . + ".00" end | if test("\\.[0-9]$") then . + "0" else . end)µs] \(.text)"' \
        >"$BATS_TEST_TMPDIR/expected"
    diff -u "$BATS_TEST_TMPDIR/expected" <(printf '%s\n' "$stderr")
    diff -u "$BATS_TEST_TMPDIR/expected" "$runs/latest/prints.txt"
    [ "$(jq -c .prints "$runs/latest/result.json")" = "$(field '.prints' | jq -c .)" ]
}

@test "print: a burst that fills the buffer before the first drain keeps 17 and drops 3, counted" {
    run_json "$fixtures/full.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # The thread's own count: kmx_print said KMX_OK 17 times, KMX_FULL 3.
    [ "$(field '.threads[0].words[0:2] | @csv')" = 17,3 ]
    # The burst ended before the first drain (500 µs): 17 x 29 slots of 504.
    [ "$(field '.threads[0].words[2] < 25000')" = true ]
    [ "$(field '.prints | length')" = 17 ]
    [ "$(field '.prints_dropped | @json')" = \
        '[{"core":"c2.0","cluster":2,"x280_core":0,"tensix":null,"dropped":3}]' ]
    [ "$(wc -l <"$runs/latest/prints.txt")" = 17 ]
    [ "$(printf '%s\n' "$stderr" | grep -c '^\[c2\.0 [0-9.]*µs\] abcdefghijklmnopqrstuvwxyzabcd')" = 17 ]
    [ "$(field '.prints[0].text | length')" = 200 ]
}

@test "print: km_print from a handler's four cores, beside the thread's, named t<grid index>" {
    run_json "$fixtures/tensix.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # In time order: the thread's print falls among the Tensix cores' (where
    # depends on how long start-up takes), theirs in the order they printed.
    [ "$(field '[.prints[] | "\(.core)|\(.cluster)|\(.tensix)|\(.text)"] | sort | join(" ")')" = \
        "c1.0|1|null|thread on cluster 1 t3|null|3|tensix 0 of 4: a0=7 leader t4|null|4|tensix 1 of 4: a0=7 member t5|null|5|tensix 2 of 4: a0=7 member t6|null|6|tensix 3 of 4: a0=7 member" ]
    [ "$(field '[.prints[] | .microseconds] | . == sort')" = true ]
    # Each Tensix core printed after its km_spend_ns of (index + 1) µs.
    [ "$(field '[.prints[] | select(.tensix != null) | .microseconds] | . == sort and (.[1] - .[0] | . * 1000 | round) == 1000')" = true ]
    printf '%s\n' "$stderr" | grep -qx '\[t6 [0-9.]*µs\] tensix 3 of 4: a0=7 member'
    [ "$(wc -l <"$runs/latest/prints.txt")" = 5 ]
}

@test "print: a run without prints has none and says so: [] and an empty prints.txt" {
    run_json "$fixtures/none.yaml"
    [ "$status" -eq 0 ]
    [ "$(field '.prints | @json')" = '[]' ]
    [ "$(field '.prints_dropped | @json')" = '[]' ]
    [ -f "$runs/latest/prints.txt" ] && [ ! -s "$runs/latest/prints.txt" ]
    [ -z "$stderr" ]
}

@test "print: the host fallback prints the same text, on the host's time" {
    run_json --thread host "$fixtures/four.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.times')" = host ]
    [ "$(field '[.prints[] | "\(.core) \(.text)"] | sort | join("\n")')" = \
        "$(for c in 0 1 2 3; do echo "c1.$c $(four_text $c)"; echo "c1.$c core $c again"; done | sort)" ]
    [ "$(printf '%s\n' "$stderr" | grep -c '^\[c1\.[0-3] [0-9.]*µs\] core [0-3] ')" = 8 ]
    run_json --thread host "$fixtures/tensix.yaml"
    [ "$status" -eq 0 ]
    [ "$(field '[.prints[].core] | sort | join(" ")')" = "c1.0 t3 t4 t5 t6" ]
}

@test "print: kmx_print is its own object: an image that never prints carries none of it" {
    run --separate-stderr kmrun build "$fixtures/none.yaml"
    [ "$status" -eq 0 ]
    local image
    image=$(jq -r '.threads[0].image.path' <<<"$output")
    run riscv64-unknown-elf-nm "$image"
    [ "$status" -eq 0 ]
    ! grep -q ' kmx_print$' <<<"$output"
    run --separate-stderr kmrun build "$fixtures/once.yaml"
    [ "$status" -eq 0 ]
    image=$(jq -r '.threads[0].image.path' <<<"$output")
    run riscv64-unknown-elf-nm "$image"
    grep -q ' T kmx_print$' <<<"$output"
}

@test "print: the run JSON with prints, drops and Tensix prints follows schemas/run.schema.json" {
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" --check-schema "$KMRUN_TOP/schemas/run.schema.json"
    for f in four full tensix none; do
        run_json "$fixtures/$f.yaml"
        [ "$status" -eq 0 ]
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/$f.json"
        /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
            "$BATS_TEST_TMPDIR/$f.json"
    done
}
