"""Programs built in code (``Program(name, kernels=...)``, ``.region``,
``.thread``): programs/01_hello, 02_parallel_sum (its region's contents
given as an array) and 03_ring (its kernels as a folder) built in code
give `kmrun run`'s JSON for their manifests but for the run id, folder
and wall time; every kind of array is a region's initial bytes; each
wrong type or value is a kmrun exception (or TypeError) naming it, and a
refused part leaves the program usable."""

import array
import os
import unittest

import _support as s
import kmrun as km

FILL = 0x9E3779B9


def hello():
    p = km.Program("hello", root=s.program("programs/01_hello"))
    p.thread(cluster=1, sources=["thread/hello.c"], regions={"out": 4096}, words=[7, 6],
             deadline=1.0)
    return p


def parallel_sum(data):
    p = km.Program("parallel_sum", root=s.program("programs/02_parallel_sum"))
    p.thread(cluster=1, sources=["thread/sum.c"], regions={"data": data}, deadline=1)
    return p


def ring():
    p = km.Program("ring", kernels="kernels", handlers=["collatz"],
                   root=s.program("programs/03_ring"))
    p.thread(cluster=1, sources=["thread/ring.c"], regions={"live": 4096, "counts": 1024},
             words=[1000, 8], deadline=1.0)
    return p


def run_json(program, region=None):
    with km.Session() as session, session.load(program) as run:
        run.thread_results(timeout=10.0)
        run.stop()
        data = run.thread.read(region) if region else None
        return run.result, data


class SameAsTheManifest(unittest.TestCase):
    def check(self, program, rel, region=None):
        doc, data = run_json(program, region)
        cli, status = s.kmrun_run(s.program(rel))
        self.assertEqual(status, 0)
        self.assertEqual(s.without_wall(doc), s.without_wall(cli))
        if region:
            self.assertEqual(data, s.region_file(cli, 1, region))
        return doc

    def test_hello(self):
        doc = self.check(hello(), "programs/01_hello/program.yaml", "out")
        self.assertEqual(doc["threads"][0]["words"], [42])

    def test_parallel_sum_from_an_array(self):
        self.check(parallel_sum(array.array("I", [FILL]) * (1 << 18)),
                   "programs/02_parallel_sum/program.yaml", "data")

    def test_ring_with_its_kernels_folder(self):
        self.check(ring(), "programs/03_ring/program.yaml")


class Arrays(unittest.TestCase):
    """Every buffer is a region's first bytes, the rest zeros."""

    def sum_of(self, data):
        p = km.Program("sums", root=s.program("programs/02_parallel_sum"))
        p.region("data", data)
        p.thread(cluster=1, sources=["thread/sum.c"], shared=["data"])
        doc, read = run_json(p, "data")
        return doc["threads"][0]["words"][0], read

    def test_kinds(self):
        words = array.array("I", range(1024))
        raw = words.tobytes()
        for data in (raw, bytearray(raw), words, memoryview(raw)):
            total, read = self.sum_of(data)
            self.assertEqual(total, sum(range(1024)), type(data).__name__)
            self.assertEqual(read, raw)

    def test_numpy_when_there(self):
        try:
            import numpy
        except ImportError:
            self.skipTest("numpy is not installed")
        data = numpy.arange(2048, dtype=numpy.uint32)[::2]  # not contiguous
        total, read = self.sum_of(data)
        self.assertEqual(total, sum(range(0, 2048, 2)))

    def test_own_region_bytes_on_the_host_fallback(self):
        p = km.Program("sums", root=s.program("programs/02_parallel_sum"))
        p.region("data", 8192)
        p.thread(cluster=1, sources=["thread/sum.c"], regions={"own": b"\x05\0\0\0" * 4},
                 shared=["data"])
        with km.Session("host") as session, session.load(p) as run:
            self.assertEqual(run.thread_result().code, 0)
            run.stop()
            self.assertEqual(run.thread.read("own"), b"\x05\0\0\0" * 4)


class Threads(unittest.TestCase):
    def test_clusters_gives_a_list_and_keeps_host_fallback(self):
        p = km.Program("two", root=s.program("programs/02_parallel_sum"))
        p.region("data", 4096)

        def fallback(regions, words, run):
            return 0, []

        threads = p.thread(clusters=(2, 3), sources=["thread/sum.c"], shared=["data"],
                           host_fallback=fallback)
        self.assertEqual([t.cluster for t in threads], [2, 3])
        self.assertTrue(all(t.host_fallback is fallback for t in threads))
        self.assertEqual(p.clusters, (2, 3))
        self.assertEqual(p.threads, threads)
        one = km.Program("one", root=s.program("programs/01_hello"))
        t = one.thread(cluster=1, sources=["thread/hello.c"])
        self.assertIsInstance(t, km.Thread)
        self.assertIsNone(t.host_fallback)


class Refusals(unittest.TestCase):
    def setUp(self):
        self.p = km.Program("p", root=s.program("programs/01_hello"))
        self.p.region("data", 4096)
        self.p.thread(cluster=1, sources=["thread/hello.c"], words=[7, 6])

    def refused(self, exc, pattern, **kw):
        kw.setdefault("sources", ["thread/hello.c"])
        with self.assertRaisesRegex(exc, pattern):
            self.p.thread(**kw)

    def test_values(self):
        self.refused(km.UsageError, r"^thread 2: bad cluster '4' \(expected 1, 2 or 3\)$", cluster=4)
        self.refused(km.UsageError, "^thread 2: cluster 1 already runs thread 1", cluster=1)
        self.refused(km.UsageError, r"unknown shared region 'dat' \(did you mean 'data'\?\)",
                     cluster=2, shared=["dat"])
        self.refused(km.UsageError, r"bad size '5368709120' \(expected at most 4 GiB\)",
                     cluster=2, regions={"big": 5 << 30})
        self.refused(km.UsageError, "bad size -1", cluster=2, regions={"neg": -1})
        self.refused(km.UsageError, "too many words", cluster=2, words=list(range(65)))
        self.refused(km.UsageError, "bad word -1", cluster=2, words=[-1])
        self.refused(km.UsageError, "both cluster= and clusters=", cluster=2, clusters=[3])
        self.refused(km.UsageError, "cannot read source file 'none.c'", cluster=2,
                     sources=["none.c"])
        self.refused(km.UsageError, "bad deadline '-1'", cluster=2, deadline=-1)
        self.refused(km.UsageError, "bad compiler 'icc'", cluster=2, compiler="icc")
        with self.assertRaisesRegex(km.UsageError, r"^region 'Data': region name 'Data' clashes"):
            self.p.region("Data", 4096)
        with self.assertRaisesRegex(km.UsageError, "duplicate region 'data'"):
            self.p.region("data", 4096)
        with self.assertRaisesRegex(km.UsageError, "bad name 'a/b'"):
            km.Program("a/b")
        with self.assertRaisesRegex(km.UsageError, "bad root"):
            km.Program("p", root="/nonexistent")
        with self.assertRaisesRegex(km.UsageError, "unknown handler 'nope'"):
            self.p.command("nope")
        with self.assertRaisesRegex(km.UsageError, "cluster 3 runs no thread"):
            self.p.ports({5: (3, 0)})
        with self.assertRaisesRegex(km.UsageError, "nothing to run"):
            km.Program("empty").check()

    def test_types(self):
        self.refused(TypeError, "cluster must be an int", cluster="1")
        self.refused(TypeError, "cluster must be an int", cluster=True)
        self.refused(TypeError, "region 'r' must be a size", cluster=2, regions={"r": "abc"})
        self.refused(TypeError, "regions must be a dict", cluster=2, regions=[1])
        self.refused(TypeError, "sources must hold", cluster=2, sources=[1])
        self.refused(TypeError, "words must be a list", cluster=2, words=5)
        self.refused(TypeError, "deadline must be a number", cluster=2, deadline="1s")
        self.refused(TypeError, "host_fallback must be callable", cluster=2, host_fallback=1)
        with self.assertRaises(TypeError):
            km.Program(5)
        with self.assertRaises(TypeError):
            self.p.region(5, 4096)

    def test_a_refused_part_leaves_the_program_usable(self):
        for bad in (4, 1):
            with self.assertRaises(km.UsageError):
                self.p.thread(cluster=bad, sources=["thread/hello.c"])
        self.assertEqual(self.p.clusters, (1,))
        with km.Session() as session, session.load(self.p) as run:
            self.assertEqual(run.thread_result().code, 0)
        with self.assertRaisesRegex(km.UsageError, "has been loaded: it cannot change"):
            self.p.region("more", 4096)

    def test_a_manifest_cannot_change(self):
        p = km.Program.from_manifest(s.program("programs/01_hello/program.yaml"))
        with self.assertRaisesRegex(km.UsageError, "was read from manifest"):
            p.thread(cluster=2, sources=["thread/hello.c"])
        p.check()


if __name__ == "__main__":
    unittest.main()
