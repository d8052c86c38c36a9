#!/usr/bin/env python3
"""Checks the structure of a `kmrun run --timeline` file (Chrome Trace Event
JSON): usage: timeline_check.py TIMELINE RUN_JSON [NEED...]

- one JSON object with a traceEvents list; every event has ph, pid, tid;
- every span is closed: "X" with a dur >= 0, or a "B" matched by an "E" on
  its track (none left open, none closed without an opening);
- no overlap on a track: two spans on one (pid, tid) either nest or do not
  meet;
- flows paired: each id has one start ("s") and one finish ("f"), the
  finish not before the start, and each end lies inside a span of its
  track;
- timestamps within the run: 0 <= ts and every end <= the run's
  device_microseconds (RUN_JSON, the run's own JSON);
- every process and track that has events is named; no pid or tid is 0
  and no tid is in two processes (Perfetto's importer treats 0 as the
  idle task and merges a tid it sees in two processes);
- each NEED (cat:name, or cat:* for any name of that category, or
  ph=X for the kind of event) occurs at least once.
Times are compared exactly (the file writes picoseconds as six decimals).
Prints one line per problem and exits 1 when there is one."""
import json
import sys
from decimal import Decimal


def ps(v):
    return int((Decimal(str(v)) * 1000000).to_integral_value())


def main():
    tl = json.load(open(sys.argv[1]), parse_float=Decimal)
    run = json.load(open(sys.argv[2]), parse_float=Decimal)
    needs = sys.argv[3:]
    end_ps = ps(run["device_microseconds"])
    problems = []
    events = tl.get("traceEvents")
    if not isinstance(events, list) or not events:
        print("no traceEvents")
        return 1
    named_p, named_t = set(), set()
    pid_of_tid = {}
    spans = {}  # (pid, tid) -> [(begin, end, name)]
    open_b = {}
    flows = {}
    instants = []
    seen = set()
    for i, e in enumerate(events):
        for k in ("ph", "pid", "tid"):
            if k not in e:
                problems.append(f"event {i} has no {k}")
        ph = e.get("ph")
        track = (e.get("pid"), e.get("tid"))
        if track[0] == 0 or track[1] == 0:
            problems.append(f"event {i} has pid or tid 0")
        if pid_of_tid.setdefault(track[1], track[0]) != track[0]:
            problems.append(f"tid {track[1]} is in processes {pid_of_tid[track[1]]} and {track[0]}")
        if ph == "M":
            if e.get("name") == "process_name":
                named_p.add(e["pid"])
            elif e.get("name") == "thread_name":
                named_t.add(track)
            continue
        seen.add(f"{e.get('cat')}:{e.get('name')}")
        seen.add(f"{e.get('cat')}:*")
        seen.add(f"ph={ph}")
        ts = ps(e["ts"])
        if ts < 0 or ts > end_ps:
            problems.append(f"event {i} ({e.get('name')}) at {e['ts']} us is outside the run")
        if ph == "X":
            dur = ps(e["dur"])
            if dur < 0:
                problems.append(f"span {i} ({e['name']}) has a negative dur")
            if ts + dur > end_ps:
                problems.append(f"span {i} ({e['name']}) ends after the run")
            spans.setdefault(track, []).append((ts, ts + dur, e["name"]))
        elif ph == "B":
            open_b.setdefault(track, []).append((ts, e["name"]))
        elif ph == "E":
            if not open_b.get(track):
                problems.append(f"end {i} on {track} closes nothing")
            else:
                b, name = open_b[track].pop()
                spans.setdefault(track, []).append((b, ts, name))
        elif ph in ("s", "f"):
            flows.setdefault(e["id"], []).append((ph, ts, track, i))
        elif ph == "i":
            instants.append((track, ts))
        else:
            problems.append(f"event {i} has an unknown ph '{ph}'")
    for track, left in open_b.items():
        for b, name in left:
            problems.append(f"span {name} on {track} at {b} ps is never closed")
    for track, ss in spans.items():
        # nest or apart: sorted by begin (longer first), a stack of ends
        ss.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for b, en, name in ss:
            while stack and stack[-1][1] <= b:
                stack.pop()
            if stack and en > stack[-1][1]:
                problems.append(f"on {track}, {name} [{b}, {en}] ps overlaps "
                                f"{stack[-1][2]} [{stack[-1][0]}, {stack[-1][1]}] ps")
            stack.append((b, en, name))
    for track in spans:
        if track[0] not in named_p:
            problems.append(f"process {track[0]} has spans and no name")
        if track not in named_t:
            problems.append(f"track {track} has spans and no name")

    def inside(track, t):
        return any(b <= t <= en for b, en, _ in spans.get(track, []))
    for fid, ends in flows.items():
        kinds = sorted(k for k, *_ in ends)
        if kinds != ["f", "s"]:
            problems.append(f"flow {fid} has {kinds}, not one start and one finish")
            continue
        s = next(x for x in ends if x[0] == "s")
        f = next(x for x in ends if x[0] == "f")
        if f[1] < s[1]:
            problems.append(f"flow {fid} finishes before it starts")
        for ph, t, track, i in ends:
            if not inside(track, t):
                problems.append(f"flow {fid}'s {ph} (event {i}) is in no span of {track}")
    for need in needs:
        if need not in seen:
            problems.append(f"no event {need}")
    for p in problems[:50]:
        print(p)
    if len(problems) > 50:
        print(f"... and {len(problems) - 50} more")
    nspans = sum(len(s) for s in spans.values())
    print(f"{nspans} spans on {len(spans)} tracks, {len(flows)} flows, {len(instants)} instants",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
