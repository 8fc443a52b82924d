"""What teamdeck reads out of issue titles, bodies and comments (seed 001 §14, §14b, §15, §17).

- parent: ``[parent #100]`` in the title, else a ``Parent: #100`` line in the body.
- depends: every ``Depends: #101`` line (several numbers on one line allowed).
- closes: Gitea's closing keywords in a PR body (``Closes #101``, ``fixes #7``...).
- mentions: ``@login`` at the start of a line or after whitespace, so an e-mail
  address (``a@b.c``) is not a mention.
"""

from __future__ import annotations

import re

_PARENT_TITLE = re.compile(r"\[parent\s*#(\d{1,9})\]", re.IGNORECASE)
_PARENT_BODY = re.compile(r"^[ \t]*Parent:[ \t]*#(\d{1,9})\b", re.IGNORECASE | re.MULTILINE)
_DEPENDS_LINE = re.compile(r"^[ \t]*Depends(?: on)?:[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE)
_NUMBER = re.compile(r"#(\d{1,9})\b")
_CLOSES = re.compile(
    r"(?:^|[\s(])(?:close|closes|closed|fix|fixes|fixed|resolve|resolves|resolved)[ \t]*:?[ \t]*#(\d{1,9})\b",
    re.IGNORECASE,
)
_MENTION = re.compile(r"(?:^|(?<=\s))@([A-Za-z0-9][A-Za-z0-9._-]{0,38})")


def parent_of(title: str, body: str) -> int | None:
    """The parent issue number, if the title or body names one."""
    found = _PARENT_TITLE.search(title) or _PARENT_BODY.search(body)
    return int(found.group(1)) if found else None


def depends_of(body: str) -> list[int]:
    """The issue numbers of the ``Depends:`` lines, in order, each once."""
    numbers: list[int] = []
    for line in _DEPENDS_LINE.finditer(body):
        for found in _NUMBER.finditer(line.group(1)):
            value = int(found.group(1))
            if value not in numbers:
                numbers.append(value)
    return numbers


def closes_of(body: str) -> list[int]:
    """The issue numbers a PR body closes (``Closes #N``), in order, each once."""
    numbers: list[int] = []
    for found in _CLOSES.finditer(body):
        value = int(found.group(1))
        if value not in numbers:
            numbers.append(value)
    return numbers


def mentions_of(text: str) -> list[str]:
    """The logins ``@``-mentioned in ``text`` (lowercase, in order, each once; linear in
    the text, so a comment of 10,000 mentions is cheap)."""
    logins: dict[str, None] = {}
    for found in _MENTION.finditer(text):
        login = found.group(1).rstrip(".").lower()
        if login:
            logins.setdefault(login)
    return list(logins)
