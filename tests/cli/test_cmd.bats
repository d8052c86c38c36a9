#!/usr/bin/env bats
# kmrun test: every example under programs/ holds to its expect: (a line
# per program and backend, a JUnit testcase each); shards split them
# disjointly and cover them, with -j 2 giving the same lines; a broken
# expectation fails with its file:line:col; a manifest with errors fails
# its own case and a program without expect: is skipped; TAP 13; a run
# past --wall-timeout is killed alone; bad options are usage errors.

# shellcheck disable=SC2154 # output, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    cd "$KMRUN_TOP" || return 1
}

# The lines of a text report without their times: "ok   FILE [sim]".
untimed() {
    sed -E 's/ [0-9]+\.[0-9]{2} s$//; s/ \(reused\)$//' | grep -E '^(ok  |FAIL|skip) ' | sort
}

# The lines `kmrun test programs` gives when all hold, untimed, in the
# manifests' order: "ok   FILE [backend]" for each backend of each
# manifest's expect:.
want_lines() {
    find programs -name '*.yaml' | LC_ALL=C sort | python3 -c 'import sys, yaml
for m in sys.stdin.read().split():
    doc = yaml.safe_load(open(m))
    if "expect" in doc:
        for b in (doc["expect"] or {}).get("backends", ["sim"]):
            print("ok   %s [%s]" % (m, b))'
}

# A copy of programs/01_hello in $BATS_TEST_TMPDIR/$1.
hello_copy() {
    mkdir -p "$BATS_TEST_TMPDIR/$1"
    cp -R "$KMRUN_TOP/programs/01_hello" "$BATS_TEST_TMPDIR/$1/hello"
}

@test "kmrun test programs: every example holds, a JUnit testcase per program and backend" {
    # --rerun: every example runs here (the test jobs share one cache, and
    # another's kmrun test may have stored a result this one would reuse)
    run --separate-stderr kmrun test --rerun --run-dir "$runs" --junit "$BATS_TEST_TMPDIR/junit.xml" programs
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ -z "$stderr" ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/all.txt"
    # one line per program and backend, in the manifests' order
    local want=$BATS_TEST_TMPDIR/want.txt
    want_lines >"$want"
    [ "$(wc -l <"$want")" -ge 25 ]
    diff -u "$want" <(sed -E 's/ [0-9]+\.[0-9]{2} s$//' "$BATS_TEST_TMPDIR/all.txt" | grep -v passed)
    [ "${lines[-1]}" = "$(wc -l <"$want" | tr -d ' ') passed, 0 failed" ]
    # every line as it ends: "ok   FILE [B] S.SS s"
    grep -qE '^ok   programs/01_hello/program.yaml \[sim\] [0-9]+\.[0-9]{2} s$' "$BATS_TEST_TMPDIR/all.txt"
    python3 - "$BATS_TEST_TMPDIR/junit.xml" "$want" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
want = [l.split(None, 1)[1].strip() for l in open(sys.argv[2])]
assert root.tag == "testsuites", root.tag
suite = root.find("testsuite")
cases = suite.findall("testcase")
got = []
for c in cases:
    folder = c.get("classname").replace(".", "/")
    name, backend = c.get("name").rsplit(" ", 1)
    got.append("%s/%s %s" % (folder, name, backend))
    assert c.get("file") == "%s/%s" % (folder, name), c.attrib
    assert float(c.get("time")) >= 0
    assert c.find("failure") is None and c.find("skipped") is None
assert got == want, (got, want)
assert suite.get("tests") == str(len(want)) and suite.get("failures") == "0"
assert root.get("tests") == str(len(want))
PY
}

@test "kmrun test --shard 1/2 and 2/2 are disjoint and cover programs, with -j 2 the same lines" {
    want_lines | sort >"$BATS_TEST_TMPDIR/all"
    run -0 kmrun test --run-dir "$runs" -j 2 --shard 1/2 programs
    untimed <<<"$output" >"$BATS_TEST_TMPDIR/one"
    run -0 kmrun test --run-dir "$runs" -j 2 --shard 2/2 programs
    untimed <<<"$output" >"$BATS_TEST_TMPDIR/two"
    [ -s "$BATS_TEST_TMPDIR/one" ] && [ -s "$BATS_TEST_TMPDIR/two" ]
    # disjoint programs
    [ -z "$(comm -12 <(sed 's/ \[.*//' "$BATS_TEST_TMPDIR/one" | sort -u) \
        <(sed 's/ \[.*//' "$BATS_TEST_TMPDIR/two" | sort -u))" ]
    # together, every line of the whole run (-j 1: the test before)
    diff -u "$BATS_TEST_TMPDIR/all" <(sort "$BATS_TEST_TMPDIR/one" "$BATS_TEST_TMPDIR/two")
    # the i-th program (from 0) goes to shard (i mod 2) + 1
    local first second
    read -r first second <<<"$(want_lines | awk '{ print $2 }' | uniq | head -2 | tr '\n' ' ')"
    grep -q "^ok   $first " "$BATS_TEST_TMPDIR/one"
    grep -q "^ok   $second " "$BATS_TEST_TMPDIR/two"
}

@test "kmrun test: a wrong expectation fails with exit 1 and its first difference at file:line:col" {
    hello_copy wrong
    local m=$BATS_TEST_TMPDIR/wrong/hello/program.yaml
    sed -i 's/^      words: \[42\]$/      words: [42, 7]/; s/^      code: 0$/      code: 1/' "$m"
    run --separate-stderr kmrun test --run-dir "$runs" "$BATS_TEST_TMPDIR/wrong"
    [ "$status" -eq 1 ] || { echo "$output"; false; }
    local line code_line
    line=$(grep -n 'words: \[42, 7\]' "$m" | cut -d: -f1)
    code_line=$(grep -n '^      code: 1$' "$m" | cut -d: -f1)
    [ "${lines[0]}" = "FAIL $m [sim]${lines[0]##*"[sim]"}" ]
    [[ "${lines[0]}" =~ ^FAIL\ .*\ \[sim\]\ [0-9]+\.[0-9]{2}\ s$ ]]
    [ "${lines[1]}" = "     $m:$code_line:13: thread on cluster 1: expected code 1, got 0" ]
    [ "${lines[2]}" = "     (1 more difference)" ]
    [[ "${lines[3]}" == "     run folder $runs/"* ]]
    [ -d "${lines[3]#     run folder }" ]
    [[ "${lines[4]}" == "FAIL $m [host] "* ]]
    [ "${lines[-1]}" = "0 passed, 2 failed" ]
    # for a tool: each difference a JSON line on stderr at its place, the report the same
    run -1 --separate-stderr kmrun test --message-format=json --run-dir "$runs" --backend sim "$m"
    [[ "${lines[0]}" == "FAIL $m [sim] "* ]]
    printf '%s\n' "$stderr" >"$BATS_TEST_TMPDIR/stderr.json"
    python3 - "$m" "$code_line" "$line" "$BATS_TEST_TMPDIR/stderr.json" <<'PY'
import json, sys
m, code_line, words_line = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
got = [json.loads(l) for l in open(sys.argv[4]).read().splitlines()]
assert [(d["code"], d["file"], d["line"], d["column"]) for d in got] == [
    ("test.mismatch", m, code_line, 13), ("test.mismatch", m, words_line, 14)], got
assert got[1]["message"] == "thread on cluster 1: expected words [42, 7], got [42]", got[1]
assert got[1]["text"] == "      words: [42, 7]" and got[1]["severity"] == "error", got[1]
PY
    # every difference in the JUnit report, with the run folder
    run -1 kmrun test --run-dir "$runs" --backend sim --junit "$BATS_TEST_TMPDIR/j.xml" "$m"
    python3 - "$BATS_TEST_TMPDIR/j.xml" "$m:$line:14: thread on cluster 1: expected words [42, 7], got [42]" <<'PY'
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall("testsuite/testcase")
assert len(cases) == 1, cases
f = cases[0].find("failure")
assert f is not None and "expected code 1, got 0" in f.get("message"), f.attrib
assert sys.argv[2] in f.text and "run folder: " in f.text, f.text
PY
}

@test "kmrun test: a manifest with errors fails alone, a program without expect: is skipped; --tap is TAP 13" {
    hello_copy mixed
    local d=$BATS_TEST_TMPDIR/mixed
    mkdir -p "$d/broken" "$d/plain"
    printf 'name: broken\ncommands: [{handler: nop}]\nthreds: []\n' >"$d/broken/program.yaml"
    cp -R "$KMRUN_TOP/programs/12_host_loop/." "$d/plain/"
    sed -i '/^expect:/,$d' "$d/plain/program.yaml"
    run kmrun test --run-dir "$runs" --backend sim "$d"
    [ "$status" -eq 1 ] || { echo "$output"; false; }
    [[ "${lines[0]}" == "FAIL $d/broken/program.yaml "* ]]
    [ "${lines[1]}" = "     $d/broken/program.yaml:3:1: unknown key 'threds' at the top level (did you mean 'threads'?)" ]
    [[ "${lines[2]}" == "ok   $d/hello/program.yaml [sim] "* ]]
    [ "${lines[3]}" = "skip $d/plain/program.yaml (no expect:)" ]
    [ "${lines[4]}" = "1 passed, 1 failed, 1 skipped" ]
    run kmrun test --run-dir "$runs" --backend sim --tap "$d"
    [ "$status" -eq 1 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/tap"
    python3 - "$BATS_TEST_TMPDIR/tap" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == "TAP version 13", lines[0]
m = re.fullmatch(r"1\.\.(\d+)", lines[1])
assert m, lines[1]
plan, n, i, results = int(m.group(1)), 0, 2, []
while i < len(lines):
    line = lines[i]
    t = re.fullmatch(r"(not ok|ok) (\d+) - ([^#]*?)( # SKIP .*)?", line)
    if t:
        n += 1
        assert int(t.group(2)) == n, line
        results.append((t.group(1), t.group(4) is not None))
        if i + 1 < len(lines) and lines[i + 1] == "  ---":
            j = lines.index("  ...", i + 1)
            import yaml
            block = yaml.safe_load("\n".join(l[2:] for l in lines[i + 2:j]))
            assert "message" in block and block["severity"] == "fail", block
            i = j
    else:
        assert line.startswith("#"), line
    i += 1
assert n == plan == 3, (n, plan)
assert results == [("not ok", False), ("ok", False), ("ok", True)], results
PY
    [ "${lines[-1]}" = "# 1 passed, 1 failed, 1 skipped" ]
}

@test "kmrun test --message-format=json: a compile error is the compiler's diagnostics at their lines, then the case's" {
    cp -r programs/01_hello "$BATS_TEST_TMPDIR/broken"
    local src=$BATS_TEST_TMPDIR/broken/thread/hello.c line
    sed -i '0,/return 0;/s//return oops;/' "$src"
    line=$(grep -n 'return oops;' "$src" | cut -d: -f1)
    run -1 --separate-stderr kmrun test --message-format=json --run-dir "$runs" --backend sim \
        "$BATS_TEST_TMPDIR/broken/program.yaml"
    # the report reads the child's diagnostics as text
    [[ "${lines[0]}" == "FAIL $BATS_TEST_TMPDIR/broken/program.yaml [sim] "* ]]
    [[ "$output" == *"thread/hello.c:$line:"*": error: 'oops' undeclared"* ]] || { echo "$output"; false; }
    [[ "$output" != *'{"type"'* ]]
    printf '%s\n' "$stderr" >"$BATS_TEST_TMPDIR/stderr.json"
    python3 - "$line" "$BATS_TEST_TMPDIR/stderr.json" <<'PY'
import json, sys
line = int(sys.argv[1])
got = [json.loads(l) for l in open(sys.argv[2]).read().splitlines()]
codes = [d["code"] for d in got]
assert codes[0] == "build.compile" and codes[-1] == "test.failed", codes
assert got[0]["file"].endswith("broken/thread/hello.c") and got[0]["line"] == line, got[0]
assert "{" not in got[-1]["message"], got[-1]
PY
}

@test "kmrun test --backend overrides the backends, and a run past --wall-timeout is killed alone" {
    hello_copy slow
    local d=$BATS_TEST_TMPDIR/slow
    mkdir -p "$d/spin/thread"
    printf '#include "kmx.h"\nint kmx_main(int core)\n{\n    (void)core;\n    for (volatile int i = 0;; i++)\n        ;\n}\n' >"$d/spin/thread/spin.c"
    printf 'name: spin\nthreads:\n  - cluster: 1\n    sources: [thread/spin.c]\n    deadline: 600s\nexpect:\n' \
        >"$d/spin/program.yaml"
    run kmrun test --run-dir "$runs" --backend sim --wall-timeout 4 -j 2 "$d"
    [ "$status" -eq 1 ] || { echo "$output"; false; }
    grep -qE "^ok   $d/hello/program.yaml \[sim\] " <<<"$output"
    grep -qE "^FAIL $d/spin/program.yaml \[sim\] [0-9.]+ s$" <<<"$output"
    grep -qF "     killed after 4 s of real time, its build and run together (--wall-timeout)" <<<"$output"
    [ "${lines[-1]}" = "1 passed, 1 failed" ]
    ! grep -q '\[host\]' <<<"$output"
    # nothing of the killed run is left running
    ! pgrep -f "run --run-dir $runs --thread sim $d/spin/program.yaml"
}

@test "kmrun test: bad options and paths are usage errors" {
    run -2 --separate-stderr kmrun test --shard 3/2 programs
    [ "$stderr" = "kmrun: invalid --shard '3/2' (expected I/N with 1 <= I <= N, such as 1/4)
usage: kmrun test [options] [PATH...]" ]
    [ -z "$output" ]
    local bad
    for bad in 0/2 2 1/0 a/b 1/2/3 ""; do
        run -2 kmrun test --shard "$bad" programs
    done
    run -2 --separate-stderr kmrun test --backend card programs
    [[ "$stderr" == "kmrun: invalid --backend 'card' (expected sim or host)"* ]]
    run -2 --separate-stderr kmrun test -j 0 programs
    [[ "$stderr" == "kmrun: invalid job count '0' (expected 1 to 256)"* ]]
    run -2 --separate-stderr kmrun test --wall-timeout soon programs
    run -2 --separate-stderr kmrun test --tapp programs
    [[ "$stderr" == "kmrun: unknown option '--tapp'"* ]]
    run -2 --separate-stderr kmrun test "$BATS_TEST_TMPDIR/nowhere"
    [ "$stderr" = "kmrun: no file or folder '$BATS_TEST_TMPDIR/nowhere' (expected a manifest, or a folder of programs)" ]
    mkdir "$BATS_TEST_TMPDIR/empty"
    run -2 --separate-stderr kmrun test "$BATS_TEST_TMPDIR/empty"
    [[ "$stderr" == "kmrun: no program under '$BATS_TEST_TMPDIR/empty'"* ]]
    # an empty shard is no failure
    run -0 kmrun test --run-dir "$runs" --shard 7/7 programs/01_hello
    [ "$output" = "0 passed, 0 failed" ]
    # a JUnit report that cannot be written: status 4, after the report
    run -4 --separate-stderr kmrun test --run-dir "$runs" --backend sim --junit "$BATS_TEST_TMPDIR/no/such/j.xml" programs/01_hello
    [ "${lines[-1]}" = "1 passed, 0 failed" ]
    [[ "$stderr" == "kmrun: cannot "* ]]
}
