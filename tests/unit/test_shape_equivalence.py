"""The exact check of a Shape (model/shape.py) gives what its pydantic model gives, or
declines: the second path that lets ``send`` and ``inbox --inject`` start without
pydantic changes nothing a reader of those files sees.

For generated raw dicts - right types, wrong types (``"5"`` for an int, ``1`` for a
bool, NaN, nested junk), missing fields, unknown fields (kept, B13), the wire name
``from`` and the attribute name ``from_`` - every shape of model/team.py and
model/team_log.py is checked: when the exact check takes the input, pydantic takes it
too and the two records have the same attribute values and the same ``to_json()``;
:meth:`Shape.model_validate` (exact check first, pydantic after) fails exactly when
pydantic does, with pydantic's own error.
"""

from __future__ import annotations

import math
import pickle
import types
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from teamdeck.model import team as claude
from teamdeck.model.shape import Shape
from teamdeck.model.team_log import TeamLogRecord

SHAPES: list[type[Shape]] = [
    claude.TeamConfig,
    claude.Member,
    claude.InboxMessage,
    claude.ClaudeTask,
    claude.HostPattern,
    claude.Plain,
    claude.Unknown,
    *claude.KINDS.values(),
    TeamLogRecord,
]

ODD_NAMES = ["from", "from_", "type", "name", "text", "read", "model_config", "to_json", "_private", "fields", "x-new"]
"""Keys an unknown field may have: wire and attribute names, pydantic's own, a method's."""

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["5", "true", "false", "1", "0", "", "2026-11-26T23:59:00Z", "\n"]),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=6,
)
odd_value = st.one_of(json_value, st.tuples(st.integers()), st.text(alphabet="ab1", max_size=3).map(str.encode))
"""What a caller (not a file) could pass: a tuple, bytes (that pydantic can write)."""


def typed(kind: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values of the declared type ``kind`` (what a well-formed file holds)."""
    origin = get_origin(kind)
    if kind is Any:
        return json_value
    if kind is str:
        return st.one_of(st.text(max_size=12), st.from_regex(r"[0-9A-HJKMNP-TV-Z]{26}\n?", fullmatch=True))
    if kind is int:
        return st.integers(min_value=-(2**70), max_value=2**70)
    if kind is float:
        return st.floats(allow_nan=True, allow_infinity=True)
    if kind is bool:
        return st.booleans()
    if kind is type(None):
        return st.none()
    if origin is Union or origin is types.UnionType:
        return st.one_of(*(typed(arm, depth) for arm in get_args(kind)))
    if origin is Literal:
        return st.sampled_from(get_args(kind))
    if origin is list:
        return st.lists(typed(get_args(kind)[0], depth + 1), max_size=3)
    if origin is dict:
        return st.dictionaries(st.text(max_size=4), typed(get_args(kind)[1], depth + 1), max_size=3)
    if isinstance(kind, type) and issubclass(kind, Shape):
        return raw_of(kind, depth + 1) if depth < 2 else st.builds(dict, name=st.text(max_size=4))
    raise AssertionError(f"no strategy for {kind}")


TIMESTAMPS = st.one_of(
    st.datetimes().map(lambda moment: moment.isoformat()),
    st.datetimes().map(lambda moment: moment.isoformat() + "Z"),
    st.sampled_from(["2026-11-26T23:59:00.123Z", "2026-13-01T00:00:00Z", "yesterday", "2026-11-26"]),
)


def raw_of(shape: type[Shape], depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """Raw dicts for ``shape``: each field absent or well-typed, spelt by its wire name
    or (sometimes) its attribute name; then up to two fields given a wrong or odd value
    (one at a time, so the rest of the record stays valid and the odd value decides),
    and unknown fields."""
    parts = []
    for spot in shape.fields():
        right = TIMESTAMPS if spot.spec.check is not None else typed(spot.kind, depth)
        if spot.spec.max_length is not None:
            right = st.one_of(right, st.text(min_size=spot.spec.max_length - 1, max_size=spot.spec.max_length + 1))
        names = st.sampled_from([spot.wire, spot.wire, spot.wire, spot.name])
        parts.append(st.one_of(st.tuples(names, right), st.tuples(names, right), st.just(None)))
    spelt = [name for spot in shape.fields() for name in {spot.wire, spot.name}]
    wrong = st.lists(st.tuples(st.sampled_from(spelt), st.one_of(json_leaf, odd_value)), max_size=2)
    extra = st.lists(st.tuples(st.one_of(st.sampled_from(ODD_NAMES), st.text(max_size=5)), json_value), max_size=2)

    def build(
        pairs: list[tuple[str, Any] | None], wrongs: list[tuple[str, Any]], extras: list[tuple[str, Any]]
    ) -> dict[str, Any]:
        raw: dict[str, Any] = {}
        for pair in pairs:
            if pair is not None:
                raw[pair[0]] = pair[1]
        for key, value in wrongs:
            raw[key] = value
        for key, value in extras:
            raw.setdefault(key, value)
        return raw

    return st.builds(build, st.tuples(*parts).map(list), wrong, extra)


def dumped(shape: type[Shape], model: BaseModel) -> dict[str, Any]:
    """What pydantic writes for the record (the policy of the shape's ``to_json``)."""
    if shape is TeamLogRecord:
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def same(a: Any, b: Any) -> bool:
    """Equal, comparing records by class name and JSON, and NaN equal to NaN."""
    if isinstance(a, Shape) or isinstance(b, BaseModel):
        if not isinstance(a, Shape) or not isinstance(b, BaseModel):
            return False
        return type(a).__name__ == type(b).__name__ and a.to_json() == dumped(type(a), b)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    return bool(a == b)


def check(shape: type[Shape], raw: dict[str, Any], *, by_name: bool) -> None:
    model = shape.pydantic_model()
    try:
        expected: BaseModel | None = model.model_validate(raw)
    except ValidationError:
        expected = None
    fast = shape.exactly(raw, by_name=by_name)
    if fast is not None:
        assert expected is not None, f"the exact check took what pydantic refuses: {raw!r}"
        assert fast.to_json() == dumped(shape, expected)
        assert fast.model_fields_set == expected.model_fields_set
        for spot in shape.fields():
            assert same(getattr(fast, spot.name), getattr(expected, spot.name)), spot.name
    if by_name:
        return
    if expected is None:
        with pytest.raises(ValidationError):
            shape.model_validate(raw)
    else:
        made = shape.model_validate(raw)
        assert made.to_json() == dumped(shape, expected)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_the_exact_check_declines_or_agrees_with_pydantic(shape: type[Shape], data: st.DataObject) -> None:
    raw = data.draw(raw_of(shape))
    check(shape, raw, by_name=False)
    by_name = {spot.name: raw[spot.wire] for spot in shape.fields() if spot.wire in raw}
    check(shape, {**{k: v for k, v in raw.items() if k not in by_name}, **by_name}, by_name=True)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_well_formed_input_takes_the_exact_path(shape: type[Shape], data: st.DataObject) -> None:
    """The check is not one that declines everything: a file as Claude Code and
    teamdeck write it (right types, plain JSON, finite numbers) is taken without pydantic."""
    raw = {}
    for spot in shape.fields():
        if spot.required or data.draw(st.booleans()):
            value = data.draw(TIMESTAMPS.filter(lambda text: "yesterday" not in text and "-13-" not in text))
            if spot.spec.check is None:
                value = data.draw(well_formed(spot.kind))
            raw[spot.wire] = value
    if shape is TeamLogRecord:
        raw["id"] = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
        raw["key"] = (raw.get("key") or "k")[:300]
    raw["x-added-later"] = data.draw(st.lists(st.integers(), max_size=2))
    if shape.EXTRA != "allow":
        del raw["x-added-later"]
    made = shape.exactly(raw)
    assert made is not None, raw
    assert made.to_json() == dumped(shape, shape.pydantic_model().model_validate(raw))


def well_formed(kind: Any) -> st.SearchStrategy[Any]:
    origin = get_origin(kind)
    if kind is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind is Any:
        return st.recursive(
            st.one_of(
                st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text()
            ),
            lambda inner: st.one_of(
                st.lists(inner, max_size=2), st.dictionaries(st.text(max_size=3), inner, max_size=2)
            ),
            max_leaves=4,
        )
    if kind is str:
        return st.text(max_size=10)
    if origin is Union or origin is types.UnionType:
        return st.one_of(*(well_formed(arm) for arm in get_args(kind)))
    if origin is list:
        return st.lists(well_formed(get_args(kind)[0]), max_size=2)
    if origin is dict:
        return st.dictionaries(st.text(max_size=3), well_formed(get_args(kind)[1]), max_size=2)
    if isinstance(kind, type) and issubclass(kind, Shape):
        return st.fixed_dictionaries({spot.wire: well_formed(spot.kind) for spot in kind.fields() if spot.required})
    return typed(kind)


JUNK = [
    True,
    False,
    0,
    1,
    -1,
    2**70,
    1.0,
    1.5,
    math.nan,
    math.inf,
    "",
    "1",
    "true",
    "x\n",
    None,
    [],
    [1],
    {},
    {"k": 1},
    (1,),
    b"a",
]
"""Values put in each field of a valid record, one at a time: every type a field may
meet in a file or from a caller, and the coercions pydantic makes (``"1"`` -> 1,
``1`` -> True, ``1.0`` -> 1...)."""


def sample(kind: Any) -> Any:
    """One well-formed value of the declared type ``kind``."""
    origin = get_origin(kind)
    if origin is Union or origin is types.UnionType:
        return sample(next(arm for arm in get_args(kind) if arm is not type(None)))
    if origin is Literal:
        return get_args(kind)[0]
    if isinstance(kind, type) and issubclass(kind, Shape):
        return minimal(kind)
    return {str: "a", int: 1, float: 1.5, bool: True, Any: None, list: [], dict: {}}.get(origin or kind)


def minimal(shape: type[Shape]) -> dict[str, Any]:
    """The smallest valid raw record of ``shape``."""
    if shape is TeamLogRecord:
        return {"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "ts": "2026-11-26T23:59:00Z", "type": "message", "actor": "h"}
    return {spot.wire: sample(spot.kind) for spot in shape.fields() if spot.required}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
def test_every_field_given_every_kind_of_value_declines_or_agrees(shape: type[Shape]) -> None:
    """A table to complement the property: each field of a valid record, in turn, holds
    each value of :data:`JUNK`, spelt by its wire and by its attribute name."""
    base = minimal(shape)
    assert shape.exactly(base) is not None
    for spot in shape.fields():
        for value in JUNK:
            check(shape, {**base, spot.wire: value}, by_name=False)
            check(shape, {**{k: v for k, v in base.items() if k != spot.wire}, spot.name: value}, by_name=False)
            by_name = {(s.name if s.wire in base else s.wire): base[s.wire] for s in shape.fields() if s.wire in base}
            check(shape, {**by_name, spot.name: value}, by_name=True)
        check(shape, {**base, "x-new": [1, {"a": None}]}, by_name=False)


def test_a_record_pickles_whichever_path_made_it() -> None:
    """The TUI's first read comes pickled from a child process (tui/first_read.py):
    a record made by the exact check and one made by pydantic (``isActive: "false"``
    is coerced) load equal, with the same JSON."""
    raw = {
        "name": "alpha",
        "members": [{"name": "team-lead"}, {"name": "alice", "isActive": "false", "x-new": [1]}],
        "x-team": {"k": None},
    }
    fast = claude.TeamConfig.model_validate({**raw, "members": raw["members"][:1]})
    slow = claude.TeamConfig.model_validate(raw)
    assert claude.TeamConfig.exactly(raw) is None and slow.members[1].isActive is False
    for record in (fast, slow):
        loaded = pickle.loads(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
        assert loaded == record and loaded.to_json() == record.to_json()
        assert type(loaded.members[0]) is claude.Member
