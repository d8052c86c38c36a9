#!/usr/bin/env bats
# programs/11_pull: the pull over 31,000 uneven units (programs/11_pull/
# README.md): every unit run exactly once in every mode on 1, 4 and 12
# serving X280 cores (the program checks; so does this test, from the run
# folder), REPLAY giving each core the LOG pass's ranges in order, a log
# too small, and the modeled figures tests/golden records.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    example=$KMRUN_TOP/programs/11_pull
}

# region NAME: the run's region NAME as one u32 a line.
region() {
    kmrun read-region --run-dir "$runs" --run "$(field .run)" --cluster 1 --format u32 "$1" |
        tr -s ' ' '\n' |
        grep -v '^$'
}

@test "11_pull: twelve X280 cores: every pass balanced, every unit once" {
    returns program.yaml "$(recorded 11_pull program)"
    # The last pass's output, as the run left it: every unit ran, on a core 1..120.
    out=$(region out)
    [ "$(wc -l <<<"$out")" = 31000 ]
    [ "$(awk '$1 < 1 || $1 > 120' <<<"$out" | wc -l)" = 0 ]
    # The cores' counts of that pass add up to the units (none ran twice).
    [ "$(region cores | awk 'NR % 4 == 1 { n += $1 } END { print n }')" = 31000 ]
}

@test "11_pull: four and one X280 cores pull alike" {
    returns four.yaml "$(recorded 11_pull four)"
    returns one.yaml "$(recorded 11_pull one)"
}

@test "11_pull: REPLAY gives every core the ranges the LOG pass logged, in order" {
    run_json "$example/four.yaml"
    [ "$status" -eq 0 ]
    [ "$(field .threads[0].code)" = 0 ]
    log=$(region log)
    replayed=$(region replayed)
    # The log: a count a core, then 64 range numbers a core; replayed: 64
    # first units a core.  Every logged range, times 16, is what the core
    # got in the REPLAY pass at the same place.
    awk -v bad=0 'NR == FNR { lg[NR - 1] = $1; next } { rp[FNR - 1] = $1 }
        END {
            for (c = 0; c < 120; c++) {
                n = lg[c]
                if (n < 1 || n > 64) { print "core " c ": " n " ranges logged"; bad = 1 }
                for (i = 0; i < n; i++)
                    if (lg[120 + c * 64 + i] * 16 != rp[c * 64 + i]) {
                        print "core " c " range " i ": log " lg[120 + c * 64 + i] " replayed " rp[c * 64 + i]
                        bad = 1
                    }
            }
            exit bad
        }' <(echo "$log") <(echo "$replayed")
    # 1938 ranges in all, each once.
    [ "$(awk 'NR <= 120 { n += $1 } END { print n }' <<<"$log")" = 1938 ]
}

@test "11_pull: a log too small for the ranges a core gets is KMX_BAD after the run" {
    rm -rf "$BATS_TEST_TMPDIR/copy"
    cp -r "$example" "$BATS_TEST_TMPDIR/copy"
    sed -i -e 's/^      log: 31200 .*/      log: 960/' -e 's/^    words: .*/    words: [16, 0, 2]/' \
        "$BATS_TEST_TMPDIR/copy/four.yaml"
    grep -q '^      log: 960$' "$BATS_TEST_TMPDIR/copy/four.yaml"
    run_json "$BATS_TEST_TMPDIR/copy/four.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.threads[0] | [.state, .code] | @csv')" = '"returned",3' ] # RUN_FAILED: KMX_BAD
}

@test "11_pull: validate refuses a pull log smaller than KMX_PULL_LOG_BYTES(1)" {
    cp -r "$example" "$BATS_TEST_TMPDIR/copy2"
    m=$BATS_TEST_TMPDIR/copy2/four.yaml
    sed -i -e 's/^      log: 31200 .*/      log: 956/' "$m"
    printf 'pull:\n  units: 31000\n  per: 16\n  mode: log\n  log: log\n' >>"$m"
    run kmrun validate "$m"
    [ "$status" -eq 2 ]
    [[ "$output" == *"pull log 'log' is too small: 956 bytes (expected at least 960"* ]]
}

@test "11_pull: kmrun check says the program needs the card" {
    run kmrun check "$example/program.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"need the card"* ]]
}

@test "11_pull: settings no pull can run are KMX_BAD before anything is submitted" {
    run_json "$BATS_TEST_DIRNAME/../fixtures/pull/settings.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # six bad settings, NULL without pull:, the next command's handle 1,
    # then a log of KMX_PULL_LOG_BYTES(1) runs: KMX_OK, event done
    [ "$(field '.threads[0].words | @csv')" = '1,1,1,1,1,1,1,1,0,1' ]
}
