"""The package's words: the README's Python example runs as written,
help() reads, every public name and every module has its docstring, and
no module is over 1,000 lines; and the package is found from an
installation's layout (PREFIX/lib/python3/dist-packages beside PREFIX/lib)."""

import io
import os
import pydoc
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import _support as s
import kmrun as km
from kmrun import _lib

PACKAGE = os.path.join(s.PYTHON_DIR, "kmrun")


def readme_example():
    with open(os.path.join(s.TOP, "README.md")) as f:
        text = f.read()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


class Docs(unittest.TestCase):
    def test_readme_example_runs(self):
        env = dict(os.environ, PYTHONPATH=s.PYTHON_DIR)
        p = subprocess.run([sys.executable, "-c", readme_example()], cwd=s.TOP, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertTrue(p.stdout.decode().startswith("returned "), p.stdout)

    def test_help(self):
        text = pydoc.render_doc(km.Session, renderer=pydoc.plaintext)
        for word in ("backend", "cache=", "runs=", "run_folder", "check_handover",
                     "wall_timeout", "on_print", "on_progress", "load(", "close("):
            self.assertIn(word, text)
        out = io.StringIO()
        pydoc.Helper(output=out).help(km)
        self.assertIn("ThreadFailed", out.getvalue())

    def test_docstrings(self):
        self.assertTrue(km.__doc__)
        for name in km.__all__:
            obj = getattr(km, name)
            if isinstance(obj, (str, int)):
                continue
            self.assertTrue(obj.__doc__, name)
            for attr, value in vars(obj).items():
                if attr.startswith("_") or not (callable(value) or isinstance(value, property)):
                    continue
                self.assertTrue(getattr(value, "__doc__", None), "%s.%s" % (name, attr))

    def test_modules(self):
        for f in sorted(os.listdir(PACKAGE)):
            if not f.endswith(".py"):
                continue
            with open(os.path.join(PACKAGE, f)) as g:
                text = g.read()
            self.assertTrue(text.startswith('"""'), f + " opens with its docstring")
            self.assertLessEqual(text.count("\n"), 1000, f)

    def test_version(self):
        with open(os.path.join(s.TOP, "VERSION")) as f:
            self.assertEqual(km.__version__, f.read().strip())
        # the header's KMRUN_API_VERSION, which the package speaks
        with open(os.path.join(s.TOP, "include", "kmrun.h")) as f:
            want = int(re.search(r"^#define KMRUN_API_VERSION (\d+)$", f.read(), re.M).group(1))
        self.assertEqual(km.api_version, want)
        self.assertEqual(_lib.API_VERSION, want)


class Installed(unittest.TestCase):
    """An installation's layout: the package finds PREFIX/lib's library
    (and the library PREFIX/share/kmrun) with no KMRUN_LIBRARY."""

    def test_installed_layout(self):
        lib = os.path.join(s.BUILD, "lib", "libkmrun.so")
        with tempfile.TemporaryDirectory() as prefix:
            dist = os.path.join(prefix, "lib", "python3", "dist-packages")
            shutil.copytree(PACKAGE, os.path.join(dist, "kmrun"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copy(os.path.realpath(lib), os.path.join(prefix, "lib", "libkmrun.so"))
            os.makedirs(os.path.join(prefix, "share"))
            os.symlink(os.path.join(s.BUILD, "share", "kmrun"), os.path.join(prefix, "share", "kmrun"))
            env = {k: v for k, v in os.environ.items() if k not in ("KMRUN_LIBRARY", "KMRUN_DATA")}
            env["PYTHONPATH"] = dist
            code = ("import kmrun as km, os\n"
                    "p = km.Program.from_manifest(%r)\n"
                    "with km.Session() as s, s.load(p) as r:\n"
                    "    print(r.thread_result().words, km.__file__)\n"
                    % os.path.join(s.TOP, "programs/01_hello/program.yaml"))
            p = subprocess.run([sys.executable, "-c", code], cwd=prefix, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            self.assertTrue(p.stdout.decode().startswith("(42,) " + dist), p.stdout)


if __name__ == "__main__":
    unittest.main()
