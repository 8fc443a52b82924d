"""Defensive reading and parsing of JSON (R7): every failure is one :class:`InvalidFile`.

- A size cap before parsing (B3), shared with YAML (store/yaml_text.py, which holds the
  YAML half so that a command reading no YAML file does not import PyYAML).
- JSON refusing NaN/Infinity (naming where, B7) and duplicate keys (naming the line, B5);
  nesting deeper than :data:`MAX_DEPTH` (B6) and huge integers (B8) become errors, not
  tracebacks; a UTF-8 BOM is accepted (B10).
- A parsed value checked against its model: one line naming the first problem.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamdeck.errors import InvalidFile
from teamdeck.model.shape import Shape, validation_error
from teamdeck.store.json_text import dumps_json as dumps_json  # re-exported: its old home
from teamdeck.store.paths import open_beneath

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 100
TOO_DEEP = f"nesting too deep (more than {MAX_DEPTH} levels)"


def human_size(size: int) -> str:
    """``3.2 MiB`` / ``812 bytes``."""
    if size < 1024:
        return f"{size:,} bytes"
    value, unit = (size / 1024, "KiB") if size < 1024 * 1024 else (size / (1024 * 1024), "MiB")
    return f"{value:.1f}".removesuffix(".0") + f" {unit}"


def check_size(path: Path | str, size: int, limit: int = MAX_FILE_BYTES) -> None:
    """Refuse a file bigger than ``limit`` before reading it (B3)."""
    if size > limit:
        raise InvalidFile(path, "", f"file is {human_size(size)}; limit is {human_size(limit)}")


def read_capped(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """Read a whole file, refusing it unread when it is bigger than ``limit``.

    Raises:
        FileNotFoundError: the file does not exist (callers decide whether that is empty).
        InvalidFile: too big, or unreadable (permissions, a directory...).
    """
    try:
        with os.fdopen(open_beneath(path, os.O_RDONLY), "rb") as handle:
            check_size(path, os.fstat(handle.fileno()).st_size, limit)
            return handle.read(limit + 1)
    except FileNotFoundError:
        raise
    except OSError as err:
        raise InvalidFile(path, "", f"cannot read: {err.strerror or err}") from err


class _NonFinite:
    """Stands in for NaN/Infinity while parsing, so the check after it can say where."""

    def __init__(self, name: str) -> None:
        self.name = name


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key '{key}'")
        self.key = key


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def failure_reason(err: BaseException, default: str) -> str:
    """What a parser's error says, in our words where it recurses too deep or meets a
    huge integer (``default`` when it says nothing); JSON's and YAML's alike."""
    if isinstance(err, RecursionError):
        return TOO_DEEP
    text = str(err)
    if "Exceeds the limit" in text and "integer" in text:
        return "number too large (more than 4300 digits)"
    return text or default


def _duplicate_key_line(text: str) -> str:
    """``line N`` of the first repeated key in one JSON object ("" if it cannot be told).

    Only called once a duplicate is known to exist: the stdlib parser gives no
    positions, but libyaml's flat event stream over JSON text (flow YAML) carries marks.
    PyYAML is imported here, on that rare path, not with the module.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    keys: list[set[str] | None] = []  # per open container: the keys seen (None: a list)
    expecting_key: list[bool] = []
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                keys.pop()
                expecting_key.pop()
                continue
            current = keys[-1] if keys else None
            if current is not None:
                is_key, expecting_key[-1] = expecting_key[-1], not expecting_key[-1]
                if is_key and isinstance(event, yaml.ScalarEvent):
                    if event.value in current:
                        return f"line {event.start_mark.line + 1}" if event.start_mark else ""
                    current.add(event.value)
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                keys.append(set() if isinstance(event, yaml.MappingStartEvent) else None)
                expecting_key.append(True)
    except yaml.YAMLError:
        pass
    return ""


def _nesting_depth(value: Any, limit: int) -> int:
    """How deeply lists and objects nest in ``value``, counted up to ``limit + 1``.

    Level by level, so no depth the parser accepted can overflow the stack here. The
    cap matters downstream: pydantic, jsonschema and copies recurse over the value.
    """
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level and depth <= limit:
        depth += 1
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, (dict, list))
        ]
    return depth


def _non_finite_path(value: Any) -> tuple[str, str] | None:
    """``("$.score", "NaN")`` for the first NaN/Infinity placeholder in ``value``, if any."""
    stack: list[tuple[Any, str]] = [(value, "$")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, _NonFinite):
            return where, node.name
        if isinstance(node, dict):
            stack.extend((child, f"{where}.{key}") for key, child in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((child, f"{where}[{index}]") for index, child in reversed(list(enumerate(node))))
    return None


def _completed(message: str, place: str) -> str:
    """The decoder's message with the place it refers to when the message points at one.

    ``json`` puts the position beside its message, so "Unterminated string starting
    at" alone ends mid-sentence; the place is added there, not lost.
    """
    return f"{message} {place}" if message.rstrip().endswith(" at") else message


def parse_json(data: bytes, path: Path | str, *, limit: int = MAX_FILE_BYTES) -> Any:
    """Parse JSON bytes safely (BOM accepted; NaN, duplicates, deep nesting refused).

    Raises:
        InvalidFile: too big, not UTF-8, invalid JSON, NaN/Infinity (with its JSON
            path), a duplicate key (with its line), nesting deeper than
            :data:`MAX_DEPTH`, or an integer too long to convert.
    """
    check_size(path, len(data), limit)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InvalidFile(path, f"byte {err.start}", "not valid UTF-8") from None
    non_finite: list[_NonFinite] = []

    def placeholder(name: str) -> _NonFinite:
        non_finite.append(_NonFinite(name))
        return non_finite[-1]

    try:
        value = json.loads(text, parse_constant=placeholder, object_pairs_hook=_refuse_duplicates)
    except json.JSONDecodeError as err:
        place = f"line {err.lineno} column {err.colno}"
        raise InvalidFile(path, place, f"invalid JSON: {_completed(err.msg, place)}") from None
    except _DuplicateKey as err:
        raise InvalidFile(path, _duplicate_key_line(text), str(err)) from None
    except (ValueError, RecursionError) as err:
        raise InvalidFile(path, "", failure_reason(err, "invalid JSON")) from None
    if non_finite:
        where, name = _non_finite_path(value) or ("", non_finite[0].name)
        raise InvalidFile(path, where, f"non-finite number {name}")
    if _nesting_depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise InvalidFile(path, "", TOO_DEEP)
    return value


def model_problem(err: ValidationError) -> str:
    """The first pydantic error as ``members.1.name: Field required`` (+N more)."""
    first = err.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    more = len(err.errors()) - 1
    return (f"{where}: {first['msg']}" if where else first["msg"]) + (f" (+{more} more)" if more else "")


def validate_raw(model: type[BaseModel] | type[Shape], raw: Any, shown_path: Path | str) -> Any:
    """``raw`` validated as ``model`` (pydantic is imported only when it raises).

    Raises:
        InvalidFile: naming the first problem.
    """
    try:
        return model.model_validate(raw)
    except validation_error() as err:
        raise InvalidFile(shown_path, "", model_problem(err)) from None
