"""The committed JSON Schemas are generated from the models and must not drift."""

from __future__ import annotations

import json

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
        f"schemas/{filename} has drifted from its model; run: {REGENERATE}")


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
