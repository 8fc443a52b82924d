"""How long what a client sends may be: the caps every front that takes arguments from
a program puts on them (the MCP tools, ``teamdeck serve``'s requests), checked before
anything is written, and the one way those arguments are refused."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, StringConstraints, ValidationError

from teamdeck.errors import Refused
from teamdeck.store.loaders import model_problem

Model = TypeVar("Model", bound=BaseModel)

ID_CHARS = 130
"""An id or a member (``name@team``: two names of at most 64)."""
SHORT_CHARS = 500
"""A summary, a reason, a role, a model."""
TEXT_CHARS = 10_000
"""A message, a note, a prompt, a report: well under the 64 KiB log record even when
every character is escaped."""
ITEMS = 50
"""Questions, next actions, changed files."""

Id = Annotated[str, StringConstraints(max_length=ID_CHARS)]
Short = Annotated[str, StringConstraints(max_length=SHORT_CHARS)]
Text = Annotated[str, StringConstraints(max_length=TEXT_CHARS)]


def parsed_arguments(model: type[Model], raw: Any, what: str) -> Model:
    """``raw`` (a client's arguments) as ``model``.

    Raises:
        Refused: they do not match it: ``what``, the first field and its problem.
    """
    try:
        return model.model_validate(raw)
    except ValidationError as err:
        raise Refused(f"{what}: {model_problem(err)}; nothing was done") from None
