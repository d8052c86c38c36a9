#!/usr/bin/env bats
# The public C API (include/kmrun.h, man/kmrun.3) from a program of its own:
# a small C program built against the build's archives runs a program as
# `kmrun run` does, and gives the same run JSON but for what differs from
# run to run (run, run_dir, wall_seconds: schemas/run.schema.json); its
# run folder is one `kmrun read-region` reads; and the man page's example
# compiles and runs.

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup_file() {
    # api_json MANIFEST [sim|host]: the run JSON on stdout, as `kmrun run`
    # prints it; exit 0 when kmrun_run_ok, 1 when not, else the status.
    cat >"$BATS_FILE_TMPDIR/api_json.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "kmrun.h"

int main(int argc, char **argv)
{
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    if (argc > 2 && strcmp(argv[2], "host") == 0)
        o.backend = KMRUN_BACKEND_HOST;
    kmrun_program *p = NULL;
    kmrun_session *s = NULL;
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    kmrun_status st = kmrun_program_load(argv[1], &p, &e);
    if (st == KMRUN_OK)
        st = kmrun_session_open(&o, &s, &e);
    if (st == KMRUN_OK)
        st = kmrun_session_load(s, p, &r, &e);
    if (st == KMRUN_OK)
        st = kmrun_run_wait(r, 0, &e);
    if (st == KMRUN_OK) {
        printf("%s\n", kmrun_run_json(r));
        st = kmrun_run_ok(r) ? KMRUN_OK : KMRUN_FAILED;
    } else {
        fprintf(stderr, "api_json: %s\n", kmrun_error_message(e));
    }
    kmrun_error_free(e);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
    return (int)st;
}
C
    build_api "$BATS_FILE_TMPDIR/api_json.c" "$BATS_FILE_TMPDIR/api_json"
    # api_code 01|02: programs/01_hello or 02_parallel_sum built in code
    # (kmrun_program_new, its root the program's folder; 02's region as
    # bytes in memory), run as api_json runs a manifest.
    cat >"$BATS_FILE_TMPDIR/api_code.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmrun.h"

int main(int argc, char **argv)
{
    (void)argc;
    bool hello = strcmp(argv[1], "01") == 0;
    kmrun_program *p = NULL;
    kmrun_session *s = NULL;
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    static const int clusters[] = {1};
    static const uint32_t words[] = {7, 6};
    const char *source = hello ? "thread/hello.c" : "thread/sum.c";
    size_t n = 1 << 20;
    uint32_t *fill = malloc(n);
    for (size_t i = 0; i < n / 4; i++)
        fill[i] = 0x9e3779b9u;
    kmrun_region_spec region = {.name = hello ? "out" : "data", .size = hello ? 4096 : 0,
                                .bytes = hello ? NULL : fill, .nbytes = hello ? 0 : n};
    kmrun_thread_spec t;
    kmrun_thread_spec_init(&t);
    t.clusters = clusters, t.nclusters = 1;
    t.sources = &source, t.nsources = 1;
    t.regions = &region, t.nregions = 1;
    t.words = words, t.nwords = hello ? 2 : 0;
    t.deadline_seconds = 1;
    kmrun_status st = kmrun_program_new(hello ? "hello" : "parallel_sum", &p, &e);
    if (st == KMRUN_OK)
        st = kmrun_program_set_root(p, argv[2], &e);
    if (st == KMRUN_OK)
        st = kmrun_program_thread(p, &t, &e);
    free(fill);
    if (st == KMRUN_OK)
        st = kmrun_session_open(NULL, &s, &e);
    if (st == KMRUN_OK)
        st = kmrun_session_load(s, p, &r, &e);
    if (st == KMRUN_OK)
        st = kmrun_run_wait(r, 0, &e);
    if (st == KMRUN_OK) {
        printf("%s\n", kmrun_run_json(r));
        st = kmrun_run_ok(r) ? KMRUN_OK : KMRUN_FAILED;
    } else {
        fprintf(stderr, "api_code: %s\n", kmrun_error_message(e));
    }
    kmrun_error_free(e);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
    return (int)st;
}
C
    build_api "$BATS_FILE_TMPDIR/api_code.c" "$BATS_FILE_TMPDIR/api_code"
    # The man page's example, as its source has it (\e is a backslash).
    awk '/^\.Sh EXAMPLES/ { on = 1; next } on && /^\.Bd -literal$/ { lit = 1; next }
         lit && /^\.Ed$/ { exit } lit { print }' "$KMRUN_TOP/man/kmrun.3" |
        sed -e 's/\\e/\\/g' -e 's/^\\&//' >"$BATS_FILE_TMPDIR/example.c"
    build_api "$BATS_FILE_TMPDIR/example.c" "$BATS_FILE_TMPDIR/example"
}

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    export KMRUN_DATA=$KMRUN_BUILD/share/kmrun
    api_json=$BATS_FILE_TMPDIR/api_json
    example=$BATS_FILE_TMPDIR/example
}

# same_json MANIFEST: kmrun run's and the API's JSON of the same program
# agree but for run, run_dir and wall_seconds, which do differ.
same_json() {
    run_json "$KMRUN_TOP/$1"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    local cli=$output
    KMRUN_RUNS=$runs run --separate-stderr "$api_json" "$KMRUN_TOP/$1"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ -z "$stderr" ]
    diff -u <(stable "$cli") <(stable "$output")
    # What differs does: two runs, two folders, each written.
    local a b
    a=$(jq -r .run <<<"$cli") b=$(jq -r .run <<<"$output")
    [ "$a" != "$b" ]
    [ "$(jq -r .run_dir <<<"$output")" = "$runs/$b" ]
    [ -f "$runs/$a/result.json" ] && [ -f "$runs/$b/result.json" ]
    # The folder keeps the JSON the API gave.
    diff -u <(printf '%s' "$output") "$runs/$b/result.json"
}

@test "api: 01_hello's run JSON is kmrun run's but for run, run_dir and wall_seconds" {
    same_json programs/01_hello/program.yaml
    [ "$(field '.threads[0].words | @csv')" = 42 ]
    [ "$(field '.stats.x280 | length')" = 4 ]
}

@test "api: 02_parallel_sum's run JSON is kmrun run's but for run, run_dir and wall_seconds" {
    same_json programs/02_parallel_sum/program.yaml
    [ "$(field '.threads[0].state')" = returned ]
    [ "$(field '.regions[0].name')" = data ]
}

# same_code NN MANIFEST: the program built in code (api_code NN) gives
# kmrun run's JSON of the manifest but for run, run_dir and wall_seconds,
# and its run folder is one kmrun read-region reads.
same_code() {
    run_json "$KMRUN_TOP/$2"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    local cli=$output
    KMRUN_RUNS=$runs run --separate-stderr "$BATS_FILE_TMPDIR/api_code" "$1" "$KMRUN_TOP/${2%/*}"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ -z "$stderr" ]
    diff -u <(stable "$cli") <(stable "$output")
    local id region
    id=$(jq -r .run <<<"$output") region=$(jq -r '.regions[0].name' <<<"$output")
    [ -n "$region" ] && [ "$region" != null ]
    diff <(kmrun read-region --run-dir "$runs" --run "$id" --format u32 "$region") \
        <(kmrun read-region --run-dir "$runs" --run "$(jq -r .run <<<"$cli")" --format u32 "$region")
}

@test "api: 01_hello built in code gives its manifest's run JSON, and a run folder read-region reads" {
    same_code 01 programs/01_hello/program.yaml
}

@test "api: 02_parallel_sum built in code (its region as bytes in memory) gives its manifest's run JSON" {
    same_code 02 programs/02_parallel_sum/program.yaml
}

@test "api: on the host fallback, the results and regions kmrun run --thread host gives" {
    # Times are the host's there: all but them agree.
    local host='del(.run, .run_dir, .wall_seconds, .device_microseconds)
        | .threads |= map(del(.where_microseconds, .microseconds))'
    run_json --thread host "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    local cli=$output
    KMRUN_RUNS=$runs run --separate-stderr "$api_json" "$KMRUN_TOP/programs/01_hello/program.yaml" host
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field .backend)" = host ] && [ "$(field .times)" = host ]
    diff -u <(jq -S "$host" <<<"$cli") <(jq -S "$host" <<<"$output")
}

@test "api: kmrun read-region reads a run the API wrote, as it reads kmrun run's" {
    run_json "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    local cli
    cli=$(field .run)
    KMRUN_RUNS=$runs run --separate-stderr "$api_json" "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    local id
    id=$(field .run)
    # The API's run is the latest.
    [ "$(readlink "$runs/latest")" = "$id" ]
    run -0 kmrun read-region --run-dir "$runs" --format u32 --length 16 out
    expect stdout <<'OUT'
0
7
14
21
OUT
    diff <(kmrun read-region --run-dir "$runs" --run "$id" --format u32 out) \
        <(kmrun read-region --run-dir "$runs" --run "$cli" --format u32 out)
}

@test "api: a failure is the status kmrun run exits with, and its message" {
    KMRUN_RUNS=$runs run --separate-stderr "$api_json" "$BATS_TEST_TMPDIR/none.yaml"
    [ "$status" -eq 4 ]
    [[ "$stderr" == "api_json: cannot read manifest '$BATS_TEST_TMPDIR/none.yaml'"* ]]
    printf 'name: x\nthreads:\n  - cluster: 4\n' >"$BATS_TEST_TMPDIR/bad.yaml"
    KMRUN_RUNS=$runs run --separate-stderr "$api_json" "$BATS_TEST_TMPDIR/bad.yaml"
    [ "$status" -eq 2 ]
    # Every error of the manifest, file:line:col a line, as validate gives them.
    expect stderr <<ERR
api_json: $BATS_TEST_TMPDIR/bad.yaml:3:5: missing 'sources' in a thread (expected a list of source files)
$BATS_TEST_TMPDIR/bad.yaml:3:14: bad cluster '4' (expected 1, 2 or 3)
ERR
}

@test "api: the man page's example compiles and runs 01_hello and 02_parallel_sum" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$example" "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "${lines[0]}" = "cluster 1: returned, code 0, words 42, out[0] = 0" ]
    [[ "${lines[1]}" =~ ^run\ ([0-9TZ-]+[0-9a-f]+):\ \.kmrun/runs/([0-9TZ-]+[0-9a-f]+)$ ]]
    [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
    [ -f ".kmrun/runs/${BASH_REMATCH[1]}/result.json" ]
    # 1 MiB of 0x9e3779b9: the sum's two words, the weighted checksum, the first word.
    run --separate-stderr "$example" "$KMRUN_TOP/programs/02_parallel_sum/program.yaml" data
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "${lines[0]}" = "cluster 1: returned, code 0, words 3873701888 162013 4084334592, data[0] = 2654435769" ]
    run --separate-stderr "$example" "$BATS_TEST_TMPDIR/none.yaml"
    [ "$status" -eq 4 ]
    [[ "$stderr" == "example: cannot read manifest"* ]]
}
