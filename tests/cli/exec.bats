#!/usr/bin/env bats
# kmrun exec: a bare-metal RV64 ELF on one simulated hart — the JSON and
# the text it prints, the exit codes, the instruction limit, traps with no
# handler, wfi, the memory it maps (segments, zeroed bss, the stack), the
# tohost convention, and bad files and command lines.

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

EXEC_USAGE='usage: kmrun exec [--max-instructions N] [--json] [--trace-instructions[=FILE]]
                  [--profile DIR] [--gdb PORT] FILE.elf'

setup() {
    tmp=$BATS_TEST_TMPDIR
    schema=$KMRUN_TOP/schemas/exec.schema.json
}

# prog NAME: assembles the source on stdin (test.h available) into
# $tmp/NAME.elf, at 0x80000000 (tests/isa/link.ld).
prog() {
    cat >"$tmp/$1.S"
    "$KMRUN_TOP/tests/isa/assemble" "$tmp" "$tmp/$1.S"
}

# json_check: $output is valid for schemas/exec.schema.json.
json_check() {
    printf '%s\n' "$output" >"$tmp/out.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$schema" "$tmp/out.json"
}

# field NAME: a member of the JSON in $output (python's repr for objects).
field() {
    /usr/bin/python3 -c 'import json, sys; v = json.loads(sys.argv[1])[sys.argv[2]]; print("null" if v is None else v)' "$output" "$1"
}

# addr SYMBOL ELF: the symbol's address, in decimal.
addr() {
    printf '%d\n' "0x$(riscv64-unknown-elf-nm "$2" | awk -v s="$1" '$3 == s { print $1 }')"
}

pass_prog() {
    prog pass <<'END'
#include "test.h"
TEST_BEGIN
    TEST 1
    li a0, 41
    addi a0, a0, 1
    CHECK a0, 42
TEST_END
END
}

@test "exec: schema is a valid JSON Schema, draft 2020-12" {
    run /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" --check-schema "$schema"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "exec --json: a passing program: exit 0, the JSON's five members" {
    pass_prog
    run -0 --separate-stderr kmrun exec --json "$tmp/pass.elf"
    expect stderr </dev/null
    json_check
    [ "$(field exit_code)" = 0 ]
    [ "$(field end)" = exit ]
    [ "$(field trap)" = null ]
    [ "$(field instructions)" -gt 5 ]
    [ "$(field cycles)" -ge "$(field instructions)" ]
    run -0 /usr/bin/python3 -c 'import json, sys; print(" ".join(json.loads(sys.argv[1])))' "$output"
    [ "$output" = "exit_code instructions cycles end trap" ]
}

@test "exec: the same run twice gives the same JSON" {
    pass_prog
    kmrun exec --json "$tmp/pass.elf" >"$tmp/a.json"
    kmrun exec --json "$tmp/pass.elf" >"$tmp/b.json"
    diff -u "$tmp/a.json" "$tmp/b.json"
}

@test "exec: without --json, one line of text" {
    pass_prog
    run -0 --separate-stderr kmrun exec "$tmp/pass.elf"
    expect stderr </dev/null
    [[ $output =~ ^exit\ 0\ after\ [0-9,]+\ instructions,\ [0-9,]+\ cycles$ ]]
}

@test "exec: a non-zero exit code is reported, status 1" {
    prog three <<'END'
#include "test.h"
TEST_BEGIN
    TEST 3
    j fail
TEST_END
END
    run -1 --separate-stderr kmrun exec --json "$tmp/three.elf"
    expect stderr </dev/null
    json_check
    [ "$(field exit_code)" = 3 ]
    [ "$(field end)" = exit ]
    run -1 kmrun exec "$tmp/three.elf"
    [[ $output == "exit 3 after "* ]]
}

@test "exec: a 32-bit store to tohost, as riscv-tests make, ends the run" {
    prog sw <<'END'
    .section .text.init, "ax"
    .globl _start
_start:
    li t0, (5 << 1) | 1
    la t1, tohost
    sw t0, 0(t1)
    sw zero, 4(t1)
1:  j 1b
    .section .tohost, "aw"
    .balign 64
    .globl tohost
tohost: .dword 0
    .globl fromhost
fromhost: .dword 0
END
    run -1 --separate-stderr kmrun exec --json "$tmp/sw.elf"
    [ "$(field exit_code)" = 5 ]
    [ "$(field instructions)" = 4 ] # li, auipc+addi, sw
}

@test "exec: a store to tohost with bit 0 clear does not end the run" {
    prog even <<'END'
    .section .text.init, "ax"
    .globl _start
_start:
    la t1, tohost
    li t0, 8
    sd t0, 0(t1)            # not an exit: only stored
    ld t2, 0(t1)
    bne t2, t0, 1f
    li t0, 1
    sd t0, 0(t1)            # exit 0
1:  j 1b
    .section .tohost, "aw"
    .balign 64
    .globl tohost
tohost: .dword 0
END
    run -0 kmrun exec --json "$tmp/even.elf"
    [ "$(field exit_code)" = 0 ]
}

@test "exec --max-instructions: a loop ends at the limit, status 1" {
    prog loop <<'END'
#include "test.h"
TEST_BEGIN
1:  addi a0, a0, 1
    j 1b
TEST_END
END
    run -1 --separate-stderr kmrun exec --json --max-instructions 1000 "$tmp/loop.elf"
    expect stderr </dev/null
    json_check
    [ "$(field end)" = limit ]
    [ "$(field exit_code)" = null ]
    [ "$(field trap)" = null ]
    [ "$(field instructions)" = 1000 ]
    run -1 kmrun exec --max-instructions 2e4 --json "$tmp/loop.elf"
    [ "$(field instructions)" = 20000 ]
    run -1 kmrun exec --max-instructions=1000 "$tmp/loop.elf"
    [[ $output == "limit: stopped after 1,000 instructions (--max-instructions 1,000), "* ]]
}

@test "exec: a program that exits before the limit is not cut short" {
    pass_prog
    run -0 kmrun exec --json "$tmp/pass.elf"
    n=$(field instructions)
    run -0 kmrun exec --json --max-instructions "$n" "$tmp/pass.elf"
    [ "$(field end)" = exit ]
    run -1 kmrun exec --json --max-instructions "$((n - 1))" "$tmp/pass.elf"
    [ "$(field end)" = limit ]
}

@test "exec: a trap with no handler ends the run with mcause, mepc, mtval" {
    prog illegal <<'END'
#include "test.h"
TEST_BEGIN
    li a0, 1
    .globl bad
bad:
    .4byte 0x1234500b       # custom-0: illegal
    j pass
TEST_END
END
    run -1 --separate-stderr kmrun exec --json "$tmp/illegal.elf"
    expect stderr </dev/null
    json_check
    [ "$(field end)" = trap ]
    [ "$(field exit_code)" = null ]
    run -0 /usr/bin/python3 -c 'import json, sys; t = json.loads(sys.argv[1])["trap"]; print(t["mcause"], t["mepc"], t["mtval"], t["name"])' "$output"
    [ "$output" = "2 $(addr bad "$tmp/illegal.elf") $((0x1234500b)) illegal instruction" ]
    run -1 kmrun exec "$tmp/illegal.elf"
    [[ $output == "trap: illegal instruction (mcause 2) at mepc 0x"*", mtval 0x1234500b, with no handler installed, after "* ]]
}

@test "exec: a trap with no handler is reported when a locked PMP entry denies the catch point" {
    # TOR [0, 0x80000000) locked, no permissions: the catch point's store
    # to address 0 would fault; the program's own trap is still reported
    prog lowlock <<'END'
#include "test.h"
TEST_BEGIN
    li t0, 0x80000000 >> 2
    csrw pmpaddr0, t0
    li t0, 0x88
    csrw pmpcfg0, t0
bad:
    .word 0
TEST_END
END
    run -1 --separate-stderr kmrun exec --json --max-instructions 100000 "$tmp/lowlock.elf"
    [ "$(field end)" = trap ]
    [[ $output == *'"mcause": 2,'* ]]
    [[ $output == *"\"mepc\": $(addr bad "$tmp/lowlock.elf"),"* ]]
}

@test "exec: a load from an address nothing answers is an access fault" {
    prog fault <<'END'
#include "test.h"
TEST_BEGIN
    li a1, 0x1000
    .globl bad
bad:
    ld a0, 8(a1)
    j pass
TEST_END
END
    run -1 kmrun exec --json "$tmp/fault.elf"
    json_check
    run -0 /usr/bin/python3 -c 'import json, sys; t = json.loads(sys.argv[1])["trap"]; print(t["mcause"], t["mepc"], t["mtval"], t["name"])' "$output"
    [ "$output" = "5 $(addr bad "$tmp/fault.elf") 4104 load access fault" ]
}

@test "exec: ecall with no handler is reported; with a handler it is not" {
    prog ecall <<'END'
#include "test.h"
TEST_BEGIN
    ecall
    j pass
TEST_END
END
    run -1 kmrun exec --json "$tmp/ecall.elf"
    [[ $output == *'"mcause": 11,'*'"name": "environment call from M-mode"'* ]]
    prog handled <<'END'
#include "test.h"
TEST_BEGIN
    la t0, handler
    csrw mtvec, t0
    TEST 1
    li a0, 0
    ecall
    CHECK a0, 1
    j pass
    .balign 4
handler:
    li a0, 1
    csrr t0, mepc
    addi t0, t0, 4
    csrw mepc, t0
    mret
TEST_END
END
    run -0 kmrun exec --json "$tmp/handled.elf"
    [ "$(field end)" = exit ]
}

@test "exec: wfi ends the run, status 1" {
    prog wfi <<'END'
#include "test.h"
TEST_BEGIN
    wfi
    j pass
TEST_END
END
    run -1 --separate-stderr kmrun exec --json "$tmp/wfi.elf"
    json_check
    [ "$(field end)" = wfi ]
    [ "$(field exit_code)" = null ]
    [[ $(kmrun exec "$tmp/wfi.elf") == "wfi: "* ]]
}

@test "exec: sp is the top of a 64 KiB stack just below the lowest segment" {
    prog stack <<'END'
#include "test.h"
TEST_BEGIN
    TEST 1
    CHECK sp, 0x80000000
    TEST 2
    li a0, 0x1122334455667788
    sd a0, -8(sp)
    ld a1, -8(sp)
    CHECK a1, 0x1122334455667788
    TEST 3
    li t0, 0x10000
    sub a2, sp, t0          # the stack's lowest dword
    sd a0, 0(a2)
    ld a1, 0(a2)
    CHECK a1, 0x1122334455667788
    TEST 4                  # one below it: nothing there
    la t0, handler
    csrw mtvec, t0
    li s5, 0
    sd a0, -8(a2)
    CHECK s5, 7
    j pass
    .balign 4
handler:
    csrr s5, mcause
    csrr t0, mepc
    addi t0, t0, 4
    csrw mepc, t0
    mret
TEST_END
END
    run -0 kmrun exec --json "$tmp/stack.elf"
    echo "$output"
    [ "$(field exit_code)" = 0 ]
}

@test "exec: memory past a segment's file bytes is zero" {
    prog bss <<'END'
#include "test.h"
TEST_BEGIN
    TEST 1
    la a1, zeros
    li a2, 512
1:  ld a0, 0(a1)
    bnez a0, fail
    addi a1, a1, 8
    addi a2, a2, -1
    bnez a2, 1b
    TEST 2
    la a1, initial
    ld a0, 0(a1)
    CHECK a0, 0x0123456789abcdef
TEST_END
    .data
initial: .dword 0x0123456789abcdef
    .bss
zeros: .space 4096
END
    run -0 kmrun exec --json "$tmp/bss.elf"
    echo "$output"
}

@test "exec: a program without tohost gets a warning and can still trap" {
    prog notohost <<'END'
    .section .text.init, "ax"
    .globl _start
_start:
    ebreak
END
    run -1 --separate-stderr kmrun exec --json "$tmp/notohost.elf"
    expect stderr <<END
kmrun: warning: '$tmp/notohost.elf' has no 'tohost' symbol: it can end only in a trap, in wfi or at the instruction limit
END
    [ "$(field end)" = trap ]
    [[ $output == *'"mcause": 3,'* ]]
}

@test "exec: a file that is not an ELF is a build error, status 3" {
    echo 'hello' >"$tmp/hello.txt"
    run -3 --separate-stderr kmrun exec "$tmp/hello.txt"
    expect stdout </dev/null
    expect stderr <<END
kmrun: '$tmp/hello.txt' is not an ELF file: it starts with "hello\\x0a", not "\\x7fELF"
END
}

@test "exec: an ELF for another machine or of 32 bits is rejected, status 3" {
    run -3 --separate-stderr kmrun exec /bin/sh
    [[ $stderr == "kmrun: '/bin/sh' is"*"; expected"* ]]
    printf '.globl _start\n_start: j _start\n' >"$tmp/rv32.S"
    riscv64-unknown-elf-gcc -march=rv32i -mabi=ilp32 -nostdlib -o "$tmp/rv32.elf" "$tmp/rv32.S"
    run -3 --separate-stderr kmrun exec "$tmp/rv32.elf"
    expect stderr <<END
kmrun: '$tmp/rv32.elf' is a 32-bit ELF file; expected a 64-bit one (ELFCLASS64)
END
    printf '.globl _start\n_start: j _start\n' >"$tmp/obj.S"
    riscv64-unknown-elf-gcc -c -o "$tmp/obj.o" "$tmp/obj.S"
    run -3 --separate-stderr kmrun exec "$tmp/obj.o"
    expect stderr <<END
kmrun: '$tmp/obj.o' is a relocatable object (not linked); expected a linked executable (ET_EXEC)
END
}

# link NAME SCRIPT: links $tmp/NAME.S (test.h available) with the linker
# script SCRIPT (stdin's text) into $tmp/NAME.elf.
link() {
    cat >"$tmp/$1.ld"
    riscv64-unknown-elf-gcc -march=rv64gc -mabi=lp64d -nostdlib -nostartfiles -static \
        -I"$KMRUN_TOP/tests/isa" -T "$tmp/$1.ld" -Wl,--no-warn-rwx-segments \
        -o "$tmp/$1.elf" "$tmp/$1.S"
}

# load_flags ELF: each PT_LOAD's flags as readelf shows them, one a line
# ("-" for none): the fields between MemSiz and Align.
load_flags() {
    riscv64-unknown-elf-readelf -lW "$1" | awk '$1 == "LOAD" {
        f = ""
        for (i = 7; i < NF; i++) f = f $i
        print (f == "" ? "-" : f)
    }'
}

@test "exec: a PT_LOAD with no flags, as the official riscv-tests link, loads and runs (as under Spike and QEMU)" {
    # riscv-test-env's env/p/link.ld (tests/isa/noflags.ld): one PT_LOAD
    # with p_flags 0 holding the code, tohost and the data
    "$KMRUN_TOP/tests/isa/assemble" "$tmp" "$KMRUN_TOP/tests/isa/noflags.S"
    [ "$(load_flags "$tmp/noflags.elf")" = - ]
    run -0 --separate-stderr kmrun exec --json "$tmp/noflags.elf"
    expect stderr </dev/null
    [ "$(field exit_code)" = 0 ]
    # read-only segments only (no X anywhere): their code runs too
    cp "$KMRUN_TOP/tests/isa/noflags.S" "$tmp/ronly.S"
    sed 's/FLAGS(SHF_ALLOC | SHF_EXECINSTR)/FLAGS(4)/' "$KMRUN_TOP/tests/isa/noflags.ld" |
        link ronly
    [ "$(load_flags "$tmp/ronly.elf")" = R ]
    run -0 --separate-stderr kmrun exec --json "$tmp/ronly.elf"
    [ "$(field exit_code)" = 0 ]
}

@test "exec: an entry point in a segment without PF_X runs (as under Spike and QEMU)" {
    cat >"$tmp/dataentry.S" <<'END'
#include "test.h"
    .section .data.start, "aw", @progbits
    .globl start_in_data
start_in_data:
    la t0, _start
    jr t0
TEST_BEGIN
    TEST 1
    li a0, 5
    CHECK a0, 5
TEST_END
END
    link dataentry <<'END'
OUTPUT_ARCH(riscv)
ENTRY(start_in_data)
PHDRS { text PT_LOAD FLAGS(5); data PT_LOAD FLAGS(6); }
SECTIONS
{
    . = 0x80000000;
    .text : { *(.text.init) *(.text .text.*) } :text
    . = ALIGN(0x1000);
    .data : { *(.data.start) *(.tohost) *(.data .data.*) } :data
}
END
    [ "$(load_flags "$tmp/dataentry.elf" | tr '\n' ' ')" = "RE RW " ]
    run -0 --separate-stderr kmrun exec --json "$tmp/dataentry.elf"
    [ "$(field exit_code)" = 0 ]
}

@test "exec: an entry point outside every loadable segment is refused, status 3" {
    printf '.globl nowhere\n.set nowhere, 0x90000000\n_start: j _start\n' >"$tmp/noentry.S"
    link noentry <<'END'
OUTPUT_ARCH(riscv)
ENTRY(nowhere)
SECTIONS { . = 0x80000000; .text : { *(.text) } }
END
    run -3 --separate-stderr kmrun exec "$tmp/noentry.elf"
    expect stderr <<END
kmrun: '$tmp/noentry.elf': its entry point 0x90000000 is not in a loadable segment
END
}

@test "exec: a missing file is a system error, status 4" {
    run -4 --separate-stderr kmrun exec "$tmp/nothing.elf"
    expect stdout </dev/null
    expect stderr <<END
kmrun: cannot open '$tmp/nothing.elf': No such file or directory
END
}

@test "exec: a FIFO is refused at once, not waited on, status 4" {
    mkfifo "$tmp/fifo.elf"
    run -4 --separate-stderr timeout 20 kmrun exec "$tmp/fifo.elf"
    expect stdout </dev/null
    expect stderr <<END
kmrun: cannot open '$tmp/fifo.elf': it is a FIFO (expected a regular file)
END
}

@test "exec: usage errors exit 2 with the usage line" {
    run -2 --separate-stderr kmrun exec
    expect stderr <<END
kmrun: no ELF file given
$EXEC_USAGE
END
    run -2 --separate-stderr kmrun exec a.elf b.elf
    expect stderr <<END
kmrun: unexpected argument 'b.elf'
$EXEC_USAGE
END
    run -2 --separate-stderr kmrun exec --max-instructions 0 a.elf
    expect stderr <<END
kmrun: --max-instructions needs a positive count such as 1000000 or 1e9, not '0'
$EXEC_USAGE
END
    run -2 --separate-stderr kmrun exec --max-instructions lots a.elf
    [ "${stderr_lines[0]}" = "kmrun: --max-instructions needs a positive count such as 1000000 or 1e9, not 'lots'" ]
    run -2 --separate-stderr kmrun exec a.elf --max-instructions
    expect stderr <<END
kmrun: option '--max-instructions' requires a value
$EXEC_USAGE
END
    run -2 --separate-stderr kmrun exec --frobnicate a.elf
    expect stderr <<END
kmrun: unknown option '--frobnicate'
$EXEC_USAGE
END
    run -2 --separate-stderr kmrun exec --json=yes a.elf
    expect stderr <<END
kmrun: option '--json' takes no value
$EXEC_USAGE
END
}

@test "exec --help prints the usage and the exit status" {
    run -0 --separate-stderr kmrun exec --help
    [ "${lines[0]}
${lines[1]}" = "$EXEC_USAGE" ]
    [[ $output == *"Exit status: 0 the program exited with code 0, 1"* ]]
}

@test "exec --max-instructions: a trap loop counts its traps and ends at the limit" {
    # The handler itself traps: every trap re-enters it, none retires.
    prog traploop <<'END'
#include "test.h"
TEST_BEGIN
    la t0, handler
    csrw mtvec, t0
handler:
    .4byte 0x1234500b       # custom-0: illegal
TEST_END
END
    run -1 --separate-stderr timeout 20 kmrun exec --json --max-instructions 1000 "$tmp/traploop.elf"
    expect stderr </dev/null
    json_check
    [ "$(field end)" = limit ]
    run -1 timeout 20 kmrun exec --max-instructions 1000 "$tmp/traploop.elf"
    [[ $output == "limit: stopped after "*" instructions and "*" traps (--max-instructions 1,000 counts both), "* ]]
}

@test "exec --max-instructions: an mtvec that faults ends at the limit" {
    prog badvec <<'END'
#include "test.h"
TEST_BEGIN
    li t0, 0x40000000       # nothing answers there: every fetch faults
    csrw mtvec, t0
    .4byte 0x1234500b
TEST_END
END
    run -1 --separate-stderr timeout 20 kmrun exec --json --max-instructions 1e5 "$tmp/badvec.elf"
    expect stderr </dev/null
    [ "$(field end)" = limit ]
}
