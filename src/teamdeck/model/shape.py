"""Records of the JSON formats read and written on every turn, defined once, without
importing pydantic until something unusual is met.

Agents run ``teamdeck send`` and ``teamdeck inbox --inject`` on every turn: importing
pydantic and building its validators cost more than the rest of such a command. A
:class:`Shape` is the one definition of such a format (Claude Code's ``config.json``
and inbox messages, model/team.py; ``messages.jsonl``, model/team_log.py): its fields
are the class's annotations, as in a dataclass, with :func:`field` for what a plain
default cannot say (the wire name ``from``, a pattern, a check, a factory).

Two ways to validate the same definition:

- **pydantic, the validator of record**: :meth:`Shape.pydantic_model` derives a pydantic
  model from the fields (made on first use, at the end of this module; the committed
  JSON schemas, coercion and error messages are its), and :meth:`Shape.model_validate`
  raises its ``ValidationError`` as before.
- **the exact check**, tried first: it accepts only input the pydantic model would take
  unchanged (a ``str`` field holds exactly a ``str``, a ``bool`` exactly a ``bool``,
  ``Any`` plain JSON with finite numbers, no field spelt by its Python name...) and
  *declines* everything else, which then goes to pydantic. So odd input behaves exactly
  as it did; tests/unit/test_shape_equivalence.py checks, on generated input, that a
  record the check accepts is equal to the one pydantic makes.

Fields a format does not know are kept (``EXTRA = "allow"``, B13) and written back by
:meth:`Shape.to_json`, which gives what pydantic's ``model_dump(mode="json",
by_alias=True, exclude_unset=True)`` gives. No I/O here.
"""

from __future__ import annotations

import math
import re
import sys
import types
from collections.abc import Callable
from datetime import datetime
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Literal,
    Self,
    TypeVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

_MISSING: Any = object()


class FieldSpec:
    """What :func:`field` declares about one field (see there)."""

    def __init__(
        self,
        default: Any,
        default_factory: Callable[[], Any] | None,
        wire: str | None,
        pattern: str | None,
        max_length: int | None,
        check: Callable[[Any], Any] | None,
        schema: dict[str, Any] | None,
    ) -> None:
        self.default, self.default_factory, self.wire = default, default_factory, wire
        self.pattern, self.max_length, self.check, self.schema = pattern, max_length, check, schema


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | None = None,
    wire: str | None = None,
    pattern: str | None = None,
    max_length: int | None = None,
    check: Callable[[Any], Any] | None = None,
    schema: dict[str, Any] | None = None,
) -> Any:
    """A field with more than a plain default.

    Args:
        default: the value when the field is absent.
        default_factory: makes that value (a fresh list for each record).
        wire: the name in the JSON when it is not the attribute's (``from`` is ``from_``).
        pattern: a regular expression anchored at both ends that a string must match.
        max_length: the longest string allowed.
        check: a function that raises ``ValueError`` for a value it refuses.
        schema: keys added to the field's JSON schema (``{"format": "date-time"}``).
    """
    return FieldSpec(default, default_factory, wire, pattern, max_length, check, schema)


class _Field:
    """One field of a shape: its name, wire name, type, default and checks."""

    def __init__(self, name: str, kind: Any, spec: FieldSpec) -> None:
        self.name = name
        self.wire = spec.wire or name
        self.aliased = self.wire != name
        self.kind = kind
        self.spec = spec
        self.required = spec.default is _MISSING and spec.default_factory is None
        self.pattern = re.compile(spec.pattern) if spec.pattern else None
        self.constrained = bool(spec.pattern or spec.max_length is not None or spec.check)
        arms = get_args(kind) if get_origin(kind) in (Union, types.UnionType) else (kind,)
        self.scalars: frozenset[type] | None = frozenset(arms) if all(arm in _SCALARS for arm in arms) else None
        """The exact types the field takes as they are (``str | None``), or None when
        its values need :func:`_exact` (lists, records, floats, ``Any``...)."""

    def default(self) -> Any:
        factory = self.spec.default_factory
        return factory() if factory is not None else self.spec.default


_SCALARS = (str, int, bool, type(None))
"""Types whose values pydantic keeps unchanged when given exactly that type."""


class _Declined(Exception):
    """The exact check does not take this input: pydantic decides."""


def _plain_json(value: Any) -> Any:
    """``value`` if it is plain JSON (``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
    finite ``float``, ``bool``, ``None``, exactly those types), else :class:`_Declined`."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise _Declined
        return value
    if kind is list:
        for item in value:
            _plain_json(item)
        return value
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise _Declined
            _plain_json(item)
        return value
    raise _Declined


def _exact(kind: Any, value: Any) -> Any:
    """``value`` as a field of type ``kind`` holds it, if pydantic would keep it unchanged."""
    if kind is Any:
        return _plain_json(value)
    if kind is str or kind is int or kind is bool:
        if type(value) is not kind:
            raise _Declined
        return value
    if kind is float:
        if type(value) is not float or not math.isfinite(value):
            raise _Declined
        return value
    if kind is type(None):
        if value is not None:
            raise _Declined
        return None
    origin = get_origin(kind)
    if origin is Union or origin is types.UnionType:
        taken = [arm for arm in get_args(kind) if _takes_exactly(arm, value)]
        if len(taken) != 1:
            raise _Declined
        return _exact(taken[0], value)
    if origin is Literal:
        if not any(type(value) is type(choice) and value == choice for choice in get_args(kind)):
            raise _Declined
        return value
    if origin is list:
        if type(value) is not list:
            raise _Declined
        (item,) = get_args(kind)
        return [_exact(item, element) for element in value]
    if origin is dict:
        key, item = get_args(kind)
        if type(value) is not dict or key is not str:
            raise _Declined
        return {_exact(str, name): _exact(item, element) for name, element in value.items()}
    if isinstance(kind, type) and issubclass(kind, Shape):
        if type(value) is kind:
            return value
        if type(value) is not dict:
            raise _Declined
        return kind._exact_record(value, by_name=False)
    raise _Declined


def _constrain(spot: _Field, value: Any) -> None:
    """Decline ``value`` unless it meets the field's pattern, length and check."""
    if type(value) is str:  # a pattern or a length constrains the string arm of a union
        if spot.pattern is not None and not spot.pattern.fullmatch(value):
            raise _Declined
        if spot.spec.max_length is not None and len(value) > spot.spec.max_length:
            raise _Declined
    if spot.spec.check is not None:
        try:
            spot.spec.check(value)
        except ValueError:
            raise _Declined from None


def _takes_exactly(arm: Any, value: Any) -> bool:
    try:
        _exact(arm, value)
    except _Declined:
        return False
    return True


def _json_value(value: Any) -> Any:
    """``value`` (plain JSON, or a record) as pydantic dumps it in JSON mode."""
    if isinstance(value, Shape):
        return value.to_json()
    kind = type(value)
    if kind is list:
        return [_json_value(item) for item in value]
    if kind is dict:
        return {key: _json_value(item) for key, item in value.items()}
    return value


_FIELDS: dict[type, tuple[_Field, ...]] = {}
"""Each shape's fields, read on first use."""


def check_timestamp(value: str) -> str:
    """``value`` if it is an ISO-8601 timestamp (kept as written), else ``ValueError``."""
    try:
        datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)
    except ValueError:
        raise ValueError(f"'{value[:40]}' is not an ISO-8601 timestamp") from None
    return value


def validation_error() -> type[ValidationError]:
    """pydantic's ``ValidationError``, imported when asked: ``except validation_error():``
    evaluates only when an exception reaches it, so a module on the hot path catches
    what :meth:`Shape.model_validate` raises without importing pydantic."""
    from pydantic import ValidationError

    return ValidationError


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
class Shape:
    """A JSON record defined by its annotations (see the module docstring).

    ``MODEL_CONFIG`` is the pydantic configuration of the derived model; ``EXTRA`` says
    whether unknown fields are kept (``"allow"``) or refused (``"forbid"``). The class
    methods a caller validates with are named as pydantic's (``model_validate``,
    ``model_json_schema``...), so code that reads a shape and code that reads a pydantic
    model (task files, events) read alike.
    """

    MODEL_CONFIG: ClassVar[dict[str, Any]] = {"extra": "allow", "populate_by_name": True, "defer_build": True}
    EXTRA: ClassVar[str] = "allow"

    _set: frozenset[str]
    _extra: dict[str, Any]

    def __init__(self, **values: Any) -> None:
        try:
            type(self)._exact_record(values, by_name=True, into=self)
        except _Declined:
            self.__dict__.clear()
            self.__dict__.update(type(self)._validated(values).__dict__)

    # --- the definition -------------------------------------------------------------

    @classmethod
    def fields(cls) -> tuple[_Field, ...]:
        """The fields in declaration order (base classes first), read once per class."""
        table = _FIELDS.get(cls)
        if table is None:
            table = tuple(
                _Field(name, kind, cls._spec(name))
                for name, kind in _annotations(cls).items()
                if get_origin(kind) is not ClassVar and not name.startswith("_")
            )
            _FIELDS[cls] = table
        return table

    @classmethod
    def _spec(cls, name: str) -> FieldSpec:
        for klass in cls.__mro__:
            if name in vars(klass):
                value = vars(klass)[name]
                return value if isinstance(value, FieldSpec) else FieldSpec(value, None, None, None, None, None, None)
        return FieldSpec(_MISSING, None, None, None, None, None, None)

    # --- the exact check ------------------------------------------------------------

    @classmethod
    def _exact_record(cls, values: dict[str, Any], *, by_name: bool, into: Self | None = None) -> Self:
        """The record ``values`` make, if every value is one the pydantic model would keep
        unchanged; keys are wire names, or attribute names when ``by_name``. The TUI
        reads every inbox message through here: kept to a few microseconds a message.
        ``into``: the record to fill (``__init__``'s), else a new one."""
        record = cls.__new__(cls) if into is None else into
        state = record.__dict__
        given = []
        for spot in _FIELDS.get(cls) or cls.fields():
            key, other = (spot.name, spot.wire) if by_name else (spot.wire, spot.name)
            if spot.aliased and other in values:
                raise _Declined  # spelt the other way (too): pydantic's rules decide
            value = values.get(key, _MISSING)
            if value is _MISSING:
                if spot.required:
                    raise _Declined
                state[spot.name] = spot.default()
                continue
            if spot.scalars is not None:
                if type(value) not in spot.scalars:
                    raise _Declined
            else:
                value = _exact(spot.kind, value)
            if spot.constrained:
                _constrain(spot, value)
            state[spot.name] = value
            given.append(spot.name)
        extra = {}
        if len(given) != len(values):
            if cls.EXTRA != "allow":
                raise _Declined
            known = {spot.name if by_name else spot.wire for spot in cls.fields()}
            extra = {key: value for key, value in values.items() if key not in known}
            for key, value in extra.items():
                if type(key) is not str or key.startswith("_") or key.startswith("model_") or hasattr(cls, key):
                    raise _Declined  # a name pydantic treats specially, or a method's
                _plain_json(value)
                state[key] = value
        state["_set"] = frozenset(given)
        state["_extra"] = extra
        return record

    # --- pydantic, the validator of record -------------------------------------------

    @classmethod
    def pydantic_model(cls) -> type[BaseModel]:
        """The pydantic model of this shape, made on first use (pydantic: only when asked)."""
        return _model_of(cls)

    @classmethod
    def _validated(cls, values: Any) -> Self:
        """``values`` validated by the pydantic model (its ``ValidationError`` if not valid)."""
        return _model_validated(cls, _unshaped(values))

    @classmethod
    def exactly(cls, values: Any, *, by_name: bool = False) -> Self | None:
        """The record ``values`` make when the exact check takes them, else None (then
        only pydantic's model can say what they make). Keys are wire names (``from``),
        or attribute names (``from_``) when ``by_name``."""
        if type(values) is not dict:
            return None
        try:
            return cls._exact_record(values, by_name=by_name)
        except _Declined:
            return None

    @classmethod
    def model_validate(cls, raw: Any) -> Self:
        """``raw`` (the JSON as read) as a record of this shape.

        Raises:
            pydantic.ValidationError: not a record of this shape (pydantic's own error,
                catch it with ``except validation_error():`` on the hot path).
        """
        made = cls.exactly(raw)
        return made if made is not None else cls._validated(raw)

    @classmethod
    def model_validate_json(cls, data: str | bytes) -> Self:
        """The record a JSON document holds (pydantic parses and validates it)."""
        return _record_of(cls, cls.pydantic_model().model_validate_json(data))

    @classmethod
    def model_json_schema(cls, mode: Literal["validation", "serialization"] = "validation") -> dict[str, Any]:
        """The JSON schema of this shape (its pydantic model's)."""
        return cls.pydantic_model().model_json_schema(mode=mode)

    # --- a record -------------------------------------------------------------------

    @property
    def model_fields_set(self) -> frozenset[str]:
        """The fields that were given, unknown ones included (a default taken is not)."""
        return self._set | frozenset(self._extra)

    def _dump(self, *, exclude_unset: bool, exclude_none: bool) -> dict[str, Any]:
        """What pydantic's ``model_dump(mode="json", by_alias=True, ...)`` gives."""
        model = self.__dict__.get("_model")
        if model is not None:
            return dict(
                model.model_dump(mode="json", by_alias=True, exclude_unset=exclude_unset, exclude_none=exclude_none)
            )
        out: dict[str, Any] = {}
        state = self.__dict__
        for spot in self.fields():
            value = state[spot.name]
            if (exclude_unset and spot.name not in self._set) or (exclude_none and value is None):
                continue
            out[spot.wire] = _json_value(value)
        for key, value in self._extra.items():
            if not (exclude_none and value is None):
                out[key] = _json_value(value)
        return out

    def to_json(self) -> dict[str, Any]:
        """The fields as they were given (wire names, unknown fields included), for
        round-trips and ``--json`` output."""
        return self._dump(exclude_unset=True, exclude_none=False)

    def replaced(self, **changes: Any) -> Any:
        """A copy with ``changes`` (attribute names), validated like a new record."""
        values = {spot.name: self.__dict__[spot.name] for spot in self.fields() if spot.name in self._set}
        return type(self)(**values, **self._extra, **changes)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its JSON, validated again when loaded (the TUI's first read comes
        pickled from a child process): a record pydantic made holds a model instance of a
        class made at run time, which pickle cannot name."""
        return (type(self).model_validate, (self.to_json(),))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        mine = {spot.name: self.__dict__[spot.name] for spot in self.fields()}
        theirs = {spot.name: other.__dict__[spot.name] for spot in self.fields()}
        return mine == theirs and self._extra == other._extra

    __hash__ = None  # type: ignore[assignment]  # mutable, like a pydantic model

    def __repr__(self) -> str:
        shown = [f"{spot.name}={self.__dict__[spot.name]!r}" for spot in self.fields()]
        shown += [f"{key}={value!r}" for key, value in self._extra.items()]
        return f"{type(self).__name__}({', '.join(shown)})"


def _annotations(cls: type[Shape]) -> dict[str, Any]:
    """The evaluated annotations of ``cls`` and of the shapes it extends, base first
    (``typing.get_type_hints``, with each class's strings evaluated in one go: it
    compiled one expression per field, ~3 ms of a ``send``)."""
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass is Shape or not issubclass(klass, Shape):
            continue
        own = klass.__dict__.get("__annotations__", {})
        if not all(isinstance(text, str) for text in own.values()):
            hints.update({name: kind for name, kind in get_type_hints(klass).items() if name in own})
            continue
        if own:
            scope = vars(sys.modules[klass.__module__])
            kinds = eval(f"({', '.join(own.values())},)", scope, dict(vars(klass)))
            hints.update(zip(own, kinds, strict=True))
    return hints


def _unshaped(value: Any) -> Any:
    """``value`` with every record in it as its JSON, for pydantic to validate."""
    if isinstance(value, Shape):
        return value.to_json()
    if type(value) is list:
        return [_unshaped(item) for item in value]
    if type(value) is dict:
        return {key: _unshaped(item) for key, item in value.items()}
    return value


# --- the pydantic model of a shape: the validator of record ------------------------------
#
# A shape's exact check takes the well-formed input of every turn without pydantic; all
# else comes here: the model derived from the shape's fields (same name, docstring,
# fields, defaults, aliases, constraints and configuration, so the committed JSON schemas
# are its) validates it, coerces it and words its errors, and the record it makes keeps
# the model instance, which writes it (:meth:`Shape.to_json`) exactly as pydantic does.
# pydantic is imported only when such input is met (or a schema is asked for).

AShape = TypeVar("AShape", bound=Shape)
"""The shape a record is made of, and so the type of the record."""

_MODELS: dict[type, type[BaseModel]] = {}
"""Each shape's pydantic model, made on first use."""
_SHAPE_OF: dict[type, type[Shape]] = {}
"""Each pydantic model made here → its shape."""


def _model_of(shape: type[Shape]) -> type[BaseModel]:
    """The pydantic model of ``shape``, made once."""
    model = _MODELS.get(shape)
    if model is not None:
        return model
    from pydantic import AfterValidator, ConfigDict, Field, create_model  # only now: odd input, or a schema

    definitions: dict[str, Any] = {}
    for spot in shape.fields():
        options: dict[str, Any] = {}
        if spot.spec.default_factory is not None:
            options["default_factory"] = spot.spec.default_factory
        elif not spot.required:
            options["default"] = spot.spec.default
        if spot.wire != spot.name:
            options["alias"] = spot.wire
        if spot.spec.pattern is not None:
            options["pattern"] = spot.spec.pattern
        if spot.spec.max_length is not None:
            options["max_length"] = spot.spec.max_length
        if spot.spec.schema is not None:
            options["json_schema_extra"] = spot.spec.schema
        kind = _as_pydantic(spot.kind)
        if spot.spec.check is not None:
            kind = Annotated[kind, AfterValidator(spot.spec.check)]
        definitions[spot.name] = (kind, Field(**options))
    model = create_model(
        shape.__name__,
        __config__=ConfigDict(**shape.MODEL_CONFIG),  # type: ignore[typeddict-item]
        __doc__=shape.__doc__,
        __module__=shape.__module__,
        **definitions,
    )
    _MODELS[shape] = model
    _SHAPE_OF[model] = shape
    return model


def _model_validated(shape: type[AShape], values: Any) -> AShape:
    """``values`` (wire or attribute names; plain JSON and pydantic models, no record)
    as a record of ``shape``, by its model.

    Raises:
        pydantic.ValidationError: as the model raises it.
    """
    return _record_of(shape, _model_of(shape).model_validate(values))


def _record_of(shape: type[AShape], model: BaseModel) -> AShape:
    """The record of ``shape`` holding what the pydantic model instance ``model`` holds."""
    record = shape.__new__(shape)
    state = record.__dict__
    for spot in shape.fields():
        state[spot.name] = _from_pydantic(getattr(model, spot.name))
    extra = {key: _from_pydantic(value) for key, value in (model.__pydantic_extra__ or {}).items()}
    state["_set"] = frozenset(model.model_fields_set)
    state["_extra"] = extra
    state["_model"] = model  # it writes the record: NaN, tuples, bytes... as pydantic does
    for key, value in extra.items():
        if not hasattr(shape, key):
            state.setdefault(key, value)
    return record


def _as_pydantic(kind: Any) -> Any:
    """``kind`` with every shape in it replaced by its pydantic model."""
    if isinstance(kind, type) and hasattr(kind, "pydantic_model"):  # a shape
        return _model_of(kind)
    args = get_args(kind)
    origin = get_origin(kind)
    if not args or origin is Literal:
        return kind
    converted = tuple(_as_pydantic(arg) for arg in args)
    if converted == args:
        return kind
    if origin is Union or origin is types.UnionType:
        return Union[converted]  # noqa: UP007 - built from a tuple
    return origin[converted]


def _from_pydantic(value: Any) -> Any:
    """``value`` with every pydantic model of a shape in it made that shape's record."""
    shape = _SHAPE_OF.get(type(value))
    if shape is not None:
        return _record_of(shape, value)
    if type(value) is list:
        return [_from_pydantic(item) for item in value]
    return value
