#!/usr/bin/env bats
# Resource limits tell the right story (issue 26, item 5): a host that runs
# out of threads, memory or disk is the host's failure — exit 4 and a
# message that names the resource — never a failed thread (exit 1) or a
# build error (exit 3).

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    hello=$KMRUN_TOP/programs/01_hello/program.yaml
}

# The LD_PRELOAD list with the library of tests/fixtures/limits, built
# once; a sanitizer build's runtime must come first in it (ASan refuses to
# start otherwise), and its pthread_create then calls the fixture's.
fail_threads() {
    local so=$BATS_FILE_TMPDIR/fail_threads.so
    [ -f "$so" ] || ${KMRUN_HOST_CC:-cc} -shared -fPIC -o "$so" \
        "$KMRUN_TOP/tests/fixtures/limits/fail_threads.c" -ldl
    local asan
    asan=$(ldd "$(command -v kmrun)" | awk '/libasan/ { print $3 }')
    echo "${asan:+$asan }$so"
}

@test "the host fallback that cannot start its cores' threads names the limit, exit 4" {
    so=$(fail_threads)
    # Run first without the limit: built and cached, so that only the
    # run's threads meet it.
    run_json --thread host "$hello"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # Core 0's thread starts (kmrun's), cores 1-3's (the runtime's) do not.
    run --separate-stderr env KMRUN_TEST_THREADS=1 LD_PRELOAD="$so" \
        kmrun run --run-dir "$runs" --thread host "$hello"
    [ "$status" -eq 4 ] || { echo "status $status: $stderr"; false; }
    [ -z "$output" ]
    [[ "$stderr" == "kmrun: cannot start the host fallback's threads for cluster 1: Resource temporarily unavailable (a process or memory limit: ulimit -u / -v)" ]] ||
        { echo "$stderr"; false; }
}

@test "the host fallback that cannot start core 0's thread names the limit, exit 4" {
    so=$(fail_threads)
    run_json --thread host "$hello"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    run --separate-stderr env KMRUN_TEST_THREADS=0 LD_PRELOAD="$so" \
        kmrun run --run-dir "$runs" --thread host "$hello"
    [ "$status" -eq 4 ] || { echo "status $status: $stderr"; false; }
    [[ "$stderr" == "kmrun: cannot start the host fallback's threads for cluster 1: Resource temporarily unavailable (a process or memory limit: ulimit -u / -v)" ]] ||
        { echo "$stderr"; false; }
}

@test "under any ulimit -v the host fallback runs or names the limit, never a bare failed thread" {
    (ulimit -v 1048576 && kmrun --version) >/dev/null 2>&1 ||
        skip "kmrun does not start under a 1 GiB ulimit -v (a sanitizer's build)"
    run_json --thread host "$hello"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # From the smallest limit kmrun starts under (its libraries load).
    local low=4096 kib
    until (ulimit -v "$low" && kmrun --version) >/dev/null 2>&1; do
        low=$((low + 4096))
    done
    for kib in $(seq "$low" 4096 131072); do
        run --separate-stderr bash -c 'ulimit -v "$1" && exec kmrun run --run-dir "$2" --thread host "$3"' \
            _ "$kib" "$runs" "$hello"
        case $status in
        0) break ;;
        4) [[ "$stderr" == *"ulimit -"* || "$stderr" == *"out of memory"* ]] ||
               { echo "ulimit -v $kib: exit 4, but no limit named: $stderr"; false; } ;;
        *) echo "ulimit -v $kib: exit $status: $stderr"; false ;;
        esac
    done
    [ "$status" -eq 0 ] || { echo "no run ran under ulimit -v 128 MiB: $stderr"; false; }
}

# build_under LIMIT_COMMAND: kmrun build of 01_hello in a fresh cache, after
# LIMIT_COMMAND (a ulimit) in the same shell.
build_under() {
    rm -rf "$BATS_TEST_TMPDIR/cache"
    run --separate-stderr bash -c "$1"' && exec kmrun build "$1"' _ "$hello"
}

@test "a build under a file size limit names the limit, exit 4, not a build error" {
    # What a compiler, assembler or linker killed by SIGXFSZ (or told
    # EFBIG) says; every step of the build meets it at some size.
    export KMRUN_CACHE=$BATS_TEST_TMPDIR/cache
    local kib limited=0
    for kib in 4 8 16 32 64 128 256 1024 4096; do
        build_under "ulimit -f $kib"
        case $status in
        0) ;;
        4) [[ "$stderr" == *": file too large "*"(a file size limit: ulimit -f)"* ]] ||
               { echo "ulimit -f $kib: $stderr"; false; }
           limited=$((limited + 1)) ;;
        *) echo "ulimit -f $kib: exit $status: $stderr"; false ;;
        esac
    done
    [ "$limited" -gt 0 ] || { echo "no limit stopped the build"; false; }
    [ "$status" -eq 0 ] # and the largest let it through
}

@test "a build on a full disk says no space left on device and the file, exit 4, not a build error" {
    [ "$(id -u)" -eq 0 ] || skip "needs root to mount a 2 MiB tmpfs (the unit test build_log_test covers the log)"
    local disk=$BATS_TEST_TMPDIR/disk
    mkdir -p "$disk"
    mount -t tmpfs -o size=2M tmpfs "$disk" 2>/dev/null ||
        skip "cannot mount a tmpfs here (no CAP_SYS_ADMIN; build_log_test covers the log)"
    export KMRUN_CACHE=$disk/cache
    local kib full=0 status_all=0
    # The free space left: each step of the build meets the full disk.
    for kib in 16 40 100 200; do
        rm -rf "${disk:?}"/*
        local avail
        avail=$(df -k --output=avail "$disk" | tail -1)
        dd if=/dev/zero of="$disk/filler" bs=1K count=$((avail - kib)) 2>/dev/null || true
        run --separate-stderr kmrun build "$hello"
        case $status in
        0) ;;
        4) if [[ "$stderr" != *"no space left on device "*"/cache/work/"* &&
                 "$stderr" != *"No space left on device"* ]]; then
               echo "$kib KiB free: $stderr"; status_all=1
           fi
           full=$((full + 1)) ;;
        *) echo "$kib KiB free: exit $status: $stderr"; status_all=1 ;;
        esac
    done
    umount "$disk"
    [ "$status_all" -eq 0 ]
    [ "$full" -gt 0 ]
}
