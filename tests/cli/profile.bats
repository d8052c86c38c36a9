#!/usr/bin/env bats
# kmrun run --profile, kmrun exec --profile and kmrun profile: an exact
# profile by function, line and call stack — each core's cycles,
# instructions and memory stall cycles add up to the run's stats; the run
# is the same with and without; the shadow call stack follows calls, tail
# calls, unwinds, longjmps and traps; the top table, --annotate, --json,
# --svg (opened in headless Chromium) and the timeline's counter tracks.

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    twelve=$KMRUN_TOP/programs/08_parallel_thread/twelve.yaml
    parallel=$KMRUN_TOP/programs/08_parallel_thread/thread/parallel.c
}

# sums RUN_FOLDER: each core's line "C.K cycles instructions stalls" from
# the profile (folded and JSON) and from the run's stats, or a mismatch.
sums_match() {
    python3 - "$1" <<'PY'
import collections, json, sys
d = sys.argv[1]
stats = json.load(open(d + "/result.json"))["stats"]["x280"]
folded = collections.Counter()
for line in open(d + "/profile.folded"):
    stack, count = line.rsplit(" ", 1)
    folded[stack.split(";")[0]] += int(count)
js = collections.defaultdict(lambda: [0, 0, 0])
for r in json.load(open(d + "/profile.json"))["stacks"]:
    c = js[r["stack"].split(";")[0]]
    c[0] += r["cycles"]; c[1] += r["instructions"]; c[2] += r["memory_stall_cycles"]
bad = 0
for s in stats:
    core = "%d.%d" % (s["cluster"], s["core"])
    want = [s["cycles"], s["instructions"], s["memory_stall_cycles"]]
    if folded[core] != s["cycles"] or js[core] != want:
        print("core", core, "stats", want, "folded", folded[core], "json", js[core])
        bad += 1
print(len(stats), "cores")
sys.exit(bad)
PY
}

@test "run --profile: the twelve-core example's profile.folded adds up to each core's stats exactly, naming parallel.c lines" {
    run_json --profile "$twelve"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    dir=$(field .run_dir)
    [[ $stderr == *"the profile: "*"/profile.folded ('kmrun profile' shows it)"* ]]
    run -0 sums_match "$dir"
    [ "$output" = "12 cores" ]
    # the core first, then frames "function (file:line)"
    grep -q '^1\.0;_start (.*crt0.S:[0-9]*);' "$dir/profile.folded"
    grep -Eq ';(f|do_chunk|part|checksum_part) \(thread/parallel\.c:[0-9]+\) [0-9]+$' \
        "$dir/profile.folded"
    # one line a stack, the count last
    run -0 awk 'NF < 2 || $NF !~ /^[0-9]+$/' "$dir/profile.folded"
    [ -z "$output" ]
}

@test "run --profile: the same results, times and JSON as without" {
    run_json "$twelve"
    [ "$status" -eq 0 ]
    plain=$(stable "$output")
    run_json --profile "$twelve"
    [ "$status" -eq 0 ]
    diff <(echo "$plain") <(stable "$output")
}

@test "profile: the top table, per core, as JSON, with a limit" {
    run_json --profile "$twelve"
    [ "$status" -eq 0 ]
    run -0 --separate-stderr kmrun profile --run-dir "$runs"
    [ "${lines[0]%%:*}" = "every core" ]
    [[ ${lines[1]} == *"cycles"*"share"*"memory stall"*"instructions"*"traps"*"function (file:line)" ]]
    [[ $output == *"%  "*"parallel.c:"* ]]
    [ "${#lines[@]}" -eq 23 ] # title, header, 20 lines, what more there is
    run -0 kmrun profile --run-dir "$runs" --core 1.0 --json --limit 3
    [ "$(field .core)" = 1.0 ]
    [ "$(field '.rows | length')" = 3 ]
    total=$(field .cycles)
    [ "$total" = "$(jq -r '.stats.x280[] | select(.cluster == 1 and .core == 0) | .cycles' \
        "$runs/latest/result.json")" ]
    [ "$(field '[.rows[0] | .frame, .function, .file, (.line | type)] | @csv')" != "" ]
    [ "$(field '.rows[0].cycles >= .rows[1].cycles')" = true ]
    run -0 kmrun profile --run-dir "$runs" --json --limit 0
    [ "$(field '[.rows[].cycles] | add')" = "$(field .cycles)" ]
    [ "$(field '[.rows[].share] | add | . > 99.99 and . < 100.01')" = true ]
}

@test "profile --annotate: each source line's cycles; a file the profile does not name is an error" {
    run_json --profile "$twelve"
    [ "$status" -eq 0 ]
    run -0 kmrun profile --run-dir "$runs" --annotate "$parallel"
    [[ ${lines[0]} == "$parallel: "*" of "*" cycles on its lines" ]]
    # every line of the file, numbered; f's body (line 83) spent cycles
    [ "${#lines[@]}" -eq $(($(wc -l <"$parallel") + 2)) ]
    [[ $output =~ [0-9,]+\ +[0-9.]+%\ +[0-9,]+\ +83\ +return\ x\ \*\ 1664525u ]]
    run -2 --separate-stderr kmrun profile --run-dir "$runs" --annotate "$twelve"
    [[ $stderr == *"names no line of"* ]]
    run -2 --separate-stderr kmrun profile --run-dir "$runs" --annotate /no/such.c
    [[ $stderr == *"cannot read the source '/no/such.c'"* ]]
}

@test "profile: usage errors, an unknown core, a run without a profile" {
    run -2 --separate-stderr kmrun profile --core x
    [[ $stderr == *"invalid --core 'x'"* ]]
    run -2 --separate-stderr kmrun profile --limit -1
    run -2 --separate-stderr kmrun profile --json --annotate x.c
    run_json "$twelve"
    [ "$status" -eq 0 ]
    run -2 --separate-stderr kmrun profile --run-dir "$runs"
    [[ $stderr == "kmrun: the run in '"*"' has no profile: run it with 'kmrun run --profile'" ]]
    run_json --profile "$twelve"
    run -2 --separate-stderr kmrun profile --run-dir "$runs" --core 4.0
    [[ $stderr == *"the profile has no core '4.0' (it has 1.0, 1.1,"* ]]
    run -2 --separate-stderr kmrun run --profile --thread host "$twelve"
    [[ $stderr == *"--profile needs the simulated card"* ]]
}

@test "profile --svg: one self-contained flame graph whose script builds its boxes in headless Chromium" {
    run_json --profile "$twelve"
    [ "$status" -eq 0 ]
    svg=$BATS_TEST_TMPDIR/flame.svg
    run -0 kmrun profile --run-dir "$runs" --svg "$svg" --limit 1
    head -c 200 "$svg" | grep -q '<svg xmlns="http://www.w3.org/2000/svg"'
    # self-contained: no reference to anything outside the file
    ! grep -Eq '(href|src)=|url\(|https?://[^w]' "$svg"
    grep -q 'f (thread/parallel.c:83)' "$svg"
    command -v chromium >/dev/null ||
        skip "chromium is not installed (./setup installs it): the SVG's script was not run"
    run -0 timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$svg"
    [[ $output == *'data-ready="1"'* ]]
    [[ $output =~ data-boxes=\"([0-9]+)\" ]]
    [ "${BASH_REMATCH[1]}" -gt 50 ]
    # the boxes are the script's: each frame a rect named by its frame
    [[ $output == *'<rect '*'data-name="f (thread/parallel.c:83)"'* ]]
}

@test "run --profile --timeline: each core's busy and memory-stall counter tracks" {
    tl=$BATS_TEST_TMPDIR/tl.json
    run_json --profile --timeline "$tl" "$twelve"
    [ "$status" -eq 0 ]
    run -0 jq -r '[.traceEvents[] | select(.ph == "C") | "\(.pid) \(.name) \(.args | keys[0])"] | unique | .[]' "$tl"
    [ "${#lines[@]}" -eq 24 ] # 12 cores, two counters each
    [[ $output == *"1 core 0 busy %"* && $output == *"3 core 3 memory stall %"* ]]
    run -0 jq '[.traceEvents[] | select(.ph == "C") | .args[]] | (min >= 0 and max <= 100)' "$tl"
    [ "$output" = true ]
    # without --profile: none
    run_json --timeline "$tl" "$twelve"
    run -0 jq '[.traceEvents[] | select(.ph == "C")] | length' "$tl"
    [ "$output" = 0 ]
}

@test "exec --profile: the shadow stack through calls, a tail call, an unwind, a longjmp and a trap" {
    cat >"$BATS_TEST_TMPDIR/calls.S" <<'END'
#include "test.h"
TEST_BEGIN
    la t0, handler
    csrw mtvec, t0
    li s1, 3
loop:
    call outer
    addi s1, s1, -1
    bnez s1, loop
    call tail_caller
    call unwinder
    li s4, 0
    call setjmp_like
    bnez s4, thrown
    li s4, 1
    call thrower
thrown:
    ebreak
    TEST 1
    li a0, 1
    CHECK a0, 1
    j done
outer:
    addi sp, sp, -16
    sd ra, 0(sp)
    call inner
    ld ra, 0(sp)
    addi sp, sp, 16
    ret
inner:
    li t1, 100
1:  addi t1, t1, -1
    bnez t1, 1b
    ret
tail_caller:
    tail inner
unwinder:
    mv s2, ra
    call deep
deep:
    mv ra, s2
    ret
setjmp_like:
    mv s3, ra
    ret
thrower:
    call thrower_deep
thrower_deep:
    mv ra, s3
    ret
    .balign 4
handler:
    csrr t2, mepc
    addi t2, t2, 4
    csrw mepc, t2
    mret
done:
TEST_END
END
    cd "$BATS_TEST_TMPDIR"
    riscv64-unknown-elf-gcc -g -march=rv64gcv_zba_zbb_zfh -mabi=lp64d -nostdlib -nostartfiles \
        -static -I"$KMRUN_TOP/tests/isa" -T "$KMRUN_TOP/tests/isa/link.ld" \
        -Wl,--no-warn-rwx-segments -o calls.elf calls.S
    run -0 kmrun exec --json --profile prof calls.elf
    cycles=$(field .cycles)
    run -0 awk '{ s += $NF } END { print s }' prof/profile.folded
    [ "$output" = "$cycles" ]
    sed "s|$BATS_TEST_TMPDIR/||g" prof/profile.folded >short.folded
    folded=$(sed 's/ [0-9]*$//' short.folded)
    # calls push their site: the caller's line, then the callee's
    [[ $folded == *"0.0;loop (calls.S:7);outer (calls.S:26);inner (calls.S:32)"* ]]
    grep -q '^0.0;loop (calls.S:7);outer (calls.S:26);inner (calls.S:32) 300$' short.folded
    # a tail call: the callee in its caller's place
    [[ $folded == *$'\n'"0.0;loop (calls.S:10);inner (calls.S:32)"$'\n'* ]]
    # a return past a frame (unwinder's caller's return address): back at the top
    [[ $folded == *"0.0;loop (calls.S:11);unwinder (calls.S:39);deep (calls.S:42)"* ]]
    [[ $folded == *$'\n'"0.0;loop (calls.S:12)"$'\n'* ]]
    # a longjmp to where setjmp_like, returned since, was called
    [[ $folded == *"0.0;loop (calls.S:16);thrower (calls.S:47);thrower_deep (calls.S:50)"* ]]
    grep -q '^0.0;loop (calls.S:14) 2$' short.folded
    # a trap: the trapping line, its handler above it, mret back out
    [[ $folded == *"0.0;thrown (calls.S:18) [trap];handler (calls.S:55)"* ]]
    [[ $folded == *$'\n'"0.0;thrown (calls.S:20)"$'\n'* ]]
    # kmrun profile reads the folder
    run -0 kmrun profile "$BATS_TEST_TMPDIR/prof" --limit 1
    [[ ${lines[2]} == *"inner ($BATS_TEST_TMPDIR/calls.S:32)" ]]
    run -2 --separate-stderr kmrun exec --profile prof --gdb 0 calls.elf
    [[ $stderr == *"--profile runs the hart alone: not with --gdb"* ]]
}

@test "run --profile: stretches and idle skips count what stepping every instruction counts (KMRUN_PROFILE=step)" {
    run_json --profile "$twelve"
    [ "$status" -eq 0 ]
    fast=$(field .run_dir)
    KMRUN_PROFILE=step run_json --profile "$twelve"
    [ "$status" -eq 0 ]
    diff "$fast/profile.json" "$(field .run_dir)/profile.json"
    diff "$fast/profile.folded" "$(field .run_dir)/profile.folded"
}
