#!/usr/bin/env bats
# kmrun test --bless: a program whose runs differ from its expect: only in
# values has those values rewritten in its manifest, in place (the file
# differs from the old one in those bytes alone: comments, flow and block
# lists, quoting kept), its mode kept and nothing left beside it, and a
# second kmrun test passes; a program that fails otherwise (a build that
# fails, a thread that traps), whose backends disagree, or run on one
# backend of two, is not blessed and its file not touched; a file with
# nothing to change is not written; TAP and JUnit say blessed.

# shellcheck disable=SC2154 # output, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    prog=$BATS_TEST_TMPDIR/prog
    mkdir -p "$prog"
    cat >"$prog/main.c" <<'END'
#include "kmx.h"

int kmx_main(int core)
{
    (void)core;
    uint64_t bytes = 0;
    uint32_t *out = kmx_region(0, &bytes);
    for (uint32_t i = 0; i < 16; i++)
        out[i] = 7 * i;
    kmx_flush(0);
    kmx_print("sum %d", 42);
    kmx_print("done: all of it");
#if defined(BACKENDS_DIFFER) && defined(__riscv)
    uint32_t w[2] = {42, 1};
#elif defined(BACKENDS_DIFFER)
    uint32_t w[2] = {42, 2};
#else
    uint32_t w[2] = {42, 13};
#endif
#ifdef TRAP
    *(volatile uint32_t *)8 = 1;
#endif
    kmx_result(0, w, 2);
    return 0;
}
END
    # Out of date: the code (a comment beside it), the words (a flow
    # list, one written in hex), the prints (a block list, quoted), the
    # first bytes (single quoted) and the hash.
    cat >"$prog/program.yaml" <<'END'
# A program whose expect: is out of date.
name: bless_me
threads:
  - cluster: 1
    sources: [main.c]
    regions:
      out: 64
expect:
  backends: [sim, host]
  threads:
    - cluster: 1
      code: 3          # the exit code
      words: [1, 0x2, 3]   # flow
      prints:
        - "sum 41"     # block, quoted
        - old line
        - gone
  regions:
    - name: out
      first: '0000000007000001'
      sha256: "0000000000000000000000000000000000000000000000000000000000000000"  # the table
END
    # What it must read after --bless, byte for byte.
    cat >"$BATS_TEST_TMPDIR/blessed.yaml" <<'END'
# A program whose expect: is out of date.
name: bless_me
threads:
  - cluster: 1
    sources: [main.c]
    regions:
      out: 64
expect:
  backends: [sim, host]
  threads:
    - cluster: 1
      code: 0          # the exit code
      words: [42, 13]   # flow
      prints:
        - "sum 42"     # block, quoted
        - "done: all of it"
  regions:
    - name: out
      first: '0000000007000000'
      sha256: "f1076861e75f20c4c12859ea1ec61510a3505f101a61764c6b636b774404b9fd"  # the table
END
    cp "$prog/program.yaml" "$BATS_TEST_TMPDIR/before.yaml"
}

# The manifest as it was before the test touched it.
untouched() {
    cmp "$BATS_TEST_TMPDIR/before.yaml" "$prog/program.yaml"
    [ "$(ls -A "$prog")" = "$(printf 'main.c\nprogram.yaml')" ]
}

@test "kmrun test --bless: only the values that differ are rewritten, in place; a second kmrun test passes" {
    chmod 640 "$prog/program.yaml"
    run --separate-stderr kmrun test --bless --run-dir "$runs" "$prog/program.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ -z "$stderr" ]
    diff -u "$BATS_TEST_TMPDIR/blessed.yaml" "$prog/program.yaml"
    # its mode kept, nothing left beside it
    [ "$(stat -c %a "$prog/program.yaml")" = 640 ]
    [ "$(ls -A "$prog")" = "$(printf 'main.c\nprogram.yaml')" ]
    # a line per backend, each value under it, then the totals
    [[ "${lines[0]}" =~ ^ok\ \ \ .*/prog/program.yaml\ \[sim\]\ \(blessed\)\ [0-9]+\.[0-9]{2}\ s$ ]]
    [[ "$output" == *"program.yaml:12:13: thread on cluster 1: expected code 3, got 0"* ]]
    [[ "$output" == *"program.yaml:13:14: thread on cluster 1: expected words [1, 2, 3], got [42, 13]"* ]]
    [[ "$output" == *"program.yaml:20:14: region 'out' of cluster 1: expected first bytes 0000000007000001, got 0000000007000000"* ]]
    grep -qE '^ok   .*/prog/program.yaml \[host\] \(blessed\) ' <<<"$output"
    [ "${lines[-1]}" = "0 passed, 2 blessed, 0 failed" ]
    # now it holds, on both backends
    run kmrun test --rerun --run-dir "$runs" "$prog/program.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "${lines[-1]}" = "2 passed, 0 failed" ]
    # blessed again: nothing to change, the file not written (same inode, same time)
    local before
    before=$(stat -c '%i %Y.%y' "$prog/program.yaml")
    sleep 0.01
    run kmrun test --bless --run-dir "$runs" "$prog/program.yaml"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "2 passed, 0 blessed, 0 failed" ]
    [ "$(stat -c '%i %Y.%y' "$prog/program.yaml")" = "$before" ]
}

@test "kmrun test --bless: a build that fails is not blessed, the file untouched, exit 1" {
    echo 'int broken(void) { return oops; }' >>"$prog/main.c"
    run -1 kmrun test --bless --run-dir "$runs" "$prog/program.yaml"
    grep -qE '^FAIL .*/prog/program.yaml \[sim\] ' <<<"$output"
    [[ "$output" == *"kmrun run exited 3"* ]]
    [ "${lines[-1]}" = "0 passed, 0 blessed, 2 failed" ]
    untouched
}

@test "kmrun test --bless: a thread that traps is a failure, not a value: nothing blessed" {
    sed -i 's/sources: \[main.c\]/sources: [main.c]\n    cflags: [-DTRAP]/' "$prog/program.yaml"
    cp "$prog/program.yaml" "$BATS_TEST_TMPDIR/before.yaml"
    run -1 kmrun test --bless --backend sim --run-dir "$runs" "$prog/program.yaml"
    [[ "$output" == *"not blessed: "*"expected state 'returned' (no other named), got 'trapped'"*"(a failure, not a value to bless)"* ]] || { echo "$output"; false; }
    [ "${lines[-1]}" = "0 passed, 0 blessed, 1 failed" ]
    untouched
}

@test "kmrun test --bless: backends that give a value differently, or one that did not run, are refused" {
    sed -i 's/sources: \[main.c\]/sources: [main.c]\n    cflags: [-DBACKENDS_DIFFER]/' "$prog/program.yaml"
    cp "$prog/program.yaml" "$BATS_TEST_TMPDIR/before.yaml"
    run -1 kmrun test --bless --run-dir "$runs" "$prog/program.yaml"
    [[ "$output" == *"not blessed: "*"program.yaml:14:14: thread on cluster 1: sim and host give different values"* ]] || { echo "$output"; false; }
    grep -qE '^FAIL .*\[sim\] ' <<<"$output"
    grep -qE '^FAIL .*\[host\] ' <<<"$output"
    [ "${lines[-1]}" = "0 passed, 0 blessed, 2 failed" ]
    untouched
    # one backend of the two: the items apply to host too
    run -1 kmrun test --bless --backend sim --run-dir "$runs" "$prog/program.yaml"
    [[ "$output" == *"the item applies to host too, which did not run"* ]] || { echo "$output"; false; }
    untouched
}

@test "kmrun test --bless --tap --junit: a blessed case is ok, with its values" {
    run --separate-stderr kmrun test --bless --tap --junit "$BATS_TEST_TMPDIR/junit.xml" \
        --backend sim --run-dir "$runs" "$prog/program.yaml"
    # --backend sim on a [sim, host] program: items apply to host too
    [ "$status" -eq 1 ]
    untouched
    sed -i 's/backends: \[sim, host\]/backends: [sim]/' "$prog/program.yaml"
    run --separate-stderr kmrun test --bless --tap --junit "$BATS_TEST_TMPDIR/junit.xml" \
        --run-dir "$runs" "$prog/program.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "${lines[0]}" = "TAP version 13" ]
    [ "${lines[1]}" = "1..1" ]
    [[ "${lines[2]}" == "ok 1 - "*"/prog/program.yaml [sim] (blessed)" ]]
    [ "${lines[3]}" = "  ---" ]
    [[ "$output" == *"  severity: comment"* ]]
    [ "${lines[-1]}" = "# 0 passed, 1 blessed, 0 failed" ]
    python3 - "$BATS_TEST_TMPDIR/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert suite.get("failures") == "0", suite.attrib
case = suite.find("testcase")
assert case.find("failure") is None
prop = case.find("properties/property")
assert prop.get("name") == "blessed" and prop.get("value") == "true", prop.attrib
out = case.find("system-out").text
assert out.startswith("blessed: ") and "expected code 3, got 0" in out, out
PY
    run kmrun test --run-dir "$runs" "$prog/program.yaml"
    [ "$status" -eq 0 ]
}

@test "kmrun test --bless: an example with a changed word, code and hash is blessed back to the example, byte for byte" {
    local copy=$BATS_TEST_TMPDIR/hello
    cp -R "$KMRUN_TOP/programs/01_hello" "$copy"
    sed -i 's/words: \[42\]/words: [41]/; s/code: 0/code: 9/; s/sha256: "ced2/sha256: "aaa2/' \
        "$copy/program.yaml"
    run ! cmp -s "$KMRUN_TOP/programs/01_hello/program.yaml" "$copy/program.yaml"
    run kmrun test --bless --run-dir "$runs" "$copy/program.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "${lines[-1]}" = "0 passed, 2 blessed, 0 failed" ]
    cmp "$KMRUN_TOP/programs/01_hello/program.yaml" "$copy/program.yaml"
}
