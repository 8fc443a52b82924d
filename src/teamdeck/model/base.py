"""Shared building blocks of the on-disk models.

Our own formats validate strictly (no type coercion: ``id: 012`` is an integer, not the
string "012", and is refused, B4) but keep fields written by other tools when we rewrite
a file (``extra="allow"``). Timestamps stay strings on the model so files round-trip
byte-for-byte in meaning; they are checked to be ISO-8601.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from teamdeck.model.shape import check_timestamp

ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
ID_RE = re.compile(ID_PATTERN)


Timestamp = Annotated[str, AfterValidator(check_timestamp), Field(json_schema_extra={"format": "date-time"})]
"""An ISO-8601 timestamp kept as written."""

Id = Annotated[str, Field(pattern=ID_PATTERN, json_schema_extra={"description": "a-z, 0-9, '.', '_', '-'; at most 64"})]
"""An id that is safe as a path part."""


class OurModel(BaseModel):
    """A teamdeck format: strict types, unknown fields kept for round-trips."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True, defer_build=True)


class ClosedModel(BaseModel):
    """A teamdeck record that allows nothing unknown (events, reports we alone write)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True, defer_build=True)
