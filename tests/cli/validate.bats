#!/usr/bin/env bats
# kmrun validate: the summary line, --json, positioned errors, exit codes.

# shellcheck disable=SC2154 # output, stderr, lines, stderr_lines: set by run
load helpers

VALIDATE_USAGE='usage: kmrun validate [--quiet] [--json] program.yaml...'

setup() {
    cd "$BATS_TEST_TMPDIR" || return
    printf 'int main(void) { return 0; }\n' >t.c
    cat >program.yaml <<'END'
name: x
threads: [{cluster: 1, sources: [t.c]}]
END
}

@test "a valid manifest: one summary line on stdout, exit 0" {
    run -0 --separate-stderr kmrun validate program.yaml
    expect stderr </dev/null
    expect stdout <<'END'
program.yaml: ok (program 'x': 1 thread on cluster 1, 0 regions, 0 commands)
END
}

@test "one thread on two clusters counts as two threads" {
    cat >pair.yaml <<'END'
name: pair
threads: [{clusters: [2, 3], sources: [t.c]}]
END
    run -0 --separate-stderr kmrun validate pair.yaml
    expect stderr </dev/null
    expect stdout <<'END'
pair.yaml: ok (program 'pair': 2 threads on clusters 2 and 3, 0 regions, 0 commands)
END
}

@test "the manifest is named as given, from another folder too" {
    mkdir sub
    cd sub
    run -0 --separate-stderr kmrun validate ../program.yaml
    expect stdout <<'END'
../program.yaml: ok (program 'x': 1 thread on cluster 1, 0 regions, 0 commands)
END
}

@test "--quiet prints nothing for a valid manifest" {
    run -0 --separate-stderr kmrun validate --quiet program.yaml
    expect stdout </dev/null
    expect stderr </dev/null
    run -0 --separate-stderr kmrun validate -q program.yaml
    expect stdout </dev/null
}

@test "--json prints the program model" {
    run -0 --separate-stderr kmrun validate --json program.yaml
    expect stderr </dev/null
    jq -e . >/dev/null <<<"$output"
    output=$(jq -c '{name, x280_mhz, regions, commands, ports, pull,
        thread: .threads[0] | {clusters, regions, shared, words,
                               deadline_us, prefetch, ring, compiler}}' <<<"$output")
    expect stdout <<'END'
{"name":"x","x280_mhz":1000,"regions":[],"commands":[],"ports":null,"pull":null,"thread":{"clusters":[1],"regions":[],"shared":[],"words":[],"deadline_us":0,"prefetch":"default","ring":"remote","compiler":"gcc"}}
END
    run -0 --separate-stderr kmrun validate --json program.yaml
    run -0 jq -r '.threads[0].sources | length, (.[0] | endswith("/t.c"))' <<<"$output"
    expect stdout <<'END'
1
true
END
}

@test "--json with several manifests prints an array, in their order" {
    cp program.yaml second.yaml
    sed -i 's/name: x/name: y/' second.yaml
    run -0 --separate-stderr kmrun validate --json program.yaml second.yaml
    output=$(jq -c '[.[] | [.manifest, .name]]' <<<"$output")
    expect stdout <<'END'
[["program.yaml","x"],["second.yaml","y"]]
END
}

@test "a broken manifest: file:line:col:, its line and a caret; exit 2" {
    cat >broken.yaml <<'END'
name: x
threads: [{cluster: 7, sources: [t.c]}]
END
    run -2 --separate-stderr kmrun validate broken.yaml
    expect stdout </dev/null
    [[ ${stderr_lines[0]} =~ ^broken\.yaml:2:([0-9]+):\ .+ ]] || {
        echo "not a positioned error: ${stderr_lines[0]}"
        false
    }
    col=${BASH_REMATCH[1]}
    caret=$(printf '%*s^' $((col + 1)) '')
    output=$(printf '%s\n' "${stderr_lines[@]:1:2}")
    expect stdout <<END
  threads: [{cluster: 7, sources: [t.c]}]
$caret
END
}

@test "a YAML syntax error is a positioned error, exit 2" {
    printf 'name: x\nthreads: [{cluster: 1, sources: [t.c]}\n' >syntax.yaml
    run -2 --separate-stderr kmrun validate syntax.yaml
    expect stdout </dev/null
    [[ ${stderr_lines[0]} =~ ^syntax\.yaml:[0-9]+:[0-9]+:\ .+ ]]
}

@test "every manifest is checked: ok lines for the good, errors for the bad" {
    printf 'name: x\nthreads: [{cluster: 9, sources: [t.c]}]\n' >bad1.yaml
    printf 'name: y\nthreads: [{cluster: 0, sources: [t.c]}]\n' >bad2.yaml
    run -2 --separate-stderr kmrun validate bad1.yaml program.yaml bad2.yaml
    expect stdout <<'END'
program.yaml: ok (program 'x': 1 thread on cluster 1, 0 regions, 0 commands)
END
    [[ $stderr == *"bad1.yaml:2:"* ]]
    [[ $stderr == *"bad2.yaml:2:"* ]]
}

@test "--json prints nothing when a manifest is broken" {
    printf 'name: x\nthreads: [{cluster: 9, sources: [t.c]}]\n' >bad.yaml
    run -2 --separate-stderr kmrun validate --json program.yaml bad.yaml
    expect stdout </dev/null
    [[ $stderr == *"bad.yaml:2:"* ]]
}

@test "a manifest that does not exist is a system error, exit 4" {
    run -4 --separate-stderr kmrun validate missing.yaml
    expect stdout </dev/null
    [[ $stderr == kmrun:*"'missing.yaml'"* ]] || { echo "stderr: $stderr"; false; }
}

@test "an unreadable manifest is a system error, exit 4" {
    [ "$(id -u)" -ne 0 ] || skip "root reads any file"
    chmod 000 program.yaml
    run -4 --separate-stderr kmrun validate program.yaml
    expect stdout </dev/null
    [[ $stderr == kmrun:*"'program.yaml'"* ]]
}

@test "a folder given as the manifest is a system error, exit 4" {
    mkdir folder.yaml
    run -4 --separate-stderr kmrun validate folder.yaml
    expect stdout </dev/null
    [[ $stderr == kmrun:*"'folder.yaml'"* ]] || { echo "stderr: $stderr"; false; }
}

@test "a FIFO given as the manifest is refused at once, not waited on, exit 4" {
    mkfifo fifo.yaml
    run -4 --separate-stderr timeout 20 kmrun validate fifo.yaml
    expect stdout </dev/null
    expect stderr <<'END'
kmrun: cannot read manifest 'fifo.yaml': it is a FIFO (expected a regular file)
END
}

@test "a FIFO as a source or a region's file is a positioned error" {
    mkfifo pipe.c pipe.bin
    cat >fifo.yaml <<'END'
name: x
threads: [{cluster: 1, sources: [pipe.c], regions: {r: {file: pipe.bin}}}]
END
    run -2 --separate-stderr timeout 20 kmrun validate fifo.yaml
    [[ $stderr == *"fifo.yaml:2:"*": cannot read source file 'pipe.c': it is a FIFO (expected a regular file)"* ]] ||
        { echo "stderr: $stderr"; false; }
}

@test "a system error outranks a manifest error in the exit status" {
    printf 'name: x\nthreads: [{cluster: 9, sources: [t.c]}]\n' >bad.yaml
    run -4 --separate-stderr kmrun validate bad.yaml missing.yaml
    [[ $stderr == *"bad.yaml:2:"* ]]
}

@test "no manifest is a usage error, exit 2" {
    run -2 --separate-stderr kmrun validate
    expect stdout </dev/null
    expect stderr <<END
kmrun: no manifest given
$VALIDATE_USAGE
END
}

@test "--quiet and --json together are a usage error, exit 2" {
    run -2 --separate-stderr kmrun validate --quiet --json program.yaml
    expect stdout </dev/null
    expect stderr <<END
kmrun: options '--quiet' and '--json' cannot be used together
$VALIDATE_USAGE
END
}

@test "options may follow the manifest; -- ends them" {
    run -0 --separate-stderr kmrun validate program.yaml --quiet
    expect stdout </dev/null
    cp program.yaml ./-odd.yaml
    run -0 --separate-stderr kmrun validate -- -odd.yaml
    expect stdout <<'END'
-odd.yaml: ok (program 'x': 1 thread on cluster 1, 0 regions, 0 commands)
END
}

@test "region names that differ only in case are found among thousands" {
    {
        echo 'name: x'
        echo 'regions:'
        for i in $(seq 0 2999); do echo "  r$i: 64"; done
        echo '  R1234: 64'
        echo 'threads: [{cluster: 1, sources: [t.c]}]'
    } >many.yaml
    run -2 --separate-stderr kmrun validate many.yaml
    expect stderr <<'END'
many.yaml:3003:3: region name 'R1234' clashes with 'r1234' (expected names that differ in more than case)
    R1234: 64
    ^
END
}

@test "exactly 4 GiB of regions in a bank is refused, as run's placement refuses it" {
    cat >full.yaml <<'END'
name: x
threads:
  - cluster: 1
    sources: [t.c]
    regions: {a: 2GiB, b: 2GiB}
END
    run -2 --separate-stderr kmrun validate full.yaml
    [[ $stderr == "full.yaml:5:24: bank 6 is over 4 GiB with region 'b' (expected at most 4 GiB a bank, its first 16 MiB and each thread's check line and ring included)"* ]] ||
        { echo "stderr: $stderr"; false; }
}

@test "positions and the caret's line agree after a lone CR, NEL, LS and non-ASCII text" {
    # libyaml counts a lone CR, NEL (U+0085) and LS (U+2028) as line breaks
    # and its columns in characters: the line shown must be split the same way.
    printf 'name: x\rthreads: [{cluster: 9, sources: [t.c]}]\n' >cr.yaml
    run -2 --separate-stderr kmrun validate cr.yaml
    expect stderr <<'END'
cr.yaml:2:21: bad cluster '9' (expected 1, 2 or 3)
  threads: [{cluster: 9, sources: [t.c]}]
                      ^
END
    printf 'name: x\xe2\x80\xa8threads:\xc2\x85  - {cluster: 9, sources: [t.c]}\n' >ls.yaml
    run -2 --separate-stderr kmrun validate ls.yaml
    expect stderr <<'END'
ls.yaml:3:15: bad cluster '9' (expected 1, 2 or 3)
    - {cluster: 9, sources: [t.c]}
                ^
END
    cp t.c "$(printf '\xc3\xa9\xc3\xa9.c')"
    printf 'name: x\nthreads: [{sources: [\xc3\xa9\xc3\xa9.c], cluster: 9}]\n' >mb.yaml
    run -2 --separate-stderr kmrun validate mb.yaml
    [[ $stderr == "mb.yaml:2:38: bad cluster '9'"* ]]
    printf '%s\n' "$stderr" | sed -n 3p >caret
    printf '  %37s^\n' '' >want
    diff want caret
}

@test "a source path with a newline is refused, positioned" {
    printf 'int x;\n' >"$(printf 'a\nb.c')"
    cat >nl.yaml <<'END'
name: x
threads: [{cluster: 1, sources: ["a\nb.c"]}]
END
    run -2 --separate-stderr kmrun validate nl.yaml
    expect stderr <<'END'
nl.yaml:2:34: bad source file: it holds a control character, 0x0a (expected a file path without one, such as a newline)
  threads: [{cluster: 1, sources: ["a\nb.c"]}]
                                   ^
END
}
