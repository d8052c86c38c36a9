# tests/cli/gdb_helpers.bash: what the GDB tests share (`load gdb_helpers`
# after `load helpers`): starting kmrun run --gdb and kmrun exec --gdb and
# a batch gdb-multiarch on them, and speaking the remote protocol by hand
# where a real GDB's own handling would race (its SIGINT), as
# tests/cli/gdb.bats tests that side.

# The kmrun a test started in the background, killed if the test fails.
kmrun_pid=
teardown() {
    if [ -n "$kmrun_pid" ]; then kill "$kmrun_pid" 2>/dev/null || true; fi
}

need_gdb() {
    command -v gdb-multiarch >/dev/null || { echo "no gdb-multiarch (Debian's package): ./setup installs it"; false; }
}

# interrupt_and_kill PID PORT: connects to kmrun's server on PORT, has it
# continue, waits until kmrun PID burns CPU (it runs only once told to),
# then sends Ctrl-C (the 0x03 byte) and k; sets reply to all it answered.
interrupt_and_kill() {
    local pid=$1 port=$2 sock ticks=0
    exec {sock}<>"/dev/tcp/127.0.0.1/$port"
    printf '$QStartNoAckMode#b0' >&"$sock"
    printf '$vCont;c#a8' >&"$sock"
    for _ in $(seq 600); do
        ticks=$(awk '{ print $14 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
        [ "$ticks" -ge 30 ] && break
        sleep 0.05
    done
    [ "$ticks" -ge 30 ] || { echo "kmrun $pid never ran"; return 1; }
    printf '\003' >&"$sock"
    printf '$k#6b' >&"$sock"
    reply=$(timeout 20 cat <&"$sock")
    exec {sock}<&-
    echo "$reply"
}

# send_packets PORT PACKET...: connects to kmrun's server on PORT, sends
# each packet (framed, in no-ack mode), then closes the connection once
# the server has (after D) or after 2 s of its replies, which it sets in
# reply.  A last packet "close" sends nothing: the client just goes away.
send_packets() {
    local port=$1 sock p sum i c
    shift
    exec {sock}<>"/dev/tcp/127.0.0.1/$port"
    printf '$QStartNoAckMode#b0' >&"$sock"
    for p in "$@"; do
        [ "$p" = close ] && break
        sum=0
        for ((i = 0; i < ${#p}; i++)); do
            printf -v c '%d' "'${p:i:1}"
            sum=$(((sum + c) % 256))
        done
        printf '$%s#%02x' "$p" "$sum" >&"$sock"
    done
    reply=$(timeout 2 cat <&"$sock" || true)
    exec {sock}<&-
}

# ---- kmrun run --gdb (in the test's folder: run.out, run.err) ----

# start_run ARGS...: kmrun run --gdb 0 ARGS in the background; sets port,
# image and src from the line it prints.  With run_limit set, kmrun is
# killed after that many seconds (a run that would hang fails instead).
start_run() {
    ${run_limit:+timeout "$run_limit"} kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" --gdb 0 "$@" \
        >run.out 2>run.err &
    kmrun_pid=$!
    port=
    for _ in $(seq 600); do
        line=$(grep "^kmrun: waiting for GDB on port" run.err || true)
        [ -n "$line" ] && break
        sleep 0.05
    done
    [ -n "$line" ] || { cat run.err; false; }
    port=$(printf '%s\n' "$line" | sed -n 's/^kmrun: waiting for GDB on port \([0-9]*\): gdb-multiarch .*/\1/p')
    image=$(printf '%s\n' "$line" | sed -n "s/.* -ex 'file \([^']*\)'.*/\1/p")
    src=$(printf '%s\n' "$line" | sed -n "s/.* -ex 'directory \([^']*\)'.*/\1/p")
    runtime=$(printf '%s\n' "$line" | sed -n "s/.* -ex 'set substitute-path \([^']*\)'.*/\1/p")
    [ -n "$port" ] && [ -f "$image" ] && [ -d "$src" ]
}

wait_run() {
    run_status=0
    wait "$kmrun_pid" || run_status=$?
    kmrun_pid=
}

# same_as_plain STATUS ARGS...: kmrun run ARGS without the debugger exits
# STATUS and prints the JSON the debugged run printed (less its id,
# folder, wall time and images).
same_as_plain() {
    local want=$1
    shift
    "$KMRUN_TOP/tests/golden/normalize" <run.out >debugged.json
    run kmrun run --run-dir "$BATS_TEST_TMPDIR/runs" "$@"
    [ "$status" -eq "$want" ]
    printf '%s\n' "$output" | "$KMRUN_TOP/tests/golden/normalize" >plain.json
    diff debugged.json plain.json
}

# gdb_batch COMMANDS...: gdb-multiarch on the run's image, connected.
gdb_batch() {
    local args=()
    for c in "$@"; do args+=(-ex "$c"); done
    run timeout 120 gdb-multiarch -q -batch -nx -ex "file $image" -ex "directory $src" \
        -ex "set substitute-path $runtime" -ex "target remote :$port" "${args[@]}"
    echo "$output"
}

# ---- kmrun exec --gdb ----

# start_exec ARGS...: kmrun exec --json --gdb 0 ARGS in the background;
# sets port from the line it prints.
start_exec() {
    kmrun exec --json --gdb 0 "$@" >"$BATS_TEST_TMPDIR/exec.out" 2>"$BATS_TEST_TMPDIR/exec.err" &
    kmrun_pid=$!
    port=
    for _ in $(seq 100); do
        # (the background kmrun may not have opened exec.err yet)
        port=$(sed -n "s/^kmrun: waiting for GDB on port \([0-9]*\): gdb-multiarch -q -ex 'file .*' -ex 'target remote :[0-9]*'$/\1/p" "$BATS_TEST_TMPDIR/exec.err" 2>/dev/null || true)
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || { cat "$BATS_TEST_TMPDIR/exec.err"; false; }
}

# wait_exec: kmrun's end; its status in exec_status.
wait_exec() {
    exec_status=0
    wait "$kmrun_pid" || exec_status=$?
    kmrun_pid=
}
