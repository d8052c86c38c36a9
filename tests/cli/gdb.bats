#!/usr/bin/env bats
# The GDB server (lib/gdb/km_gdb.h) against a real gdb-multiarch: the fake
# target of tests/unit/gdb_fake.h served on TCP by tests/gdb/fake_server.c
# (four harts in two clusters running a seven-instruction loop).  Proves
# that GDB takes the target description, the thread list and names, and
# the stop replies of breakpoints, steps, watchpoints and the end.

# shellcheck disable=SC2154 # output, status: set by run
load helpers

server=$KMRUN_BUILD/tests/gdb_fake_server
server_pid=
gdb_pid=

# A failed test leaves no server or GDB behind.
teardown() {
    if [ -n "$gdb_pid" ]; then kill "$gdb_pid" 2>/dev/null || true; fi
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
}

# start_server [forever]: runs the fake server in the background; sets
# port.
start_server() {
    rm -f "$BATS_TEST_TMPDIR/port"
    "$server" "$BATS_TEST_TMPDIR/port" "$@" >"$BATS_TEST_TMPDIR/server.out" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        [ -s "$BATS_TEST_TMPDIR/port" ] && break
        sleep 0.05
    done
    port=$(cat "$BATS_TEST_TMPDIR/port")
    [ -n "$port" ]
}

# stop_server: waits for the server's end (it ends with its session).
stop_server() {
    for _ in $(seq 100); do
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.05
    done
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" || true
    server_pid=
}

@test "gdb: gdb-multiarch reads registers and memory, breaks, steps, switches threads, watches, runs to the end" {
    command -v gdb-multiarch >/dev/null || skip "no gdb-multiarch"
    start_server
    run timeout 60 gdb-multiarch -nx -batch \
        -ex "target remote :$port" \
        -ex "info registers pc" \
        -ex "x/4x 0x08000000" \
        -ex "break *0x08000008" \
        -ex "continue" \
        -ex "stepi" \
        -ex "info registers pc" \
        -ex "info threads" \
        -ex "thread 4" \
        -ex "info registers mhartid fcsr mstatus" \
        -ex "delete" \
        -ex "watch *(long *)0x08001008" \
        -ex "continue" \
        -ex "delete" \
        -ex "continue"
    stop_server
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *internal-error* ]]
    [[ $output == *"pc             0x8000000"* ]]
    [[ $output == *"0x8000000:	0x00000293	0x00128293	0x0051b023	0xffd28313"* ]]
    [[ $output == *'Thread 1 "cluster 1 core 0" hit Breakpoint 1, 0x0000000008000008'* ]]
    [[ $output == *"pc             0x800000c"* ]]
    [[ $output == *'2    Thread 2 "cluster 1 core 1"'* ]]
    [[ $output == *'4    Thread 4 "cluster 2 core 1"'* ]]
    [[ $output == *"[Switching to thread 4 (Thread 4)]"* ]]
    [[ $output == *"mhartid        0x3	3"* ]]
    [[ $output == *"fcsr           0x0"* ]]
    [[ $output == *"Hardware watchpoint 2: *(long *)0x08001008"* ]]
    [[ $output == *"Old value = 0"*"New value = 1"* ]]
    [[ $output == *"exited normally"* ]]
    # The program ran to its end under GDB: every hart counted to 3.
    run cat "$BATS_TEST_TMPDIR/server.out"
    [ "${lines[0]}" = exited ]
    [ "${lines[1]}" = "cluster 1 core 0: 3" ]
    [ "${lines[4]}" = "cluster 2 core 1: 3" ]
}

@test "gdb: over TCP, a malformed or oversized packet gets an error reply and the session goes on" {
    start_server
    # (bats keeps fd 3 for itself: the socket gets a free one.)
    exec {sock}<>"/dev/tcp/127.0.0.1/$port"
    # A bad checksum is refused ('-'); then "m" without its fields, an
    # unknown thread, a register that does not exist, 5000 bytes of
    # packet; then a good question still gets its answer, and D ends it.
    big=$(head -c 5000 /dev/zero | tr '\0' 'm')
    sum() { printf '%s' "$1" | od -An -tu1 -v | tr -s ' ' '\n' | awk '{ s += $1 } END { printf "%02x", s % 256 }'; }
    printf '$qC#00' >&"$sock"
    for p in m Hg9 p7ff "$big" qC D; do
        printf '$%s#%s' "$p" "$(sum "$p")" >&"$sock"
    done
    reply=$(timeout 10 cat <&"$sock")
    exec {sock}<&-
    stop_server
    echo "$reply"
    [ "$reply" = '-+$E01#a6+$E02#a7+$E03#a8+$E16#ac+$QC1#c5+$OK#9a' ]
    run cat "$BATS_TEST_TMPDIR/server.out"
    [ "${lines[0]}" = detached ]
}

@test "gdb: Ctrl-C stops a program that never ends, and kill ends the session" {
    command -v gdb-multiarch >/dev/null || skip "no gdb-multiarch"
    start_server forever
    # GDB sends 0x03 when it gets SIGINT during a continue, as from a
    # terminal's Ctrl-C.  A background job starts with SIGINT ignored,
    # which GDB would keep: python3 gives it back its default first.
    # --foreground: timeout passes a signal to GDB alone; without it, it
    # signals its whole process group too, and a second SIGINT makes GDB
    # ask "The target is not responding to interrupt requests. Stop
    # debugging it?" and disconnect.
    timeout --foreground 60 python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' gdb-multiarch -nx -batch -ex "target remote :$port" -ex "continue" \
        -ex "info registers pc" -ex "kill" >"$BATS_TEST_TMPDIR/gdb.out" 2>&1 &
    gdb_pid=$!
    for _ in $(seq 600); do
        [ -e "$BATS_TEST_TMPDIR/port.running" ] && break
        sleep 0.05
    done
    [ -e "$BATS_TEST_TMPDIR/port.running" ]
    sleep 0.2
    kill -INT "$gdb_pid" # timeout passes it on to GDB
    wait "$gdb_pid"
    gdb_pid=
    stop_server
    cat "$BATS_TEST_TMPDIR/gdb.out"
    grep -q 'received signal SIGINT, Interrupt' "$BATS_TEST_TMPDIR/gdb.out"
    grep -q '^pc             0x8000018' "$BATS_TEST_TMPDIR/gdb.out"
    grep -q 'killed' "$BATS_TEST_TMPDIR/gdb.out"
    run cat "$BATS_TEST_TMPDIR/server.out"
    [ "${lines[0]}" = killed ]
}
