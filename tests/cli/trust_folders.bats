#!/usr/bin/env bats
# Nothing outside kmrun's folders, nothing stale (issue 26): a link planted
# in the cache or the runs folder is refused and never followed; a run is
# never failed by a `cache gc` beside it; a run killed at any step is seen
# as interrupted, never read as if the run before it were the last; a
# resource running out is an error, never a reason to delete.

load build_helpers

# victim: a folder outside every kmrun folder, with one file in it.
victim() {
    mkdir -p "$BATS_TEST_TMPDIR/victim"
    echo mine >"$BATS_TEST_TMPDIR/victim/keep.txt"
}

victim_intact() {
    [ "$(ls -A "$BATS_TEST_TMPDIR/victim")" = keep.txt ]
    [ "$(cat "$BATS_TEST_TMPDIR/victim/keep.txt")" = mine ]
}

@test "cache gc and clear with a planted tmp/ link remove nothing outside and name the link" {
    build
    [ "$status" -eq 0 ]
    victim
    rm -rf "$KMRUN_CACHE/tmp"
    ln -s "$BATS_TEST_TMPDIR/victim" "$KMRUN_CACHE/tmp"
    run --separate-stderr kmrun cache gc --max-size 0
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"'$KMRUN_CACHE/tmp' is a symbolic link"* ]]
    victim_intact
    run --separate-stderr kmrun cache clear
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"'$KMRUN_CACHE/tmp' is a symbolic link"* ]]
    victim_intact
}

@test "cache gc with a planted shard link removes nothing outside" {
    build
    [ "$status" -eq 0 ]
    victim
    cp -R "$KMRUN_CACHE/objects" "$BATS_TEST_TMPDIR/objects.copy"
    shard=$(ls "$KMRUN_CACHE/objects" | head -n 1)
    cp -R "$KMRUN_CACHE/objects/$shard/." "$BATS_TEST_TMPDIR/victim/"
    before=$(ls -A "$BATS_TEST_TMPDIR/victim" | sort)
    rm -rf "$KMRUN_CACHE/objects/$shard"
    ln -s "$BATS_TEST_TMPDIR/victim" "$KMRUN_CACHE/objects/$shard"
    run --separate-stderr kmrun cache gc --max-size 0
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"'$KMRUN_CACHE/objects/$shard' is a symbolic link"* ]]
    [ "$(ls -A "$BATS_TEST_TMPDIR/victim" | sort)" = "$before" ]
}

@test "build refuses a symlinked work/ or objects/ and writes nothing into the target" {
    victim
    kmrun cache stats >/dev/null # makes the cache's folders
    ln -s "$BATS_TEST_TMPDIR/victim" "$KMRUN_CACHE/work"
    build
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"'$KMRUN_CACHE/work' is a symbolic link"* ]]
    victim_intact
    rm "$KMRUN_CACHE/work"
    rm -rf "$KMRUN_CACHE/objects"
    ln -s "$BATS_TEST_TMPDIR/victim" "$KMRUN_CACHE/objects"
    build
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"'$KMRUN_CACHE/objects' is a symbolic link"* ]]
    victim_intact
    # A link planted inside a build folder, where Ninja and the compilers
    # would write through it, is refused before they run.
    rm "$KMRUN_CACHE/objects"
    build
    [ "$status" -eq 0 ]
    work=$(ls -d "$KMRUN_CACHE"/work/*)
    ln -s "$BATS_TEST_TMPDIR/victim/keep.txt" "$work/.ninja_log.planted"
    echo '/* changed */' >>"$prog/thread/main.c"
    build
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"/.ninja_log.planted' is a symbolic link"* ]]
    victim_intact
}

@test "a run removes no folder through a link planted as a dead run's, and reads latest only as its own link" {
    victim
    runs=$BATS_TEST_TMPDIR/runs
    mkdir -p "$runs"
    ln -s "$BATS_TEST_TMPDIR/victim" "$runs/.writing.20260101T000000Z-aaaaaa.Abc123"
    ln -s "$BATS_TEST_TMPDIR/victim" "$runs/.new.20260101T000000Z-aaaaaa.Abc123"
    run --separate-stderr kmrun run --run-dir "$runs" "$prog/program.yaml"
    [ "$status" -eq 0 ]
    victim_intact
    KMRUN_RUNS=$runs run --separate-stderr kmrun cache gc --max-size 1GiB
    [ "$status" -eq 0 ]
    victim_intact
    # latest replaced by a link out of the runs folder: refused, not read.
    ln -sfn "$BATS_TEST_TMPDIR/victim" "$runs/latest"
    run --separate-stderr kmrun read-region --run-dir "$runs" out
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"'$runs/latest' points to '$BATS_TEST_TMPDIR/victim', not to a run id"* ]]
}

@test "twenty runs beside a loop of cache gc --max-size 0: none fails" {
    runs=$BATS_TEST_TMPDIR/runs
    kmrun build "$prog/program.yaml" >/dev/null
    (
        while [ ! -e "$BATS_TEST_TMPDIR/stop" ]; do
            kmrun cache gc --max-size 0 >/dev/null 2>&1
        done
    ) &
    gc_loop=$!
    failed=0
    for i in $(seq 20); do
        # Every few runs a changed source, so some runs build and store
        # while gc runs, and others find their entries in place.
        if [ $((i % 4)) -eq 0 ]; then echo "/* $i */" >>"$prog/thread/main.c"; fi
        if ! kmrun run --run-dir "$runs" "$prog/program.yaml" \
            >"$BATS_TEST_TMPDIR/out.$i" 2>"$BATS_TEST_TMPDIR/err.$i"; then
            echo "run $i failed:"
            cat "$BATS_TEST_TMPDIR/err.$i"
            failed=$((failed + 1))
        fi
    done
    touch "$BATS_TEST_TMPDIR/stop"
    wait "$gc_loop"
    [ "$failed" -eq 0 ]
}

@test "a run killed while it compiles is read as interrupted, never as the run before it" {
    runs=$BATS_TEST_TMPDIR/runs
    run --separate-stderr kmrun run --run-dir "$runs" "$prog/program.yaml"
    [ "$status" -eq 0 ]
    before=$(readlink "$runs/latest")
    # A source slow to compile, so that the kill lands in the build.
    cp "$prog/thread/main.c" "$BATS_TEST_TMPDIR/main.c"
    {
        for i in $(seq 1500); do
            echo "int slow_$i(int x) { for (int k = 0; k < $i; k++) x = x * 31 + k; return x; }"
        done
    } >>"$prog/thread/main.c"
    setsid kmrun run --run-dir "$runs" "$prog/program.yaml" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 500); do
        pgrep -P "$pid" >/dev/null && break
        sleep 0.01
    done
    pgrep -P "$pid" >/dev/null # the build is under way
    kill -9 -- -"$pid"
    wait "$pid" || true
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 out
    [ "$status" -eq 4 ]
    [ -z "$output" ]
    [[ "$stderr" == *"was interrupted"* ]]
    [[ "$stderr" == *"--run $before"* ]]
    # Once its folder is swept, it is still seen as interrupted.
    KMRUN_RUNS=$runs kmrun cache gc --max-size 1GiB 2>/dev/null
    [ -z "$(ls -A "$runs" | grep '^\.writing\.')" ]
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 out
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"was interrupted"* ]]
    [[ "$stderr" == *"--run $before"* ]]
    # The run before it is there, by name; a new run is latest again (of
    # the first source: a hit in the cache, not the slow compile again).
    run --separate-stderr kmrun read-region --run-dir "$runs" --run "$before" --format u32 \
        --length 4 out
    [ "$status" -eq 0 ]
    cp "$BATS_TEST_TMPDIR/main.c" "$prog/thread/main.c"
    run --separate-stderr kmrun run --run-dir "$runs" "$prog/program.yaml"
    [ "$status" -eq 0 ]
    run --separate-stderr kmrun read-region --run-dir "$runs" --format u32 --length 4 out
    [ "$status" -eq 0 ]
}

@test "a valid entry under a small address-space limit is never called corrupt nor deleted" {
    build
    [ "$status" -eq 0 ]
    entries_before=$(find "$KMRUN_CACHE/objects" -name entry.json | sort)
    [ -n "$entries_before" ]
    # From the least kmrun starts with to enough to finish, in small steps:
    # somewhere in between an allocation fails while an entry is checked.
    # At every limit the entries stay, and none is reported corrupt.
    start=
    for kib in $(seq 4000 500 200000); do
        if (ulimit -v "$kib" && kmrun --version) >/dev/null 2>&1; then start=$kib; break; fi
    done
    for kib in $(seq "${start:-0}" 100 $((${start:-0} + 6000))); do
        [ -n "$start" ] || break # a sanitizer build needs more address space than any limit here
        out=$( (ulimit -v "$kib" && kmrun build "$prog/program.yaml") 2>&1 >/dev/null) || true
        if [[ "$out" == *corrupt* ]]; then
            echo "at $kib KiB: $out"
            false
        fi
        [ "$(find "$KMRUN_CACHE/objects" -name entry.json | sort)" = "$entries_before" ]
    done
    build
    [ "$status" -eq 0 ]
    [ "$(json 'd["threads"][0]["image"]["cache"]')" = hit ]
}

@test "under any address-space limit, build and run succeed or say what ran out (exit 4), never die of a signal" {
    build
    [ "$status" -eq 0 ]
    # As above: from the least kmrun starts with, in small steps, so that
    # an allocation fails somewhere in each step of a build from the cache
    # (naming and keying the targets, checking the entries: a build's
    # allocations are done within 3 MiB of the start) and of a run (the
    # cards' memories, the clusters, the Tensix grid: within 40 MiB).  An
    # abort() or a NULL dereference is exit 134 or 139; the loader's own
    # refusal (127) comes before kmrun runs.
    start=
    for kib in $(seq 4000 500 200000); do
        if (ulimit -v "$kib" && kmrun --version) >/dev/null 2>&1; then start=$kib; break; fi
    done
    [ -n "$start" ] || skip "a sanitizer build needs more address space than any limit here"
    local err=$BATS_TEST_TMPDIR/err kib what rc
    for what in "build 20 3000" "run 400 40000"; do
        # shellcheck disable=SC2086 # three words
        set -- $what
        for kib in $(seq "$start" "$2" $((start + $3))); do
            rc=0
            (ulimit -v "$kib" && kmrun "$1" "$prog/program.yaml") >/dev/null 2>"$err" || rc=$?
            [ "$rc" -eq 127 ] && grep -q 'error while loading shared libraries' "$err" && continue
            if [ "$rc" -ne 0 ] && { [ "$rc" -ne 4 ] || [ ! -s "$err" ]; }; then
                echo "kmrun $1 at $kib KiB: exit $rc: $(cat "$err")"
                false
            fi
        done
    done
}
