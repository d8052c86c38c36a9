#!/usr/bin/python3
"""Checks documents against a JSON Schema (for schema.bats, build.bats).

    schema_check.py --check-schema SCHEMA
    schema_check.py SCHEMA FILE...                  every FILE must follow it
    schema_check.py --expect-invalid SCHEMA FILE... every FILE must not

A FILE ending in .json is read as JSON (what kmrun prints).  A manifest is
read as YAML and validated as the JSON it stands for, so its
mapping keys (the cores of ports.serve) are strings, as in any JSON tool.
Prints one line per file that does not come out as expected; exit status 0
when every file did.
"""
import json
import sys

import jsonschema
import yaml


def main(argv):
    expect_valid = True
    if argv and argv[0] == "--check-schema":
        with open(argv[1]) as f:
            jsonschema.Draft202012Validator.check_schema(json.load(f))
        return 0
    if argv and argv[0] == "--expect-invalid":
        expect_valid = False
        argv = argv[1:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    wrong = 0
    for path in argv[1:]:
        with open(path) as f:
            if path.endswith(".json"):
                data = json.load(f)
            else:
                data = json.loads(json.dumps(yaml.safe_load(f)))
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
        if expect_valid and errors:
            wrong += 1
            for e in errors:
                where = "/".join(str(p) for p in e.path) or "(top)"
                print(f"{path}: {where}: {e.message}")
        elif not expect_valid and not errors:
            wrong += 1
            print(f"{path}: follows the schema, but should not")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
