#!/usr/bin/env bats
# kmrun build and the content-addressed cache: hits, misses, corruption,
# concurrency, and the image checks seen from the command line.

load build_helpers

@test "a first build misses, a second hits, with the image's size within the limit" {
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(json 'd["kernels"]["cache"]')" = miss ]
    bytes=$(json 'd["threads"][0]["image"]["bytes"]')
    [ "$bytes" -gt 0 ] && [ "$bytes" -le 126976 ]
    [ "$(json 'd["threads"][0]["image"]["limit"]')" = 126976 ]
    hash=$(json 'd["threads"][0]["image"]["sha256"]')
    path=$(json 'd["threads"][0]["image"]["path"]')
    [ "$(sha256sum "$path" | cut -d' ' -f1)" = "$hash" ]
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    [ "$(json 'd["kernels"]["cache"]')" = hit ]
    [ "$(json 'd["hits"]')" = 2 ] && [ "$(json 'd["misses"]')" = 0 ]
    [ "$(json 'd["threads"][0]["image"]["sha256"]')" = "$hash" ]
}

@test "the generated header holds the built-in and program handler ids" {
    build
    [ "$status" -eq 0 ]
    header=$(json 'd["handlers_header"]')
    grep -qx '#define HANDLER_NOP 1u' "$header"
    grep -qx '#define HANDLER_SCALE 16u' "$header"
}

@test "a changed header misses; its old content hits again" {
    build
    first=$(json 'd["threads"][0]["image"]["sha256"]')
    echo '#define SCALE 4' >"$prog/thread/common.h"
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(json 'd["threads"][0]["image"]["sha256"]')" != "$first" ]
    echo '#define SCALE 3' >"$prog/thread/common.h"
    build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    [ "$(json 'd["threads"][0]["image"]["sha256"]')" = "$first" ]
}

@test "the same program under another path hits, with the same bytes" {
    build
    first=$(json 'd["threads"][0]["image"]["sha256"]')
    mkdir -p "$BATS_TEST_TMPDIR/elsewhere/deeper"
    cp -R "$prog" "$BATS_TEST_TMPDIR/elsewhere/deeper/copy"
    run --separate-stderr kmrun build "$BATS_TEST_TMPDIR/elsewhere/deeper/copy/program.yaml"
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
    [ "$(json 'd["kernels"]["cache"]')" = hit ]
    [ "$(json 'd["threads"][0]["image"]["sha256"]')" = "$first" ]
    # Built cold elsewhere, the bytes are the same too: no path leaks in.
    export KMRUN_CACHE=$BATS_TEST_TMPDIR/cache2
    run --separate-stderr kmrun build "$BATS_TEST_TMPDIR/elsewhere/deeper/copy/program.yaml"
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(json 'd["threads"][0]["image"]["sha256"]')" = "$first" ]
}

@test "a changed flag misses" {
    build
    sed -i 's/    words: \[3\]/    words: [3]\n    cflags: [-O1]/' "$prog/program.yaml"
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(json 'd["kernels"]["cache"]')" = hit ]
}

@test "a different toolchain misses" {
    build
    # The same compiler behind a wrapper is another toolchain to the key.
    cat >"$BATS_TEST_TMPDIR/rvcc" <<'SH'
#!/bin/sh
# another toolchain
exec riscv64-unknown-elf-gcc "$@"
SH
    chmod +x "$BATS_TEST_TMPDIR/rvcc"
    KMRUN_CC=$BATS_TEST_TMPDIR/rvcc build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    KMRUN_CC=$BATS_TEST_TMPDIR/rvcc build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
}

@test "a corrupted image in the cache is never served: warned about and rebuilt" {
    build
    path=$(json 'd["threads"][0]["image"]["path"]')
    hash=$(json 'd["threads"][0]["image"]["sha256"]')
    printf '\x00\x01' | dd of="$path" bs=1 seek=200 conv=notrunc status=none
    build
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"warning: cache entry"*"is corrupt ('image.elf' does not match its checksum)"* ]]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    [ "$(json 'd["threads"][0]["image"]["sha256"]')" = "$hash" ]
    [ "$(sha256sum "$path" | cut -d' ' -f1)" = "$hash" ]
    build
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
}

@test "a torn entry (truncated image, missing entry.json) is never served" {
    build
    path=$(json 'd["threads"][0]["image"]["path"]')
    truncate -s 100 "$path"
    build
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"is corrupt"* ]]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
    rm "$(dirname "$path")/entry.json"
    build
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"is corrupt (its entry.json is missing)"* ]]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
}

@test "eight concurrent builds of one program all succeed and leave one entry each" {
    for i in 1 2 3 4 5 6 7 8; do
        kmrun build "$prog/program.yaml" >"$BATS_TEST_TMPDIR/out.$i" 2>&1 &
        pids="${pids:-} $!"
    done
    for p in $pids; do wait "$p"; done
    for i in 1 2 3 4 5 6 7 8; do
        grep -q '"sha256"' "$BATS_TEST_TMPDIR/out.$i"
    done
    # one image and one kernels object
    [ "$(entries)" = 2 ]
    [ -z "$(ls -A "$KMRUN_CACHE/tmp")" ]
}

@test "eight concurrent builds of copies in different folders leave one entry each" {
    for i in 1 2 3 4 5 6 7 8; do
        cp -R "$prog" "$BATS_TEST_TMPDIR/copy$i"
    done
    for i in 1 2 3 4 5 6 7 8; do
        kmrun build "$BATS_TEST_TMPDIR/copy$i/program.yaml" >"$BATS_TEST_TMPDIR/out.$i" 2>&1 &
        pids="${pids:-} $!"
    done
    for p in $pids; do wait "$p"; done
    for i in 1 2 3 4 5 6 7 8; do
        grep -q '"sha256"' "$BATS_TEST_TMPDIR/out.$i"
    done
    # On a failure: which keys the copies stored (a second key for the same
    # content is the thing to look for).
    [ "$(entries)" = 2 ] || { find "$KMRUN_CACHE/objects" -mindepth 2 -maxdepth 2; false; }
}

@test "an image over 126,976 bytes is rejected with its sections and largest symbol" {
    cat >"$prog/thread/main.c" <<'C'
#include "kmx.h"
static const unsigned char big_table[130000] = {1};
int kmx_main(int core) { return big_table[core]; }
C
    build
    [ "$status" -eq 3 ]
    [ -z "$output" ]
    [[ "$stderr" == *"over the 126,976 bytes"* ]]
    [[ "$stderr" == *"big_table"* ]]
    [ "$(entries)" = 1 ] # the kernels, which were fine, are cached
}

@test "a zero-initialised global is rejected, named, with the fix" {
    cat >"$prog/thread/main.c" <<'C'
#include "kmx.h"
int counter;
int kmx_main(int core) { counter += core; return counter; }
C
    build
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"'counter'"* ]]
    [[ "$stderr" == *'__attribute__((section(".data")))'* ]]
}

@test "a struct assignment that became memset is explained with its source line" {
    cat >"$prog/thread/main.c" <<'C'
#include "kmx.h"
struct big { unsigned w[256]; };
static void clear(struct big *b)
{
    struct big zero = {0};
    *b = zero;
}
int kmx_main(int core)
{
    uint64_t bytes;
    struct big *b = kmx_region(0, &bytes);
    clear(b);
    return core;
}
C
    build
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"'memset'"* ]]
    [[ "$stderr" == *"thread/main.c:"* ]]
    [[ "$stderr" == *"no libc"* || "$stderr" == *"C library"* ]]
}

@test "a compile error names the source as from the working folder" {
    echo 'int kmx_main(int core) { return nope; }' >"$prog/thread/main.c"
    cd /
    build
    [ "$status" -eq 3 ]
    # from /, far from the program: absolute
    [[ "$stderr" == *"cannot compile '$prog/thread/main.c' for the thread on cluster 1"* ]]
    [[ "$stderr" == *"$prog/thread/main.c:1:"*"nope"* ]]
    # from the manifest's folder: relative to it
    cd "$prog"
    run --separate-stderr kmrun build program.yaml
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"cannot compile 'thread/main.c' for the thread on cluster 1"* ]]
    [[ "$stderr" == *$'\nthread/main.c:1:'*"nope"* ]]
}

@test "a source of NUL bytes is refused at once, named, as no text; a text source as large builds" {
    # 100 MB of NULs kept the compiler busy for a minute echoing one line
    # of "<U+0000>"s (800 MB of warnings): now a build error, before any
    # compile, whatever the size.
    truncate -s 100M "$prog/thread/big.c"
    sed -i 's|sources: \[thread/main.c\]|sources: [thread/main.c, thread/big.c]|' "$prog/program.yaml"
    run --separate-stderr timeout 20 kmrun build "$prog/program.yaml"
    [ "$status" -eq 3 ]
    [ "$stderr" = "kmrun: 'thread/big.c' (a source of the thread on cluster 1) is not a text file: a NUL byte at offset 0 (expected C source)" ]
    [ -z "$output" ]
    # a NUL after some text: its offset
    printf 'int big;\n\0' >"$prog/thread/big.c"
    run --separate-stderr timeout 20 kmrun build "$prog/program.yaml"
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"'thread/big.c' (a source of the thread on cluster 1) is not a text file: a NUL byte at offset 9"* ]]
    # 100 MB of C (a comment) builds
    { printf '/*'; head -c 100M /dev/zero | tr '\0' ' '; printf '*/\nint big(void) { return 1; }\n'; } >"$prog/thread/big.c"
    run --separate-stderr timeout 60 kmrun build "$prog/program.yaml"
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = miss ]
}

@test "a declared handler that no kernel defines is rejected" {
    sed -i 's/handlers: \[scale\]/handlers: [scale, shift]/' "$prog/program.yaml"
    build
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"'shift'"* ]]
    [[ "$stderr" == *"km_handler_shift"* ]]
}

@test "a bad manifest stops the build with exit 2 and builds nothing" {
    echo 'bogus: 1' >>"$prog/program.yaml"
    build
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"program.yaml:"*":1: unknown key 'bogus'"* ]]
    [ ! -d "$KMRUN_CACHE/objects" ] || [ "$(entries)" = 0 ]
}

@test "cache path, stats, gc and clear" {
    run kmrun cache path
    [ "$status" -eq 0 ] && [ "$output" = "$KMRUN_CACHE" ]
    build
    run kmrun cache stats
    [ "$status" -eq 0 ]
    [[ "$output" == *"entries:      2"* ]]
    [[ "$output" == *"misses:       2"* ]]
    run kmrun cache gc --max-size 1GiB
    [ "$status" -eq 0 ] && [ "$(entries)" = 2 ]
    run kmrun cache gc --max-size 0
    [ "$status" -eq 0 ] && [ "$(entries)" = 0 ]
    build
    [ "$(json 'd["misses"]')" = 2 ]
    run kmrun cache clear
    [ "$status" -eq 0 ] && [ "$(entries)" = 0 ]
    run kmrun cache gc --max-size 5MB
    [ "$status" -eq 2 ]
    [[ "$output" == *"invalid size '5MB' (did you mean 'MiB'?)"* ]]
    run kmrun cache sats
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown action 'sats' (did you mean 'stats'?)"* ]]
}

@test "the build output follows schemas/build.schema.json" {
    build
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/build.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" --check-schema "$KMRUN_TOP/schemas/build.schema.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/build.schema.json" "$BATS_TEST_TMPDIR/build.json"
    # A program without kernels has "kernels": null.
    run --separate-stderr kmrun build "$KMRUN_TOP/programs/01_hello/program.yaml"
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/hello.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/build.schema.json" "$BATS_TEST_TMPDIR/hello.json"
}
