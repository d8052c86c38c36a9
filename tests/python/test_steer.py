"""The host steering a run from Python: run.submit, run.wait, run.poll,
thread_result with the run going on, stop apart from the waits — the
spec's host control loop — and each refusal, which names what it refuses
and leaves the run usable."""

import os
import subprocess
import sys
import unittest

import _support as s
import kmrun as km

LOOP = s.program("programs/12_host_loop/program.yaml")
HOST_FED = s.program("programs/04_host_fed/program.yaml")


def collatz(n):
    return n // 2 if n % 2 == 0 else 3 * n + 1


class HostLoop(unittest.TestCase):
    def loop(self, backend):
        program = km.Program.from_manifest(LOOP)
        with km.Session(backend) as session, session.load(program) as run:
            n, handles = 27, []
            while n != 1:
                h = run.submit("collatz", first=0, count=1, args=[n], result=True)
                handles.append(h)
                event = run.wait(h, timeout=1.0)
                self.assertIsInstance(event, km.CommandResult)
                self.assertTrue(event.done)
                self.assertEqual(event.result, collatz(n))
                n = event.result
            self.assertEqual(handles, list(range(1, 112)))
            self.assertEqual(run.thread_result().words, (111, 9232))
            self.assertFalse(run.stopped)
            run.stop()
            self.assertTrue(run.ok)
            self.assertEqual(len(run.result["commands"]), 111)
            return run.result

    def test_on_the_simulated_card(self):
        doc = self.loop("sim")
        self.assertEqual(doc["device_microseconds"], 2935)

    def test_on_the_host_fallback(self):
        doc = self.loop("host")
        self.assertEqual(doc["times"], "host")

    def test_the_example_host(self):
        p = subprocess.run([sys.executable, s.program("programs/12_host_loop/host.py")],
                           capture_output=True, env=dict(os.environ))
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertEqual(p.stdout.decode().splitlines(), [
            "grid: 1 after 111 commands, highest 9232",
            "thread: returned, 111 steps, highest 9232",
        ])


class Commands(unittest.TestCase):
    def test_the_programs_own_commands_and_a_poll_loop(self):
        program = km.Program.from_manifest(HOST_FED)
        with km.Session() as session, session.load(program) as run:
            self.assertEqual(run.wait(2).result, 3072)  # the manifest's second
            h = run.submit("spend", first=100, count=4, args=[200000])
            self.assertEqual(h, 7)
            with self.assertRaises(km.CommandTimeout) as cm:
                run.wait(h, timeout=50e-6)
            self.assertEqual(cm.exception.handle, h)
            self.assertIsInstance(cm.exception, TimeoutError)
            polls = 0
            event = None
            while event is None:
                event = run.poll(h)
                polls += 1
            self.assertEqual((event.event, event.result), ("done", None))
            self.assertGreater(polls, 100)
            run.stop()
            self.assertTrue(run.ok)

    def test_refusals(self):
        program = km.Program.from_manifest(LOOP)
        with km.Session() as session, session.load(program) as run:
            with self.assertRaisesRegex(km.UsageError, r"unknown handler 'colatz' \(did you mean 'collatz'\?\)"):
                run.submit("colatz", args=[5])
            with self.assertRaisesRegex(km.UsageError, "bad group: first 119, count 2"):
                run.submit("collatz", first=119, count=2)
            with self.assertRaisesRegex(km.UsageError, "11 args"):
                run.submit("collatz", args=range(11))
            with self.assertRaisesRegex(km.UsageError, "out of range"):
                run.submit("collatz", args=[-1])
            with self.assertRaises(TypeError):
                run.submit("collatz", args=["5"])
            with self.assertRaises(TypeError):
                run.submit("collatz", args=5)
            with self.assertRaises(TypeError):
                run.submit(5)
            with self.assertRaises(TypeError):
                run.submit("collatz", result=1)
            h = run.submit("collatz", count=1, args=[5], result=True)
            for bad in (0, -1, float("nan"), float("inf"), 2e6):
                with self.assertRaisesRegex(km.UsageError, "invalid timeout"):
                    run.wait(h, timeout=bad)
            with self.assertRaises(TypeError):
                run.wait("1")
            with self.assertRaisesRegex(km.UsageError, "no command 9 in this run"):
                run.wait(9)
            with self.assertRaisesRegex(km.UsageError, "handles start at 1"):
                run.poll(0)
            self.assertEqual(run.wait(h).result, 16)  # the run is still usable
            run.stop()
            with self.assertRaisesRegex(km.UsageError, "after the run has stopped"):
                run.submit("collatz", args=[5])
            self.assertEqual(run.wait(h).result, 16)  # its event, as the stop left it


class Stop(unittest.TestCase):
    def test_stop_before_the_thread_returns(self):
        program = km.Program.from_manifest(s.program("programs/01_hello/program.yaml"))
        with km.Session() as session, session.load(program) as run:
            run.stop()
            self.assertFalse(run.ok)
            self.assertEqual(run.result["threads"][0]["state"], "stopped")
            with self.assertRaises(km.ThreadFailed) as cm:
                run.thread_result()
            self.assertEqual(cm.exception.results[1].state, "stopped")


if __name__ == "__main__":
    unittest.main()
