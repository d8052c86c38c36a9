#!/usr/bin/env python3
"""usage: json_style.py FILE...  Every key of every JSON value in the files
(a document, JSON lines, or a JSON Schema's property names) is snake_case
(schemas/README.md), but the Chrome Trace Event format's own top-level
keys.  Prints each offending key with its file and path; exit 1 if any."""
import json
import re
import sys

SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
TRACE_FORMAT = {"traceEvents", "displayTimeUnit", "otherData"}
SCHEMA_WORDS = {"properties", "patternProperties", "$defs", "definitions"}


def values(text):
    dec, i = json.JSONDecoder(), 0
    while True:
        j = min([k for k in (text.find("{", i), text.find("[", i)) if k >= 0], default=-1)
        if j < 0:
            return
        v, i = dec.raw_decode(text, j)
        yield v


def bad_keys(v, path, schema):
    if isinstance(v, dict):
        for k, x in v.items():
            here = f"{path}.{k}"
            if schema:
                # In a schema only the names under "properties" are kmrun's keys.
                if path.endswith(".properties") and not SNAKE.fullmatch(k):
                    yield here
                if k == "required" and isinstance(x, list):
                    yield from (f"{here}[{n}]" for n in x if not SNAKE.fullmatch(n))
            elif not SNAKE.fullmatch(k) and not (path == "$" and k in TRACE_FORMAT):
                yield here
            yield from bad_keys(x, here, schema)
    elif isinstance(v, list):
        for n, x in enumerate(v):
            yield from bad_keys(x, f"{path}[{n}]", schema)


def main(files):
    bad, count = 0, 0
    for f in files:
        with open(f, encoding="utf-8") as h:
            text = h.read()
        for v in values(text):
            count += 1
            for key in bad_keys(v, "$", f.endswith(".schema.json")):
                print(f"{f}: {key}: not snake_case")
                bad += 1
    if count == 0:
        print("no JSON value in " + " ".join(files))
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
