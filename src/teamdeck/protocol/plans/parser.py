"""Parsing a coordinator's ``@@@task`` blocks (seed 002).

A block::

    @@@task
    # Implement Auth Module

    ## Objective
    Add JWT authentication
    ## Scope
    - src/auth/
    ## Definition of Done
    - Protected endpoints require tokens
    ## Verification
    - pytest tests/auth
    Depends: Create User Model
    @@@

needs a ``# title`` and the sections Objective, Definition of Done and Verification
(Scope may be left out, as in the seed's own example); ``Depends:`` (anywhere in the
block, comma-separated) names other tasks of the plan by title, by their position
(``2`` or ``#2``) or by id. Text outside blocks (the coordinator's prose) is ignored.
Every problem is reported with its line; a file with any problem imports nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from teamdeck.errors import Refused

OPEN = re.compile(r"^\s*@@@task\s*$")
CLOSE = re.compile(r"^\s*@@@\s*$")
TITLE = re.compile(r"^#\s+(?P<text>\S.*?)\s*$")
SECTION = re.compile(r"^##\s+(?P<name>\S.*?)\s*$")
DEPENDS = re.compile(r"^\s*depends(?:\s+on)?\s*:\s*(?P<names>.*)$", re.IGNORECASE)

HEADINGS = {
    "objective": "Objective",
    "scope": "Scope",
    "definitionOfDone": "Definition of Done",
    "verification": "Verification",
}
"""Field of the task's spec → its section heading."""
SECTIONS = {heading.lower(): name for name, heading in HEADINGS.items()}
"""Section heading (any case) → field of the task's spec."""
REQUIRED = ("objective", "definitionOfDone", "verification")
MAX_PROBLEMS = 50


@dataclass
class TaskBlock:
    """One parsed ``@@@task`` block."""

    line: int
    title: str = ""
    sections: dict[str, str] = field(default_factory=dict)
    depends: list[str] = field(default_factory=list)
    depends_line: int | None = None


class PlanProblems(Refused):
    """The plan has problems; nothing was imported. ``problems`` holds ``(line, text)``."""

    def __init__(self, source: str, problems: list[tuple[int, str]]) -> None:
        self.problems = problems
        shown = "; ".join(f"line {line}: {text}" if line else text for line, text in problems[:10])
        more = f" (+{len(problems) - 10} more)" if len(problems) > 10 else ""
        super().__init__(f"{source}: {len(problems)} problem(s), nothing was imported: {shown}{more}")


def parse_blocks(text: str, source: str = "plan") -> list[TaskBlock]:
    """Every ``@@@task`` block of ``text``, checked.

    Raises:
        PlanProblems: naming every problem with its line (no blocks, an unclosed block,
            a missing title or section, an unknown or repeated section, an empty one).
    """
    blocks: list[TaskBlock] = []
    problems: list[tuple[int, str]] = []
    current: TaskBlock | None = None
    section: str | None = None
    section_line = 0
    body: list[str] = []

    def close_section() -> None:
        if current is not None and section is not None:
            content = "\n".join(body).strip()
            if not content:
                problems.append((section_line, f"section '{section}' is empty"))
            current.sections[SECTIONS[section.lower()]] = content

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if current is None:
            if OPEN.match(line):
                current, section, body = TaskBlock(line=number), None, []
            elif CLOSE.match(line):
                problems.append((number, "'@@@' closes no @@@task block"))
            continue
        if OPEN.match(line):
            problems.append((current.line, "@@@task block is not closed with '@@@' before the next @@@task"))
            close_section()
            blocks.append(current)
            current, section, body = TaskBlock(line=number), None, []
            continue
        if CLOSE.match(line):
            close_section()
            _check_block(current, problems)
            blocks.append(current)
            current, section = None, None
            continue
        if (depends := DEPENDS.match(line)) and not line.startswith("#"):
            if current.depends_line is not None:
                problems.append((number, f"a second Depends: line (the first is line {current.depends_line})"))
            current.depends_line = number
            current.depends += [name.strip() for name in depends["names"].split(",") if name.strip()]
            continue
        if (heading := SECTION.match(line)) is not None:
            close_section()
            name = heading["name"]
            if name.lower() not in SECTIONS:
                problems.append(
                    (
                        number,
                        f"unknown section '## {name}' (sections: Objective, Scope, Definition of Done, Verification)",
                    )
                )
                section = None
            elif SECTIONS[name.lower()] in current.sections:
                problems.append((number, f"section '{name}' appears twice in this block"))
                section = None
            else:
                section, section_line, body = name, number, []
            continue
        if (title := TITLE.match(line)) is not None and not current.title and section is None:
            current.title = title["text"]
            continue
        if section is not None:
            body.append(raw)
        elif line.strip():
            problems.append((number, f"text outside any section: '{line.strip()[:60]}'"))
    if current is not None:
        problems.append((current.line, "@@@task block is not closed with '@@@'"))
    if not blocks and current is None and not problems:
        problems.append((1, "no @@@task blocks found"))
    _check_titles(blocks, problems)
    if problems:
        raise PlanProblems(source, sorted(problems)[:MAX_PROBLEMS])
    return blocks


def _check_block(block: TaskBlock, problems: list[tuple[int, str]]) -> None:
    if not block.title:
        problems.append((block.line, "the block has no '# title' line"))
    for name in REQUIRED:
        if name not in block.sections:
            problems.append((block.line, f"the block '{block.title or '?'}' has no '## {HEADINGS[name]}' section"))


def _check_titles(blocks: list[TaskBlock], problems: list[tuple[int, str]]) -> None:
    seen: dict[str, int] = {}
    for block in blocks:
        key = block.title.lower()
        if key and key in seen:
            problems.append((block.line, f"the title '{block.title}' is used twice (first at line {seen[key]})"))
        seen.setdefault(key, block.line)
