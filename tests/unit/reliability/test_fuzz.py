"""Every parser, and the webhook receiver, under arbitrary input (B1-B20 as a property):
each either returns or raises teamdeck's own error, never anything else; the receiver
answers 200, 202 or 400 and never fails.

The budget is fixed so CI time is too: ``derandomize=True`` (the same examples every run)
and a set number of examples per parser (:data:`EXAMPLES`; run pytest with
``--hypothesis-show-statistics`` to see what each tried).
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teamdeck.clock import parse_iso
from teamdeck.errors import InvalidFile, TeamdeckError
from teamdeck.formats.inboxes import parse_entries
from teamdeck.model.team import decode_text
from teamdeck.protocol.forge import parse as forge_parse
from teamdeck.protocol.forge.deliveries import receive
from teamdeck.protocol.plans.parser import parse_blocks
from teamdeck.protocol.task.taskfile import parse_task_dict
from teamdeck.protocol.task.worker_outputs import check_output
from teamdeck.store.jsonl import decode_line, read_records, records_after
from teamdeck.store.loaders import parse_json
from teamdeck.store.workspace import Workspace
from teamdeck.store.yaml_text import parse_yaml

EXAMPLES = 300
"""Examples per parser; with 12 properties, 3,600 inputs in all."""

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30,
)
structure = st.sampled_from(
    ["[", "]", "{", "}", ":", ",", '"', "\\", "\n", "- ", "&a ", "*a", "!!python/object ", "NaN", "1e999", "0" * 40]
)
text_like = st.lists(st.text(max_size=8) | structure, max_size=40).map("".join)
raw_bytes = st.binary(max_size=400) | text_like.map(lambda text: text.encode("utf-8", "surrogatepass"))
json_bytes = json_values.map(lambda value: json.dumps(value).encode()) | raw_bytes


def _only_ours(parse, *args) -> None:
    try:
        parse(*args)
    except TeamdeckError:
        pass


@FUZZ
@given(data=json_bytes)
def test_fuzz_json(data):
    _only_ours(parse_json, data, "x.json")


@FUZZ
@given(data=raw_bytes)
def test_fuzz_yaml(data):
    _only_ours(parse_yaml, data, "x.yaml")


@FUZZ
@given(data=raw_bytes | json_values.map(lambda value: json.dumps({"id": "t1", "extra": value}).encode()))
def test_fuzz_task_yaml(data):
    _only_ours(parse_task_dict, data, Path("task.yaml"))


@FUZZ
@given(data=json_bytes | json_values.map(lambda v: json.dumps({"status": "done", "summary": "s", "x": v}).encode()))
def test_fuzz_final_json(data):
    result = check_output("w1", "agents/w1/artifacts/final.json", data)
    assert result.agent_id == "w1"


@FUZZ
@given(line=json_bytes)
def test_fuzz_log_line(line):
    try:
        decode_line(line, "events.jsonl", 1)
    except InvalidFile:
        pass


@FUZZ
@given(content=st.lists(json_bytes, max_size=8).map(b"\n".join), record_id=st.text(max_size=5))
def test_fuzz_log_readers(tmp_path_factory, content, record_id):
    path = tmp_path_factory.mktemp("log") / "events.jsonl"
    path.write_bytes(content)
    records, _problems = read_records(path)
    assert all(isinstance(record, dict) for record in records)
    after = records_after(path, record_id, block=7)
    assert after is None or all(isinstance(record, dict) for record in after)


@FUZZ
@given(array=st.lists(json_values, max_size=6))
def test_fuzz_inbox_entries(array):
    for entry in parse_entries(array):
        assert (entry.message is None) == (entry.problem is not None)
        if entry.message is not None:
            _only_ours(lambda: entry.kind)


@FUZZ
@given(text=text_like | json_values.map(json.dumps))
def test_fuzz_structured_message_text(text):
    _only_ours(decode_text, text)


@FUZZ
@given(title=text_like, body=text_like)
def test_fuzz_issue_text(title, body):
    assert forge_parse.parent_of(title, body) is None or forge_parse.parent_of(title, body) >= 0
    for numbers in (forge_parse.depends_of(body), forge_parse.closes_of(body)):
        assert all(isinstance(number, int) for number in numbers)
    assert all(login == login.lower() for login in forge_parse.mentions_of(body))


@FUZZ
@given(text=text_like.map(lambda text: "@@@task\n" + text))
def test_fuzz_plan_blocks(text):
    _only_ours(parse_blocks, text)


@FUZZ
@given(text=st.text(max_size=40))
def test_fuzz_timestamps(text):
    try:
        parse_iso(text)
    except ValueError:
        pass


# --- the webhook receiver ---------------------------------------------------------------

SECRET = "fuzz-secret"
EVENTS = ["issues", "issue_comment", "pull_request", "pull_request_approved", "pull_request_rejected", "push", "x"]


def _signed(body: bytes, event: str, number: int) -> dict[str, str]:
    import hashlib
    import hmac

    return {
        "X-Gitea-Event": event,
        "X-Gitea-Delivery": f"fuzz-{number}",
        "X-Gitea-Signature": hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest(),
    }


payloads = st.fixed_dictionaries(
    {
        "action": st.sampled_from(["opened", "created", "closed", "assigned", "reviewed", "edited", ""])
        | st.text(max_size=5),
        "repository": st.fixed_dictionaries(
            {"full_name": st.sampled_from(["acme/quant", "../x", ""]) | st.text(max_size=8)}
        ),
        "sender": st.fixed_dictionaries({"login": st.text(max_size=8)}),
    },
    optional={"issue": json_values, "comment": json_values, "pull_request": json_values, "number": st.integers()},
).map(lambda value: json.dumps(value).encode())


@FUZZ
@given(body=payloads | json_bytes, event=st.sampled_from(EVENTS), number=st.integers(0, 10**6))
def test_fuzz_webhook_receiver(tmp_path_factory, body, event, number):
    ws = Workspace.at(tmp_path_factory.mktemp("ws"))
    outcome = receive(ws, _signed(body, event, number), body)
    assert outcome.outcome in ("applied", "ignored", "invalid"), outcome
