#!/usr/bin/env bats
# The README's test commands are true: each `make TARGET` of its first
# block is a rule of the Makefile, CI (.ci/run) runs both test targets, and
# tests/long/, which only `make test-long` runs, holds tests.

load helpers

# The lines of README.md's ```sh ci block (its first: the commands CI runs;
# doc_examples.py leaves them to this test).
readme_block() {
    awk '/^```sh ci$/ { on = 1; next } on && /^```$/ { exit } on' "$KMRUN_TOP/README.md"
}

@test "readme: make test and make test-long are the Makefile's, and CI runs both" {
    targets=$(readme_block | sed -n 's/^make \([a-z-]*\) .*/\1/p' | paste -sd' ')
    [ "$targets" = "test test-long" ] || { readme_block; false; }
    for t in $targets; do
        grep -Eq "^$t:" "$KMRUN_TOP/Makefile" || { echo "no rule for $t in the Makefile"; false; }
        grep -qx "make $t" "$KMRUN_TOP/.ci/run" || { echo ".ci/run does not run make $t"; false; }
    done
    grep -qx '	KMRUN_TESTS=long tests/run $(B)' "$KMRUN_TOP/Makefile"
    ls "$KMRUN_TOP"/tests/long/*.bats >/dev/null
    [ "$(cat "$KMRUN_TOP"/tests/long/*.bats | grep -c '^@test ')" -ge 2 ]
}
