#!/usr/bin/env bats
# The build cache's promise (issue 10): an image served for a key is the one
# a cold build of that content makes — whatever the files' times, symlinks,
# shadowing headers, environment, corrupt or unremovable entries, truncated
# outputs, or a `kmrun cache clear` racing the build.

load build_helpers

image_sha() {
    json 'd["threads"][0]["image"]["sha256"]'
}

# cold: the thread image's SHA-256 that a build with an empty cache makes
# of the program as it is now (the truth a cached image must equal).
cold() {
    KMRUN_CACHE=$BATS_TEST_TMPDIR/cold.$RANDOM$RANDOM kmrun build "$prog/program.yaml" |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["threads"][0]["image"]["sha256"])'
}

@test "a header edited with an older mtime than the last build is rebuilt, not served stale" {
    build
    [ "$status" -eq 0 ]
    cp -p "$prog/thread/common.h" "$BATS_TEST_TMPDIR/common.h.orig"
    echo '#define SCALE 4' >"$prog/thread/common.h"
    touch -d '2001-01-01' "$prog/thread/common.h"
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(image_sha)" = "$(cold)" ]
    # And every later build of that content gets the right image.
    build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    [ "$(image_sha)" = "$(cold)" ]
}

@test "a source edited with an older mtime than the last build is rebuilt, not served stale" {
    build
    [ "$status" -eq 0 ]
    sed -i 's/return SCALE + HANDLER_SCALE;/return SCALE + HANDLER_SCALE + 1;/' "$prog/thread/main.c"
    touch -d '2001-01-01' "$prog/thread/main.c"
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(image_sha)" = "$(cold)" ]
}

@test "a retargeted symlinked include folder misses" {
    mkdir "$prog/inc1" "$prog/inc2"
    echo '#define SCALE 1' >"$prog/inc1/common.h"
    echo '#define SCALE 2' >"$prog/inc2/common.h"
    rm "$prog/thread/common.h"
    ln -s inc1 "$prog/inc"
    sed -i 's/    words: \[3\]/    words: [3]\n    cflags: [-Iinc]/' "$prog/program.yaml"
    build
    [ "$status" -eq 0 ]
    first=$(image_sha)
    ln -sfn inc2 "$prog/inc"
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(image_sha)" != "$first" ]
    [ "$(image_sha)" = "$(cold)" ]
}

@test "libkmx.a and the images it links name no checkout path" {
    lib=$KMRUN_BUILD/share/kmrun/kmx/lib/libkmx.a
    [ -f "$lib" ]
    ! grep -qF "$KMRUN_TOP" "$lib"
    build
    [ "$status" -eq 0 ]
    ! grep -qF "$KMRUN_TOP" "$(json 'd["threads"][0]["image"]["path"]')"
}

@test "a truncated output that Ninja thinks up to date is rebuilt, not a failure forever" {
    build
    [ "$status" -eq 0 ]
    # A full disk: the link's output cut short, and no entry stored.
    kmrun cache gc --max-size 0
    so=$(echo "$KMRUN_CACHE"/work/*/kernels/kernels.so)
    [ -f "$so" ]
    truncate -s 100 "$so"
    touch "$so"
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["kernels"]["cache"]')" = miss ]
}

@test "gc removes what a killed build left: tmp/ and *.tmp.* files" {
    build
    [ "$status" -eq 0 ]
    mkdir -p "$KMRUN_CACHE/tmp/entry.AbCdEf" "$KMRUN_CACHE/direct/00"
    echo x >"$KMRUN_CACHE/tmp/entry.AbCdEf/image.elf"
    echo x >"$KMRUN_CACHE/direct/00/$(printf '%062d' 0).tmp.AbCdEf"
    work=$(echo "$KMRUN_CACHE"/work/*)
    echo x >"$work/build.ninja.tmp.AbCdEf"
    run kmrun cache gc --max-size 1GiB
    [ "$status" -eq 0 ]
    [ -z "$(ls -A "$KMRUN_CACHE/tmp")" ]
    [ -z "$(find "$KMRUN_CACHE" -name '*.tmp.*')" ]
    [ -f "$work/build.ninja" ]
    build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
}

# slow_cc: a thread compiler that says when it compiles, then takes its time.
slow_cc() {
    cat >"$BATS_TEST_TMPDIR/slowcc" <<SH
#!/bin/sh
case " \$* " in *" -c "*) touch "$BATS_TEST_TMPDIR/compiling"; sleep 2 ;; esac
exec riscv64-unknown-elf-gcc "\$@"
SH
    chmod +x "$BATS_TEST_TMPDIR/slowcc"
}

@test "cache clear and gc racing a build never break it" {
    slow_cc
    for action in "clear" "gc --max-size 0"; do
        rm -f "$BATS_TEST_TMPDIR/compiling"
        KMRUN_CC=$BATS_TEST_TMPDIR/slowcc kmrun build "$prog/program.yaml" \
            >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
        pid=$!
        for _ in $(seq 100); do
            [ -e "$BATS_TEST_TMPDIR/compiling" ] && break
            sleep 0.1
        done
        [ -e "$BATS_TEST_TMPDIR/compiling" ]
        # shellcheck disable=SC2086 # the action's words
        kmrun cache $action
        wait "$pid" || { cat "$BATS_TEST_TMPDIR/err"; false; }
        grep -q '"sha256"' "$BATS_TEST_TMPDIR/out"
        kmrun cache clear
    done
}

@test "entry.json's sha256 and sizes are checked before they are reported" {
    build
    [ "$status" -eq 0 ]
    hash=$(image_sha)
    entry=$(dirname "$(json 'd["threads"][0]["image"]["path"]')")
    /usr/bin/python3 - "$entry/entry.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["meta"]["sha256"] = "0" * 64
json.dump(d, open(sys.argv[1], "w"))
PY
    build
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"is corrupt (its recorded sha256 is not its file's)"* ]]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(image_sha)" = "$hash" ]
    /usr/bin/python3 - "$entry/entry.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["meta"]["bytes"] = 1
json.dump(d, open(sys.argv[1], "w"))
PY
    build
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"is corrupt (its recorded sizes are not its image's)"* ]]
    [ "$(json 'd["threads"][0]["image"]["bytes"]')" -gt 1 ]
}

# as_other CMD...: runs CMD as a user who cannot change what root wrote
# (root: nobody, through setpriv; anyone else: themselves, read-only
# folders stopping them).
as_other() {
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
    else
        "$@"
    fi
}

@test "a corrupt entry that cannot be removed is never used" {
    build
    [ "$status" -eq 0 ]
    path=$(json 'd["threads"][0]["image"]["path"]')
    printf '\x00\x01' | dd of="$path" bs=1 seek=200 conv=notrunc status=none
    if [ "$(id -u)" -eq 0 ]; then
        command -v setpriv >/dev/null || skip "setpriv is needed to act as another user"
        # nobody may use the cache, the program and kmrun's own files (a
        # checkout in a private folder, mktemp -d's, hides them), not the
        # entry's folder.
        for d in "$BATS_TEST_TMPDIR" "$KMRUN_BUILD"; do
            while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done
        done
        chown -R nobody "$KMRUN_CACHE" "$prog"
        chown root "$(dirname "$(dirname "$path")")"
    fi
    chmod a-w "$(dirname "$(dirname "$path")")"
    run --separate-stderr as_other kmrun build "$prog/program.yaml"
    chmod u+w "$(dirname "$(dirname "$path")")"
    echo "$stderr"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"is corrupt ('image.elf' does not match its checksum) and cannot be removed"* ]]
    [[ "$stderr" != *"removing it"* ]]
    got=$(json 'd["threads"][0]["image"]["path"]')
    [ "$got" != "$path" ]
    [ "$(sha256sum "$got" | cut -d' ' -f1)" = "$(image_sha)" ]
    [ "$(image_sha)" = "$(cold)" ]
}

# moves thread/common.h into the include folders named, first one holding it.
use_include_dirs() {
    flags=
    for d in "$@"; do mkdir -p "$prog/$d"; flags="$flags${flags:+, }-I$d"; done
    mv "$prog/thread/common.h" "$prog/$1/common.h"
    sed -i "s/    words: \[3\]/    words: [3]\n    cflags: [$flags]/" "$prog/program.yaml"
}

@test "a new header in an earlier include folder that shadows the recorded one misses" {
    use_include_dirs second first
    mv "$prog/second/common.h" "$prog/first/common.h"
    sed -i 's/-Isecond, -Ifirst/-Iearly, -Isecond, -Ifirst/' "$prog/program.yaml"
    rmdir "$prog/second"
    build
    [ "$status" -eq 0 ]
    first=$(image_sha)
    # One folder that exists, one that did not when the header was recorded.
    for d in second early; do
        mkdir -p "$prog/$d"
        echo "#define SCALE 7" >"$prog/$d/common.h"
        build
        [ "$status" -eq 0 ]
        [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
        [ "$(image_sha)" != "$first" ]
        [ "$(image_sha)" = "$(cold)" ]
        rm "$prog/$d/common.h"
    done
    build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    [ "$(image_sha)" = "$first" ]
}

@test "a new header beside the source that shadows the recorded one misses" {
    use_include_dirs inc
    build
    [ "$status" -eq 0 ]
    first=$(image_sha)
    echo "#define SCALE 7" >"$prog/thread/common.h"
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(image_sha)" = "$(cold)" ]
    [ "$(image_sha)" != "$first" ]
}

@test "a changed CPATH misses" {
    mkdir "$BATS_TEST_TMPDIR/cp1" "$BATS_TEST_TMPDIR/cp2"
    mv "$prog/thread/common.h" "$BATS_TEST_TMPDIR/cp1/common.h"
    echo "#define SCALE 7" >"$BATS_TEST_TMPDIR/cp2/common.h"
    CPATH=$BATS_TEST_TMPDIR/cp1 build
    [ "$status" -eq 0 ]
    first=$(image_sha)
    CPATH=$BATS_TEST_TMPDIR/cp2 build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(image_sha)" != "$first" ]
    CPATH=$BATS_TEST_TMPDIR/cp1 build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    [ "$(image_sha)" = "$first" ]
}

@test "a header created later for __has_include misses (preprocessor mode)" {
    cat >"$prog/thread/main.c" <<'C'
#include "kmx.h"
#include "kmrun_handlers.h"
#include "common.h"
#if __has_include("extra.h")
#include "extra.h"
#else
#define EXTRA 0
#endif
int kmx_main(int core) { (void)core; return SCALE + HANDLER_SCALE + EXTRA; }
C
    build
    [ "$status" -eq 0 ]
    first=$(image_sha)
    build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    echo '#define EXTRA 1' >"$prog/thread/extra.h"
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(image_sha)" != "$first" ]
    [ "$(image_sha)" = "$(cold)" ]
    build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    rm "$prog/thread/extra.h"
    build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    [ "$(image_sha)" = "$first" ]
}
