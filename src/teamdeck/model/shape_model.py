"""The pydantic model of a :class:`~teamdeck.model.shape.Shape`: the validator of record.

A shape's exact check takes the well-formed input of every turn without pydantic; all
else comes here: the model derived from the shape's fields (same name, docstring,
fields, defaults, aliases, constraints and configuration, so the committed JSON schemas
are its) validates it, coerces it and words its errors, and the record it makes keeps
the model instance, which writes it (:meth:`Shape.to_json`) exactly as pydantic does.
Imported only when such input is met (or a schema is asked for).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

if TYPE_CHECKING:  # shape.py imports this module when it needs pydantic, not the reverse
    from teamdeck.model.shape import Shape

AShape = TypeVar("AShape", bound="Shape")
"""The shape a record is made of, and so the type of the record."""

_MODELS: dict[type, type[BaseModel]] = {}
"""Each shape's pydantic model, made on first use."""
_SHAPE_OF: dict[type, type[Shape]] = {}
"""Each pydantic model made here → its shape."""


def model_of(shape: type[Shape]) -> type[BaseModel]:
    """The pydantic model of ``shape``, made once."""
    model = _MODELS.get(shape)
    if model is not None:
        return model
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


def validated(shape: type[AShape], values: Any) -> AShape:
    """``values`` (wire or attribute names; plain JSON and pydantic models, no record)
    as a record of ``shape``, by its model.

    Raises:
        pydantic.ValidationError: as the model raises it.
    """
    return record_of(shape, model_of(shape).model_validate(values))


def record_of(shape: type[AShape], model: BaseModel) -> AShape:
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
        return model_of(kind)
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
        return record_of(shape, value)
    if type(value) is list:
        return [_from_pydantic(item) for item in value]
    return value
