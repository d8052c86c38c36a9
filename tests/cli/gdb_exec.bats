#!/usr/bin/env bats
# kmrun exec --gdb: a real gdb-multiarch on the simulated hart (the
# server of lib/gdb/km_gdb.h over lib/gdb/km_gdb_exec.h): breakpoints, registers,
# a step, memory, a watchpoint that stops before the store with the old
# and the new value, the end as the process's exit — and the run's result
# the same as without the debugger.

# shellcheck disable=SC2154 # output, status: set by run
load helpers
load gdb_helpers

setup() {
    need_gdb
    isa=$KMRUN_TOP/tests/isa
    "$isa/assemble" "$BATS_TEST_TMPDIR" "$isa/commitlog.S"
    elf=$BATS_TEST_TMPDIR/commitlog.elf
}

@test "gdb exec: break, registers, step, memory, a watchpoint, the end; the result as without" {
    start_exec "$elf"
    run timeout 60 gdb-multiarch -q -batch -nx -ex "file $elf" -ex "target remote :$port" \
        -ex "info registers pc" -ex "break *0x80000020" -ex "continue" \
        -ex "info registers a0 a1 t0" -ex "stepi" -ex "info registers pc" -ex "x/2xg &buf" \
        -ex "watch *(long *)&buf" -ex "continue" -ex "info registers pc" -ex "delete" \
        -ex "continue"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"pc             0x80000000"* ]]
    [[ "$output" == *"Breakpoint 1, 0x0000000080000020 in _start ()"* ]]
    [[ "$output" == *"a0             0x5	5"* ]]
    [[ "$output" == *"a1             0x8	8"* ]]
    [[ "$output" == *"pc             0x80000024"* ]]
    [[ "$output" == *"0x80002000:	0x0000000000000008	0x0000000000000005"* ]] # sd 8, then the stepped sw 5
    # the amoadd.w at 0x8000003e adds 6 to the word: stopped before it
    # lands, GDB steps over it and shows both values
    [[ "$output" == *"Old value = 8"*"New value = 14"* ]]
    [[ "$output" == *"[Inferior 1 (Remote target) exited normally]"* ]]
    wait_exec
    [ "$exec_status" -eq 0 ]
    run kmrun exec --json "$elf"
    [ "$status" -eq 0 ]
    [ "$(cat "$BATS_TEST_TMPDIR/exec.out")" = "$output" ]
}

@test "gdb exec: a detach lets the program run to its end, as without" {
    start_exec "$elf"
    run timeout 60 gdb-multiarch -q -batch -nx -ex "file $elf" -ex "target remote :$port" \
        -ex "break *0x80000042" -ex "continue" -ex "detach"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Breakpoint 1, 0x0000000080000042 in _start ()"* ]]
    wait_exec
    [ "$exec_status" -eq 0 ]
    run kmrun exec --json "$elf"
    [ "$(cat "$BATS_TEST_TMPDIR/exec.out")" = "$output" ]
}

@test "gdb exec: --gdb wants a port" {
    local bad
    for bad in x -1 65536 ''; do
        run --separate-stderr kmrun exec --gdb "$bad" "$elf"
        [ "$status" -eq 2 ]
        [[ "$stderr" == *"invalid --gdb port '$bad' (expected 0 to 65535; 0: any free one)"* ]]
    done
}

@test "gdb exec: malformed and oversized packets get error replies; the program then runs on" {
    start_exec "$elf"
    exec {sock}<>"/dev/tcp/127.0.0.1/$port"
    big=$(head -c 5000 /dev/zero | tr '\0' 'm')
    sum() { printf '%s' "$1" | od -An -tu1 -v | tr -s ' ' '\n' | awk '{ s += $1 } END { printf "%02x", s % 256 }'; }
    # a bad checksum; "m" without fields; a thread that is not there; a
    # register that is not there; memory nothing answers; 5000 bytes;
    # then a good question still gets its answer, and D lets it run on
    printf '$qC#00' >&"$sock"
    for p in m Hg9 p7ff m40000000,4 "$big" qC D; do
        printf '$%s#%s' "$p" "$(sum "$p")" >&"$sock"
    done
    reply=$(timeout 10 cat <&"$sock")
    exec {sock}<&-
    echo "$reply"
    [ "$reply" = '-+$E01#a6+$E02#a7+$E03#a8+$E0e#da+$E16#ac+$QC1#c5+$OK#9a' ]
    wait_exec
    [ "$exec_status" -eq 0 ]
    [ "$(jq -r .end "$BATS_TEST_TMPDIR/exec.out")" = exit ]
}

@test "gdb exec: Ctrl-C stops a program that never ends; kill ends kmrun (exit 1, no result)" {
    "$KMRUN_TOP/tests/isa/assemble" "$BATS_TEST_TMPDIR" "$KMRUN_TOP/tests/fixtures/gdb/forever.S"
    start_exec --max-instructions 1e15 "$BATS_TEST_TMPDIR/forever.elf"
    # The protocol as GDB speaks it on a Ctrl-C (a real GDB's own SIGINT
    # handling is tests/cli/gdb.bats')
    interrupt_and_kill "$kmrun_pid" "$port"
    # acked no-ack mode, then the stop by SIGINT (2) on thread 1 at a pc in the loop
    [[ "$reply" == '+$OK#9a$T02thread:1;20:'*'#'* ]]
    wait_exec
    [ "$exec_status" -eq 1 ]
    grep -q "kmrun: the debugger killed the program before its end" "$BATS_TEST_TMPDIR/exec.err"
    [ ! -s "$BATS_TEST_TMPDIR/exec.out" ]
}

@test "gdb exec: hardware breakpoints take the hart's four triggers: a fifth is refused; the result as without" {
    start_exec "$elf"
    run timeout 60 gdb-multiarch -q -batch -nx -ex "file $elf" -ex "target remote :$port" \
        -ex "hbreak *0x80000024" -ex "hbreak *0x80000028" -ex "hbreak *0x8000002c" \
        -ex "hbreak *0x80000030" -ex "hbreak *0x80000034" -ex "continue" \
        -ex "delete 5" -ex "continue" -ex "continue" -ex "delete" \
        -ex "rwatch *(int *)((char *)&buf + 8)" -ex "continue" -ex "delete" -ex "continue"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Cannot insert hardware breakpoint 5."* ]]
    [[ "$output" == *"Breakpoint 1, 0x0000000080000024 in _start ()"* ]]
    [[ "$output" == *"Breakpoint 2, 0x0000000080000028 in _start ()"* ]]
    [[ "$output" == *"Hardware read watchpoint 6: *(int *)((char *)&buf + 8)"*"Value = 5"* ]]
    [[ "$output" == *"[Inferior 1 (Remote target) exited normally]"* ]]
    wait_exec
    [ "$exec_status" -eq 0 ]
    run kmrun exec --json "$elf"
    [ "$(cat "$BATS_TEST_TMPDIR/exec.out")" = "$output" ]
}

@test "gdb exec: the trigger CSRs are the hart's: tdata1 set from GDB arms a breakpoint the program takes" {
    start_exec "$elf"
    # type 2, m, execute, action 0: the breakpoint exception before 0x80000024
    run timeout 60 gdb-multiarch -q -batch -nx -ex "file $elf" -ex "target remote :$port" \
        -ex "p \$tselect" -ex "p/x \$tdata1" -ex "set \$tselect = 9" -ex "p \$tselect" \
        -ex "set \$tdata2 = 0x80000024" -ex "set \$tdata1 = 0x2000000000000044" \
        -ex "continue" -ex "p/x \$mcause" -ex "p/x \$mepc" -ex "p/x \$tdata1"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *'$1 = 0'*'$2 = 0x2000000000000000'*'$3 = 0'* ]] # tselect 9: no such trigger
    [[ "$output" == *"Program received signal SIGTRAP"* ]]
    [[ "$output" == *'$4 = 0x3'*'$5 = 0x80000024'*'$6 = 0x2000000000100044'* ]] # hit
    wait_exec
    [ "$(jq -r .trap.name "$BATS_TEST_TMPDIR/exec.out")" = breakpoint ]
}
