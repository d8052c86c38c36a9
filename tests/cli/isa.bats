#!/usr/bin/env bats
# The instruction tests (tests/isa/*.S): each is assembled with
# riscv64-unknown-elf-as (tests/isa/assemble) and run with `kmrun exec`;
# it exits 0 when every check passed, else with the number of the
# failing TEST (tests/isa/test.h).

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    isa=$KMRUN_TOP/tests/isa
}

# isa NAME: assembles tests/isa/NAME.S and runs it; passes on exit 0.
isa() {
    "$isa/assemble" "$BATS_TEST_TMPDIR" "$isa/$1.S"
    run --separate-stderr kmrun exec --json "$BATS_TEST_TMPDIR/$1.elf"
    printf '%s\n' "$output" "$stderr"
    if [ "$status" -ne 0 ]; then
        local code
        code=$(sed -n 's/.*"exit_code": \([0-9]*\).*/\1/p' <<<"$output")
        if [ -n "$code" ]; then
            echo "$1: TEST $code failed (see tests/isa/$1.S)"
        else
            echo "$1: did not exit: kmrun exec status $status"
        fi
        return 1
    fi
    [[ $output == *'"end": "exit"'* ]]
    [[ $output == *'"exit_code": 0,'* ]]
}

@test "isa: rv64i (arithmetic, W forms, shifts, compares, branches, jumps, loads, stores)" { isa rv64i; }
@test "isa: rv64m (products' halves, division by zero and overflow, W forms)" { isa rv64m; }
@test "isa: rv64a (lr/sc, every amo .w and .d)" { isa rv64a; }
@test "isa: rv64f (flags, rounding modes, NaN-boxing, fcvt saturation, fmin/fmax, fclass, fma)" { isa rv64f; }
@test "isa: rv64d (the same for doubles, fcvt.s.d and fcvt.d.s)" { isa rv64d; }
@test "isa: rv64zfh (half precision: flags, rounding, NaN-boxing, fcvt to and from S, D and integers, fmv.x.h, flh/fsh, fma)" { isa rv64zfh; }
@test "isa: rvc (every compressed form)" { isa rvc; }
@test "isa: zicsr (csrrw/s/c and immediates, fcsr views, misa, mhartid, counters)" { isa zicsr; }
@test "isa: traps (illegal, misaligned, access faults, ecall, ebreak, vector, FS off, mret)" { isa traps; }
@test "isa: zba" { isa zba; }
@test "isa: zbb" { isa zbb; }
@test "isa: fence.i (self-modifying code)" { isa fencei; }
@test "isa: triggers (tselect/tdata1/tdata2: execute, load, store, a second trigger; rv64mi-p-breakpoint's checks)" { isa triggers; }
@test "isa: pmp (pmpcfg/pmpaddr legal values, G = 10, locks; locked NAPOT and TOR entries deny loads, stores, AMOs, fetches in machine mode, unlocked ones do not; rv64mi-p-pmpaddr's checks)" { isa pmp; }
@test "isa: the commit log's sample program" { isa commitlog; }
@test "isa: noflags (the official riscv-tests' layout: one PT_LOAD with no flags holding code, tohost and data)" { isa noflags; }
@test "isa: rvv_cfg (vsetvl*: every SEW and LMUL, vill, AVL rules, vector CSRs, mstatus.VS)" { isa rvv_cfg; }
@test "isa: rvv_mem (unit-stride, mask, strided, indexed, whole-register, segment, fault-only-first loads and stores)" { isa rvv_mem; }
@test "isa: rvv_int (integer arithmetic, compares, reductions, masks, moves; LMUL, tail, mask, vstart)" { isa rvv_int; }
@test "isa: rvv_perm (slides, gathers, compress, add/subtract with carry, zero/sign extension)" { isa rvv_perm; }
@test "isa: rvv_wide (widening add/sub/multiply/multiply-add, widening reductions, narrowing shifts)" { isa rvv_wide; }
@test "isa: rvv_fixed (saturating, averaging, vsmul, scaling shifts, clips; every vxrm mode, vxsat)" { isa rvv_fixed; }
@test "isa: rvv_fp (.vf forms, NaN-boxing, FP moves, merge, slides, compares, reductions, fflags, vfrsqrt7, vfrec7)" { isa rvv_fp; }
@test "isa: rvv_traps (reserved configurations illegal, faulting elements in vstart, restart)" { isa rvv_traps; }

@test "isa: every tests/isa/*.S is run by a test here" {
    for src in "$isa"/*.S; do
        name=$(basename "$src" .S)
        grep -q "{ isa $name; }" "$BATS_TEST_FILENAME" ||
            { echo "tests/isa/$name.S has no test in isa.bats"; false; }
    done
}

@test "isa: a failing program exits with its test number" {
    cat >"$BATS_TEST_TMPDIR/failing.S" <<'END'
#include "test.h"
TEST_BEGIN
    TEST 1
    li a0, 1
    CHECK a0, 1
    TEST 7
    li a0, 2
    CHECK a0, 3
TEST_END
END
    "$isa/assemble" "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/failing.S"
    run -1 --separate-stderr kmrun exec --json "$BATS_TEST_TMPDIR/failing.elf"
    expect stderr </dev/null
    [[ $output == *'"exit_code": 7,'* ]]
    [[ $output == *'"end": "exit"'* ]]
}
