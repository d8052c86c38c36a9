#!/usr/bin/env bats
# schemas/program.schema.json against the example programs' manifests and
# the manifest fixtures, with the Debian python3 modules yaml and
# jsonschema (tests/cli/schema_check.py).  The loader's own checks are in
# tests/unit/lib/manifest/manifest_test.c; these keep the schema in step with it.

setup() {
    top=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    schema=$top/schemas/program.schema.json
    check=$BATS_TEST_DIRNAME/schema_check.py
    fixtures=$top/tests/fixtures/manifests
}

@test "schema: is a valid JSON Schema, draft 2020-12" {
    run /usr/bin/python3 "$check" --check-schema "$schema"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "schema: every programs/*/program.yaml follows it" {
    # KMRUN_PROGRAMS lets the test itself be tried on another folder.
    programs=${KMRUN_PROGRAMS:-$top/programs}
    shopt -s nullglob
    files=("$programs"/*/program.yaml)
    if [ ${#files[@]} -eq 0 ]; then
        echo "no example program: $programs/*/program.yaml matches nothing"
        return 1
    fi
    run /usr/bin/python3 "$check" "$schema" "${files[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "schema: every accepted-forms fixture follows it" {
    shopt -s nullglob
    files=("$fixtures"/ok/*/program.yaml)
    [ ${#files[@]} -ge 5 ]
    run /usr/bin/python3 "$check" "$schema" "${files[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "schema: rejects every bad fixture, each on its own" {
    shopt -s nullglob
    files=("$fixtures"/schema-bad/*.yaml)
    [ ${#files[@]} -ge 10 ]
    run /usr/bin/python3 "$check" --expect-invalid "$schema" "${files[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "schema: a bad manifest's error names the place" {
    run /usr/bin/python3 "$check" "$schema" "$fixtures/schema-bad/unknown-key.yaml"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ "$output" == *"unknown-key.yaml: threads/0: "*"'regoins' was unexpected"* ]]
}
