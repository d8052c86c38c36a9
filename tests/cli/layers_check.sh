#!/usr/bin/env bash
# tests/cli/layers_check.sh: the checks tests/cli/layers.bats makes of the
# module folders, in plain bash (a bats test pays for every command it runs).
#   layers_check.sh TOP modules          the module folders, one a line
#   layers_check.sh TOP no-uses          the folders with no USES_ line
#   layers_check.sh TOP pairs            every pair's include, as the Makefile allows it
#   layers_check.sh TOP closure          no cycles; a folder sees what its uses see
#   layers_check.sh TOP picture README TREE
#                                        README's Layout table is the Makefile's, for TREE
#   layers_check.sh TOP cmd-includes     cmd/'s quoted includes: the public headers (include/) and its own only
# Prints what is wrong; exits 1 when anything is.
set -u
top=$1 what=$2
cd "$top" || exit 2

mapfile -t mods < <(find support device/sim lib cmd -name '*.[ch]' -not -path '*/include/*' \
    -printf '%h\n' | sort -u)
declare -A flags uses header ismod
for f in "${mods[@]}"; do ismod[$f]=1; done
nouses=()
for f in "${mods[@]}"; do
    if ! flags[$f]=$(make -s --no-print-directory print-inc FOLDER="$f" 2>/dev/null); then
        nouses+=("$f")
        flags[$f]=""
    fi
    u=""
    for d in ${flags[$f]}; do
        d=${d#-I}
        [ "$d" != "$f" ] && [ -n "${ismod[$d]:-}" ] && u="$u $d"
    done
    uses[$f]="$u "
    header[$f]=$(find "$f" -maxdepth 1 -name '*.h' -printf '%f\n' | sort | head -1)
done
may() { [[ "${uses[$1]}" == *" $2 "* ]]; }

bad=0
case $what in
modules) printf '%s\n' "${mods[@]}" ;;
cmd-includes)
    # The command is the public API's first user: a quoted include in
    # cmd/ names a public header (include/) or a header of cmd/ itself, nothing else
    # (system headers, <cjson/cJSON.h> among them, come in angle brackets).
    own=" $(cd include && printf "%s " *.h)$(cd cmd && find . -name '*.h' -printf '%f ')"
    while IFS=: read -r file line text; do
        h=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/' <<<"$text")
        [[ "$own" == *" $h "* ]] || { echo "$file:$line: includes \"$h\", which is not a header of include/ or cmd/"; bad=1; }
    done < <(grep -rnE --include='*.[ch]' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' cmd)
    ;;
no-uses) printf '%s\n' "${nouses[@]}" ;;
pairs)
    # One compiler run a folder: it includes a header of every other folder
    # with the folder's flags; -MM -MG names a header it found by its path
    # and one it did not find bare.
    tried=0
    for f in "${mods[@]}"; do
        src=""
        for g in "${mods[@]}"; do
            [ "$f" != "$g" ] && [ -n "${header[$g]}" ] && src+="#include \"${header[$g]}\""$'\n'
        done
        # shellcheck disable=SC2086 # the flags are words
        deps=" $(printf '%s' "$src" | cc -std=c11 -D_GNU_SOURCE -E -MM -MG ${flags[$f]} -x c - 2>&1 |
            tr -d '\\\n') "
        for g in "${mods[@]}"; do
            h=${header[$g]}
            [ "$f" != "$g" ] && [ -n "$h" ] || continue
            tried=$((tried + 1))
            if may "$f" "$g"; then
                [[ "$deps" == *" $g/$h "* ]] || { echo "$f/ may use $g/ but cannot include $h"; bad=1; }
            elif [[ "$deps" == *" $g/$h "* ]]; then
                echo "$f/ can include $g/$h, which it may not use"; bad=1
            elif [[ "$deps" != *" $h "* ]]; then
                echo "$f/: $h was not tried"; bad=1
            fi
        done
    done
    echo "tried $tried pairs"
    [ "$tried" -ge 100 ] || bad=1
    ;;
closure)
    for f in "${mods[@]}"; do
        for g in ${uses[$f]}; do
            may "$g" "$f" && { echo "$f/ and $g/ use each other"; bad=1; }
            for u in ${uses[$g]}; do
                [ "$u" = "$f" ] || may "$f" "$u" ||
                    { echo "$f/ uses $g/, which uses $u/, but $f/ cannot see $u/"; bad=1; }
            done
        done
    done
    ;;
picture)
    readme=$3 tree=$4
    # The table under "## Layout": rows whose first cell is a backticked
    # folder; its last cell names the module folders the folder may include.
    declare -A row
    while IFS=$'\t' read -r f u; do
        row[$f]=" $u "
    done < <(awk '/^## Layout/ { on = 1; next } /^## / { on = 0 }
        on && /^\| `[^`]*\/` \|/ {
            n = split($0, cell, "|"); f = cell[2]; gsub(/[ `]/, "", f); sub(/\/$/, "", f)
            u = cell[n - 1]; out = ""
            while (match(u, /`[^`]*\/`/)) {
                d = substr(u, RSTART + 1, RLENGTH - 3); out = out " " d; u = substr(u, RSTART + RLENGTH)
            }
            print f "\t" out
        }' "$readme")
    for f in "${mods[@]}"; do
        [[ "$f" == "$tree"/* ]] || continue
        [ -n "${row[$f]:-}" ] || { echo "$readme: no row for $f/"; bad=1; continue; }
        want=$(for g in ${uses[$f]}; do [[ "$g" == "$tree"/* ]] && echo "$g"; done | sort | tr '\n' ' ')
        got=$(for g in ${row[$f]}; do echo "$g"; done | sort | tr '\n' ' ')
        [ "$want" = "$got" ] || { echo "$readme: $f/ may include '$got'; the Makefile says '$want'"; bad=1; }
    done
    for f in "${!row[@]}"; do
        [[ "$f" != "$tree"/* ]] || [ -n "${ismod[$f]:-}" ] || { echo "$readme: a row for $f/, no such folder"; bad=1; }
    done
    ;;
*) echo "layers_check.sh: unknown check '$what'" >&2; exit 2 ;;
esac
exit $bad
