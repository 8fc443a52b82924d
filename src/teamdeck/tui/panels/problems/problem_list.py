"""Every problem of the snapshot, one row each: the file, the place in it, what is wrong
(the same list ``teamdeck status --json`` has under ``problems``)."""

from __future__ import annotations

from collections import Counter

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.snapshot.workspace import Problem, same_items

COLUMNS: tuple[tuple[str, int | None], ...] = (("file", 56), ("where", 24), ("problem", None))
"""The list's columns: title and most width (None: the rest of the line)."""


class ProblemList(LineList):
    """One row per problem (line API), in the snapshot's order."""

    shown: tuple[Problem, ...] = ()
    """The problems the rows were made of (a snapshot whose problems are the very
    same objects makes no rows again)."""

    def show(self, problems: tuple[Problem, ...]) -> None:
        if same_items(problems, self.shown) and self.rows:
            return
        self.shown = problems
        keys = problem_keys(problems)
        self.set_rows([problem_row(problem, key) for problem, key in zip(problems, keys, strict=True)])


def problem_keys(problems: tuple[Problem, ...]) -> tuple[str, ...]:
    """A key per problem, stable while it stays (the cursor stays on it as others come
    and go): its text, with a count when the same line occurs twice."""
    seen: Counter[str] = Counter()
    keys = []
    for problem in problems:
        seen[problem.text] += 1
        keys.append(problem.text if seen[problem.text] == 1 else f"{problem.text}#{seen[problem.text]}")
    return tuple(keys)


def problem_row(problem: Problem, key: str) -> Row:
    """A problem's row: its file, its place, its reason (sanitised, one line)."""
    texts_and_styles = (
        (cell(problem.path, 200), "line-list--bold"),
        (cell(problem.where, 80), "line-list--dim"),
        (cell(problem.why, 400), "line-list--error"),
    )
    return Row(
        key,
        tuple(
            Cell(text, width, style) for (text, style), (_title, width) in zip(texts_and_styles, COLUMNS, strict=True)
        ),
    )
