#!/usr/bin/env bats
# kmrun exec --trace-instructions: every retired instruction as a line of
# Spike's commit log.  tests/isa/commitlog.log is the sample: written to
# the format of Spike's commit_log_print_insn (riscv-isa-sim,
# riscv/execute.cc) and checked by hand line by line against the program
# (Spike itself is not packaged for Debian 12).

load helpers

setup() {
    isa=$KMRUN_TOP/tests/isa
    "$isa/assemble" "$BATS_TEST_TMPDIR" "$isa/commitlog.S" "$isa/rv64i.S"
}

@test "trace: the sample program's log is the checked-in sample, line for line" {
    run --separate-stderr kmrun exec --trace-instructions "$BATS_TEST_TMPDIR/commitlog.elf"
    [ "$status" -eq 0 ]
    printf '%s\n' "$stderr" >"$BATS_TEST_TMPDIR/got.log"
    diff -u "$isa/commitlog.log" "$BATS_TEST_TMPDIR/got.log"
}

@test "trace: =FILE writes the log there, and stderr stays quiet" {
    run --separate-stderr kmrun exec --trace-instructions="$BATS_TEST_TMPDIR/t.log" \
        "$BATS_TEST_TMPDIR/commitlog.elf"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    diff -u "$isa/commitlog.log" "$BATS_TEST_TMPDIR/t.log"
}

@test "trace: one line per retired instruction, and the run is the same as without" {
    run --separate-stderr kmrun exec --json "$BATS_TEST_TMPDIR/rv64i.elf"
    [ "$status" -eq 0 ]
    local plain=$output
    run --separate-stderr kmrun exec --json --trace-instructions="$BATS_TEST_TMPDIR/t.log" \
        "$BATS_TEST_TMPDIR/rv64i.elf"
    [ "$status" -eq 0 ]
    [ "$output" = "$plain" ]
    [ "$(wc -l <"$BATS_TEST_TMPDIR/t.log")" -eq "$(jq .instructions <<<"$output")" ]
    # every line is a commit record: core, privilege, pc, bits
    ! grep -Ev '^core   0: 3 0x[0-9a-f]{16} \(0x([0-9a-f]{4}|[0-9a-f]{8})\)( |$)' "$BATS_TEST_TMPDIR/t.log"
}

@test "trace: a file that cannot be written is an error (exit 4) that names it" {
    run --separate-stderr kmrun exec --trace-instructions=/nonexistent/dir/t.log \
        "$BATS_TEST_TMPDIR/commitlog.elf"
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"cannot write the trace '/nonexistent/dir/t.log'"* ]]
}

# ---- kmrun run --trace-instructions CLUSTER.CORE --------------------------

@test "trace: a core of a run, into the run folder: one line per instruction, the run as recorded" {
    runs=$BATS_TEST_TMPDIR/runs
    run_json --trace-instructions 1.2 "$KMRUN_TOP/programs/02_parallel_sum/program.yaml"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"kmrun: core 1.2's instruction trace: $runs/"*"/trace-c1.2.kmt ("*" instructions)"* ]]
    [ -f "$runs/latest/trace-c1.2.kmt" ]
    local json=$output n
    n=$(field '.stats.x280[] | select(.cluster == 1 and .core == 2) | .instructions')
    # nothing else about the run moved
    [ "$(field '.traces | map([.cluster, .core, .file, .recorded == .retired, .cut]) | tostring')" = '[[1,2,"trace-c1.2.kmt",true,false]]' ]
    [ "$(field '.traces[0].recorded')" -eq "$(field '.stats.x280[] | select(.cluster == 1 and .core == 2) | .instructions')" ]
    jq 'del(.traces)' <<<"$json" | "$KMRUN_TOP/tests/golden/normalize" |
        diff -u "$KMRUN_TOP/tests/golden/02_parallel_sum_program.json" -
    # what the core retired, line for line, as Spike's commit log
    run --separate-stderr kmrun trace --run-dir "$runs" --format spike
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(wc -l <<<"$output")" -eq "$n" ]
    ! grep -Ev '^core   2: 3 0x[0-9a-f]{16} \(0x([0-9a-f]{4}|[0-9a-f]{8})\)( |$)' <<<"$output"
    # the first instructions are the runtime's start: auipc gp, then addi
    # gp,gp (its offset is the image's: any 12 bits)
    [ "$(head -1 <<<"$output" | cut -c1-43)" = 'core   2: 3 0x0000000008000000 (0x00003197)' ]
    [[ "$(sed -n 2p <<<"$output" | cut -c1-43)" =~ ^'core   2: 3 0x0000000008000004 (0x'[0-9a-f]{3}'18193)'$ ]]
}

@test "trace: --trace-cores all traces every core of the thread's cluster, and the run is the same as without" {
    runs=$BATS_TEST_TMPDIR/runs
    local m=$KMRUN_TOP/tests/fixtures/trace/sum_small.yaml plain k n re
    run_json "$m"
    [ "$status" -eq 0 ]
    plain=$(stable "$output")
    run_json --trace-cores all "$m"
    [ "$status" -eq 0 ]
    [ "$(stable "$(jq 'del(.traces)' <<<"$output")")" = "$plain" ]
    [ "$(cd "$runs/latest" && echo trace-*)" = "trace-c1.0.kmt trace-c1.1.kmt trace-c1.2.kmt trace-c1.3.kmt" ]
    local json=$output
    for k in 0 1 2 3; do
        n=$(jq ".stats.x280[] | select(.cluster == 1 and .core == $k) | .instructions" <<<"$json")
        re="core 1\\.$k's instruction trace: [^ ]*/trace-c1\\.$k\\.kmt \\(([0-9,]+) instructions\\)"
        [[ "$stderr" =~ $re ]]
        [ "${BASH_REMATCH[1]//,/}" -eq "$n" ]
        run kmrun trace --run-dir "$runs" --core "1.$k" --format spike
        [ "$status" -eq 0 ]
        [ "$(wc -l <<<"$output")" -eq "$n" ]
    done
    # two chosen cores: those two files
    run_json --trace-cores 1.0,1.2 "$m"
    [ "$status" -eq 0 ]
    [ "$(stable "$(jq 'del(.traces)' <<<"$output")")" = "$plain" ]
    [ "$(cd "$runs/latest" && echo trace-*)" = "trace-c1.0.kmt trace-c1.2.kmt" ]
}

@test "trace: the text form says core, cycle, pc, bits, disassembly, writes, memory and the source line" {
    runs=$BATS_TEST_TMPDIR/runs
    run_json --trace-cores 1.1 "$KMRUN_TOP/tests/fixtures/trace/sum_small.yaml"
    [ "$status" -eq 0 ]
    run --separate-stderr kmrun trace --run-dir "$runs"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "# core 1.1: "*" of "*" instructions retired recorded, image '"*"image.elf'" ]]
    [[ "${lines[1]}" == '1.1 cycle=0 pc=0x8000000 bits=0x00003197 "auipc gp,0x3" x3=0x8003000 at=crt0.S:'*' fn=_start' ]]
    # every instruction line has its fields in order; cycles never go back
    ! sed 1d <<<"$output" | grep -Ev '^1\.1 cycle=[0-9]+ pc=0x[0-9a-f]+ bits=0x[0-9a-f]{4,8}( "[^"]+")?( [a-z0-9]+=0x[0-9a-f]+)*( load=0x[0-9a-f]+)?( store=0x[0-9a-f]+:0x[0-9a-f]+)?( at=[^ ]+:[0-9]+)?( fn=[^ ]+)?$'
    sed 1d <<<"$output" | sed -E 's/^[^ ]+ cycle=([0-9]+).*/\1/' | sort -n -c
    # the thread's own loop is named by its source line, its loads by address
    grep -q ' load=0x[0-9a-f]* at=sum.c:[0-9]* fn=sum_chunks$' <<<"$output"
    # --grep keeps the lines that match; --from and --to keep a window of cycles
    run kmrun trace --run-dir "$runs" --grep 'fn=sum_chunks$'
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -gt 100 ]
    ! sed 1d <<<"$output" | grep -v 'fn=sum_chunks$'
    run kmrun trace --run-dir "$runs" --from 1000 --to 1999
    [ "$status" -eq 0 ]
    [ "$(sed 1d <<<"$output" | sed -E 's/^[^ ]+ cycle=([0-9]+).*/\1/' | awk '$1 < 1000 || $1 > 1999' | wc -l)" -eq 0 ]
    [ "$(sed 1d <<<"$output" | wc -l)" -gt 10 ]
}

@test "trace: --trace-function and --trace-pc record only the instructions inside, and the run is the same" {
    runs=$BATS_TEST_TMPDIR/runs
    local m=$KMRUN_TOP/tests/fixtures/trace/sum_small.yaml plain range lo hi
    run_json "$m"
    plain=$(stable "$output")
    run_json --trace-cores 1.3 --trace-function sum_chunks "$m"
    [ "$status" -eq 0 ]
    [ "$(stable "$(jq 'del(.traces)' <<<"$output")")" = "$plain" ]
    run --separate-stderr kmrun trace --run-dir "$runs"
    [ "$status" -eq 0 ]
    # the header names the function's range; every line is inside it
    range=$(head -1 <<<"$output" | grep -oE 'pc in 0x[0-9a-f]+-0x[0-9a-f]+$')
    lo=$((${range#pc in } )); lo=$(( $(sed -E 's/pc in (0x[0-9a-f]+)-.*/\1/' <<<"$range") ))
    hi=$(( $(sed -E 's/.*-(0x[0-9a-f]+)$/\1/' <<<"$range") ))
    [ "$(sed 1d <<<"$output" | wc -l)" -gt 1000 ]
    ! sed 1d <<<"$output" | grep -v ' fn=sum_chunks$'
    [[ "${lines[0]}" == "# core 1.3: "*" of "*" instructions retired recorded"* ]]
    # the same range as --trace-pc records the same instructions
    run kmrun trace --run-dir "$runs" --format spike
    local by_function=$output
    run_json --trace-cores 1.3 --trace-pc "$(printf '0x%x-0x%x' "$lo" "$hi")" "$m"
    [ "$status" -eq 0 ]
    run kmrun trace --run-dir "$runs" --format spike
    [ "$(sed -E 's/^(core   3: 3 0x[0-9a-f]+ \(0x[0-9a-f]+\)).*/\1/' <<<"$output")" = \
      "$(sed -E 's/^(core   3: 3 0x[0-9a-f]+ \(0x[0-9a-f]+\)).*/\1/' <<<"$by_function")" ]
}

@test "trace: --trace-limit cuts the trace, says so in the file, on stderr and in kmrun trace; the run goes on the same" {
    runs=$BATS_TEST_TMPDIR/runs
    local m=$KMRUN_TOP/programs/02_parallel_sum/program.yaml plain
    run_json "$m"
    plain=$(stable "$output")
    run_json --trace-cores 1.0 --trace-limit 4KiB "$m"
    [ "$status" -eq 0 ]
    [ "$(stable "$(jq 'del(.traces)' <<<"$output")")" = "$plain" ]
    [[ "$stderr" =~ kmrun:\ warning:\ trace\ of\ 1\.0\ cut\ at\ ([0-9]+)\ instructions\ \(limit\ 4\ KiB\) ]]
    local n=${BASH_REMATCH[1]}
    [ "$n" -gt 100 ]
    [ "$(stat -c %s "$runs/latest/trace-c1.0.kmt")" -le 4096 ]
    [ "$(field '.traces[0] | [.cut, .recorded, .limit_bytes] | @csv')" = "true,$n,4096" ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
    run --separate-stderr kmrun trace --run-dir "$runs" --format spike
    [ "$status" -eq 0 ]
    [ "$(wc -l <<<"$output")" -eq "$n" ]
    [ "$stderr" = "kmrun: warning: trace of 1.0 cut at $n instructions (limit 4 KiB)" ]
}

@test "trace: a truncated or foreign trace is refused, and says why" {
    runs=$BATS_TEST_TMPDIR/runs
    run_json --trace-cores 1.0 "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    local f=$runs/latest/trace-c1.0.kmt size
    size=$(stat -c %s "$f")
    truncate -s $((size - 100)) "$f"
    run --separate-stderr kmrun trace --run-dir "$runs"
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"the trace '"*"/trace-c1.0.kmt' is truncated: it has no end record"* ]]
    [ -z "$output" ]
    printf 'not a trace at all, not at all\n' >"$f"
    run --separate-stderr kmrun trace --run-dir "$runs"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"/trace-c1.0.kmt' is not a kmrun instruction trace"* ]]
    # a run without traces, a core without one
    run_json "$KMRUN_TOP/programs/01_hello/program.yaml"
    run --separate-stderr kmrun trace --run-dir "$runs"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"has no instruction trace (run it with --trace-cores or --trace-instructions)"* ]]
    run_json --trace-cores 1.0 "$KMRUN_TOP/programs/01_hello/program.yaml"
    run --separate-stderr kmrun trace --run-dir "$runs" --core 1.3
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"has no trace of core 1.3"* ]]
}

@test "trace: the trace options' usage errors" {
    runs=$BATS_TEST_TMPDIR/runs
    local m=$KMRUN_TOP/programs/01_hello/program.yaml bad
    for bad in 1 1.0,x 1.0, '' 1.0.1; do
        run_json --trace-cores "$bad" "$m"
        [ "$status" -eq 2 ]
        [[ "$stderr" == *"invalid --trace-cores '"* ]]
    done
    run_json --trace-cores 1.0,3.3 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"cannot trace core 3.3: no thread of 'hello' runs on X280 cluster 3"* ]]
    for bad in 0x10 0x20-0x10 0x10-0x10 x-0x10 0x10-; do
        run_json --trace-cores 1.0 --trace-pc "$bad" "$m"
        [ "$status" -eq 2 ]
        [[ "$stderr" == *"invalid --trace-pc '$bad' (expected START-END"* ]]
    done
    run_json --trace-cores 1.0 --trace-function no_such_function "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"no function 'no_such_function' to trace: the images of 'hello' have no such symbol"* ]]
    run_json --trace-cores 1.0 --trace-limit 100 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"invalid --trace-limit '100' (expected bytes, at least 4096"* ]]
    run_json --trace-pc 0x0-0x10 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"name its cores with --trace-cores"* ]]
    run --separate-stderr kmrun trace --run-dir "$runs" --format xml
    [ "$status" -eq 2 ]
    run --separate-stderr kmrun trace --run-dir "$runs" --grep '('
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"invalid --grep '('"* ]]
    [ ! -e "$runs/latest" ]
}

@test "trace: --trace-instructions wants CLUSTER.CORE of a core a thread runs on" {
    runs=$BATS_TEST_TMPDIR/runs
    local m=$KMRUN_TOP/programs/01_hello/program.yaml bad
    for bad in 1 x.0 1.0x -1.0 1. ''; do
        run_json --trace-instructions "$bad" "$m"
        [ "$status" -eq 2 ]
        [[ "$stderr" == *"invalid --trace-instructions '$bad' (expected CLUSTER.CORE, such as 1.0)"* ]]
    done
    run_json --trace-instructions 1.4 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"no X280 core 1.4 to trace (clusters 1 to 3, cores 0 to 3)"* ]]
    run_json --trace-instructions 2.0 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"cannot trace core 2.0: no thread of 'hello' runs on X280 cluster 2 (its threads run on cluster 1)"* ]]
    run_json --thread host --trace-instructions 1.0 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"the host fallback runs X280 threads on the host"* ]]
    [ ! -e "$runs/latest" ]
}

@test "trace: under the timeline's observer too, a record per instruction retired, none twice" {
    runs=$BATS_TEST_TMPDIR/runs
    run_json --timeline "$BATS_TEST_TMPDIR/tl.json" --trace-cores all \
        "$KMRUN_TOP/programs/02_parallel_sum/program.yaml"
    [ "$status" -eq 0 ]
    [ "$(field '[.traces[] | .recorded] | @csv')" = "$(field '[.stats.x280[] | .instructions] | @csv')" ]
}
