#!/usr/bin/env python3
"""install_writes.py TRACE ROOT_PID CWD ALLOWED...: every write a traced
command made is under one of the ALLOWED folders.

TRACE is the prefix of `strace -ff -y -o TRACE` files (TRACE.<pid>, one a
process), ROOT_PID the traced command's pid, CWD the folder it started
in.  A write is a successful call that creates, changes or removes a
name: open and openat for writing, creat, mkdir, rmdir, unlink, rename,
link, symlink (its new name), truncate, chmod, chown, utimes and their
*at forms.  A relative name is resolved as the kernel does: against the
call's folder descriptor (strace -y shows its path) or the process's
working folder, followed through chdir, fchdir and fork.  Prints how
many writes it checked, then each one outside ALLOWED; exit 1 when any
is, 2 when the trace cannot be read.
"""
import os
import re
import sys

trace, root_pid, start_cwd = sys.argv[1], sys.argv[2], sys.argv[3]
allowed = [os.path.normpath(a) for a in sys.argv[4:]]

WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
# name: (the flags' argument for an open, else None; [(dirfd arg, path arg)])
CALLS = {
    "open": (1, [(None, 0)]),
    "openat": (2, [(0, 1)]),
    "creat": (None, [(None, 0)]),
    "mkdir": (None, [(None, 0)]),
    "rmdir": (None, [(None, 0)]),
    "unlink": (None, [(None, 0)]),
    "truncate": (None, [(None, 0)]),
    "chmod": (None, [(None, 0)]),
    "chown": (None, [(None, 0)]),
    "lchown": (None, [(None, 0)]),
    "utime": (None, [(None, 0)]),
    "utimes": (None, [(None, 0)]),
    "mkdirat": (None, [(0, 1)]),
    "unlinkat": (None, [(0, 1)]),
    "fchmodat": (None, [(0, 1)]),
    "fchownat": (None, [(0, 1)]),
    "utimensat": (None, [(0, 1)]),
    "rename": (None, [(None, 0), (None, 1)]),
    "link": (None, [(None, 0), (None, 1)]),
    "renameat": (None, [(0, 1), (2, 3)]),
    "renameat2": (None, [(0, 1), (2, 3)]),
    "linkat": (None, [(0, 1), (2, 3)]),
    "symlink": (None, [(None, 1)]),
    "symlinkat": (None, [(1, 2)]),
}
LINE = re.compile(r"^([a-z0-9_]+)\((.*)\)\s+=\s+(-?\d+|\?)")


def split_args(text):
    """The call's arguments: commas outside quotes, brackets and braces."""
    args, depth, cur, quoted, i = [], 0, "", False, 0
    while i < len(text):
        c = text[i]
        if quoted:
            cur += c
            if c == "\\" and i + 1 < len(text):
                cur += text[i + 1]
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
            cur += c
        elif c in "([{<":
            depth += 1
            cur += c
        elif c in ")]}>":
            depth -= 1
            cur += c
        elif c == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        args.append(cur.strip())
    return args


def string(arg):
    """A quoted argument's text (strace's escapes undone), else None."""
    m = re.match(r'^"(.*)"(\.\.\.)?$', arg, re.S)
    if not m:
        return None
    return m.group(1).encode("latin-1", "backslashreplace").decode("unicode_escape")


def fd_path(arg):
    """The path strace -y shows for a descriptor: 3</x>, AT_FDCWD</x>."""
    m = re.match(r"^[A-Z_0-9]+<(.*)>$", arg, re.S)
    return m.group(1) if m else None


checked, outside = 0, []


def follow(pid, cwd):
    global checked
    try:
        lines = open("%s.%s" % (trace, pid), encoding="utf-8", errors="replace").read().split("\n")
    except OSError as e:
        print("cannot read the trace of process %s: %s" % (pid, e))
        sys.exit(2)
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        name, argtext, ret = m.groups()
        if ret == "?" or ret.startswith("-"):
            continue
        args = split_args(argtext)
        if name in ("clone", "clone3", "fork", "vfork"):
            follow(ret, cwd)
            continue
        if name == "chdir":
            path = string(args[0])
            cwd = os.path.normpath(os.path.join(cwd, path))
            continue
        if name == "fchdir":
            cwd = fd_path(args[0]) or cwd
            continue
        if name not in CALLS:
            continue
        flags, places = CALLS[name]
        if flags is not None and not any(f in args[flags] for f in WRITE_FLAGS):
            continue
        for dirfd, at in places:
            path = string(args[at]) if at < len(args) else None
            base = fd_path(args[dirfd]) if dirfd is not None else None
            if path is None:      # utimensat(fd, NULL, ...): the descriptor's file
                path = base or ""
            full = os.path.normpath(os.path.join(base or cwd, path))
            checked += 1
            if not any(full == a or full.startswith(a + "/") for a in allowed):
                outside.append("%s (process %s: %s)" % (full, pid, line.strip()))


follow(root_pid, start_cwd)
print("%d writes" % checked)
for o in outside:
    print("outside: " + o)
sys.exit(1 if outside else 0)
