"""Runs of the checkout's programs through the package, on the simulated
card and the host fallback, checked against `kmrun run`'s JSON and run
folder for the same program: results, words, region bytes and (on the
simulated card, whose times are modeled) the whole JSON but its run id,
run folder and wall time."""

import os
import unittest

import _support as s
import kmrun as km

_memo = {}


def run_of(rel, backend="sim", host_thread=False):
    """(results, {(cluster, region): bytes}, run JSON parsed, folder, ok)
    of one run of a manifest through the package, made once."""
    key = (rel, backend, host_thread)
    if key not in _memo:
        program = km.Program.from_manifest(s.program(rel))
        with km.Session(backend) as session:
            with session.load(program, thread="host" if host_thread else None) as run:
                results = run.thread_results(timeout=10.0)
                run.stop()
                regions = {}
                for r in run.result["regions"]:
                    regions[(r["cluster"], r["name"])] = run.threads[r["cluster"]].read(r["name"])
                _memo[key] = (results, regions, run.result, run.folder, run.ok)
    return _memo[key]


def cli_of(rel, host=False):
    key = ("cli", rel, host)
    if key not in _memo:
        _memo[key] = s.kmrun_run(s.program(rel), *(["--thread", "host"] if host else []))
    return _memo[key]


class SimAgainstCommand(unittest.TestCase):
    """On the simulated card the package's run is `kmrun run`'s."""

    def check(self, rel):
        results, regions, doc, folder, ok = run_of(rel)
        cli, status = cli_of(rel)
        self.assertEqual(status, 0)
        self.assertTrue(ok)
        self.assertEqual(s.without_wall(doc), s.without_wall(cli))
        for t in cli["threads"]:
            r = results[t["cluster"]]
            self.assertEqual(list(r.words), t["words"])
            self.assertEqual(r.code, t["code"])
            self.assertEqual(r.state, t["state"])
            self.assertTrue(r.ran)
            self.assertIsNone(r.error)
            self.assertEqual(r.microseconds, t["microseconds"])
            self.assertEqual(r.where, t["where"] or None)
            self.assertEqual(r.where_microseconds, t["where_microseconds"])
        for (cluster, name), data in regions.items():
            self.assertEqual(data, s.region_file(cli, cluster, name), name)
        self.assertTrue(os.path.isfile(os.path.join(folder, "result.json")))
        return results, regions

    def test_hello(self):
        results, regions = self.check("programs/01_hello/program.yaml")
        self.assertEqual(results[1].words, (42,))
        out = regions[(1, "out")]
        self.assertEqual(len(out), 4096)
        self.assertEqual(int.from_bytes(out[4:8], "little"), 7)

    def test_parallel_sum(self):
        results, regions = self.check("programs/02_parallel_sum/program.yaml")
        data = regions[(1, "data")]
        self.assertEqual(len(data), 1 << 20)
        total = sum(int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4))
        words = results[1].words
        self.assertEqual(words[0] | words[1] << 32, total)

    def test_ring_with_kernels(self):
        results, regions = self.check("programs/03_ring/program.yaml")
        self.assertEqual(results[1].code, 0)
        self.assertGreater(len(results[1].words), 2)


class HostAgainstCommand(unittest.TestCase):
    """On the host fallback: `kmrun run --thread host`'s words and region
    bytes (its times are the host's), and the simulated card's."""

    def check(self, rel):
        results, regions, doc, folder, ok = run_of(rel, "host")
        cli, status = cli_of(rel, host=True)
        self.assertEqual(status, 0)
        self.assertTrue(ok)
        self.assertEqual(doc["backend"], "host")
        self.assertEqual(doc["times"], "host")
        for t in cli["threads"]:
            r = results[t["cluster"]]
            self.assertEqual((list(r.words), r.code, r.state), (t["words"], t["code"], t["state"]))
        for (cluster, name), data in regions.items():
            self.assertEqual(data, s.region_file(cli, cluster, name), name)
        sim_results, sim_regions = run_of(rel)[:2]
        self.assertEqual({c: r.words for c, r in results.items()},
                         {c: r.words for c, r in sim_results.items()})
        self.assertEqual(regions, sim_regions)

    def test_hello(self):
        self.check("programs/01_hello/program.yaml")

    def test_parallel_sum(self):
        self.check("programs/02_parallel_sum/program.yaml")

    def test_thread_host_is_the_host_backend(self):
        """session.load(program, thread="host") on a sim session runs the
        host fallback, as Session("host") does."""
        results, regions, doc, _, _ = run_of("programs/01_hello/program.yaml", "sim", True)
        self.assertEqual(doc["backend"], "host")
        host = run_of("programs/01_hello/program.yaml", "host")
        self.assertEqual(results[1].words, host[0][1].words)
        self.assertEqual(regions, host[1])


class RunObjects(unittest.TestCase):
    """Run, ThreadRun and the session's options and callbacks."""

    def test_run_and_thread(self):
        program = km.Program.from_manifest(s.program("programs/01_hello/program.yaml"))
        self.assertEqual((program.name, program.clusters), ("hello", (1,)))
        progress = []
        with km.Session(on_progress=lambda *a: progress.append(a)) as session:
            run = session.load(program)
            self.assertFalse(run.stopped)
            self.assertEqual(set(run.threads), {1})
            self.assertIs(run.thread, run.threads[1])
            bank, address = run.thread.regions.address("out")
            self.assertIsInstance(bank, int)
            self.assertIsInstance(address, int)
            result = run.thread_result()
            self.assertIsInstance(result, km.ThreadResult)
            self.assertEqual(result.words, (42,))
            run.stop()  # again: nothing
            self.assertTrue(run.stopped and run.ok)
            self.assertEqual(run.result["run"], run.id)
            self.assertEqual(run.result["run_dir"], run.folder)
            self.assertIn('"program":', run.json)
            self.assertEqual([r["bank_address"] for r in run.result["regions"]], [address])
            self.assertIsNone(run.folder_error)
            run.close()
            run.close()
            self.assertTrue(run.closed)
        self.assertEqual([(c, m) for c, m, _ in progress], [(1, 1), (1, 2)])
        with self.assertRaises(AttributeError):
            result.code = 1  # frozen

    def test_no_run_folder(self):
        program = km.Program.from_manifest(s.program("programs/01_hello/program.yaml"))
        with km.Session(run_folder=False, wall_timeout=60) as session:
            with session.load(program) as run:
                run.thread_result()
                run.stop(timeout=5)
                self.assertIsNone(run.folder)
                self.assertEqual(run.thread.read("out")[4:8], (7).to_bytes(4, "little"))

    def test_prints(self):
        program = km.Program.from_manifest(s.program("tests/fixtures/print/four.yaml"))
        seen = []
        with km.Session(on_print=lambda core, text, us: seen.append((core, text, us))) as session:
            with session.load(program) as run:
                run.thread_results()
                run.stop()
                printed = run.result["prints"]
        self.assertTrue(seen)
        self.assertEqual(len(seen), len(printed))
        self.assertTrue(all(core.startswith("c1.") for core, _, _ in seen))

    def test_callback_exception_is_raised(self):
        program = km.Program.from_manifest(s.program("programs/01_hello/program.yaml"))

        def boom(*args):
            raise RuntimeError("from the callback")

        with km.Session(on_progress=boom) as session:
            run = session.load(program)
            with self.assertRaisesRegex(RuntimeError, "from the callback"):
                run.thread_result()
            self.assertEqual(run.thread_result().words, (42,))  # stopped all the same
            run.close()

    def test_several_threads(self):
        program = km.Program.from_manifest(s.program("tests/fixtures/run/three.yaml"))
        self.assertEqual(program.clusters, (1, 2, 3))
        with km.Session() as session, session.load(program) as run:
            results = run.thread_results()
            self.assertEqual(set(results), {1, 2, 3})
            self.assertEqual(run.thread.cluster, 1)
            self.assertEqual(run.thread_result(), results[1])
            run.stop()
            both2, both3 = run.threads[2].read("both"), run.threads[3].read("both")
            self.assertEqual(len(both2), 4096)
            self.assertEqual(both2, both3)
            self.assertEqual(run.threads[2].regions.address("both"),
                             run.threads[3].regions.address("both"))
            with self.assertRaisesRegex(km.UsageError, "cluster 1 has no region 'both'"):
                run.threads[1].read("both")


class Failures(unittest.TestCase):
    """ThreadFailed: a library error, and a thread that did not return."""

    def test_library_error(self):
        program = km.Program.from_manifest(s.program("tests/fixtures/run/parallel_error.yaml"))
        with km.Session() as session, session.load(program) as run:
            with self.assertRaises(km.ThreadFailed) as cm:
                run.thread_result(timeout=5)
            e = cm.exception
            self.assertEqual((e.status, e.cluster), (1, 1))
            self.assertEqual(e.results[1].error, "parallel")
            self.assertEqual(e.results[1].state, "failed")
            self.assertEqual(e.results[1].words, (3, 1))
            self.assertIn("kmx_spawn", e.detail)
            self.assertIn("parallel", str(e))
            self.assertIsInstance(e, km.KmrunError)
            with self.assertRaisesRegex(km.UsageError, "before the run has stopped"):
                run.ok
            run.stop()
            self.assertFalse(run.ok)
            self.assertEqual(len(run.thread.read("seen")), 64)  # stopped: readable
            with self.assertRaises(km.ThreadFailed):
                run.thread_results()

    def test_late(self):
        program = km.Program.from_manifest(s.program("tests/fixtures/hazards/late.yaml"))
        with km.Session() as session, session.load(program) as run:
            with self.assertRaises(km.ThreadFailed) as cm:
                run.thread_results()
            r = cm.exception.results[1]
            self.assertFalse(r.ran)
            self.assertEqual(r.state, "late")
            self.assertIn("late", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
