"""07_work_cluster driven from Python, as the spec describes it: the
thread's host fallback is a Python function, and its decision is the same
plain-C thread/split.c the card runs, compiled here into a shared object
and called through ctypes — so the card and the fallback run one decision.

    PYTHONPATH=../../python python3 host.py

Runs the program on the simulated card, then with the Python fallback
(``thread="host"``), prints each run's result words, and whether the two
agree bit for bit (result words and every byte of `out`); exit 0 when they
do.  $CC names the compiler (default: cc).
"""

import ctypes
import os
import subprocess
import sys
import tempfile

import kmrun as km

HERE = os.path.dirname(os.path.abspath(__file__))
ITEM_WORDS = 64
MASK = 0xFFFFFFFF


def load_split(folder):
    """thread/split.c as a shared object: split_costs(cost, n, bound)."""
    so = os.path.join(folder, "libsplit.so")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O2", "-shared", "-fPIC", "-o", so,
                    os.path.join(HERE, "thread", "split.c")], check=True)
    lib = ctypes.CDLL(so)
    lib.split_costs.argtypes = [ctypes.POINTER(ctypes.c_uint32), ctypes.c_uint32,
                                ctypes.POINTER(ctypes.c_uint32)]
    lib.split_costs.restype = ctypes.c_uint64
    return lib


def mix(v):
    """work.c's round: a 32-bit xor-shift-multiply."""
    v ^= v >> 16
    v = (v * 0x7FEB352D) & MASK
    v ^= v >> 15
    v = (v * 0x846CA68B) & MASK
    v ^= v >> 16
    return v


def fallback_of(split):
    def work(regions, words, run):
        """thread/work.c in Python, its decision split.c's own."""
        costs, data, out = regions
        run.invalidate("costs")  # what the host wrote, as work.c reads it
        run.invalidate("data")
        n = len(costs)
        if any(c == 0 or c > 64 for c in costs):
            return 3, []
        bound = (ctypes.c_uint32 * 5)()
        split.split_costs((ctypes.c_uint32 * n)(*costs), n, bound)
        checksum = 0
        for item in range(n):
            for k in range(item * ITEM_WORDS, (item + 1) * ITEM_WORDS):
                v = data[k] ^ k
                for _ in range(costs[item]):
                    v = mix(v)
                out[k] = v
                checksum = (checksum + v * (k + 1)) & MASK
        run.flush("out")  # the host reads `out` after the stop
        parts = [sum(costs[bound[p]:bound[p + 1]]) for p in range(4)]
        return 0, [n, bound[1], bound[2], bound[3], *parts, checksum]
    return work


def main():
    with tempfile.TemporaryDirectory(prefix="kmrun-07-") as folder:
        program = km.Program.from_manifest(os.path.join(HERE, "program.yaml"))
        program.set_host_fallback(1, fallback_of(load_split(folder)))
        seen = {}
        for thread in (None, "host"):
            with km.Session() as session, session.load(program, thread=thread) as run:
                result = run.thread_result(timeout=10.0)
                run.stop()
                seen[thread or "card"] = (result.words, run.thread.read("out"))
                print("%s: %s %s" % (thread or "card", result.state, list(result.words)))
    same = seen["card"] == seen["host"]
    print("card and Python fallback agree bit for bit" if same else "card and Python fallback differ")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
