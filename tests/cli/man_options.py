#!/usr/bin/env python3
"""man_options.py TABLE PAGE: kmrun(1) and the command table agree.

TABLE holds "COMMAND OPTION" lines (man.bats makes it from `kmrun
completion --options`): each command's options, long ("--jobs") and
short ("-j"), and kmrun's own under "kmrun".  PAGE is man/kmrun.1, mdoc.

A command's part of the page is its synopsis in SYNOPSIS (from a line
`.Cm NAME` after `.Nm` to the next `.Nm`) and its items in COMMANDS (from
`.It Nm Cm NAME` to the next command's).  Checked, each failure a line:
  - every option of a command's table is named in an `.It` line of its
    part of COMMANDS (an item of its option list, `.It Fl -name Ar value`,
    or its own item's header, `.It Nm Cm cache Cm stats Op Fl -json`);
  - every option the page names (`Fl -name`, `Fl j` for -j) exists in the table
    of the command it is named for: that of the part it is in, or of a
    command named before it on its line (`.Nm Cm run Fl -thread`);
    outside both parts, in some command's table.  --help (-h) is every
    command's.
Exit 1 when anything fails.
"""
import re
import sys

table = {}
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip():
        command, option = line.split()
        table.setdefault(command, set()).add(option)
commands = set(table) - {"kmrun"}
anyone = set().union(*table.values())
common = {"--help", "-h"}

lines = open(sys.argv[2], encoding="utf-8").read().split("\n")
failures = []
items = {c: set() for c in commands}   # options named in .It lines, per command
section = None
part = None   # the command whose part this line is in, "kmrun", or None
for number, line in enumerate(lines, 1):
    if not line.startswith("."):
        continue
    words = line.split()
    if words[0] == ".Sh":
        section = " ".join(words[1:])
        part = "kmrun" if section == "SYNOPSIS" else None
        continue
    if section == "SYNOPSIS":
        if words[0] == ".Nm":
            part = "kmrun"
        elif words[0] == ".Cm" and len(words) > 1 and words[1] in commands and part == "kmrun":
            part = words[1]
    elif section == "COMMANDS":
        if words[:3] == [".It", "Nm", "Cm"] and len(words) > 3 and words[3] in commands:
            part = words[3]
    owner = part
    for i, word in enumerate(words):
        if i > 0 and words[i - 1] == "Cm" and word in commands:
            owner = word   # ".Nm Cm run Fl -thread": run's option
        # "Fl j" is -j, "Fl -jobs" --jobs ("Fl -" alone ends the options,
        # "Fl finput-charset" is a compiler's).
        if i == 0 or words[i - 1] != "Fl" or not re.fullmatch(r"[a-zA-Z]|-[a-z][a-z0-9-]*", word):
            continue
        option = "-" + word
        where = "man/kmrun.1:%d" % number
        if owner is None:
            if option not in anyone and option not in common:
                failures.append("%s: %s is no option of any command" % (where, option))
            continue
        if option not in table.get(owner, set()) and option not in common:
            failures.append("%s: %s is not an option of %s (its table: %s)" % (
                where, option, "kmrun" if owner == "kmrun" else "kmrun " + owner,
                " ".join(sorted(table.get(owner, set()))) or "none"))
        if section == "COMMANDS" and words[0] == ".It" and owner in items:
            items[owner].add(option)

for command in sorted(commands):
    for option in sorted(table[command] - items[command]):
        failures.append("man/kmrun.1: %s of kmrun %s is in no .It line of its COMMANDS item" % (
            option, command))
print("\n".join(failures))
sys.exit(1 if failures else 0)
