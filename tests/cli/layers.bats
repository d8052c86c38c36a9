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

# readme_lib_rows: README.md's table of lib/'s folders as "folder: a b c"
# (folders without backticks or the trailing slash; "—" is none).
readme_lib_rows() {
    grep -E '^\| `lib/[a-z_/]+/?` \|' "$KMRUN_TOP/README.md" |
        awk -F'|' '{ f = $2; u = $(NF - 1); gsub(/[` ]/, "", f); sub(/\/$/, "", f)
                     gsub(/[`,]/, " ", u); gsub(/—/, "", u); gsub(/\/( |$)/, " ", u)
                     n = split(u, a, " "); s = ""; for (i = 1; i <= n; i++) s = s " " a[i]
                     print f ":" s }'
}

@test "layers: README's table of lib/'s folders is the Makefile's USES_lib/ lines" {
    local api folders rows f want got
    api=$(make -s -C "$KMRUN_TOP" print-LIB_API)
    folders=$(make -s -C "$KMRUN_TOP" print-LIB_FOLDERS)
    rows=$(readme_lib_rows)
    [ -n "$rows" ] || { echo "README.md has no table of lib/'s folders"; false; }
    # Every row a folder that holds sources, every such folder a row.
    [ "$(cut -d: -f1 <<<"$rows" | sort | tr '\n' ' ')" = "$(tr ' ' '\n' <<<"$folders" | sort | tr '\n' ' ')" ] ||
        { echo "README rows: $(cut -d: -f1 <<<"$rows" | tr '\n' ' ')"; echo "folders: $folders"; false; }
    for f in $folders; do
        want=$(grep "^$f:" <<<"$rows" | cut -d: -f2 | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
        got=$(make -s -C "$KMRUN_TOP" "print-inc-$f" | tr ' ' '\n' | sed 's/^-I//' |
            grep -vxF -e "$f" $(printf -- '-e %s ' $api) | sort | tr '\n' ' ')
        [ "$want" = "$got" ] || { echo "$f: README says '$want', the Makefile '$got'"; false; }
    done
}

@test "layers: lib/'s folders use one another without a cycle" {
    local folders f
    folders=$(make -s -C "$KMRUN_TOP" print-LIB_FOLDERS)
    # The modules in an order where each uses only earlier ones: no cycles.
    local seen=" " left="$folders" progress
    while [ -n "${left// /}" ]; do
        progress=
        for f in $left; do
            local deps ok=1 d
            deps=$(make -s -C "$KMRUN_TOP" "print-inc-$f" | tr ' ' '\n' | sed 's/^-I//' | grep '^lib/' | grep -vxF "$f" || true)
            for d in $deps; do [[ "$seen" == *" $d "* ]] || ok=; done
            if [ -n "$ok" ]; then seen="$seen$f "; left=$(tr ' ' '\n' <<<"$left" | grep -vxF "$f" | tr '\n' ' '); progress=1; fi
        done
        [ -n "$progress" ] || { echo "a cycle among: $left"; false; }
    done
}

@test "layers: no lib/ folder holds more than 24 sources directly, no source passes 1,000 lines" {
    local d n
    for d in $(find "$KMRUN_TOP/lib" -type d); do
        n=$(find "$d" -maxdepth 1 -name '*.[ch]' | wc -l)
        [ "$n" -le 24 ] || { echo "${d#"$KMRUN_TOP"/}: $n files"; false; }
    done
    run sh -c "find '$KMRUN_TOP/lib' -name '*.[ch]' -exec wc -l {} + | awk '\$2 != \"total\" && \$1 > 1000'"
    [ -z "$output" ] || { echo "$output"; false; }
}
