# bench/lib.sh: what bench/iss and bench/speed share, sourced (not run):
# the build's kmrun, the bare-metal C programs of bench/iss_src built for
# the hart, QEMU found and its arguments, a clock, a run JSON's fields and
# CPU-time measurement.  Defines functions and variables only; prints
# nothing unless a function is asked to fail.
# shellcheck shell=bash disable=SC2034 # the variables are the caller's

# bench_init NAME [BUILD_DIR]: sets top (the checkout), build, kmrun, src
# (bench/iss_src) and rvcc; exits 2 when the build has no kmrun.
bench_init() {
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    build=${2:-build}
    case $build in /*) ;; *) build=$top/$build ;; esac
    kmrun=$build/bin/kmrun
    src=$top/bench/iss_src
    rvcc=${RV_PREFIX:-riscv64-unknown-elf-}gcc
    [ -x "$kmrun" ] || { echo "$1: no $kmrun: build first (make)" >&2; exit 2; }
}

# bench_rv_c OUT.elf SOURCE.c [MARCH]: a C program of bench/iss_src for a
# bare-metal hart (crt.S, tests/isa/link.ld).  -mcmodel=medany: the code
# is at 0x80000000, out of reach of medlow's absolute addresses.
# -ffreestanding: Debian's cross compiler has no C library (bench.h needs
# only <stdint.h>).  -fno-math-errno: sqrt is the instruction, not a call.
# -ffp-contract=off on both sides: no multiply-add fused unless written
# (__builtin_fma), so the hart's doubles are bit for bit the host's.
bench_rv_c() {
    "$rvcc" -O2 -march="${3:-rv64gc_zba_zbb}" -mabi=lp64d -mcmodel=medany -ffreestanding \
        -fno-math-errno -ffp-contract=off -nostdlib -nostartfiles -static \
        -T "$top/tests/isa/link.ld" -Wl,--no-warn-rwx-segments \
        -o "$1" "$src/crt.S" "$2" -lgcc
}

# bench_native_c OUT SOURCE.c: the same program built for this machine
# (-DNATIVE: it times its work and prints "NANOSECONDS CHECKSUM").
bench_native_c() {
    "${CC:-cc}" -O2 -DNATIVE -fno-math-errno -ffp-contract=off -o "$1" "$2" -lm
}

# bench_find_qemu: sets qemu_bin (empty when QEMU is not installed;
# QEMU=... picks another, QEMU=none: as if it were not installed) and
# qemu_args, QEMU's spike machine with no firmware: the program ends
# through HTIF tohost, its exit code QEMU's exit status.
bench_find_qemu() {
    qemu_bin=$(command -v "${QEMU:-qemu-system-riscv64}" || true)
    qemu_args=(-machine spike -bios none -nographic)
}

now() { date +%s%N; }

# json_field NAME: the first "NAME": value on standard input, a number or
# a lowercase word.
json_field() { sed -n "s/.*\"$1\": \"\\{0,1\\}\\([0-9a-z]*\\).*/\\1/p"; }

# bench_cpu OUT ERR COMMAND...: runs COMMAND with its output in OUT and
# its standard error in ERR; sets cpu_ms to the CPU time (user + sys, in
# ms, of the command and anything it waited for: bash's own `time`) and
# status to its exit status.
bench_cpu() {
    local out=$1 err=$2 tf
    shift 2
    tf=$(mktemp "${TMPDIR:-/tmp}/kmrun-bench-time.XXXXXX")
    local TIMEFORMAT='%3U %3S'
    status=0
    { time "$@" >"$out" 2>"$err" </dev/null; } 2>"$tf" || status=$?
    cpu_ms=$(awk '{ printf "%d", ($1 + $2) * 1000 + 0.5 }' "$tf")
    rm -f "$tf"
}
