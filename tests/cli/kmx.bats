#!/usr/bin/env bats
# The kmx runtime as installed under $KMRUN_BUILD/share/kmrun/kmx: the
# spec's examples compile against kmx.h, a thread links with kmx.ld and
# libkmx.a into an image at the start of local memory, and the library
# needs no libc.

load helpers

RV=riscv64-unknown-elf
RVFLAGS=(-march=rv64gc_zba_zbb -mabi=lp64d -mcmodel=medany)

setup() {
    kmx=$KMRUN_BUILD/share/kmrun/kmx
    # kmx_layout.h builds on the card's facts (blackhole.h).
    facts=$KMRUN_BUILD/share/kmrun/device/include
    fixtures=$KMRUN_TOP/tests/fixtures/kmx
    tmp=$BATS_TEST_TMPDIR
}

# compile NAME: fixtures/kmx/NAME.c -> $tmp/NAME.o, warnings are errors.
compile() {
    "$RV-gcc" "${RVFLAGS[@]}" -std=c11 -O2 -g -ffreestanding -fno-common -Wall -Werror \
        -I"$kmx/include" -I"$facts" -c "$fixtures/$1.c" -o "$tmp/$1.o"
}

# link OUT OBJS...: the link line of kmx.3.
link() {
    local out=$1
    shift
    "$RV-gcc" "${RVFLAGS[@]}" -nostdlib -nostartfiles -T "$kmx/kmx.ld" "$@" \
        "$kmx/lib/libkmx.a" -lgcc -o "$out"
}

thread() {
    compile writing_one && compile ring && compile twelve &&
        link "$tmp/thread.elf" "$tmp/writing_one.o" "$tmp/ring.o" "$tmp/twelve.o"
}

@test "kmx: the runtime is installed: library, linker script, headers" {
    [ -f "$kmx/lib/libkmx.a" ]
    [ -f "$kmx/kmx.ld" ]
    [ -f "$kmx/include/kmx.h" ]
    [ -f "$kmx/include/kmx_layout.h" ]
}

@test "kmx: the spec's examples compile as written" {
    run compile writing_one
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run compile ring
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run compile twelve
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "kmx: a thread links: entry 0x8000000 is _start, kmx_main is there" {
    run thread
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -z "$output" ] # no warning either
    run "$RV-readelf" -h "$tmp/thread.elf"
    [[ "$output" == *"Entry point address:"*" 0x8000000"* ]] || { echo "$output"; false; }
    run "$RV-nm" "$tmp/thread.elf"
    grep -Eq '^0*8000000 T _start$' <<<"$output" || { echo "$output"; false; }
    grep -Eq ' T kmx_main$' <<<"$output"
}

@test "kmx: a thread has no .bss, no .sbss and no undefined symbol" {
    thread
    run "$RV-readelf" -SW "$tmp/thread.elf"
    [ "$status" -eq 0 ]
    ! grep -Eq ' \.s?bss ' <<<"$output" || { echo "$output"; false; }
    run "$RV-nm" -u "$tmp/thread.elf"
    [ "$status" -eq 0 ]
    [ -z "$output" ] || { echo "undefined: $output"; false; }
}

@test "kmx: every PT_LOAD of a thread lies in the first 126,976 bytes of LIM" {
    thread
    run "$RV-readelf" -lW "$tmp/thread.elf"
    [ "$status" -eq 0 ]
    local loads=0 vaddr memsz
    while read -r _ _ vaddr _ _ memsz _; do
        loads=$((loads + 1))
        [ $((vaddr)) -ge $((0x8000000)) ] || { echo "PT_LOAD at $vaddr"; false; }
        [ $((vaddr + memsz)) -le $((0x8000000 + 126976)) ] || { echo "PT_LOAD $vaddr+$memsz"; false; }
    done < <(grep -E '^ +LOAD ' <<<"$output")
    [ "$loads" -ge 1 ]
}

@test "kmx: libkmx.a calls no memset, memcpy or anything else outside itself" {
    run "$RV-nm" "$kmx/lib/libkmx.a"
    [ "$status" -eq 0 ]
    ! grep -Eq ' U (memset|memcpy|memmove|memcmp|strlen|malloc|printf)$' <<<"$output" || {
        echo "$output"
        false
    }
    # Every undefined symbol is defined in the library, but the thread's
    # kmx_main and the linker script's __global_pointer$.
    local undefined defined
    undefined=$(awk '$1 == "U" { print $2 }' <<<"$output" | sort -u)
    defined=$(awk 'NF == 3 && $2 ~ /^[TDRBS]$/ { print $3 }' <<<"$output" | sort -u)
    run comm -23 <(printf '%s\n' "$undefined") <(printf '%s\n' "$defined")
    [ "$output" = "$(printf '%s\n' __global_pointer\$ kmx_main | sort)" ] || {
        echo "undefined outside libkmx.a: $output"
        false
    }
}

@test "kmx: a zero-initialised global is kept in .sbss/.bss, named, for the image check" {
    compile bss_global
    run link "$tmp/bss.elf" "$tmp/bss_global.o"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run "$RV-readelf" -SW "$tmp/bss.elf"
    grep -Eq ' \.s?bss ' <<<"$output" || { echo "$output"; false; }
    run "$RV-nm" "$tmp/bss.elf"
    grep -Eq ' [Bb] kmx_fixture_counter$' <<<"$output" || { echo "$output"; false; }
}

@test "kmx: an image over 126,976 bytes does not link" {
    compile too_big
    run link "$tmp/big.elf" "$tmp/too_big.o"
    [ "$status" -ne 0 ]
    [[ "$output" == *"IMAGE' overflowed"* ]] || { echo "$output"; false; }
}

@test "kmx: the headers mean the same on the host" {
    run cc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$kmx/include" \
        -I"$facts" -x c - <<<'#include "kmx.h"'
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run "$RV-gcc" "${RVFLAGS[@]}" -std=c11 -Wall -Wextra -Werror -pedantic -ffreestanding \
        -fsyntax-only -I"$kmx/include" -I"$facts" -x c - <<<'#include "kmx.h"'
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    if command -v c++ >/dev/null; then # Tensix handlers may be C++
        run c++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$kmx/include" \
            -I"$facts" -x c++ - <<<'#include "kmx.h"'
        [ "$status" -eq 0 ] || { echo "$output"; false; }
    fi
}
