#!/usr/bin/env bats
# Who may include whom: every folder of sources is a module that compiles
# with its own folder and the folders its USES_ line in the Makefile names
# (`make -s print-inc FOLDER=...`).  These tests ask the Makefile for each
# folder's flags and compile includes with them, as the build does: every
# include that runs the wrong way fails, for every pair of folders; and the
# pictures in README.md and device/sim/README.md say what the Makefile says
# (layers_check.sh makes the checks that look at every folder); and only
# cmd/ exits or prints (library_quiet.py).

# shellcheck disable=SC2154 # output, status: set by run
load helpers

check() { "$KMRUN_TOP/tests/cli/layers_check.sh" "$KMRUN_TOP" "$@"; }
modules() { check modules; }
flags_of() { make -s --no-print-directory -C "$KMRUN_TOP" print-inc FOLDER="$1"; }
# includes FOLDER HEADER: whether `#include "HEADER"` preprocesses with
# FOLDER's flags (from a file outside every folder, so that the including
# file's own folder does not count).
includes() {
    local flags
    flags=$(flags_of "$1") || return 2
    # shellcheck disable=SC2086 # the flags are words
    (cd "$KMRUN_TOP" && printf '#include "%s"\n' "$2" |
        cc -std=c11 -D_GNU_SOURCE -E $flags -x c - >/dev/null 2>&1)
}

@test "layers: every folder of sources has a USES_ line, and one without cannot build" {
    run check no-uses
    [ "$status" -eq 0 ] && [ -z "$output" ] || { echo "no USES_ line for: $output"; false; }
    [ "$(modules | wc -l)" -ge 10 ]
    run make -s --no-print-directory -C "$KMRUN_TOP" print-inc FOLDER=lib/nowhere
    [ "$status" -ne 0 ]
    [[ "$output" == *"lib/nowhere/ is no module: give it a USES_lib/nowhere line"* ]]
}

@test "layers: for every pair of folders, an include the Makefile does not allow does not build" {
    check pairs
}

@test "layers: no cycles, and a folder sees all that what it uses sees" {
    check closure
}

# (The pairs test shows that a folder can include no more than its flags
# reach; these two pin what the flags may reach across the layers.)
@test "layers: the library reaches the simulator through its API, never a part" {
    local f d
    for f in $(modules | grep -E '^lib(/|$)'); do
        for d in $(flags_of "$f"); do
            [[ "$d" != -Idevice/sim* ]] || [ "$d" = -Idevice/sim/include ] ||
                { echo "$f/ sees $d"; false; }
        done
    done
    includes lib/run sim_card.h 2>/dev/null || includes lib sim_card.h
    includes lib/api sim_exec.h
    ! includes lib/api sim_hart.h
}

@test "layers: the command sees include/ and itself, nothing of the library" {
    [ "$(flags_of cmd)" = "-Icmd -Iinclude" ] || { echo "cmd/ sees: $(flags_of cmd)"; false; }
    local sub
    for sub in inspect verify; do
        [ "$(flags_of cmd/$sub)" = "-Icmd/$sub -Icmd -Iinclude" ] ||
            { echo "cmd/$sub/ sees: $(flags_of cmd/$sub)"; false; }
    done
    includes cmd kmrun.h
    local h
    for h in km_session.h km_build.h km_rundir.h ks_text.h sim_exec.h km_gdb_card.h kmx_layout.h; do
        ! includes cmd "$h" || { echo "cmd/ can include $h"; false; }
    done
}

@test "layers: every quoted include of cmd/ is a public header (include/) or a header of cmd/" {
    run check cmd-includes
    [ "$status" -eq 0 ] && [ -z "$output" ] || { echo "$output"; false; }
    # and the check finds one that is not
    local t=$BATS_TEST_TMPDIR/top
    mkdir -p "$t/cmd" "$t/include"
    cp "$KMRUN_TOP"/cmd/*.[ch] "$t/cmd/"
    cp "$KMRUN_TOP"/include/*.h "$t/include/"
    printf '#include "km_session.h"\n' >>"$t/cmd/run.c"
    run "$KMRUN_TOP/tests/cli/layers_check.sh" "$t" cmd-includes
    [ "$status" -ne 0 ]
    [[ "$output" == *'cmd/run.c:'*': includes "km_session.h", which is not a header of include/ or cmd/'* ]]
}

@test "layers: the simulator and support/ cannot include the library or the command" {
    local f d
    for f in $(modules | grep -E '^(device/sim|support)(/|$)'); do
        for d in $(flags_of "$f"); do
            [[ "$d" != -Ilib* && "$d" != -Icmd* && "$d" != -Ikmx/host ]] || { echo "$f/ sees $d"; false; }
        done
    done
    ! includes device/sim/card km_session.h
    ! includes support sim_card.h
}

@test "layers: device/sim/README.md's Layout is the Makefile's" {
    check picture device/sim/README.md device/sim
}

@test "layers: README.md's Layout is the Makefile's, for lib/" {
    check picture README.md lib
}

@test "layers: no folder directly holds more than 24 C files and headers, no source is over 1,000 lines" {
    local d n bad=0
    for d in $(cd "$KMRUN_TOP" && find support device lib cmd kmx tests/unit -type d); do
        n=$(find "$KMRUN_TOP/$d" -maxdepth 1 -name '*.[ch]' | wc -l)
        [ "$n" -le 24 ] || { echo "$d/ holds $n C files and headers"; bad=1; }
    done
    while read -r n f; do
        [ "$f" = total ] || [ "$n" -le 1000 ] || { echo "$f: $n lines"; bad=1; }
    done < <(cd "$KMRUN_TOP" && find support device lib cmd kmx include tests/unit tests/fuzz tests/gdb \
        -name '*.[chS]' -print0 | xargs -0 wc -l)
    [ "$bad" -eq 0 ]
}

@test "layers: no source steps around its include folders with a relative path" {
    run grep -rnE '#[[:space:]]*include[[:space:]]*"[^"]*\.\./' \
        "$KMRUN_TOP/cmd" "$KMRUN_TOP/lib" "$KMRUN_TOP/device" "$KMRUN_TOP/support" "$KMRUN_TOP/kmx"
    [ "$status" -eq 1 ] || { echo "$output"; false; }
}

@test "layers: the library never exits or prints: no abort, exit, assert, printf or stderr below cmd/" {
    run python3 "$KMRUN_TOP/tests/cli/library_quiet.py" "$KMRUN_TOP"
    [ "$status" -eq 0 ] && [ -z "$output" ] || { echo "$output"; false; }
    # and the check finds them: in code, not in a comment or a string
    local t=$BATS_TEST_TMPDIR/top
    mkdir -p "$t/lib/x" "$t/device" "$t/support"
    printf '%s\n' '/* abort() here is a comment */' 'static const char *s = "exit(1)";' \
        'void f(void) { if (!s) abort (); }' 'void g(void) { fprintf(stderr, "x"); }' \
        '#include <assert.h>' >"$t/lib/x/x.c"
    printf 'void t(void) { exit(1); }\n' >"$t/lib/x/x_test.c"
    run python3 "$KMRUN_TOP/tests/cli/library_quiet.py" "$t"
    [ "$status" -eq 1 ]
    [ "$output" = "$(printf '%s\n' 'lib/x/x.c:3: abort' 'lib/x/x.c:4: stderr' 'lib/x/x.c:5: <assert.h>')" ]
}
