"""The package's refusals: each raises an exception that names the problem
(a KmrunError with kmrun's status, or a TypeError for a wrong type), and
none crashes, hangs or spoils the run it refused a call of."""

import math
import os
import subprocess
import sys
import tempfile
import unittest

import _support as s
import kmrun as km

HELLO = s.program("programs/01_hello/program.yaml")


class Refusals(unittest.TestCase):
    def setUp(self):
        self.program = km.Program.from_manifest(HELLO)

    def test_read_before_the_stop(self):
        with km.Session() as session, session.load(self.program) as run:
            with self.assertRaisesRegex(km.UsageError, r"region 'out' .*before the run has stopped"):
                run.thread.read("out")
            for what in ("json", "result", "id", "folder", "ok"):
                with self.assertRaisesRegex(km.UsageError, "before the run has stopped"):
                    getattr(run, what)
            self.assertEqual(run.thread_result().words, (42,))
            with self.assertRaisesRegex(km.UsageError, r"region 'out' .*before the run has stopped"):
                run.thread.read("out")  # the thread has ended, the run has not stopped
            run.stop()
            self.assertEqual(len(run.thread.read("out")), 4096)

    def test_unknown_region(self):
        with km.Session() as session, session.load(self.program) as run:
            with self.assertRaisesRegex(km.UsageError, r"no region 'ou' \(did you mean 'out'\?\)"):
                run.thread.regions.address("ou")
            with self.assertRaisesRegex(km.UsageError, "no region 'nothing'"):
                run.thread.read("nothing")  # before the stop: the name first
            run.stop()
            with self.assertRaisesRegex(km.UsageError, "no region 'nothing'"):
                run.thread.read("nothing")
            with self.assertRaises(TypeError):
                run.thread.read(0)
            with self.assertRaises(km.UsageError):
                run.thread.read("")

    def test_bad_timeouts(self):
        with km.Session() as session, session.load(self.program) as run:
            for bad in (0, -1, -0.5, math.nan, math.inf, 1e7):
                with self.assertRaisesRegex(km.UsageError, "invalid timeout"):
                    run.thread_result(timeout=bad)
                with self.assertRaisesRegex(km.UsageError, "invalid timeout"):
                    run.stop(bad)
            for bad in ("1", True, [1], object()):
                with self.assertRaisesRegex(TypeError, "timeout must be a number"):
                    run.thread_results(timeout=bad)
            self.assertFalse(run.stopped)
            self.assertEqual(run.thread_result(timeout=5).words, (42,))

    def test_bad_session_options(self):
        with self.assertRaisesRegex(km.UsageError, "unknown backend 'nope'"):
            km.Session("nope")
        with self.assertRaises(TypeError):
            km.Session(1)
        with self.assertRaisesRegex(TypeError, "run_folder"):
            km.Session(run_folder="yes")
        with self.assertRaisesRegex(TypeError, "check_handover"):
            km.Session(check_handover=1)
        with self.assertRaisesRegex(km.UsageError, "invalid wall timeout"):
            km.Session(wall_timeout=-1)
        with self.assertRaisesRegex(TypeError, "on_print must be callable"):
            km.Session(on_print="print")
        with self.assertRaisesRegex(TypeError, "cache must be a path"):
            km.Session(cache=5)

    def test_unusable_cache(self):
        with tempfile.NamedTemporaryFile() as f:
            with self.assertRaises(km.KmrunError) as cm:
                km.Session(cache=os.path.join(f.name, "cache"))
            self.assertEqual(cm.exception.status, 4)

    def test_card_refused(self):
        with self.assertRaises(km.UsageError) as cm:
            km.Session(backend="card")
        self.assertEqual(cm.exception.status, 2)
        self.assertIn("'card' backend is not available", str(cm.exception))

    def test_bad_loads(self):
        with km.Session() as session:
            with self.assertRaisesRegex(TypeError, "kmrun.Program"):
                session.load(HELLO)
            with self.assertRaisesRegex(km.UsageError, "unknown thread 'card'"):
                session.load(self.program, thread="card")
            run = session.load(self.program)
            with self.assertRaisesRegex(km.UsageError, "one at a time"):
                session.load(self.program)
            run.close()
            with self.assertRaisesRegex(km.UsageError, "the run is closed"):
                run.thread_result()
            with self.assertRaisesRegex(km.UsageError, "the run is closed"):
                run.thread.read("out")
            with session.load(self.program) as run:
                kept = run
            self.assertTrue(kept.closed)
        with self.assertRaisesRegex(km.UsageError, "the session is closed"):
            session.load(self.program)

    def test_a_dropped_run_does_not_count(self):
        with km.Session() as session:
            self.assertEqual(session.load(self.program).thread_result().words, (42,))
            self.assertEqual(session.load(self.program).thread_result().words, (42,))

    def test_no_thread(self):
        program = km.Program.from_manifest(s.program("programs/04_host_fed/program.yaml"))
        self.assertEqual(program.clusters, ())
        with km.Session() as session, session.load(program) as run:
            self.assertIsNone(run.thread)
            self.assertEqual(run.thread_results(), {})
            with self.assertRaisesRegex(km.UsageError, "has no thread"):
                run.thread_result()

    def test_run_outlives_its_session(self):
        with km.Session() as session:
            run = session.load(self.program)
        self.assertEqual(run.thread_result().words, (42,))
        run.close()

    def test_manifests(self):
        with self.assertRaises(km.KmrunError) as cm:
            km.Program.from_manifest("/nonexistent/program.yaml")
        self.assertEqual(cm.exception.status, 4)
        self.assertIn("/nonexistent/program.yaml", str(cm.exception))
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "program.yaml")
            with open(bad, "w") as f:
                f.write("name: bad\nthreads:\n  - cluster: 9\n    sources: [a.c]\n")
            with self.assertRaises(km.UsageError) as cm:
                km.Program.from_manifest(bad)
            self.assertEqual(cm.exception.status, 2)
            self.assertRegex(str(cm.exception), r"program\.yaml:\d+:\d+: ")
        with self.assertRaises(TypeError):
            km.Program.from_manifest(3)

    def test_build_error(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "bad.c"), "w") as f:
                f.write('#include "kmx.h"\nint kmx_main(int core) { return nope; }\n')
            manifest = os.path.join(d, "program.yaml")
            with open(manifest, "w") as f:
                f.write("name: bad\nthreads:\n  - cluster: 1\n    sources: [bad.c]\n")
            program = km.Program.from_manifest(manifest)
            lines = []
            with km.Session(on_build_output=lines.append) as session:
                with self.assertRaises(km.BuildError) as cm:
                    session.load(program)
                self.assertEqual(cm.exception.status, 3)
                self.assertIn("nope", str(cm.exception))
                with session.load(self.program) as run:  # the failed load left no run
                    self.assertEqual(run.thread_result().words, (42,))

    def test_build_output(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "w.c"), "w") as f:
                f.write('#include "kmx.h"\n#warning from the source %d\n'
                        'int kmx_main(int core) { (void)core; return 0; }\n' % os.getpid())
            manifest = os.path.join(d, "program.yaml")
            with open(manifest, "w") as f:
                f.write("name: w\nthreads:\n  - cluster: 1\n    sources: [w.c]\n")
            lines = []
            with km.Session(on_build_output=lines.append) as session:
                with session.load(km.Program.from_manifest(manifest)) as run:
                    self.assertEqual(run.thread_result().code, 0)
            self.assertTrue(any("warning: #warning from the source" in l for l in lines), lines)

    def test_library_not_found(self):
        env = dict(os.environ, KMRUN_LIBRARY="/nonexistent/libkmrun.so", PYTHONPATH=s.PYTHON_DIR)
        p = subprocess.run(
            [sys.executable, "-c",
             "import kmrun\n"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertNotEqual(p.returncode, 0)
        err = p.stderr.decode()
        self.assertIn("LibraryNotFound", err)
        self.assertIn("/nonexistent/libkmrun.so", err)
        self.assertIn("make libkmrun", err)
        code = ("try:\n import kmrun\nexcept ImportError as e:\n print(type(e).__mro__[1].__name__)")
        p = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, timeout=60)
        self.assertEqual(p.stdout.decode().strip(), "KmrunError")


if __name__ == "__main__":
    unittest.main()
