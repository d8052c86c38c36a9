#!/usr/bin/env python3
"""Runs the examples of a README, as rustdoc runs a crate's doc examples.

usage: doc_examples.py README.md...   (from the checkout's top, with the
kmrun under test first on PATH and KMRUN_RUNS set to a scratch folder)

A README's fenced blocks, by their info string:

  sh ci     the commands CI runs (.ci/run): tests/cli/readme.bats checks them.
  sh make   make commands, not run (they build and test the checkout): each
            target is a rule of the Makefile or an included .mk file.
  sh        commands, run in order from the checkout's top (`build/bin/kmrun`
            is the kmrun on PATH; `make libkmrun` is skipped: the build under
            test has it); the block fails on the first command that fails.
  (none)    what the sh block before it printed: every line is in that
            block's stdout or stderr ("..." stands for any text), or, for a
            line "$ COMMAND", what COMMAND prints (its lines follow it).
  json      a JSON value that the sh block before it printed, or a part of
            one (an object of any level, `jq -c .threads[0]`): every key it
            has is the printed value's, but for the run's name, folder and
            real time.
  python    run with the interpreter (its folder's host scripts import the
            checkout's kmrun package); when its last lines are comments
            "# ..." after a print, they are what it prints.
  yaml      a manifest: the one of the program with its `name:`, comments
            aside.
  c         an excerpt or an API sketch: every function it calls is declared
            in a header of the checkout.
  text      a listing or a diagram: not an example, not checked.

Any other info string is an error: an example the test would not check.
Prints one line per block checked and exits 1 on the first failure.
"""
import json
import os
import re
import subprocess
import sys

VOLATILE = {"run", "run_dir", "wall_seconds"}
C_KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do"}


def blocks(path):
    """(info, first line number, lines) of each fenced block."""
    out, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("```"):
                if cur is None:
                    cur = (line[3:].strip(), n + 1, [])
                else:
                    out.append(cur)
                    cur = None
            elif cur is not None:
                cur[2].append(line)
    if cur is not None:
        raise SystemExit(f"{path}:{cur[1] - 1}: a fenced block that never ends")
    return out


def shell_line(line):
    line = re.sub(r"(^|[;&|(]\s*)build/bin/kmrun\b", r"\1kmrun", line.strip())
    return line


def run_sh(lines):
    script = [shell_line(l) for l in lines if l.strip() and l.strip() != "make libkmrun"]
    text = "set -eo pipefail\n" + "\n".join(script) + "\n"
    p = subprocess.run(["bash", "-c", text], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr, script


def wildcard(line):
    parts = [re.escape(p) for p in line.strip().split("...")]
    return re.compile(r"\s+".join(".*".join(parts).split(r"\ ")))


def json_values(text):
    """Every JSON value in text, in order (documents and JSON lines)."""
    dec, i, vals = json.JSONDecoder(), 0, []
    while i < len(text):
        j = min([k for k in (text.find("{", i), text.find("[", i)) if k >= 0], default=-1)
        if j < 0:
            break
        try:
            v, i = dec.raw_decode(text, j)
            vals.append(v)
        except json.JSONDecodeError:
            i = j + 1
    return vals


def subset(doc, actual, path="$"):
    """None when every key and item of doc is actual's, else the first difference."""
    if isinstance(doc, dict):
        if not isinstance(actual, dict):
            return f"{path}: an object in the document, {json.dumps(actual)[:60]} printed"
        for k, v in doc.items():
            if k in VOLATILE:
                continue
            if k not in actual:
                return f"{path}.{k}: in the document, not printed"
            d = subset(v, actual[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(doc, list):
        if not isinstance(actual, list) or len(actual) != len(doc):
            return f"{path}: {json.dumps(doc)[:60]} in the document, {json.dumps(actual)[:60]} printed"
        for i, (a, b) in enumerate(zip(doc, actual)):
            d = subset(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    if doc != actual:
        return f"{path}: {json.dumps(doc)} in the document, {json.dumps(actual)} printed"
    return None


def nodes(v):
    yield v
    if isinstance(v, dict):
        for x in v.values():
            yield from nodes(x)
    elif isinstance(v, list):
        for x in v:
            yield from nodes(x)


def likeness(doc, node):
    """How many of doc's keys node has (the closest printed value is named)."""
    if isinstance(doc, dict) and isinstance(node, dict):
        return sum(k in node for k in doc)
    return 0


def check_json(lines, printed):
    doc = json.loads("\n".join(lines))
    best, score = None, -1
    for v in printed:
        for node in nodes(v):
            if type(node) is type(doc):
                d = subset(doc, node)
                if d is None:
                    return None
                if likeness(doc, node) > score:
                    best, score = d, likeness(doc, node)
    return best or "no JSON value of that shape was printed"


def check_output(lines, out, err):
    printed = (out + "\n" + err).splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            cmd = shell_line(line[2:])
            want = []
            i += 1
            while i < len(lines) and not lines[i].startswith("$ "):
                want.append(lines[i])
                i += 1
            p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
            if p.returncode != 0:
                return f"'{cmd}' exited {p.returncode}: {p.stderr.strip()[:200]}"
            got = p.stdout.splitlines()
            if [w.rstrip() for w in want] != [g.rstrip() for g in got]:
                return f"'{cmd}' printed {got!r}, the document says {want!r}"
            continue
        if line.strip() and not any(wildcard(line).fullmatch(p.strip()) for p in printed):
            return f"not printed: {line.strip()!r}"
        i += 1
    return None


def check_python(lines, folder, top):
    code = "\n".join(lines)
    tail = []
    for k in range(len(lines) - 1, -1, -1):
        if not lines[k].startswith("# "):
            if "print(" not in lines[k]:
                tail = []  # comments, not what a print printed
            break
        tail.insert(0, lines[k][2:])
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=top)
    if p.returncode != 0:
        return f"exited {p.returncode}: {p.stderr.strip()[-300:]}"
    if tail:
        want = " ".join(" ".join(tail).split())
        got = " ".join(p.stdout.split())
        if want != got:
            return f"printed {got!r}, the comments say {want!r}"
    return None


def strip_yaml(text):
    out = []
    for l in text.splitlines():
        l = re.sub(r"\s+#.*$", "", l) if not l.lstrip().startswith("#") else ""
        if l.strip():
            out.append(l.rstrip())
    return out


def check_yaml(lines, top):
    m = next((re.match(r"name:\s*(\S+)", l) for l in lines if l.startswith("name:")), None)
    if not m:
        return "a manifest without a name: line"
    for d in sorted(os.listdir(os.path.join(top, "programs"))):
        path = os.path.join(top, "programs", d, "program.yaml")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if re.search(rf"^name:\s*{re.escape(m.group(1))}\s*$", text, re.M):
                if strip_yaml(text) == strip_yaml("\n".join(lines)):
                    return None
                return f"differs from programs/{d}/program.yaml"
    return f"no program is named '{m.group(1)}'"


def check_make(lines, top):
    """Each line a `make TARGET ...` whose target is a rule of the build."""
    rules = ""
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
        for f in files:
            if f == "Makefile" or f.endswith(".mk"):
                with open(os.path.join(root, f), encoding="utf-8") as m:
                    rules += m.read()
    for line in lines:
        words = [w for w in line.split("#")[0].split() if "=" not in w]
        if not words:
            continue
        if words[0] != "make" or len(words) < 2:
            return f"not a make command: {line.strip()!r}"
        if not re.search(rf"^{re.escape(words[1])}\s*:", rules, re.M) and \
                not re.search(rf"^\.PHONY:.*\b{re.escape(words[1])}\b", rules, re.M):
            return f"'make {words[1]}': no such rule in the Makefile"
    return None


def declared(name, headers):
    pat = re.compile(rf"(\b{re.escape(name)}\s*\(|#\s*define\s+{re.escape(name)}\b)")
    return any(pat.search(h) for h in headers)


def check_c(lines, headers):
    code = re.sub(r"/\*.*?\*/", "", "\n".join(lines), flags=re.S)
    code = re.sub(r"//.*", "", code)
    for name in sorted(set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code)) - C_KEYWORDS):
        if not declared(name, headers):
            return f"'{name}' is declared in no header of the checkout"
    return None


def read_headers(top):
    texts = []
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
        for f in files:
            if f.endswith(".h"):
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as h:
                    texts.append(h.read())
    return texts


def roff_text(line):
    """A line of a literal block as it shows."""
    for a, b in (("\\(*mu", "\u00b5"), ("\\e", "\\"), ("\\-", "-"), ("\\&", "")):
        line = line.replace(a, b)
    return line


def man_examples(path):
    """(first line number, lines) of each literal block of EXAMPLES."""
    out, on, cur = [], False, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith(".Sh "):
                on = line == ".Sh EXAMPLES"
            elif on and line.startswith(".Bd -literal"):
                cur = (n + 1, [])
            elif cur is not None and line == ".Ed":
                out.append(cur)
                cur = None
            elif cur is not None:
                cur[1].append(roff_text(line))
    return out


def same_text(want, got):
    """want's words are got's, "..." standing for any text."""
    run_id = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}")  # a run's name: its time
    pattern = wildcard(" ".join(run_id.sub("RUN", want).split()))
    return pattern.fullmatch(" ".join(run_id.sub("RUN", got).split())) is not None


def check_session(lines, cwd):
    """A shell session: "$ COMMAND" (continued on indented lines after a
    trailing "|"), then what it prints; `echo $?` sees the last status."""
    cmds, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            return f"a line outside a command's output: {lines[i]!r}"
        cmd = lines[i][2:]
        i += 1
        while cmd.rstrip().endswith(("|", "\\")) and i < len(lines):
            cmd = cmd.rstrip().rstrip("\\") + " " + lines[i].strip()
            i += 1
        want = []
        while i < len(lines) and not lines[i].startswith("$ "):
            want.append(lines[i])
            i += 1
        cmds.append((cmd, want))
    status = 0
    for k, (cmd, want) in enumerate(cmds):
        env = {k: v for k, v in os.environ.items() if k != "KMRUN_RUNS"}  # .kmrun/runs
        p = subprocess.run(["bash", "-c", f"(exit {status}); {cmd}"], capture_output=True,
                           text=True, cwd=cwd, env=env)
        status = p.returncode
        shown = k + 1 < len(cmds) and cmds[k + 1][0].strip() == "echo $?"
        if status != 0 and not shown:
            return f"'{cmd}' exited {status}: {p.stderr.strip()[-300:]}"
        if want and not same_text("\n".join(want), p.stdout + p.stderr):
            return f"'{cmd}' printed {(p.stdout + p.stderr).strip()[:400]!r}, the page says {' '.join(want)[:400]!r}"
    return None


def check_manifest(lines, folder):
    """A manifest example passes `kmrun validate`, the files it names made
    (empty) beside it."""
    os.makedirs(folder, exist_ok=True)
    text = "\n".join(lines) + "\n"
    for name in re.findall(r"[\w.-]+/[\w./-]+\.\w+", text):
        os.makedirs(os.path.join(folder, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(bytes(64))  # a source or a region's initial bytes
    with open(os.path.join(folder, "program.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    p = subprocess.run(["kmrun", "validate", "program.yaml"], capture_output=True, text=True,
                       cwd=folder)
    return None if p.returncode == 0 else f"kmrun validate: {p.stderr.strip()[:400]}"


def check_man(path, top, scratch):
    """The EXAMPLES of a man page: sessions run in a scratch folder that
    sees the checkout's programs/ and tests/; a C source compiled."""
    failed = 0
    for line, lines in man_examples(path):
        where = f"{path}:{line}"
        if lines and lines[0].startswith("$ "):
            why = check_session(lines, scratch)
            kind = "session"
        elif any(l.startswith("#include") for l in lines):
            why, kind = None, "c (compiled by its own test)"
            with open(os.path.join(scratch, "example.c"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            if not any(path.endswith(m) for m in COMPILED):
                why = "a C example no test compiles"
        elif any(l.startswith("name:") for l in lines):
            why, kind = check_manifest(lines, os.path.join(scratch, f"manifest-{line}")), "manifest"
        else:
            why, kind = "an example that is neither a shell session, C nor a manifest", "?"
        print(f"{'ok' if why is None else 'FAIL'} {where} {kind}")
        if why:
            print(f"{where}: {why}", file=sys.stderr)
            failed += 1
    return failed


# The man pages whose C example a test builds: kmrun.3's (tests/cli/api.bats
# builds and runs it; the session after it here builds it as the page says),
# km_device.3's and kmx.3's (tests/cli/doc_examples.bats builds each).
COMPILED = ("kmrun.3", "km_device.3", "kmx.3")


def main(argv):
    top = os.getcwd()
    headers = None
    failed = 0
    for readme in argv[1:]:
        if re.search(r"\.[1-8]$", readme):
            scratch = os.environ.get("KMRUN_DOC_SCRATCH") or os.path.join(
                os.environ.get("TMPDIR", "/tmp"), f"kmrun-doc-{os.getpid()}")
            os.makedirs(scratch, exist_ok=True)
            links = {d: os.path.join(top, d) for d in ("programs", "tests", "include")}
            links["build"] = os.environ.get("KMRUN_BUILD") or os.path.join(top, "build")
            for d, target in links.items():
                if not os.path.lexists(os.path.join(scratch, d)):
                    os.symlink(target, os.path.join(scratch, d))
            failed += check_man(readme, top, scratch)
            continue
        folder = os.path.dirname(os.path.abspath(readme))
        last = None  # (stdout, stderr) of the last sh block
        for info, line, lines in blocks(readme):
            where = f"{readme}:{line}"
            kind = info.split()[0] if info else ""
            if kind == "sh" and "ci" in info.split()[1:]:
                continue  # CI's own commands (.ci/run; tests/cli/readme.bats)
            if kind == "sh" and "make" in info.split()[1:]:
                why = check_make(lines, top)
                print(f"{'ok' if why is None else 'FAIL'} {where} make")
                if why:
                    print(f"{where}: {why}", file=sys.stderr)
                    failed += 1
                continue
            if kind == "sh":
                rc, out, err, script = run_sh(lines)
                last = (out, err)
                why = None if rc == 0 else f"exited {rc}: {err.strip()[-400:]}"
            elif kind == "":
                why = "an output block with no sh block before it" if last is None \
                    else check_output(lines, *last)
            elif kind == "json":
                why = "a JSON block with no sh block before it" if last is None \
                    else check_json(lines, json_values(last[0]) + json_values(last[1]))
            elif kind == "python":
                why = check_python(lines, folder, top)
            elif kind == "yaml":
                why = check_yaml(lines, top)
            elif kind == "c":
                headers = headers if headers is not None else read_headers(top)
                why = check_c(lines, headers)
            elif kind == "text":
                continue
            else:
                why = f"a block of kind '{info}', which no test checks (sh, json, python, yaml, c, text)"
            print(f"{'ok' if why is None else 'FAIL'} {where} {kind or 'output'}")
            if why:
                print(f"{where}: {why}", file=sys.stderr)
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
