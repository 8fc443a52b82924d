"""The committed JSON Schemas are generated from the models and must not drift."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from teamdeck.model.schemas import DRAFT, ID_BASE, REGENERATE, all_schemas, schema_bytes
from teamdeck.resources import data_dir

SCHEMAS = all_schemas()


@pytest.mark.parametrize("filename", sorted(SCHEMAS))
def test_committed_schema_matches_its_model(filename):
    committed = data_dir("schemas") / filename
    assert committed.exists(), f"schemas/{filename} is missing; run: {REGENERATE}"
    assert committed.read_bytes() == schema_bytes(SCHEMAS[filename]), (
        f"schemas/{filename} has drifted from its model; run: {REGENERATE}"
    )


@pytest.mark.parametrize("filename", sorted(SCHEMAS))
def test_schema_is_valid_draft_2020_12_with_an_id(filename):
    schema = SCHEMAS[filename]
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT
    assert schema["$id"] == ID_BASE + filename
    assert list(schema)[:2] == ["$schema", "$id"]


def test_no_committed_schema_without_a_model():
    committed = {path.name for path in data_dir("schemas").glob("*.schema.json")}
    assert committed <= set(SCHEMAS), f"not generated from any model: {sorted(committed - set(SCHEMAS))}"


def test_worker_output_schema_requires_only_status_and_summary():
    schema = json.loads((data_dir("schemas") / "worker-output.schema.json").read_text())
    assert schema["required"] == ["status", "summary"]
    assert {"completed", "blocked", "failed"} <= set(schema["properties"]["status"]["enum"])
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    assert not list(validator.iter_errors({"status": "completed", "summary": "done", "anythingElse": [1]}))


def _formats(node):
    if isinstance(node, dict):
        if isinstance(node.get("format"), str):
            yield node["format"]
        for value in node.values():
            yield from _formats(value)
    elif isinstance(node, list):
        for value in node:
            yield from _formats(value)


def test_every_format_our_schemas_use_has_a_checker():
    """A format without a checker passes silently (B12). Checked in a fresh process,
    where jsonschema is imported the way teamdeck imports it (without iri checkers)."""
    used = {fmt for schema in SCHEMAS.values() for fmt in _formats(schema)}
    assert "date-time" in used
    code = (
        "from teamdeck.protocol.task.worker_outputs import import_jsonschema; import_jsonschema(); "
        "from jsonschema import Draft202012Validator as V; print(' '.join(sorted(V.FORMAT_CHECKER.checkers)))"
    )
    registered = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    )
    assert "date-time" in registered and "iri" not in registered
    assert used <= registered, f"formats without a checker: {sorted(used - registered)}"
