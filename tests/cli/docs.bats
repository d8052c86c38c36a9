#!/usr/bin/env bats
# Documents are code: no file in the repository holds a merge-conflict
# marker, every relative link of a Markdown file resolves to a file or
# folder inside the repository (a clone has nothing beside it), the paths,
# file names, code names and kmrun options the documents name exist
# (tests/cli/doc_names.py), and each fixture folder's README names its
# files.

load helpers

@test "no tracked file holds a merge-conflict marker" {
    # The markers are made here, not written, so this file holds none.
    local lt gt eq
    lt=$(printf '%*s' 7 '' | tr ' ' '<') gt=$(printf '%*s' 7 '' | tr ' ' '>')
    eq=$(printf '%*s' 7 '' | tr ' ' '=')
    run git -C "$KMRUN_TOP" grep -nIE "^($lt |$gt |$eq\$)"
    [ "$status" -eq 1 ] || { echo "conflict markers:"; echo "$output"; false; }
}

@test "every relative link of a Markdown file resolves inside the repository" {
    run python3 - "$KMRUN_TOP" <<'PY'
import os, re, subprocess, sys
top = sys.argv[1]
files = subprocess.run(["git", "-C", top, "ls-files", "*.md"], capture_output=True,
                       text=True, check=True).stdout.split()
bad = []
for f in files:
    with open(os.path.join(top, f), encoding="utf-8") as h:
        text = re.sub(r"```.*?```", "", h.read(), flags=re.S)
    for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", text):
        link = m.group(1)
        if re.match(r"[a-z][a-z+.-]*:", link) or link.startswith("#"):
            continue
        rel = os.path.normpath(os.path.join(os.path.dirname(f), link.split("#")[0]))
        if rel.startswith("..") or not os.path.exists(os.path.join(top, rel)):
            bad.append("%s: %s" % (f, link))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
    [ "$status" -eq 0 ] || { echo "links that resolve to nothing in the repository:"; echo "$output"; false; }
}

@test "every path and source name the Markdown files and man pages name exists" {
    run python3 "$KMRUN_TOP/tests/cli/doc_names.py" "$KMRUN_TOP" paths
    [ "$status" -eq 0 ] || { echo "named, not in the repository:"; echo "$output"; false; }
}

@test "every function, type and constant of the code's prefixes a Markdown file names exists" {
    run python3 "$KMRUN_TOP/tests/cli/doc_names.py" "$KMRUN_TOP" names
    [ "$status" -eq 0 ] || { echo "named, not in the sources:"; echo "$output"; false; }
}

@test "every kmrun option a Markdown file names after its command is an option of that command" {
    local c o
    for c in $(kmrun completion --commands); do
        for o in $(kmrun completion --options "$c"); do echo "$c $o"; done
    done >"$BATS_TEST_TMPDIR/table"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/table")" -ge 50 ]
    run python3 "$KMRUN_TOP/tests/cli/doc_names.py" "$KMRUN_TOP" options "$BATS_TEST_TMPDIR/table"
    [ "$status" -eq 0 ] || { echo "options the documents name that kmrun does not have:"; echo "$output"; false; }
}

@test "a fixture folder's README names each of its files" {
    local readme dir f bad=
    for readme in "$KMRUN_TOP"/tests/fixtures/*/README; do
        dir=${readme%/README}
        for f in $(git -C "$dir" ls-files . | grep -v / ); do
            [ "$f" = README ] || grep -qwF "$f" "$readme" || bad+=" ${dir#"$KMRUN_TOP"/}/$f"
        done
    done
    [ -z "$bad" ] || { echo "not in their folder's README:$bad"; false; }
}
