#!/usr/bin/env bats
# programs/07_work_cluster: a cost split decided by a plain-C file
# (thread/split.c) that the thread and its host fallback share
# (programs/07_work_cluster/README.md): the words the README predicts,
# the same words recomputed, and `kmrun check` agreeing.

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    example=$KMRUN_TOP/programs/07_work_cluster
    program=$example/program.yaml
    # n, bound[1..3], the four partitions' costs, checksum
    words='64,26,41,54,203,190,215,196,151792353'
}

@test "07_work_cluster: returns the words its README predicts, state returned" {
    run_json "$program"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.threads | length')" = 1 ]
    [ "$(field '.threads[0] | [.cluster, .ran, .state, .error, .code, .where] | @csv')" = \
        '1,true,"returned","none",0,4' ]
    [ "$(field '.threads[0].words | @csv')" = "$words" ] || { field '.threads[0].words'; false; }
    readme=$example/README.md
    want=$(awk '/^```json/ { on = 1; next } /^```/ { on = 0 } on' "$readme")
    filter='[.state, .code, .where, (.words | @csv)] | @csv'
    [ "$(jq -r "$filter" <<<"$want")" = "$(field ".threads[0] | $filter")" ]
}

@test "07_work_cluster: the words are the split and transform recomputed, the checksum the region's" {
    run_json "$program"
    [ "$status" -eq 0 ]
    kmrun read-region --run-dir "$runs" --format raw out >"$BATS_TEST_TMPDIR/out.bin"
    expected=$(python3 - "$BATS_TEST_TMPDIR/out.bin" <<'PY'
import struct, sys
c = [1 + (i * i * 7 + 3 * i) % 11 + i // 4 for i in range(64)]
n, T = len(c), sum(c)
pre = [0]
for x in c:
    pre.append(pre[-1] + x)
b = [0]
for p in (1, 2, 3):
    b.append(min(range(b[-1], n + 1), key=lambda k: (abs(4 * pre[k] - p * T), k)))
b.append(n)
M = 0xFFFFFFFF
def mix(v):
    v ^= v >> 16; v = v * 0x7FEB352D & M; v ^= v >> 15; v = v * 0x846CA68B & M
    return v ^ (v >> 16)
out = []
for i in range(n):
    for k in range(64 * i, 64 * i + 64):
        v = 0x9E3779B9 ^ k
        for _ in range(c[i]):
            v = mix(v)
        out.append(v)
region = struct.unpack("<%dI" % len(out), open(sys.argv[1], "rb").read())
assert list(region) == out, "out differs"
cs = sum(v * (k + 1) for k, v in enumerate(out)) & M
parts = [pre[b[p + 1]] - pre[b[p]] for p in range(4)]
print(",".join(map(str, [n] + b[1:4] + parts + [cs])))
PY
)
    [ "$expected" = "$words" ]
}

@test "07_work_cluster: kmrun check: the card and the host fallback agree" {
    run --separate-stderr kmrun check --run-dir "$BATS_TEST_TMPDIR/check" "$program"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [[ "$output$stderr" == *"'work_cluster' agrees on the simulated card and the host: 1 thread, 3 regions (33,024 bytes) identical"* ]]
}
