#!/usr/bin/env bats
# What the debugger shows inside a thread beyond GDB's basics (issue 31):
# the vector unit's registers as QEMU's gdbstub gives them, a trap's
# mcause, mepc and mtval at its stop, kmrun's monitor commands, breakpoint
# conditions kmrun evaluates without a stop per hit, and the debug build
# profile whose stepping follows the source — under `kmrun exec --gdb`
# and `kmrun run --gdb` (lib/gdb, tests/fixtures/gdb).

# shellcheck disable=SC2154 # output, status: set by run
load helpers
load gdb_helpers

setup() {
    need_gdb
    cd "$BATS_TEST_TMPDIR"
    steps=$KMRUN_TOP/tests/fixtures/gdb/steps.yaml
}

# exec_gdb ELF COMMANDS...: gdb-multiarch on ELF, connected to start_exec's kmrun.
exec_gdb() {
    local elf=$1 args=()
    shift
    for c in "$@"; do args+=(-ex "$c"); done
    run timeout 60 gdb-multiarch -q -batch -nx -ex "file $elf" -ex "target remote :$port" \
        "${args[@]}"
    echo "$output"
}

@test "gdb more: exec: the vector registers and CSRs, written and read; a trap's stop at its pc with mcause, mepc, mtval" {
    "$KMRUN_TOP/tests/isa/assemble" . "$KMRUN_TOP/tests/fixtures/gdb/vector.S"
    start_exec vector.elf
    exec_gdb vector.elf "break *misaligned" "continue" 'p $vlenb' 'p $vl' 'p/x $vtype' \
        'p $v1.w' 'p/x $v2.l[7]' 'p $v1.b[4]' 'p/x $v1.q[0]' 'set $v3.l[5] = 0x1234' \
        'p/x $v3.l' 'set $vxrm = 2' 'set $vxsat = 1' 'p $vcsr' 'set $vl = 1' 'p $vl' \
        'p/x $mcause' "continue" 'p/x $mcause' 'p/x $mtval' 'p $mepc == $pc' \
        'p $pc == &misaligned' "monitor cores" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'$1 = 64'* ]]                                 # vlenb
    [[ "$output" == *'$2 = 4'* ]]                                  # vl
    [[ "$output" == *'$3 = 0xd0'* ]]                               # e32, m1, ta, ma
    [[ "$output" == *'$4 = {0, 1, 2, 3, 0 <repeats 12 times>}'* ]] # vid.v at e32
    [[ "$output" == *'$5 = 0x5a5a5a5a5a5a5a5a'* ]]                 # vmv.v.x at e8, all 64 bytes
    [[ "$output" == *'$6 = 1'* ]]                                  # element 1's low byte
    [[ "$output" == *'$7 = 0x3000000020000000100000000'* ]]
    [[ "$output" == *'$8 = {0x0, 0x0, 0x0, 0x0, 0x0, 0x1234, 0x0, 0x0}'* ]]
    [[ "$output" == *'$9 = 5'* ]]                                  # vcsr: vxrm 2, vxsat 1
    [[ "$output" == *'Could not write register "vl"'* ]]           # read-only, as its number says
    [[ "$output" == *'$10 = 4'* ]]
    [[ "$output" == *'$11 = 0x0'* ]]                               # no trap yet
    [[ "$output" == *'Program received signal SIGBUS, Bus error.'*'in misaligned ()'* ]]
    [[ "$output" == *'$12 = 0x4'* ]]                               # load address misaligned
    [[ "$output" == *'$13 = 0x80002003'* ]]                        # buf + 3
    [[ "$output" == *'$14 = 1'*'$15 = 1'* ]]
    [[ "$output" =~ 1\ +hart\ 0\ +halted\ +0x0000000080000036\ misaligned ]]
    [[ "$output" == *'[Inferior 1 (Remote target) exited with code 01]'* ]]
    wait_exec
    [ "$exec_status" -eq 1 ]
    [ "$(jq -r '[.end, .trap.mcause, .trap.mtval] | @csv' exec.out)" = '"trap",4,2147491843' ]
}

@test "gdb more: run: a trap's stop reads mcause, mepc, mtval as the JSON's trap; the vector registers of a card's core" {
    local manifest=$KMRUN_TOP/tests/fixtures/hazards/misaligned.yaml
    start_run "$manifest"
    gdb_batch "continue" 'p/x $mcause' 'p $mepc == $pc' 'p $mtval' 'p $vlenb' 'p $v1.b' \
        'p/x $vtype' "thread 2" 'p $vlenb' "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'Thread 1 "c1.0" received signal SIGBUS'*'misaligned.c:12'* ]]
    [[ "$output" == *'$1 = 0x6'* ]] # store/AMO address misaligned
    [[ "$output" == *'$2 = 1'* ]]
    [[ "$output" == *'$4 = 64'*'$5 = {0 <repeats 64 times>}'*'$6 = 0x8000000000000000'* ]] # vill
    [[ "$output" == *'$7 = 64'* ]]
    wait_run
    [ "$run_status" -eq 1 ]
    mtval=$(printf '%s\n' "$output" | sed -n 's/^\$3 = //p')
    [ "$(jq -r '.threads[0].trap | [.mcause, .mtval, .source.line] | @csv' run.out)" = "6,$mtval,12" ]
    same_as_plain 1 "$manifest"
}

@test "gdb more: monitor cores, stats, where, timeline and help at a breakpoint; an unknown one is an error" {
    local manifest=$KMRUN_TOP/programs/02_parallel_sum/program.yaml
    start_run "$manifest"
    gdb_batch "break sum.c:62" "continue" "monitor help" "monitor cores" "monitor stats" \
        "monitor where" "monitor timeline" "monitor bogus" "monitor cores 1" "delete" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'monitor cores     every core: its state, pc and function'* ]]
    [[ "$output" =~ 1\ +c1\.0\ +running\ +0x00000000080[0-9a-f]+\ kmx_main ]]
    [[ "$output" =~ 4\ +c1\.3\ +running\ +0x00000000080[0-9a-f]+\ [a-z_]+ ]]
    [[ "$output" == *'instructions         cycles  memory_stall_cycles'* ]]
    [[ "$output" =~ 1\ +c1\.0\ +[1-9][0-9]*\ +[1-9][0-9]*\ +[1-9][0-9]* ]]
    [[ "$output" =~ 1\ +c1\.0\ +0x00000000080[0-9a-f]+\ kmx_main\ at\ thread/sum\.c:62 ]]
    [[ "$output" =~ 2\ +c1\.1\ +0x00000000080[0-9a-f]+\ [a-z_]+\ at\ [^\ ]+:[0-9]+ ]]
    [[ "$output" == *"each core's modeled time so far"* ]]
    [[ "$output" =~ 3\ +c1\.2\ +running\ +[#~.]{40}\ +[0-9]+\.[0-9]{3}\ us ]]
    [[ "$output" == *"kmrun: unknown monitor command 'bogus' (monitor help lists them)"*'Protocol error with Rcmd'* ]]
    [[ "$output" == *'kmrun: monitor cores takes no arguments'* ]]
    [[ "$output" == *'[Inferior 1 (Remote target) exited normally]'* ]]
    # core 0's instructions at the stop are fewer than at the run's end
    local at_stop
    at_stop=$(printf '%s\n' "$output" | awk '$2 == "c1.0" && $3 ~ /^[0-9]+$/ { print $3; exit }')
    wait_run
    [ "$run_status" -eq 0 ]
    [ "$at_stop" -gt 0 ]
    [ "$at_stop" -lt "$(jq '.stats.x280[0].instructions' run.out)" ]
    same_as_plain 0 "$manifest"
}

# stop_replies: the stop replies (T packets) GDB received since its remote
# log began (after connecting), from the log.
stop_replies() {
    printf '%s\n' "$output" | grep -c '\[remote\] Packet received: T' || true
}

@test "gdb more: break f if x == 3: kmrun evaluates the condition, one stop, no round trip per hit" {
    start_run "$steps"
    gdb_batch "set debug remote 1" "break square if x == 3" "continue" "p x" "p \$_hit_count" \
        "delete" "continue"
    [ "$status" -eq 0 ]
    # the condition went with the breakpoint, as bytecode
    [[ "$output" == *'Sending packet: $Z0,'*';X'* ]]
    [[ "$output" == *'Thread 1 "c1.0" hit Breakpoint 1, '*'x=x@entry=3) at thread/steps.c:'* ]]
    [[ "$output" == *'$1 = 3'* ]]
    [[ "$output" == *'[Inferior 1 (Remote target) exited normally]'* ]]
    # the one hit whose x is 3: x = 0, 1, 2 never reached GDB
    [ "$(stop_replies)" -eq 1 ]
    wait_run
    [ "$run_status" -eq 0 ]
    same_as_plain 0 "$steps"
    # GDB evaluating it itself stops at every hit up to it (and steps over
    # each false one): the round trips saved
    start_run "$steps"
    gdb_batch "set debug remote 1" "set breakpoint condition-evaluation host" \
        "break square if x == 3" "continue" "p x" "delete" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'$1 = 3'* ]]
    [ "$(stop_replies)" -ge 4 ]
    wait_run
}

@test "gdb more: a condition kmrun cannot evaluate stops the core, as GDB's own would" {
    start_run "$steps"
    # *(int *)8 reads memory no core has: the bytecode's ref32 fails
    gdb_batch "break square if *(int *)8 == 3" "continue" "p x" "delete" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'Thread 1 "c1.0" hit Breakpoint 1, square (x=x@entry=0)'* ]]
    wait_run
    [ "$run_status" -eq 0 ]
}

@test "gdb more: exec: a conditional breakpoint on the hart stops at the right hit only" {
    "$KMRUN_TOP/tests/isa/assemble" . "$KMRUN_TOP/tests/isa/commitlog.S"
    start_exec commitlog.elf
    # 0x80000020 runs once with a0 = 5: a condition false there never stops
    exec_gdb commitlog.elf "set debug remote 1" 'break *0x80000020 if $a0 == 6' \
        'break *0x80000024 if $a0 == 5' "continue" 'p $pc' "delete" "continue"
    [ "$status" -eq 0 ]
    [[ "$output" == *'Breakpoint 2, '*'0x0000000080000024 in _start ()'* ]]
    [ "$(stop_replies)" -eq 1 ]
    wait_exec
    [ "$exec_status" -eq 0 ]
}

@test "gdb more: the debug profile: build: debug and --debug give -Og -g3 images of their own cache keys" {
    run --separate-stderr kmrun build "$steps"
    [ "$status" -eq 0 ]
    [ "$(jq -r .profile <<<"$output")" = release ]
    release=$(jq -r .threads[0].image.key <<<"$output")
    run --separate-stderr kmrun build --debug "$steps"
    [ "$status" -eq 0 ]
    [ "$(jq -r .profile <<<"$output")" = debug ]
    debug=$(jq -r .threads[0].image.key <<<"$output")
    [ "$release" != "$debug" ]
    # both kept: each is a hit now
    run --separate-stderr kmrun build "$steps"
    [ "$(jq -r '[.hits, .misses, .threads[0].image.key] | @csv' <<<"$output")" = "1,0,\"$release\"" ]
    # the manifest's key is the same profile as --debug
    cp -r "$KMRUN_TOP/tests/fixtures/gdb" prog
    printf 'build: debug\n' >>prog/steps.yaml
    run --separate-stderr kmrun build prog/steps.yaml
    [ "$status" -eq 0 ]
    [ "$(jq -r '[.profile, .threads[0].image.key] | @csv' <<<"$output")" = "\"debug\",\"$debug\"" ]
    printf 'build: fast\n' >prog/bad.yaml
    sed -n '1,5p' prog/steps.yaml >>prog/bad.yaml
    run kmrun build prog/bad.yaml
    [ "$status" -eq 2 ]
    [[ "$output" == *"bad.yaml:1:8: bad build 'fast' (expected release or debug)"* ]]
}

@test "gdb more: in a debug build, next visits every line of a function in order, its locals all there" {
    start_run --debug "$steps"
    gdb_batch "break mix" "continue" "next" "next" "next" "next" "info locals" "delete" "continue"
    [ "$status" -eq 0 ]
    lines=$(printf '%s\n' "$output" | sed -n 's/^\([0-9][0-9]*\)\t.*/\1/p' | tr '\n' ' ')
    [[ "$lines" == *"21 22 23 24 25 "* ]]
    # a = 3 * 295 (the squares' sum plus ten), b = 5 + a, c = 7 ^ (b << 3), d = 11 - c / 5
    [[ "$output" == *$'a = 885\nb = 890\nc = 7127\nd = 4294965882'* ]]
    wait_run
    [ "$run_status" -eq 0 ]
    same_as_plain 0 --debug "$steps"
}
