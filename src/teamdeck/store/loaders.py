"""Defensive parsing of YAML and JSON (R7): every failure is one :class:`InvalidFile`.

- A size cap before parsing (B3).
- YAML with libyaml's C loader, refusing anchors/aliases (B2), explicit tags (B1) and
  duplicate keys (B5); YAML 1.1's implicit booleans and octals are left to the models,
  which refuse a number where a string belongs (B4).
- YAML mapping keys must be strings: an unquoted ``on:`` or ``12:`` is refused with its
  line instead of becoming a boolean or integer key (B4).
- JSON refusing NaN/Infinity (naming where, B7) and duplicate keys (naming the line, B5);
  nesting deeper than :data:`MAX_DEPTH` (B6) and huge integers (B8) become errors, not
  tracebacks; a UTF-8 BOM is accepted (B10).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Protocol

import yaml

from teamdeck.errors import InvalidFile
from teamdeck.store.json_text import dumps_json as dumps_json  # re-exported: its old home
from teamdeck.store.paths import open_beneath

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 100
TOO_DEEP = f"nesting too deep (more than {MAX_DEPTH} levels)"

_CLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_STANDARD_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
    "tag:yaml.org,2002:timestamp",
}


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


_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_NODE_KIND = {"tag:yaml.org,2002:map": "mapping", "tag:yaml.org,2002:seq": "sequence"}
_STR = "tag:yaml.org,2002:str"


class _Mark(Protocol):
    """Where an event starts (libyaml's mark or PyYAML's: both have ``line``)."""

    line: int


def _load_yaml_events(text: str, path: Path | str) -> Any:
    """Build the document from libyaml's event stream, refusing on the way anchors,
    aliases, non-standard tags, deep nesting (B1, B2, B6), duplicate keys (B5) and
    mapping keys that are not strings (B4).

    One pass: the flat event stream is what makes the safety checks safe on any input
    (libyaml's composer is recursive C code that crashes the process on 100,000-deep
    nesting), and the document is built from the same events instead of parsing the
    text a second time. Scalars are resolved and constructed exactly as PyYAML's safe
    loader does (its resolver and constructors); the merge key ``<<`` and ``=`` have
    no constructor there and are refused here too.
    """
    stack: list[_Open] = []
    result: Any = None
    documents = 0
    for event in yaml.parse(text, Loader=_CLoader):
        mark: _Mark | None = event.start_mark
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise InvalidFile(path, _line(mark), "uses YAML anchors/aliases, which this tool does not accept")
        tag = getattr(event, "tag", None)
        if tag and tag not in _STANDARD_TAGS and tag != "!":
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            raise InvalidFile(path, _line(mark), f"tag {shown.split(':')[0]} is not allowed")
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise InvalidFile(path, _line(mark), "invalid YAML: expected a single document in the stream")
            continue
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if len(stack) >= MAX_DEPTH:
                raise InvalidFile(path, _line(mark), TOO_DEEP)
            kind = "mapping" if isinstance(event, yaml.MappingStartEvent) else "sequence"
            if tag is not None and tag != "!" and _NODE_KIND.get(tag) != kind:
                wanted = _NODE_KIND.get(tag, "scalar")
                raise InvalidFile(path, _line(mark), f"invalid YAML: expected a {wanted} node, but found {kind}")
            stack.append(_Open({} if kind == "mapping" else [], mark))
            continue
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            done = stack.pop()
            value: Any = done.value
            mark, raw = done.mark, None
        elif isinstance(event, yaml.ScalarEvent):
            value, raw = _scalar(event, tag, path), event.value
        else:
            continue
        if not stack:
            result = value
        else:
            stack[-1].add(value, path, mark, raw)
    return result


def _line(mark: _Mark | None) -> str:
    """Where an event starts, for a message (made only when one is raised: a document
    has thousands of events)."""
    return f"line {mark.line + 1}" if mark else ""


class _Open:
    """A mapping or sequence being built from events (a mapping alternates key, value)."""

    __slots__ = ("key", "mark", "value")

    def __init__(self, value: dict[str, Any] | list[Any], mark: _Mark | None) -> None:
        self.value = value
        self.mark = mark
        self.key: str | None = None

    def add(self, item: Any, path: Path | str, mark: _Mark | None, raw: str | None) -> None:
        """Add the next item; ``mark`` is where it starts, ``raw`` its text as written
        (None: a mapping or sequence)."""
        if isinstance(self.value, list):
            self.value.append(item)
        elif self.key is not None:
            self.value[self.key] = item
            self.key = None
        elif raw is None:
            raise InvalidFile(path, _line(mark), "a mapping or sequence is used as a key; keys must be strings")
        elif not isinstance(item, str):
            raise InvalidFile(path, _line(mark), f"key {raw!r} is read as {type(item).__name__} {item!r}; quote it")
        elif item in self.value:
            raise InvalidFile(path, _line(mark), f"duplicate key '{item}'")
        else:
            self.key = item


def _scalar(event: yaml.ScalarEvent, tag: str | None, path: Path | str) -> Any:
    """A scalar as PyYAML's safe loader constructs it."""
    if tag is None or tag == "!":
        tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)
    if tag == _STR:
        return event.value  # what the safe constructor gives a string (most scalars), without building a node
    line = _line(event.start_mark)
    if tag in _NODE_KIND:
        raise InvalidFile(path, line, f"invalid YAML: expected a {_NODE_KIND[tag]} node, but found scalar")
    construct = _CONSTRUCTOR.yaml_constructors.get(tag)
    if construct is None:
        raise InvalidFile(path, line, f"invalid YAML: could not determine a constructor for the tag '{tag}'")
    try:
        return construct(_CONSTRUCTOR, yaml.ScalarNode(tag, event.value, style=event.style))
    except (yaml.YAMLError, ValueError, KeyError) as err:  # e.g. !!int x, !!bool maybe, 2026-13-45
        reason = _reason(err, "")
        if not reason.startswith("number too large"):
            reason = f"{event.value[:40]!r} is not a valid {tag.replace('tag:yaml.org,2002:', '')}"
        raise InvalidFile(path, line, reason) from None


def _load_yaml(text: str, path: Path | str) -> Any:
    """:func:`_load_yaml_events`, naming our own depth limit when libyaml's stopped first."""
    try:
        return _load_yaml_events(text, path)
    except yaml.MarkedYAMLError as err:
        _refuse_if_too_deep(text, err, path)
        raise


def _refuse_if_too_deep(text: str, err: yaml.MarkedYAMLError, path: Path | str) -> None:
    """Raise teamdeck's own depth error when that is why libyaml refused ``text``.

    libyaml 0.2.6 (PyYAML 6.0.4) has a nesting limit of its own, deeper than ours, and its
    scanner reads ahead, so it can refuse a document before the walk has seen our limit's
    worth of events. The text before the place it stopped is walked again: there the
    scanner reaches the end of the text instead of its limit and hands over the events,
    so if our limit is passed on the way, that is the error, with its line, whatever the
    library's version or wording.
    """
    mark = err.problem_mark or err.context_mark
    if mark is None or mark.index <= 0:
        return
    try:
        _load_yaml_events(text[: mark.index], path)
    except InvalidFile as own:
        if own.why == TOO_DEEP:
            raise
    except yaml.YAMLError:
        pass  # the prefix ends mid-document: expected, and not a depth problem


def parse_yaml(data: bytes, path: Path | str) -> Any:
    """Parse YAML bytes safely.

    Raises:
        InvalidFile: too big, not UTF-8, a YAML error, an anchor/alias/tag or a duplicate key.
    """
    check_size(path, len(data))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InvalidFile(path, f"byte {err.start}", "not valid UTF-8") from None
    try:
        return _load_yaml(text, path)
    except InvalidFile as err:
        raise InvalidFile(path, err.where, err.why) from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}" if mark else ""
        raise InvalidFile(path, where, f"invalid YAML: {err.problem or err.context}") from None
    except (yaml.YAMLError, RecursionError, ValueError) as err:
        raise InvalidFile(path, "", _reason(err, "invalid YAML")) from None


class _QuotingDumper(_CDumper):  # type: ignore[misc, valid-type]  # a base chosen at run time (C or Python dumper)
    """The C safe dumper, also quoting strings a YAML 1.2 reader takes for numbers.

    PyYAML already quotes what YAML 1.1 would misread (``'012'``, ``'no'``); agents
    reading task.yaml with a YAML 1.2 library (js-yaml, ruamel) would still read a bare
    ``1e3`` as a float, so plain scalars matching 1.2's float form are quoted as well.
    """


_QuotingDumper.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$"),
    list("-+.0123456789"),
)


def dump_yaml(data: Any) -> bytes:
    """Serialise to block-style YAML; strings that YAML would misread (``"012"``, ``"no"``,
    ``"1e3"``) are quoted."""
    return yaml.dump(
        data, Dumper=_QuotingDumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
    ).encode()


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


def _reason(err: BaseException, default: str) -> str:
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
    """
    keys: list[set[str] | None] = []  # per open container: the keys seen (None: a list)
    expecting_key: list[bool] = []
    try:
        for event in yaml.parse(text, Loader=_CLoader):
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
        raise InvalidFile(path, "", _reason(err, "invalid JSON")) from None
    if non_finite:
        where, name = _non_finite_path(value) or ("", non_finite[0].name)
        raise InvalidFile(path, where, f"non-finite number {name}")
    if _nesting_depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise InvalidFile(path, "", TOO_DEEP)
    return value
