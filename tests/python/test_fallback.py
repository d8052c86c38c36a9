"""Host fallbacks given as Python functions: the spec's example
(programs/05_from_host) agrees with the card bit for bit; a function gets
writable uint32 regions, its words and the thread's ring; a forgotten
flush breaks as on a card; a function that raises or returns the wrong
shape is a FallbackError naming it, and the run stays usable."""

import array
import os
import subprocess
import sys
import unittest

import _support as s
import kmrun as km

FRAME = s.program("programs/05_from_host")


def frame(fallback):
    p = km.Program("frame", kernels="kernels/", handlers=["fold"], root=FRAME)
    counts = array.array("I", ((i * 2654435761) >> 12 & 0xFFFFF for i in range(4096)))
    p.thread(cluster=1, sources=["thread/frame_driver.c"],
             regions={"counts": counts, "tables": 1 << 20}, words=[4, 256],
             host_fallback=fallback, deadline=5.0)
    return p


def result_and_tables(program, thread):
    with km.Session() as session, session.load(program, thread=thread) as run:
        result = run.thread_result(timeout=10.0)
        run.stop()
        return result, run.thread.read("tables")


class FromHost(unittest.TestCase):
    def test_the_example(self):
        p = subprocess.run([sys.executable, os.path.join(FRAME, "host.py")],
                           capture_output=True, env=dict(os.environ))
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertEqual(p.stdout.decode().splitlines(), [
            "card: returned, values 4096, fold 3663182328",
            "host: returned, values 4096, fold 3663182328",
            "card and host fallback agree bit for bit",
        ])

    def test_07_with_its_decision_through_ctypes(self):
        p = subprocess.run([sys.executable, s.program("programs/07_work_cluster/host.py")],
                           capture_output=True, env=dict(os.environ))
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        words = "[64, 26, 41, 54, 203, 190, 215, 196, 151792353]"
        self.assertEqual(p.stdout.decode().splitlines(), [
            "card: returned " + words,
            "host: returned " + words,
            "card and Python fallback agree bit for bit",
        ])

    def test_what_the_function_gets(self):
        seen = {}

        def look(regions, words, run):
            seen["types"] = [type(r).__name__ for r in regions]
            seen["lens"] = [len(r) for r in regions]
            seen["words"] = words
            seen["first"] = int(regions[0][1])
            seen["address"] = run.region_address(1) == run.region_address("tables")
            seen["stop"] = run.stop_requested
            regions[1][0] = 99
            return 7, [1, 2, 3]

        with km.Session() as session, session.load(frame(look), thread="host") as run:
            result = run.thread_result()
            run.stop()
            tables = run.thread.read("tables")
        self.assertEqual((result.code, result.words), (7, (1, 2, 3)))
        self.assertEqual(seen["lens"], [4096, (1 << 20) // 4])
        self.assertEqual(seen["words"], (4, 256))
        self.assertEqual(seen["first"], (2654435761 >> 12) & 0xFFFFF)
        self.assertTrue(seen["address"])
        self.assertFalse(seen["stop"])
        self.assertEqual(tables[:4], (99).to_bytes(4, "little"))  # written back at the end

    def test_a_forgotten_flush_breaks_as_on_a_card(self):
        def no_flush(regions, words, run):
            counts, tables = regions
            for v in counts:
                tables[v % 256] += 1
            bank, address = run.region_address("tables")
            h = run.submit("fold", count=1, args=[bank, address & 0xFFFFFFFF, address >> 32, 256],
                           result=True)
            return 0, [len(counts), run.wait(h).result]

        card, card_tables = result_and_tables(frame(no_flush), None)
        host, host_tables = result_and_tables(frame(no_flush), "host")
        self.assertEqual(card.words, (4096, 3663182328))
        self.assertEqual(host.words, (4096, 0))  # the grid folded DRAM's zeros
        self.assertEqual(card_tables, host_tables)  # the copy reached DRAM at the end

    def test_a_function_that_raises_or_returns_the_wrong_shape(self):
        def boom(regions, words, run):
            raise RuntimeError("from the fallback")

        with km.Session() as session, session.load(frame(boom), thread="host") as run:
            with self.assertRaisesRegex(km.FallbackError,
                                        "cluster 1 raised RuntimeError: from the fallback") as cm:
                run.thread_result()
            self.assertIsInstance(cm.exception.__cause__, RuntimeError)
            self.assertEqual(run.thread_result().code, -1)  # the run goes on
            run.stop()
        for value, text in ((5, "returned 5 .expected .code, words.."),
                            ((0, ["x"]), "the word 'x'"),
                            ((0, [0] * 49), "49 words"),
                            ((2**31, []), "the code"),
                            ((0, [-1]), "the word -1")):
            with km.Session() as session, \
                    session.load(frame(lambda r, w, run, v=value: v), thread="host") as run:
                with self.assertRaisesRegex(km.FallbackError, text):
                    run.thread_result()
                run.stop()

    def test_ring_refusals_inside_the_function(self):
        errors = []

        def refusals(regions, words, run):
            for call in (lambda: run.submit("folt"), lambda: run.wait(9),
                         lambda: run.flush(5), lambda: run.region_address("nothing")):
                try:
                    call()
                except km.UsageError as e:
                    errors.append(str(e))
            return 0, []

        with km.Session() as session, session.load(frame(refusals), thread="host") as run:
            self.assertEqual(run.thread_result().code, 0)
            run.stop()
        self.assertEqual(len(errors), 4, errors)
        self.assertIn("did you mean 'fold'", errors[0])
        self.assertIn("no command 9", errors[1])
        self.assertIn("has no region 5", errors[2])
        self.assertIn("no region 'nothing'", errors[3])

    def test_set_host_fallback_on_a_manifest_and_type_checks(self):
        p = km.Program.from_manifest(s.program("programs/01_hello/program.yaml"))

        def hello(regions, words, run):
            for i in range(len(regions[0])):
                regions[0][i] = words[0] * i
            return 0, [words[0] * words[1]]

        p.set_host_fallback(1, hello)
        with km.Session("host") as session, session.load(p) as run:
            self.assertEqual(run.thread_result().words, (42,))
        with self.assertRaises(TypeError):
            p.set_host_fallback(1, 5)
        with self.assertRaisesRegex(km.UsageError, "no thread on cluster 3"):
            p.set_host_fallback(3, hello)
        p.set_host_fallback(1, None)  # the sources again
        with km.Session("host") as session, session.load(p) as run:
            self.assertEqual(run.thread_result().words, (42,))


if __name__ == "__main__":
    unittest.main()
