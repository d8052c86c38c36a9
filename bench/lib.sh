# bench/lib.sh: what the bench scripts share, sourced (not run): every
# script's -h/--help and usage errors, from its header comment; and what
# bench/iss and bench/speed share: the build's kmrun, the bare-metal C
# programs of bench/iss_src built for the hart, QEMU found and its
# arguments, a clock, a run JSON's fields and CPU-time measurement.
# Defines functions and variables only; prints nothing unless a function
# is asked to print or to fail.
# shellcheck shell=bash disable=SC2034 # the variables are the caller's

# A bench script's header comment, the lines after its #! line up to the
# first that is not a comment, says what it measures; it ends with its
# synopsis, from the last line that starts "#   bench/" on
# ("#   bench/NAME [BUILD_DIR]   (defaults; environment)", continued on
# lines of their own).

# bench_header SCRIPT about|usage: SCRIPT's header comment before its
# synopsis, without the "# " (about), or "usage: " and the synopsis (usage).
bench_header() {
    awk -v part="$2" 'NR == 1 && /^#!/ { next }
        !/^#/ { exit }
        { sub(/^# ?/, ""); line[++n] = $0; if ($0 ~ /^  +bench\//) syn = n }
        END {
            if (!syn) syn = n + 1
            if (part == "about") { for (i = 1; i < syn; i++) print line[i]; exit }
            for (i = syn; i <= n; i++) { if (i == syn) sub(/^ +/, "usage: ", line[i]); print line[i] }
        }' "$1"
}

# bench_about SCRIPT: what SCRIPT measures, its header comment.
bench_about() { bench_header "$1" about; }

# bench_usage SCRIPT: "usage: " and SCRIPT's synopsis.
bench_usage() { bench_header "$1" usage; }

# bench_help SCRIPT: SCRIPT's usage line and what it measures.
bench_help() { bench_usage "$1"; bench_about "$1"; }

# bench_unknown SCRIPT OPTION: the usage error for OPTION (on standard
# error, with the usage line); exits 2.
bench_unknown() {
    echo "bench/${1##*/}: unknown option '$2'" >&2
    bench_usage "$1" >&2
    exit 2
}

# bench_options SCRIPT ARG...: the options of a script that has none of
# its own: -h or --help among ARGs prints its help and exits 0, before
# any work; any other ARG that starts with - is an unknown option.
bench_options() {
    local script=$1 a
    shift
    for a in "$@"; do
        case $a in
        -h | --help) bench_help "$script"; exit 0 ;;
        -*) bench_unknown "$script" "$a" ;;
        esac
    done
}

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
