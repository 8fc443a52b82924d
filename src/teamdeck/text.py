"""Making untrusted text safe to show in a terminal (docs/reliability.md R9, S1-S7).

Agents write names, messages, summaries and file contents; any of them may carry
terminal escape sequences (OSC 52 clipboard writes, title changes, hyperlinks, screen
clears), C0/C1 controls that overwrite what a person sees (CR, backspace), or bidi and
zero-width characters that reorder or hide text. :func:`sanitize` removes the first
two kinds and makes the third visible, and caps the length. The result is plain text:
fronts still must not interpret it as markup (the TUI wraps it in ``Content``).
"""

from __future__ import annotations

import re

MAX_DISPLAY_CHARS = 4000
REPLACEMENT = "\ufffd"

# ESC-introduced sequences: CSI, OSC / DCS / APC / PM / SOS strings (terminated by BEL
# or ST, or unterminated to the end), and two-byte ESC forms. Then the 8-bit C1 forms.
_ESCAPES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]?                      # CSI ... final byte (maybe missing)
  | \x1b[\]PX^_].*?(?:\x07|\x1b\\|\x9c|\Z)        # OSC, DCS, SOS, PM, APC strings
  | \x1b[ -/]*[0-~]?                              # two-byte and nF escapes, lone ESC
  | \x9b[0-?]*[ -/]*[@-~]?                        # 8-bit CSI
  | [\x90\x98\x9d\x9e\x9f].*?(?:\x07|\x9c|\x1b\\|\Z)   # 8-bit DCS, SOS, OSC, PM, APC
    """,
    re.VERBOSE | re.DOTALL,
)
# Remaining C0 controls except \t and \n, DEL, and C1 controls.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
# Bidi embeddings/overrides/isolates, marks, zero-width characters, BOM, line/para separators.
_INVISIBLE = re.compile(r"[\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def sanitize(text: str, limit: int = MAX_DISPLAY_CHARS) -> str:
    """``text`` made safe for a terminal: escapes → U+FFFD, controls removed (``\\r``
    shown as ``\\n``), invisible/bidi characters shown as ``<U+202E>``, and cut to
    ``limit`` characters with a note of the full size.

    Args:
        text: untrusted text (lone surrogates are shown escaped).
        limit: the most characters to keep (0: no limit).
    """
    if not isinstance(text, str):
        text = str(text)
    original_size = len(text)
    if limit and original_size > limit * 4:
        text = text[: limit * 4]  # never run the patterns over megabytes we will not show
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = _ESCAPES.sub(REPLACEMENT, text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROLS.sub("", text)
    text = _INVISIBLE.sub(lambda match: f"<U+{ord(match.group()):04X}>", text)
    if limit and (len(text) > limit or original_size > limit * 4):
        text = f"{text[:limit]}… (truncated, {original_size:,} characters)"
    return text


def one_line(text: str, limit: int = 200) -> str:
    """:func:`sanitize`, fold newlines and tabs into spaces, and cut to ``limit``
    characters ending in ``…`` (table cells, titles, one-line listings)."""
    if not isinstance(text, str):
        text = str(text)
    flat = " ".join(sanitize(text[: limit * 4 + 64], limit=0).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
