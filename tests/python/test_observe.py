"""A session's profile and instruction traces through the package, set
as `kmrun run --profile` and `--trace-cores` set them: the same files in
the run folder, the same run JSON, and bad options refused before a run."""

import os
import unittest

import _support as s
import kmrun as km

PARALLEL_SUM = "programs/02_parallel_sum/program.yaml"


def folded_sums(path):
    """cycles per core ("1.0") of a profile.folded."""
    sums = {}
    with open(path) as f:
        for line in f:
            stack, cycles = line.rsplit(" ", 1)
            core = stack.split(";", 1)[0]
            sums[core] = sums.get(core, 0) + int(cycles)
    return sums


class Profile(unittest.TestCase):
    def test_profile_is_the_commands(self):
        program = km.Program.from_manifest(s.program(PARALLEL_SUM))
        with km.Session(profile=True) as session:
            with session.load(program) as run:
                run.thread_results(timeout=30.0)
                run.stop()
                path = run.profile_file
                doc = run.result
        self.assertEqual(path, os.path.join(doc["run_dir"], "profile.folded"))
        cli, status = s.kmrun_run(s.program(PARALLEL_SUM), "--profile")
        self.assertEqual(status, 0)
        # the same run, and the same profile, as the command's
        self.assertEqual(s.without_wall(doc), s.without_wall(cli))
        with open(path) as a, open(os.path.join(cli["run_dir"], "profile.folded")) as b:
            self.assertEqual(a.read(), b.read())
        # each core's cycles add up to its stats (the run JSON's)
        sums = folded_sums(path)
        for core in doc["stats"]["x280"]:
            name = "%d.%d" % (core["cluster"], core["core"])
            self.assertEqual(sums.get(name, 0), core["cycles"], name)

    def test_no_profile_without_asking(self):
        program = km.Program.from_manifest(s.program(PARALLEL_SUM))
        with km.Session() as session:
            with session.load(program) as run:
                run.thread_results(timeout=30.0)
                with self.assertRaises(km.UsageError):
                    run.profile_file  # before the stop
                run.stop()
                self.assertIsNone(run.profile_file)
                self.assertEqual(run.traces, [])
                self.assertIsNone(run.trace_error)


class Traces(unittest.TestCase):
    def test_traced_cores(self):
        program = km.Program.from_manifest(s.program(PARALLEL_SUM))
        with km.Session(trace_cores=("1.0", "1.1"), trace_limit=16 << 20) as session:
            with session.load(program) as run:
                run.thread_results(timeout=30.0)
                run.stop()
                traces = run.traces
        self.assertEqual([t.core for t in traces], ["1.0", "1.1"])
        for t in traces:
            self.assertIsInstance(t, km.TraceInfo)
            self.assertTrue(os.path.isfile(t.file), t.file)
            self.assertGreater(t.recorded, 0)
            self.assertEqual(t.recorded, t.seen)  # no filter
            self.assertFalse(t.cut)
            self.assertEqual(t.limit, 16 << 20)
        # what the command says of the same cores (the files differ in the
        # run's nonce, which the thread's registers hold)
        cli, status = s.kmrun_run(s.program(PARALLEL_SUM), "--trace-cores", "1.0,1.1",
                                  "--trace-limit", str(16 << 20))
        self.assertEqual(status, 0)
        self.assertEqual(
            [("%d.%d" % (t["cluster"], t["core"]), t["file"], t["recorded"], t["retired"],
              t["cut"], t["limit_bytes"]) for t in cli["traces"]],
            [(t.core, os.path.basename(t.file), t.recorded, t.seen, t.cut, t.limit)
             for t in traces])

    def test_a_small_limit_cuts(self):
        program = km.Program.from_manifest(s.program(PARALLEL_SUM))
        with km.Session(trace_cores="all", trace_limit=4096) as session:
            with session.load(program) as run:
                run.thread_results(timeout=30.0)
                run.stop()
                traces = run.traces
        self.assertEqual(len(traces), 4)  # every core of cluster 1
        self.assertTrue(any(t.cut for t in traces))
        for t in traces:
            self.assertLessEqual(os.path.getsize(t.file), 4096)

    def test_bad_options_refused(self):
        for kw, error in (
            ({"trace_cores": ("4.0",)}, km.UsageError),
            ({"trace_cores": ("1.4",)}, km.UsageError),
            ({"trace_cores": ("one",)}, km.UsageError),
            ({"trace_cores": 7}, TypeError),
            ({"trace_pc": [(16, 8)]}, km.UsageError),  # empty: the library's refusal
            ({"trace_pc": [(1,)]}, TypeError),
            ({"trace_limit": 100}, km.UsageError),  # under 4 KiB: the library's
            ({"trace_limit": "big"}, TypeError),
            ({"profile": "yes"}, TypeError),
        ):
            with self.subTest(kw=kw):
                with self.assertRaises(error):
                    km.Session(**kw)

    def test_profile_refused_on_the_host_fallback(self):
        with self.assertRaises(km.UsageError) as e:
            km.Session("host", profile=True)
        self.assertIn("profile", str(e.exception))


if __name__ == "__main__":
    unittest.main()
