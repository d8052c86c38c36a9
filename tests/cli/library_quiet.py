#!/usr/bin/env python3
"""tests/cli/library_quiet.py TOP: the library never exits or prints.

Only cmd/ ends the process or writes to the terminal; the library (lib/),
support/ and the simulator (device/) report every failure to their caller,
out-of-memory included (README, "Layout"; /work/shared/DESIGN.md).  This
reads every C source and header under them (unit tests aside: *_test.c)
with comments and string and character literals blanked, and prints each
call of abort, exit, _exit, _Exit, quick_exit, assert, printf, vprintf,
puts, putchar or perror, each use of stdout or stderr, and each include of
<err.h> or <assert.h>, as FILE:LINE: WORD.  Exits 1 when it printed any.

ALLOWED lists the exceptions, each a (file, word) with why; it is empty:
nothing below cmd/ needs one.
"""
import os
import re
import sys

ROOTS = ("lib", "support", "device")

# (path from the top, word): why that file may (none today).
ALLOWED = {}

CALL = re.compile(
    r"\b(abort|exit|_exit|_Exit|quick_exit|assert|printf|vprintf|puts|putchar|perror)\s*\("
    r"|\b(stdout|stderr)\b"
    r"|#\s*include\s*<(err|assert)\.h>")


def blank(text):
    """text with comments and literals turned to spaces (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i] and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def main(top):
    found = 0
    for root in ROOTS:
        for folder, dirs, files in os.walk(os.path.join(top, root)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith((".c", ".h")) or name.endswith("_test.c"):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, top)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = blank(f.read())
                for number, line in enumerate(text.split("\n"), 1):
                    for m in CALL.finditer(line):
                        word = m.group(1) or m.group(2) or "<%s.h>" % m.group(3)
                        if (rel, word) in ALLOWED:
                            continue
                        print("%s:%d: %s" % (rel, number, word))
                        found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
