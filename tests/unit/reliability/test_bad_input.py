"""Bad input (docs/reliability.md 3.2): every hostile file becomes one InvalidFile line.

Checked at the loaders (parse_yaml / parse_json / read_capped) and, for task.yaml,
through protocol.taskfile.load_task, which is what every front calls.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from teamdeck.errors import InvalidFile, NotFound, WriteFailed
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.taskfile import load_task, read_events, transact
from teamdeck.store.jsonl import Tail, append_record, read_records
from teamdeck.store.loaders import MAX_FILE_BYTES, dumps_json, parse_json, read_capped
from teamdeck.store.yaml_text import dump_yaml, parse_yaml

FINAL = Path("agents/w1/artifacts/final.json")
TASK_YAML = """\
id: t1
title: A task
state: working
gates: []
createdAt: '2026-03-01T12:00:00.000Z'
updatedAt: '2026-03-01T12:00:00.000Z'
revision: 1
"""


def _write_task(ws, text: str | bytes) -> None:
    ws.task_dir("t1").mkdir(parents=True)
    data = text.encode() if isinstance(text, str) else text
    ws.task_file("t1").write_bytes(data)


def _load_error(ws) -> str:
    with pytest.raises(InvalidFile) as failure:
        load_task(ws, "t1")
    return str(failure.value)


def test_b1_python_tag_is_refused_and_nothing_runs(ws, tmp_path):
    marker = tmp_path / "pwned"
    _write_task(ws, TASK_YAML.replace("title: A task", f'title: !!python/object/apply:os.system ["touch {marker}"]'))
    assert _load_error(ws) == "tasks/t1/task.yaml line 2: tag !!python/object/apply is not allowed"
    assert not marker.exists()


@pytest.mark.parametrize("tag", ["!!python/name:os.system", "!custom", "!!binary"])
def test_b1_other_explicit_tags_are_refused(tag):
    with pytest.raises(InvalidFile, match=r"task.yaml line 1: tag !.* is not allowed"):
        parse_yaml(f"x: {tag} aGk=\n".encode(), Path("task.yaml"))


def test_b2_alias_bomb_is_refused_before_any_walk():
    levels = "abcdefghi"
    lines = ["id: t1", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"{name}: &{name} [{','.join(['*' + prev] * 9)}]" for prev, name in zip(levels, levels[1:], strict=False)]
    bomb = ("\n".join(lines) + "\n").encode()
    assert len(bomb) < 400  # the catalogue's 342-byte class of file: 9^9 strings once walked
    started = time.perf_counter()
    with pytest.raises(InvalidFile) as failure:
        parse_yaml(bomb, Path("task.yaml"))
    elapsed = time.perf_counter() - started
    assert str(failure.value) == "task.yaml line 2: uses YAML anchors/aliases, which this tool does not accept"
    assert elapsed < 1.0  # not walked (that takes minutes); the 100 ms budget: bench/rows_reliability.py


def test_b2_a_single_harmless_anchor_is_refused_too():
    with pytest.raises(InvalidFile, match="line 1: uses YAML anchors/aliases"):
        parse_yaml(b"a: &x 1\nb: 2\n", Path("task.yaml"))


def test_b3_oversized_task_yaml_is_refused_unparsed(ws):
    size = int(3.2 * 1024 * 1024)
    _write_task(ws, b"\x00" * size)  # would be a different error if it were parsed
    assert _load_error(ws) == "tasks/t1/task.yaml: file is 3.2 MiB; limit is 1 MiB"


def test_b3_the_cap_applies_to_json_and_to_raw_reads(tmp_path):
    big = tmp_path / "final.json"
    big.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(InvalidFile, match=r"file is 1 MiB; limit is 1 MiB"):
        read_capped(big)
    with pytest.raises(InvalidFile, match=r"file is 1 MiB; limit is 1 MiB"):
        parse_json(big.read_bytes(), FINAL)
    assert read_capped(big, limit=MAX_FILE_BYTES + 1) == big.read_bytes()


def test_b4_yaml_1_1_implicit_types_are_schema_errors_naming_the_field(ws):
    text = TASK_YAML.replace(
        "gates: []", "gates:\n- id: 012\n  state: blocked\n  createdAt: '2026-03-01T12:00:00.000Z'"
    )
    _write_task(ws, text)
    assert "tasks/t1/task.yaml: gates[0].id: must be a string, got int 10" in _load_error(ws)


def test_b4_state_no_is_a_boolean_and_refused(ws):
    _write_task(ws, TASK_YAML.replace("state: working", "state: no"))
    message = _load_error(ws)
    assert message.startswith("tasks/t1/task.yaml: state: ")
    assert "'working'" in message  # lists the states it should be


def test_b4_key_on_is_refused_with_its_line(ws):
    _write_task(ws, TASK_YAML + "on: push\n")
    assert _load_error(ws) == "tasks/t1/task.yaml line 8: key 'on' is read as bool True; quote it"


@pytest.mark.parametrize(
    "text", ["012", "no", "on", "yes", "off", "null", "~", "1_000", "0x1f", "2026-03-01", "1e3", ".5", "true"]
)
def test_b4_our_writer_quotes_strings_yaml_would_misread(text):
    data = dump_yaml({"title": text})
    assert parse_yaml(data, Path("task.yaml")) == {"title": text}
    assert data != f"title: {text}\n".encode()  # quoted, so any YAML 1.1 or 1.2 reader agrees


def test_b4_task_ids_and_titles_round_trip_through_task_yaml(ws):
    create_task(ws, "012", "no")
    assert b"id: '012'" in ws.task_file("012").read_bytes()
    task = load_task(ws, "012")
    assert (task.id, task.title) == ("012", "no")


def test_b5_duplicate_key_in_task_yaml_names_key_and_line(ws):
    _write_task(ws, TASK_YAML + "state: done\n")
    assert _load_error(ws) == "tasks/t1/task.yaml line 8: duplicate key 'state'"


def test_b5_duplicate_key_in_json_names_key_and_line():
    data = b'{\n  "status": "completed",\n  "detail": {"a": 1, "b": {"a": 2}},\n  "summary": "ok",\n  "status": "failed"\n}\n'
    with pytest.raises(InvalidFile) as failure:
        parse_json(data, FINAL)
    assert str(failure.value) == "agents/w1/artifacts/final.json line 5: duplicate key 'status'"


def test_b5_duplicate_key_in_a_nested_json_object():
    data = b'[{"k": 1},\n {"k": 2, "j": [], "k": 3}]'
    with pytest.raises(InvalidFile, match=r"line 2: duplicate key 'k'"):
        parse_json(data, FINAL)


B6_PROGRAM = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from teamdeck.errors import InvalidFile
    from teamdeck.store.loaders import parse_json
    from teamdeck.store.yaml_text import parse_yaml
    depth = 100_000
    cases = [
        ("yaml-seq", parse_yaml, b"[" * depth + b"]" * depth),
        ("yaml-map", parse_yaml, b"{a: " * depth + b"1" + b"}" * depth),
        ("yaml-block", parse_yaml, b"- " * depth + b"1"),
        ("json-array", parse_json, b"[" * depth + b"]" * depth),
        ("json-object", parse_json, b'{"a":' * depth + b"1" + b"}" * depth),
        ("json-101", parse_json, b"[" * 101 + b"]" * 101),
    ]
    for name, parse, data in cases:
        try:
            parse(data, Path("final.json"))
            print(name, "ACCEPTED")
        except InvalidFile as err:
            print(name, err)
    """
)


def test_b6_100000_deep_nesting_is_an_error_not_a_crash():
    """In a subprocess: libyaml's composer overflows the C stack on such input, and a
    regression must fail this test, not kill pytest."""
    proc = subprocess.run([sys.executable, "-c", B6_PROGRAM], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"crashed with {proc.returncode}: {proc.stderr[-2000:]}"
    results = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    assert set(results) == {"yaml-seq", "yaml-map", "yaml-block", "json-array", "json-object", "json-101"}
    for name, message in results.items():
        assert message.startswith("final.json"), (name, message)
        assert message.endswith("nesting too deep (more than 100 levels)"), (name, message)
    assert "Traceback" not in proc.stderr


def test_b6_deep_task_yaml_through_load_task(ws):
    _write_task(ws, TASK_YAML + "extra: " + "[" * 5000 + "]" * 5000 + "\n")
    assert _load_error(ws) == "tasks/t1/task.yaml line 8: nesting too deep (more than 100 levels)"


@pytest.mark.parametrize(
    ("shape", "depth"),
    [
        (shape, depth)
        for shape in ("flow", "block-seq", "block-map")
        for depth in (101, 999, 1000, 1001, 5000)
        if (shape, depth) != ("block-map", 5000)  # 12 MiB of indentation: refused by size first
    ],
)
def test_b6_every_depth_past_ours_gets_our_error_with_its_line(shape, depth):
    """B6, whatever the installed PyYAML does: libyaml >= 0.2.6 refuses at 1,000 levels
    itself (and its read-ahead refuses before the walk sees level 101), older ones do
    not; either way the error is teamdeck's, on the line where level 101 opens."""
    body = {
        "flow": "deep: " + "[" * depth + "]" * depth,
        "block-seq": "- " * depth + "x",
        "block-map": "\n".join(" " * level + f"k{level}:" for level in range(depth)) + " x",
    }[shape]
    with pytest.raises(InvalidFile) as failure:
        parse_yaml((body + "\n").encode(), Path("task.yaml"))
    line = 101 if shape == "block-map" else 1
    assert str(failure.value) == f"task.yaml line {line}: nesting too deep (more than 100 levels)"


@pytest.mark.parametrize("text", ["a: [1, 2\n", "a: b: c\n", "- [" * 50 + "\n\tx: ]"])
def test_b6_a_shallow_syntax_error_is_not_called_too_deep(text):
    with pytest.raises(InvalidFile) as failure:
        parse_yaml(text.encode(), Path("task.yaml"))
    assert failure.value.why.startswith("invalid YAML")


def test_b6_nesting_up_to_the_limit_is_fine():
    assert parse_json(b"[" * 100 + b"]" * 100, FINAL) is not None
    assert parse_yaml(b"[" * 100 + b"]" * 100, Path("task.yaml")) is not None


@pytest.mark.parametrize(
    ("text", "where", "name"),
    [
        ('{"status": "completed", "score": NaN}', "$.score", "NaN"),
        ('{"metrics": [1, {"ratio": Infinity}]}', "$.metrics[1].ratio", "Infinity"),
        ("-Infinity", "$", "-Infinity"),
    ],
)
def test_b7_non_finite_numbers_are_refused_with_their_json_path(text, where, name):
    with pytest.raises(InvalidFile) as failure:
        parse_json(text.encode(), Path("final.json"))
    assert str(failure.value) == f"final.json {where}: non-finite number {name}"


def test_b7_we_never_write_non_finite_numbers(tmp_path):
    with pytest.raises(ValueError):
        dumps_json({"score": float("nan")})
    log = tmp_path / "events.jsonl"
    with pytest.raises(WriteFailed, match="nothing was written"):
        append_record(log, {"id": "x", "score": float("inf")})
    assert not log.exists() or log.read_bytes() == b""


@pytest.mark.parametrize(
    ("parse", "data"),
    [
        (parse_json, b'{"n": ' + b"7" * 5000 + b"}"),
        (parse_yaml, b"n: " + b"7" * 5000 + b"\n"),
    ],
)
def test_b8_5000_digit_integer_is_an_invalid_file(parse, data):
    with pytest.raises(InvalidFile, match="number too large"):
        parse(data, Path("final.json"))


def test_b10_utf8_bom_is_accepted(ws):
    assert parse_json(b'\xef\xbb\xbf{"status": "completed"}', FINAL) == {"status": "completed"}
    _write_task(ws, b"\xef\xbb\xbf" + TASK_YAML.encode())
    assert load_task(ws, "t1").title == "A task"


def test_b10_invalid_utf8_names_the_byte():
    with pytest.raises(InvalidFile, match=r"final.json byte 12: not valid UTF-8"):
        parse_json(b'{"summary": \xff"}', FINAL)


def test_b16_blank_lines_and_crlf_in_jsonl_are_skipped(tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_bytes(b'\n{"id":"a"}\r\n\r\n   \n{"id":"b"}\n\n')
    records, problems = read_records(log)
    assert [record["id"] for record in records] == ["a", "b"]
    assert problems == []


def test_b16_zero_byte_and_missing_files_are_empty(tmp_path):
    empty = tmp_path / "events.jsonl"
    empty.write_bytes(b"")
    assert read_records(empty) == ([], [])
    assert read_records(tmp_path / "no" / "such" / "dir" / "events.jsonl") == ([], [])
    assert Tail(tmp_path / "missing.jsonl").read_new() == []


def test_b16_zero_byte_task_yaml_is_rebuilt_from_its_log(ws):
    create_task(ws, "t1", "Emptied")
    ws.task_file("t1").write_bytes(b"")
    assert load_task(ws, "t1").title == "Emptied"
    change = transact(ws, "t1", lambda _task: [], action="open the task")
    assert change.task.title == "Emptied"
    assert b"title: Emptied" in ws.task_file("t1").read_bytes()


def test_b16_zero_byte_task_yaml_without_a_log_is_one_clear_error(ws):
    _write_task(ws, b"")
    assert _load_error(ws) == "tasks/t1/task.yaml: empty, and its log has no task.created to rebuild it from"


def test_b16_missing_task_directory_is_not_found(ws):
    with pytest.raises(NotFound, match="No task 'nope'"):
        load_task(ws, "nope")
    assert read_events(ws, "nope") == []


def test_b16_crlf_task_yaml_loads(ws):
    _write_task(ws, TASK_YAML.replace("\n", "\r\n"))
    assert load_task(ws, "t1").state == "working"


def test_bad_lines_in_a_log_are_reported_with_their_line_and_skipped(tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_bytes(b'{"id":"a"}\nnot json\n[1,2]\n{"id":"b"}\n')
    records, problems = read_records(log)
    assert [record["id"] for record in records] == ["a", "b"]
    assert [problem.where for problem in problems] == ["line 2", "line 3"]
    assert json.loads(json.dumps([str(problem) for problem in problems]))  # printable lines


def test_a_yaml_syntax_error_names_the_line_and_column_and_where_its_construct_starts() -> None:
    """A flow mapping missing its ``}`` on line 2 is refused where the text goes on, on
    line 3: the message gives that place with its column, and the line and column of
    the ``{`` the person must close."""
    text = "agents:\n  defaults: {retries: 0\n  crew/*:\n    runtime: command\n"
    with pytest.raises(InvalidFile) as failure:
        parse_yaml(text.encode(), Path(".teamdeck.yaml"))
    assert failure.value.where == "line 3 column 9"
    assert failure.value.why.startswith("invalid YAML: ")
    assert failure.value.why.endswith(" at line 2 column 13)")


def test_a_yaml_syntax_error_names_one_place_when_its_construct_starts_there() -> None:
    with pytest.raises(InvalidFile) as failure:
        parse_yaml(b"a: b: c\n", Path("task.yaml"))
    assert failure.value.where == "line 1 column 5"
    assert " at line " not in failure.value.why
