#!/usr/bin/env bats
# Documents are code: no file in the repository holds a merge-conflict
# marker, and every relative link of a Markdown file resolves to a file or
# folder inside the repository (a clone has nothing beside it).

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
