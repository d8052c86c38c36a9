"""12_host_loop's host in Python: a loop of commands, each one's argument
the last one's result word, on the simulated card through the kmrun
package.

    PYTHONPATH=../../python python3 host.py [N]

Starts from N (27 when not given; the thread counts from its own word,
27), stops the run when the word is 1, prints how many commands that took
and the highest word, then what the thread counted.  Exit 0 when the run
is ok and the two counts agree, else 1.  host.c is the same loop in C.
"""

import os
import sys

import kmrun as km

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    n = int(argv[1], 0) if len(argv) > 1 else 27
    program = km.Program.from_manifest(os.path.join(HERE, "program.yaml"))
    commands, highest = 0, n
    with km.Session() as session, session.load(program) as run:
        while n != 1:
            handle = run.submit("collatz", first=0, count=1, args=[n], result=True)
            n = run.wait(handle, timeout=1.0).result
            commands += 1
            highest = max(highest, n)
        run.stop()
        thread = run.thread_result()
        print("grid: 1 after %d commands, highest %d" % (commands, highest))
        print("thread: %s, %d steps, highest %d" % (thread.state, *thread.words[:2]))
        agree = run.ok and thread.words[:2] == (commands, highest)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
