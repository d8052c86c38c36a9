"""What the Python package's tests share: the checkout's paths, the
package made importable from python/, one temporary KMRUN_CACHE (tests/run's
when it exported one) and KMRUN_RUNS for the whole process, and `kmrun run`
through the command for the JSON to compare with."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("KMRUN_BUILD") or os.path.join(TOP, "build")
KMRUN = os.path.join(BUILD, "bin", "kmrun")
PYTHON_DIR = os.path.join(TOP, "python")

if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)
if not os.environ.get("KMRUN_LIBRARY") and os.environ.get("KMRUN_BUILD"):
    os.environ["KMRUN_LIBRARY"] = os.path.join(BUILD, "lib", "libkmrun.so")

_TMP = tempfile.mkdtemp(prefix="kmrun-py-test.")
if not os.environ.get("KMRUN_CACHE"):
    os.environ["KMRUN_CACHE"] = os.path.join(_TMP, "cache")
os.environ["KMRUN_RUNS"] = os.path.join(_TMP, "runs")


def _cleanup(path=_TMP, rmtree=shutil.rmtree):
    rmtree(path, ignore_errors=True)


import atexit  # noqa: E402

atexit.register(_cleanup)


def program(rel):
    """The path of a manifest under the checkout."""
    return os.path.join(TOP, rel)


def kmrun_run(manifest, *options):
    """`kmrun run` of a manifest: (its JSON parsed, its exit status)."""
    p = subprocess.run([KMRUN, "run", *options, manifest], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return json.loads(p.stdout), p.returncode


def region_file(run_json, cluster, name):
    """A region's bytes from a run folder (`kmrun run`'s)."""
    folder = run_json["run_dir"]
    with open(os.path.join(folder, "regions.json")) as f:
        for r in json.load(f):
            if r["cluster"] == cluster and r["name"] == name:
                with open(os.path.join(folder, r["file"]), "rb") as g:
                    return g.read()
    raise KeyError((cluster, name))


def without_wall(doc):
    """A run JSON without what differs between two runs of one program."""
    doc = dict(doc)
    for k in ("run", "run_dir", "wall_seconds"):
        doc.pop(k, None)
    return doc
