#!/usr/bin/env bats
# programs/08_parallel_thread: a map, the map mixed 16 times and a
# two-pass prefix sum over 262,144 words, on one core and four
# (program.yaml) and on eight and twelve (twelve.yaml; vector.yaml: the
# same built by clang, vectorised); the checksums in
# the result words against the same computations in plain Python, the
# times only within broad bounds (README.md has the measured ones).

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    example=$KMRUN_TOP/programs/08_parallel_thread
}

# expected VARIANTS: words, clusters, the input's checksum, then ticks
# (as "t": checked apart) and checksum of map, mix and prefix on each of
# 1, 4, 8 and 12 cores; VARIANTS of them ran, the others are 0, 0.
expected() {
    python3 - "$1" <<'PY'
import sys
M, N = 0xFFFFFFFF, 262144
ran = int(sys.argv[1])
x = [(i * 0x9E3779B1 + 0x12345) & M for i in range(N)]
def f(v):
    return (v * 1664525 + 1013904223) & M
def mix(v):
    for _ in range(16):
        v = f(v)
    return v
def checksum(y):
    return sum(v * (i + 1) for i, v in enumerate(y)) & M
pre, s = [], 0
for v in x:
    s = (s + v) & M
    pre.append(s)
out = [N, 1 if ran == 2 else 3, checksum(x)]
for y in ([f(v) for v in x], [mix(v) for v in x], pre):
    c = checksum(y)
    for v in range(4):
        out += ["t", c] if v < ran else [0, 0]
print(",".join(map(str, out)))
PY
}

# The result words with each time replaced by "t" once it is in bounds:
# above 0.5 ms and below 60 ms (25,000 to 3,000,000 ticks), and every
# variant on four cores or more faster than on one.
words_checked() {
    field '.threads[0].words' | python3 -c '
import json, sys
w = json.load(sys.stdin)
for op in range(3):
    ticks = [w[3 + 8 * op + 2 * v] for v in range(4)]
    for v, t in enumerate(ticks):
        if t == 0:
            continue
        assert 25000 < t < 3000000, (op, v, t)
        assert v == 0 or t < ticks[0], (op, v, ticks)
        w[3 + 8 * op + 2 * v] = "t"
print(",".join(map(str, w)))'
}

@test "08_parallel_thread: one core and four: every checksum the one Python computes" {
    run_json "$example/program.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(field '.threads | length')" = 1 ]
    [ "$(field '.threads[0] | [.cluster, .state, .error, .code, .where] | @csv')" = \
        '1,"returned","none",0,6' ]
    want=$(expected 2)
    got=$(words_checked)
    [ "$got" = "$want" ] || { echo "want $want"; echo "got  $got"; false; }
}

@test "08_parallel_thread: twelve.yaml: eight and twelve cores too, the lead's outputs whole" {
    run_json "$example/twelve.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(field '[.threads[] | [.cluster, .state, .error, .code] | @csv] | join(" ")')" = \
        '1,"returned","none",0 2,"returned","none",0 3,"returned","none",0' ]
    [ "$(field '.threads[0].where')" = 6 ]
    want=$(expected 4)
    got=$(words_checked)
    [ "$got" = "$want" ] || { echo "want $want"; echo "got  $got"; false; }
    # The lead's copy after the twelve-core runs: its own chunks and the
    # ones clusters 2 and 3 pushed back, every word of the three outputs.
    kmrun read-region --run-dir "$runs" --cluster 1 --format raw mem >"$BATS_TEST_TMPDIR/mem.bin"
    python3 - "$BATS_TEST_TMPDIR/mem.bin" <<'PY'
import struct, sys
M, N = 0xFFFFFFFF, 262144
data = open(sys.argv[1], "rb").read()
def area(offset):
    return list(struct.unpack_from("<%dI" % N, data, offset))
x = [(i * 0x9E3779B1 + 0x12345) & M for i in range(N)]
A, B = 1, 0
for _ in range(16):
    A, B = A * 1664525 & M, (B * 1664525 + 1013904223) & M
assert area(0) == x, "IN"
assert area(1048576 + 32768) == [(v * 1664525 + 1013904223) & M for v in x], "MAP"
assert area(2097152 + 65536) == [(v * A + B) & M for v in x], "MIX"
pre, s = [], 0
for v in x:
    s = (s + v) & M
    pre.append(s)
assert area(3145728 + 98304) == pre, "PRE"
PY
}

@test "08_parallel_thread: vector.yaml (clang, vectorised): the same checksums, the spec's 1-core map 2.89 ms +-10% modeled" {
    run_json "$example/vector.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(field '[.threads[] | [.cluster, .state, .error, .code] | @csv] | join(" ")')" = \
        '1,"returned","none",0 2,"returned","none",0 3,"returned","none",0' ]
    want=$(expected 4)
    got=$(words_checked)
    [ "$got" = "$want" ] || { echo "want $want"; echo "got  $got"; false; }
    # ticks of 20 ns: the map on one core 2.60 to 3.18 ms (2.88 when
    # calibrated; the scalar build's 4.33 is outside), on four 1.49 to
    # 1.83 (spec 1.66)
    map1=$(field '.threads[0].words[3]')
    map4=$(field '.threads[0].words[5]')
    [ "$map1" -ge 130000 ] && [ "$map1" -le 159000 ] || { echo "map, 1 core: $map1"; false; }
    [ "$map4" -ge 74500 ] && [ "$map4" -le 91500 ] || { echo "map, 4 cores: $map4"; false; }
}
