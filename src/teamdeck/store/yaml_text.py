"""Defensive parsing and writing of YAML (R7): every failure is one :class:`InvalidFile`.

- A size cap before parsing (B3, store/loaders.py).
- libyaml's C loader, refusing anchors/aliases (B2), explicit tags (B1) and duplicate
  keys (B5); YAML 1.1's implicit booleans and octals are left to the models, which
  refuse a number where a string belongs (B4).
- Mapping keys must be strings: an unquoted ``on:`` or ``12:`` is refused with its line
  instead of becoming a boolean or integer key (B4).

Apart from store/loaders.py (JSON) so that PyYAML is imported only by a command that
reads or writes a YAML file: ``send`` and ``inbox --inject`` read JSON alone.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Protocol

import yaml

from teamdeck.errors import InvalidFile
from teamdeck.store.loaders import MAX_DEPTH, TOO_DEEP, check_size, failure_reason

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
    no constructor there and are refused here too. Scalars, most of the events, are
    told first (at 10x the TUI's first read parses 1,000 task.yaml files).
    """
    stack: list[_Open] = []
    result: Any = None
    documents = 0
    for event in yaml.parse(text, Loader=_CLoader):
        mark: _Mark | None = event.start_mark
        if isinstance(event, yaml.ScalarEvent):
            if event.anchor:
                raise InvalidFile(path, _line(mark), _ANCHORS)
            tag = event.tag
            raw = event.value
            if (tag is None or tag == "!") and (not event.implicit[0] or _plain_tag(raw) == _STR):
                value: Any = raw  # a string, most scalars: what the safe constructor gives, without a node
            else:
                _check_tag(tag, mark, path)
                value = _scalar(event, tag, path)
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if event.anchor:
                raise InvalidFile(path, _line(mark), _ANCHORS)
            tag = event.tag
            _check_tag(tag, mark, path)
            if len(stack) >= MAX_DEPTH:
                raise InvalidFile(path, _line(mark), TOO_DEEP)
            kind = "mapping" if isinstance(event, yaml.MappingStartEvent) else "sequence"
            if tag is not None and tag != "!" and _NODE_KIND.get(tag) != kind:
                wanted = _NODE_KIND.get(tag, "scalar")
                raise InvalidFile(path, _line(mark), f"invalid YAML: expected a {wanted} node, but found {kind}")
            stack.append(_Open({} if kind == "mapping" else [], mark))
            continue
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            done = stack.pop()
            value = done.value
            mark, raw = done.mark, None
        elif isinstance(event, yaml.AliasEvent):
            raise InvalidFile(path, _line(mark), _ANCHORS)
        elif isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise InvalidFile(path, _line(mark), "invalid YAML: expected a single document in the stream")
            continue
        else:
            continue
        if not stack:
            result = value
        else:
            stack[-1].add(value, path, mark, raw)
    return result


_ANCHORS = "uses YAML anchors/aliases, which this tool does not accept"


def _check_tag(tag: str | None, mark: _Mark | None, path: Path | str) -> None:
    """Refuse a tag that is not one of YAML's standard ones (B1)."""
    if tag and tag not in _STANDARD_TAGS and tag != "!":
        shown = tag.replace("tag:yaml.org,2002:", "!!")
        raise InvalidFile(path, _line(mark), f"tag {shown.split(':')[0]} is not allowed")


@functools.lru_cache(maxsize=4096)
def _plain_tag(value: str) -> str:
    """The tag PyYAML's resolver gives the plain (unquoted) scalar ``value``; cached:
    keys and states repeat in every file."""
    # types-PyYAML leaves Resolver.resolve unannotated
    return str(_RESOLVER.resolve(yaml.ScalarNode, value, (True, False)))  # type: ignore[no-untyped-call]


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
        tag = _plain_tag(event.value) if event.implicit[0] else _STR
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
        reason = failure_reason(err, "")
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
        where, why = _syntax_error(err)
        raise InvalidFile(path, where, why) from None
    except (yaml.YAMLError, RecursionError, ValueError) as err:
        raise InvalidFile(path, "", failure_reason(err, "invalid YAML")) from None


def _syntax_error(err: yaml.MarkedYAMLError) -> tuple[str, str]:
    """Where PyYAML's syntax error points (the problem's line and column, counted from 1
    as editors count) and what it says, with the construct it was in and where that
    starts when that is another place: a flow mapping missing its closing brace is
    refused where the text goes on, a line or more after the ``{`` to fix."""
    mark = err.problem_mark or err.context_mark
    why = f"invalid YAML: {err.problem or err.context}"
    context = err.context_mark
    if err.problem and err.context and context is not None and (mark is None or _place(context) != _place(mark)):
        why += f" ({err.context} at {_place(context)})"
    return (_place(mark) if mark else ""), why


def _place(mark: yaml.Mark) -> str:
    """``line 3 column 9``: a PyYAML mark (0-based) as a person finds it in an editor."""
    return f"{_line(mark)} column {mark.column + 1}"


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
