"""Turning untrusted text into something safe to draw (R9, S1-S7).

Every string that came from a file goes through :func:`cell` (one line, for lists) or
:func:`block` (several lines, for detail views) and then into a ``Content`` or a
``Segment`` - never into markup, never as a plain ``str`` to a widget that would parse
it. The results are cached: lists redraw the same names and summaries many times.
"""

from __future__ import annotations

from functools import lru_cache

from textual.content import Content
from textual.widgets import Static

from teamdeck.decisions.spec import Part
from teamdeck.text import one_line, sanitize

NOTICE_CHARS = 400
"""The longest notice (an action's line, a refusal in a host's or an agent's words)."""
BLOCK_CHARS = 20_000
"""The most characters a detail view shows of one text (the rest: "view raw")."""


@lru_cache(maxsize=32_768)
def cell(text: str | None, limit: int = 200) -> str:
    """``text`` sanitised into one line of at most ``limit`` characters."""
    return one_line(text or "", limit)


def block(text: str | None, limit: int = BLOCK_CHARS) -> str:
    """``text`` sanitised, newlines kept, cut to ``limit`` characters with a note."""
    return sanitize(text or "", limit)


def safe(text: str | None, style: str = "", *, limit: int = BLOCK_CHARS) -> Content:
    """A ``Content`` of sanitised ``text`` (never parsed as markup)."""
    return Content.styled(block(text, limit), style)


STYLES = {"": "", "bold": "bold", "accent": "bold $accent", "warning": "bold $warning", "muted": "$text-muted"}
"""A decision spec's style roles in the theme (decisions/spec.py ``Style``)."""


def parts_content(parts: tuple[Part, ...]) -> Content:
    """A decision spec's parts as one ``Content``: teamdeck's own words as they are,
    the files' text sanitised (one line, or its lines kept), each in its style."""
    pieces: list[tuple[str, str]] = []
    for part in parts:
        if part.form == "ours":
            text = part.text
        elif part.form == "block":
            text = block(part.text, part.limit)
        else:
            text = cell(part.text, part.limit)
        style = STYLES[part.style]
        if pieces and pieces[-1][1] == style:
            pieces[-1] = (pieces[-1][0] + text, style)  # one span per run of a style, as if written at once
        else:
            pieces.append((text, style))
    return Content.assemble(*pieces)


def escaped(text: str | None, limit: int = 200_000) -> str:
    """``text`` with every non-printable character shown as an escape (``\\x1b``,
    ``\\u202e``), for "view raw": nothing is hidden, nothing reaches the terminal raw."""
    value = text or ""
    shown = []
    for char in value[:limit]:
        if char == "\n":
            shown.append("\n")
        elif (
            char.isprintable()
            and char
            not in "\u061c\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
        ):
            shown.append(char)
        else:
            shown.append(char.encode("unicode_escape").decode("ascii"))
    if len(value) > limit:
        shown.append(f"… (truncated, {len(value):,} characters)")
    return "".join(shown)


def show_content(widget: Static, content: Content, *, layout: bool = True) -> None:
    """Put ``content`` in ``widget`` unless it holds exactly that already (text and
    styles): an update costs a refresh of the screen, and with ``layout`` (the size may
    change) a layout of the whole screen, so a change elsewhere must not redraw it.
    Pass ``layout=False`` only where the widget's size cannot depend on its content."""
    shown = widget.content
    if isinstance(shown, Content) and shown.is_same(content):
        return
    widget.update(content, layout=layout)
