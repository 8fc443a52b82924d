"""The page's HTML: Jinja2 templates (web/templates/, shipped with the package) with
autoescape on for every value, and the filters every piece of agent text goes through
first, the terminal's own sanitising (text.py): escapes shown as U+FFFD, controls
removed, bidi and zero-width characters made visible. So a member name or a message
body is text on the page, whatever it holds; nothing an agent wrote is ever markup,
an attribute of ours or a link's target.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from jinja2 import ChainableUndefined, Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from teamdeck.resources import data_dir
from teamdeck.text import one_line, sanitize

PART_STYLES = {"", "bold", "accent", "warning", "muted"}
"""A decision spec's style roles (decisions/spec.py ``Style``), each a CSS class."""


def line(value: object, limit: int = 200) -> str:
    """Untrusted text as one line (newlines folded, cut to ``limit``)."""
    return one_line("" if value is None else str(value), limit)


def block(value: object, limit: int = 4000) -> str:
    """Untrusted text keeping its lines (the page shows them with ``white-space: pre-wrap``)."""
    return sanitize("" if value is None else str(value), limit)


def parts(value: object) -> Markup:
    """A decision's detail or question as the stream sent it (shapes/decisions.py
    ``parts_json``): each part escaped in a span of its style; teamdeck's own words as
    they are, the files' text sanitised to one line or to its lines, as the TUI does."""
    pieces = []
    for part in value if isinstance(value, list) else []:
        if not isinstance(part, dict):
            continue
        text, form, style = part.get("text"), part.get("form"), part.get("style")
        given = part.get("limit")
        limit = given if isinstance(given, int) and given > 0 else 200
        shown = str(text) if form == "ours" else block(text, limit) if form == "block" else line(text, limit)
        css = f"part part-{style}" if style in PART_STYLES and style else "part"
        pieces.append(Markup('<span class="{}">{}</span>').format(css, shown))
    return Markup("").join(pieces)


def href(path: str, **params: object) -> str:
    """A link to one of our own pages: ``path`` is ours, every parameter is quoted, so
    text from a host can only ever be a query value."""
    query = urlencode({key: str(value) for key, value in params.items() if value is not None})
    return f"{path}?{query}" if query else path


@cache
def environment() -> Environment:
    """The templates, loaded once. A field a host did not send is empty, never an
    error: what a host sends is untrusted, and one odd record must not blank a page."""
    env = Environment(
        loader=FileSystemLoader(data_dir("web") / "templates"),
        autoescape=select_autoescape(default=True),
        undefined=ChainableUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(line=line, block=block, parts=parts)
    env.globals.update(href=href)
    return env


def render(template: str, **context: Any) -> str:
    """``template`` filled with ``context``."""
    return environment().get_template(template).render(**context)
