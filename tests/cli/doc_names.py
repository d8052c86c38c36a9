#!/usr/bin/env python3
"""doc_names.py TOP paths|options [TABLE]: what the documents name exists.

paths: every path a Markdown file names in backticks (`lib/expect/km_bless.c`,
`tests/isa/*.S`, `device/sim/hart/`) whose first folder is one of the
repository's top (or of the file's own folder: `thread/serve.c` in
programs/10_x280_ports/README.md) is a tracked file or folder, a glob
matching one; a bare source name (`hart_jit.c`, `sim_hart.h`, `gdb_test.c`)
is some tracked file's name; and every `.Pa` path of a man page under a top
folder exists.  Paths of other trees (`env/p/link.ld` of riscv-tests, `build/`,
an install's `share/kmrun/`) and placeholders (`NAME.S`, `$HOME`, `<part>`)
are not checked.

options: TABLE holds "COMMAND OPTION" lines (docs.bats makes it from
`kmrun completion --options`); every `--option` after `kmrun COMMAND` in a
Markdown file's backticks or code blocks (`kmrun run --trace-cores 1.0`,
`kmrun build\\|run --message-format=json`) is an option of that command
(of each command of a `a|b` list).

names: every identifier of the code's prefixes a Markdown file names in
backticks (`sim_jit_stepped`, `kmx_flush_at()`, `SIM_JIT_CUT`, `km_port_*`
as a prefix) is one of the repository's sources, scripts or tests (or a
tracked file's name without its suffix: `gdb_test`).

Each failure a line "FILE:LINE: ..."; exit 1 when any.
"""
import fnmatch
import os
import re
import subprocess
import sys

top, what = sys.argv[1], sys.argv[2]
tracked = subprocess.run(["git", "-C", top, "ls-files"], capture_output=True,
                         text=True, check=True).stdout.split("\n")
tracked = [t for t in tracked if t]
paths = set(tracked)
for t in tracked:
    while "/" in t:
        t = t.rsplit("/", 1)[0]
        paths.add(t)
names = {os.path.basename(p) for p in paths}
heads = {p for p in paths if "/" not in p}
markdown = [t for t in tracked if t.endswith(".md")]
SOURCE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]*\.(c|h|S|ld|bats|py)$")
# Names that are not the repository's files: C's own headers, and the
# half-precision instructions (`fmadd.h`, `fsgnj.h`).
LIBC = {"stdint.h", "stddef.h", "stdbool.h", "stdio.h", "stdlib.h", "string.h",
        "math.h", "errno.h", "limits.h", "stdarg.h", "inttypes.h"}
MNEMONIC = re.compile(r"^f[a-z]+\.h$")
# An install's tree (`lib/libkmrun.a`, `include/kmx.h` in share/kmrun/kmx/)
# begins like the repository's lib/ and include/: such a path is the
# repository's when its second part is.
SHARED = {"lib", "include"}
failures = []


def spans(f):
    """(line, text) of each code span and each code block's line of f."""
    text = open(os.path.join(top, f), encoding="utf-8").read()
    found = []
    for block in re.finditer(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M):
        first = text[:block.start()].count("\n") + 2
        for k, line in enumerate(block.group(1).split("\n")):
            found.append((first + k, line, True))
    prose = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text,
                   flags=re.S | re.M)
    for m in re.finditer(r"`([^`\n]+)`", prose):
        found.append((prose[:m.start()].count("\n") + 1, m.group(1), False))
    return found


def exists(path):
    if any(c in path for c in "*?["):
        return any(fnmatch.fnmatchcase(p, path) for p in paths)
    return path in paths


def check_path(f, line, path):
    path = path.rstrip("/")
    if not path or re.search(r"[$~<>:=%{}\\]|\.\.\.|^\.?/|[A-Z]{3,}", path):
        return
    if "/" not in path:
        if (SOURCE.match(path) and path not in names and path not in LIBC
                and not MNEMONIC.match(path)):
            failures.append("%s:%d: no tracked file is named %s" % (f, line, path))
        return
    here = os.path.dirname(f)
    first = path.split("/")[0]
    if first in SHARED and "/".join(path.split("/")[:2]) not in paths:
        return
    if first in heads:
        ok = exists(path) or (here and exists(os.path.join(here, path)))
    elif here and os.path.join(here, first) in paths:
        ok = exists(os.path.join(here, path))
    else:
        return
    if not ok:
        failures.append("%s:%d: %s does not exist" % (f, line, path))


if what == "paths":
    for f in markdown:
        for line, span, block in spans(f):
            if not block and " " not in span.strip():
                check_path(f, line, span.strip())
    for f in tracked:
        if re.match(r"man/.*\.[1-8]$", f):
            for k, line in enumerate(open(os.path.join(top, f), encoding="utf-8"), 1):
                m = re.match(r"\.Pa (\S+)", line)
                if m and "/" in m.group(1):
                    check_path(f, k, m.group(1))
elif what == "options":
    table = {}
    for line in open(sys.argv[3], encoding="utf-8"):
        if line.strip():
            command, option = line.split()
            table.setdefault(command, {"--help"}).add(option)
    command = re.compile(r"(?:^|[\s/(;&|])kmrun ((?:[a-z-]+\|)*[a-z-]+)((?:[^|;&`)]|\|(?=[a-z]))*)")
    for f in markdown:
        for line, span, _ in spans(f):
            span = span.replace("\\|", "|")
            for m in command.finditer(span):
                commands = m.group(1).split("|")
                if not all(c in table for c in commands):
                    continue
                for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", m.group(2)):
                    for c in commands:
                        if option not in table[c]:
                            failures.append("%s:%d: kmrun %s has no %s" % (f, line, c, option))
elif what == "names":
    code = re.compile(r"\.(c|h|S|py|ld|tsv|bats|bash|sh)$|^Makefile$|^bench/[a-z_]+$")
    words = set()
    for t in tracked:
        if code.search(t):
            try:
                with open(os.path.join(top, t), encoding="utf-8", errors="replace") as h:
                    words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", h.read()))
            except (IsADirectoryError, FileNotFoundError):
                pass
    words.update(os.path.splitext(n)[0] for n in names)
    prefixes = r"(?:sim|kmx|km|kmrun|hart|vec|fpu|grid|gdb|ks|SIM|KMX|KM|KMRUN|BH)_"
    ident = re.compile(r"^(" + prefixes + r"[A-Za-z0-9_]*?)(_?\*|\(\))?$")
    for f in markdown:
        for line, span, block in spans(f):
            m = ident.match(span.strip())
            if block or not m:
                continue
            name = m.group(1)
            if m.group(2) and "*" in m.group(2):
                found = any(w.startswith(name) for w in words)
            else:
                found = name in words
            if not found:
                failures.append("%s:%d: no source names %s" % (f, line, name))
else:
    sys.exit("doc_names.py TOP paths|options|names [TABLE]")
print("\n".join(failures))
sys.exit(1 if failures else 0)
