# tests/cli/gdb_helpers.bash: what the GDB tests share (`load gdb_helpers`
# after `load helpers`): speaking the remote protocol by hand where a real
# GDB's own handling would race (its SIGINT), as tests/cli/gdb.bats tests
# that side.

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
