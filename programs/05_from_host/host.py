"""05_from_host: the spec's "From the host" example, with only the import
changed — a program built in Python, its thread run on the card and then
as its Python host fallback, the two checked equal bit for bit.

    PYTHONPATH=../../python python3 host.py

Prints each run's result, then whether the card's and the fallback's
results and `tables` agree; exit 0 when they do.
"""

import array
import os
import sys

import kmrun as km  # the spec's host: `import komorebi as km`

HERE = os.path.dirname(os.path.abspath(__file__))
cores, bins = 4, 256
# 4096 values, spread over the bins by a multiplicative hash.
counts = array.array("I", ((i * 2654435761) >> 12 & 0xFFFFF for i in range(4096)))


def frame_driver(regions, words, run):
    """thread/frame_driver.c in Python: the histogram, the hand-over, the
    grid's fold through the thread's own ring."""
    cores, bins = words
    counts, tables = regions
    for value in counts:
        tables[value % bins] += 1
    run.flush("tables")  # the grid reads DRAM
    bank, address = run.region_address("tables")
    handle = run.submit("fold", first=0, count=1,
                        args=[bank, address & 0xFFFFFFFF, address >> 32, bins], result=True)
    event = run.wait(handle, timeout=1.0)
    return 0, [len(counts), event.result]


program = km.Program("frame", kernels="kernels/", handlers=["fold"], root=HERE)
program.thread(
    cluster=1,                      # 1, 2 or 3; clusters=(1, 2, 3) declares the same thread on each
    sources=["thread/frame_driver.c"],
    regions={"counts": counts, "tables": 1 << 20},  # an array (initial bytes) or a size
    words=[cores, bins],
    host_fallback=frame_driver,     # the same function in Python
    deadline=5.0,                   # seconds, for the whole thread
)

seen = {}
for thread in (None, "host"):
    with km.Session() as session:
        run = session.load(program, thread=thread)  # grid, dispatcher, then the thread
        result = run.thread_result(timeout=10.0)     # waits, stops it, reads its result block
        run.stop()
        tables = run.thread.read("tables")           # after the stop
        seen[thread or "card"] = (result.words, tables)
        print("%s: %s, values %d, fold %d" % (thread or "card", result.state, *result.words))
        run.close()

same = seen["card"] == seen["host"]
print("card and host fallback agree bit for bit" if same else "card and host fallback differ")
sys.exit(0 if same else 1)
