#!/usr/bin/env bats
# Nothing raw reaches the terminal (issue 26, item 2): a name or a path that
# kmrun echoes — typed by the user, read from a run folder or a manifest,
# inside a message built anywhere — shows a control byte, DEL, a C1 control
# or a byte that is not UTF-8 as \ooo (ks_text.h), never as itself.

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    run_dir=$runs/20261201T000000Z-abcdef
    mkdir -p "$run_dir/regions/cluster1"
    echo '{}' >"$run_dir/result.json"
    printf '\001\000\000\000' >"$run_dir/regions/cluster1/counts.bin"
    # A region whose name holds ESC, as a run folder from someone else may.
    cat >"$run_dir/regions.json" <<'JSON'
[{"name": "coun\u001bts", "cluster": 1, "bank": 6, "bank_address": 4096, "bytes": 4, "file": "regions/cluster1/counts.bin"}]
JSON
    ln -s 20261201T000000Z-abcdef "$runs/latest"
    cd "$BATS_TEST_TMPDIR"
}

# raw_free TEXT: TEXT holds no byte a terminal obeys: nothing below 0x20
# but newline and tab, no DEL, no C1 control, no byte 0x80-0xff that is not
# in well-formed UTF-8.
raw_free() {
    /usr/bin/python3 - "$1" <<'PY'
import os, sys
data = os.fsencode(sys.argv[1])
bad = [b for b in data if (b < 0x20 and b not in (9, 10)) or b == 0x7f]
try:
    text = data.decode('utf-8')
    bad += [ord(c) for c in text if 0x80 <= ord(c) < 0xa0]
except UnicodeDecodeError as e:
    bad.append(data[e.start])
if bad:
    sys.exit('raw bytes %s in %r' % (bad, data))
PY
}

@test "a name with control bytes is echoed escaped" {
    run --separate-stderr kmrun read-region --run-dir "$runs" $'o\001ut'
    [ "$status" -eq 2 ]
    raw_free "$stderr"
    [[ "$stderr" == *"no region 'o\\001ut' in the run"* ]] || { echo "$stderr"; false; }
}

@test "a region name read from a run folder is echoed escaped" {
    run --separate-stderr kmrun read-region --run-dir "$runs" counts
    [ "$status" -eq 2 ]
    raw_free "$stderr"
    [[ "$stderr" == *"(did you mean 'coun\\033ts'?)"* ]] || { echo "$stderr"; false; }
}

@test "a path with control bytes and bytes that are not UTF-8 is echoed escaped" {
    run --separate-stderr kmrun read-region --run-dir "$BATS_TEST_TMPDIR/r"$'\033[2J\xff\xc2\x9b' counts
    [ "$status" -eq 2 ]
    raw_free "$stderr"
    [[ "$stderr" == *"/r\\033[2J\\377\\302\\233'"* ]] || { echo "$stderr"; false; }
}

@test "an unknown command or option with control bytes is echoed escaped" {
    run --separate-stderr kmrun $'bu\033[2Jild'
    [ "$status" -eq 2 ]
    raw_free "$stderr"
    [[ "$stderr" == *"'bu\\033[2Jild' is not a kmrun command"* ]] || { echo "$stderr"; false; }
    run --separate-stderr kmrun build $'--\033[2J'
    [ "$status" -eq 2 ]
    raw_free "$stderr"
    [[ "$stderr" == *"unknown option '--\\033[2J'"* ]] || { echo "$stderr"; false; }
    # A message no helper quoted: the guard on stderr escapes it.
    run --separate-stderr kmrun build $'-\001'
    [ "$status" -eq 2 ]
    raw_free "$stderr"
    [[ "$stderr" == *"unknown switch '-\\001'"* ]] || { echo "$stderr"; false; }
}

@test "a message of a command that prints it unchanged reaches the terminal escaped" {
    # cmd/cache.c prints lib's message as it is: the guard on stderr and
    # km_fail's own escaping both stand between it and the terminal.
    KMRUN_CACHE=$'/dev/null/c\033[2Jache' run --separate-stderr kmrun cache stats
    [ "$status" -eq 4 ]
    raw_free "$stderr"
    [[ "$stderr" == *"/dev/null/c\\033[2Jache'"* ]] || { echo "$stderr"; false; }
}

@test "a manifest line with control bytes is shown escaped, the caret under its column" {
    printf 'name: he\033llo\n' >bad.yaml
    run --separate-stderr kmrun validate bad.yaml
    [ "$status" -eq 2 ]
    raw_free "$stderr"
    expect stderr <<'ERR'
bad.yaml:1:9: yaml syntax error: control characters are not allowed (expected UTF-8 text)
  name: he\033llo
          ^
ERR
}

@test "a manifest's path with control bytes is echoed escaped, on stderr and stdout" {
    mkdir -p prog/thread
    cp -r "$KMRUN_TOP/programs/01_hello/." prog/
    mv prog/program.yaml "prog/p"$'\033[2J'".yaml"
    run --separate-stderr kmrun validate "prog/p"$'\033[2J'".yaml"
    [ "$status" -eq 0 ]
    raw_free "$output"
    [[ "$output" == "prog/p\\033[2J.yaml: ok (program 'hello'"* ]] || { echo "$output"; false; }
    run --separate-stderr kmrun build "prog/n"$'\001'".yaml"
    [ "$status" -eq 4 ]
    raw_free "$stderr"
    [[ "$stderr" == *"'prog/n\\001.yaml'"* ]] || { echo "$stderr"; false; }
}
