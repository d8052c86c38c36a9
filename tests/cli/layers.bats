#!/usr/bin/env bats
# Who may include whom (../shared/DESIGN.md): each layer compiles with only
# the include folders it may see (the Makefile's *_INC), so a wrong-way
# include does not build.  These tests compile one line with a layer's
# folders, as the build does, and look for the ways around them.

# shellcheck disable=SC2154 # output, status: set by run
load helpers

# compiles_in LAYER HEADER: whether `#include "HEADER"` builds with LAYER's
# include folders (SUPPORT_INC, SIM_INC, LIB_INC, CMD_INC).
compiles_in() {
    local inc
    inc=$(make -s -C "$KMRUN_TOP" "print-$1") || return 2
    (cd "$KMRUN_TOP" && printf '#include "%s"\n' "$2" |
        cc -std=c11 -D_GNU_SOURCE -fsyntax-only $inc -x c - 2>/dev/null)
}

@test "layers: lib/ and cmd/ reach the card through its API, never a part" {
    compiles_in LIB_INC sim_card.h
    compiles_in LIB_INC sim_exec.h
    compiles_in CMD_INC sim_card.h
    for part in sim_cluster.h sim_grid.h sim_dispatcher.h sim_dram.h sim_noc.h sim_hart.h sim_kernel.h; do
        run compiles_in LIB_INC "$part"
        [ "$status" -ne 0 ] || { echo "lib/ can include $part"; false; }
        run compiles_in CMD_INC "$part"
        [ "$status" -ne 0 ] || { echo "cmd/ can include $part"; false; }
    done
}

@test "layers: the simulator and support/ cannot include the host library or the command" {
    compiles_in SIM_INC sim_cluster.h
    compiles_in SIM_INC ks_elf.h
    for h in km_error.h km_session.h km_program.h cmd.h; do
        run compiles_in SIM_INC "$h"
        [ "$status" -ne 0 ] || { echo "device/sim/ can include $h"; false; }
        run compiles_in SUPPORT_INC "$h"
        [ "$status" -ne 0 ] || { echo "support/ can include $h"; false; }
    done
    run compiles_in SUPPORT_INC sim_card.h
    [ "$status" -ne 0 ]
}

@test "layers: no source steps around its include folders with a relative path" {
    run grep -rnE '#[[:space:]]*include[[:space:]]*"[^"]*\.\./' \
        "$KMRUN_TOP/cmd" "$KMRUN_TOP/lib" "$KMRUN_TOP/device" "$KMRUN_TOP/support" "$KMRUN_TOP/kmx"
    [ "$status" -eq 1 ] || { echo "$output"; false; }
}
