#!/usr/bin/env bats
# kmrun completion: the bash and zsh scripts made from the command table
# (cmd/cmd.c) complete the commands, each command's options and their
# values, manifests, ELF files and the regions of the latest run; and
# the lists they ask kmrun for.  bash is driven as its completion calls
# the function (COMP_WORDS, COMP_CWORD); zsh for real, in a pseudo-
# terminal (tests/cli/zsh_complete.zsh).

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

setup_file() {
    export SCRIPTS=$BATS_FILE_TMPDIR/scripts
    mkdir -p "$SCRIPTS"
    kmrun completion bash >"$SCRIPTS/kmrun"
    kmrun completion zsh >"$SCRIPTS/_kmrun"
    # A program with two regions, run once: the latest run to complete.
    export PROG=$BATS_FILE_TMPDIR/prog
    mkdir -p "$PROG"
    cat >"$PROG/program.yaml" <<'END'
name: two_regions
threads:
  - cluster: 1
    sources: [main.c]
    regions:
      counts: 4KiB
      table: 4KiB
END
    cat >"$PROG/main.c" <<'END'
#include "kmx.h"
int kmx_main(int core) { (void)core; return 0; }
END
    export KMRUN_RUNS=$BATS_FILE_TMPDIR/runs
    kmrun run "$PROG/program.yaml" >"$BATS_FILE_TMPDIR/run.json" 2>"$BATS_FILE_TMPDIR/run.err"
    echo $? >"$BATS_FILE_TMPDIR/run.status"
}

# bash_complete WORD...: what the bash script offers for the last WORD
# (bash splits at '=': give "=" as a word of its own), sorted, a line each.
bash_complete() {
    # shellcheck disable=SC2016 # for the inner bash
    bash -c 'source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _kmrun "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        [ "${#COMPREPLY[@]}" -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}" | sort' \
        bash "$SCRIPTS/kmrun" "$@"
}

# zsh_complete LINE...: "LINE => matches" a line each, what zsh offers at
# the end of each LINE (tests/cli/zsh_complete.zsh).
zsh_complete() {
    "$KMRUN_TOP/tests/cli/zsh_complete.zsh" "$SCRIPTS" "$@"
}

need_zsh() {
    command -v zsh >/dev/null || skip "zsh is not installed (./setup installs it)"
}

ran() {
    [ "$(cat "$BATS_FILE_TMPDIR/run.status")" = 0 ] ||
        { echo "kmrun run failed:"; cat "$BATS_FILE_TMPDIR/run.err"; false; }
}

@test "completion: the bash script parses, and registers _kmrun for kmrun" {
    run -0 bash -n "$SCRIPTS/kmrun"
    run -0 bash -c "source '$SCRIPTS/kmrun' && complete -p kmrun"
    [ "$output" = "complete -F _kmrun kmrun" ]
    grep -q "^# bash completion for kmrun, written by \`kmrun completion bash\` (kmrun $KMRUN_VERSION)$" \
        "$SCRIPTS/kmrun"
}

@test "completion: bash completes commands, options and a choice's values" {
    run -0 bash_complete kmrun ru
    [ "$output" = run ]
    run -0 bash_complete kmrun run --th
    [ "$output" = --thread ]
    run -0 bash_complete kmrun run --thread ''
    expect stdout <<'END'
host
sim
END
    # --thread=<TAB>, as bash splits it, and typed on after the '='.
    run -0 bash_complete kmrun run --thread = ''
    expect stdout <<'END'
host
sim
END
    run -0 bash_complete kmrun run --thread = h
    [ "$output" = host ]
    run -0 bash_complete kmrun read-region --format ''
    expect stdout <<'END'
hex
json
raw
u32
END
    run -0 bash_complete kmrun cache ''
    expect stdout <<'END'
clear
gc
path
stats
END
    run -0 bash_complete kmrun help re
    [ "$output" = read-region ]
    run -0 bash_complete kmrun -
    expect stdout <<'END'
--help
--version
-h
END
    # A value nothing completes (seconds) gets nothing, not files.
    run -0 bash_complete kmrun run --timeout ''
    [ -z "$output" ]
}

@test "completion: bash offers manifests and folders to the program commands, ELF files to exec" {
    cd "$BATS_TEST_TMPDIR"
    mkdir sub
    touch a.yaml b.yaml notes.txt
    cp "$(command -v kmrun)" tool
    printf 'not an ELF\n' >fake.elf
    local c
    for c in run build check validate; do
        run -0 bash_complete kmrun "$c" ''
        expect stdout <<'END'
a.yaml
b.yaml
sub
END
    done
    run -0 bash_complete kmrun run --jobs 2 a
    [ "$output" = a.yaml ]
    run -0 bash_complete kmrun exec ''
    expect stdout <<'END'
sub
tool
END
    run -0 bash_complete kmrun run --run-dir ''
    [ "$output" = sub ]
}

@test "completion: bash completes read-region with the latest run's regions, and --run's" {
    ran
    cd "$BATS_TEST_TMPDIR"
    run -0 bash_complete kmrun read-region ''
    expect stdout <<'END'
counts
table
END
    run -0 bash_complete kmrun read-region t
    [ "$output" = table ]
    # The runs folder on the line wins over KMRUN_RUNS; an empty one has none.
    mkdir empty
    run -0 bash_complete kmrun read-region --run-dir "$PWD/empty" ''
    [ -z "$output" ]
    run -0 bash_complete kmrun read-region --run-dir = "$KMRUN_RUNS" --format hex ''
    [ "${lines[*]}" = "counts table" ]
    local id
    id=$(jq -r .run "$BATS_FILE_TMPDIR/run.json")
    run -0 bash_complete kmrun read-region --run ''
    [ "$output" = "$id" ]
    run -0 bash_complete kmrun read-region --run "$id" c
    [ "$output" = counts ]
}

@test "completion: for every command, bash offers exactly the table's options and --help" {
    local c want
    for c in $(kmrun completion --commands); do
        want=$( (kmrun completion --options "$c" | grep -- '^--'; echo --help) | sort)
        run -0 bash_complete kmrun "$c" --
        [ "$output" = "$want" ] || { echo "kmrun $c --<TAB>: $output (the table: $want)"; false; }
    done
}

@test "completion: --commands is the overview's list, --regions and --runs read the runs folder" {
    ran
    run -0 kmrun completion --commands
    [ "$output" = "$(kmrun_commands)" ]
    run -0 kmrun completion --regions
    [ "${lines[*]}" = "counts table" ]
    run -0 kmrun completion --runs
    [ "$output" = "$(jq -r .run "$BATS_FILE_TMPDIR/run.json")" ]
    run -0 kmrun completion --runs --run-dir "$BATS_TEST_TMPDIR/none"
    [ -z "$output" ]
    run -2 --separate-stderr kmrun completion --regions --run nope
    [[ "$stderr" == "kmrun: "*"nope"* ]] || { echo "$stderr"; false; }
}

@test "completion: usage errors exit 2 with the usage" {
    run -2 --separate-stderr kmrun completion
    expect stderr <<'END'
kmrun: missing the shell (bash or zsh)
usage: kmrun completion bash|zsh
   or: kmrun completion --commands | --options COMMAND | --runs [--run-dir DIR]
   or: kmrun completion --regions [--run RUN] [--run-dir DIR]
END
    run -2 --separate-stderr kmrun completion fish
    [ "${stderr_lines[0]}" = "kmrun: unknown shell 'fish' (expected bash or zsh)" ]
    run -2 --separate-stderr kmrun completion --run x bash
    [ "${stderr_lines[0]}" = "kmrun: --run is only for --regions" ]
    run -2 --separate-stderr kmrun completion --commands --runs
    [ "${stderr_lines[0]}" = "kmrun: --commands, --options, --regions and --runs are one at a time" ]
    run -2 --separate-stderr kmrun completion --options biuld
    [ "${stderr_lines[0]}" = "kmrun: 'biuld' is not a kmrun command (did you mean 'build'?)" ]
}

@test "completion: the zsh script parses, loads after compinit, and defines _kmrun" {
    need_zsh
    run -0 zsh -n "$SCRIPTS/_kmrun"
    [ "$(head -1 "$SCRIPTS/_kmrun")" = "#compdef kmrun" ]
    # Sourced: it registers itself with compdef.
    run -0 zsh -f -c "autoload -Uz compinit && compinit -u -D && source '$SCRIPTS/_kmrun' &&
        (( \$+functions[_kmrun] )) && print -r -- \$_comps[kmrun]"
    [ "$output" = _kmrun ]
    # Found in $fpath, as installed: compinit reads its #compdef line.
    run -0 zsh -f -c "fpath=('$SCRIPTS' \$fpath); autoload -Uz compinit && compinit -u -D &&
        print -r -- \$_comps[kmrun]"
    [ "$output" = _kmrun ]
}

@test "completion: zsh completes commands, options, a choice's values, manifests and the latest run's regions" {
    need_zsh
    ran
    cd "$BATS_TEST_TMPDIR"
    mkdir sub
    touch a.yaml notes.txt
    run -0 zsh_complete 'kmrun ru' 'kmrun run --th' 'kmrun run --thread ' 'kmrun run --thread=' \
        'kmrun read-region ' 'kmrun read-region --format ' 'kmrun run ' 'kmrun cache '
    expect stdout <<'END'
kmrun ru => run
kmrun run --th => --thread
kmrun run --thread  => host sim
kmrun run --thread= => host sim
kmrun read-region  => counts table
kmrun read-region --format  => hex json raw u32
kmrun run  => a.yaml sub
kmrun cache  => clear gc path stats
END
}
