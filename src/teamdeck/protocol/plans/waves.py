"""The dependency graph of a plan: task ids, resolved dependencies, waves, cycles.

A task's wave is one more than the deepest wave among its dependencies (a task with
none is in wave 1), so every task of wave *n* depends only on tasks of earlier waves
and a whole wave can run in parallel. A cycle is refused, naming it.
"""

from __future__ import annotations

import re

from teamdeck.protocol.plans.parser import PlanProblems, TaskBlock

MAX_ID = 64


def slug(text: str, limit: int = 40) -> str:
    """``text`` as an id part: lower case, a-z0-9 and single dashes."""
    value = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return value[:limit].rstrip("-") or "task"


def task_ids(plan_id: str, blocks: list[TaskBlock]) -> list[str]:
    """One id per block: ``<plan-id>.<nn>-<title slug>`` (unique, at most 64 characters)."""
    ids = []
    for index, block in enumerate(blocks, start=1):
        prefix = f"{plan_id}.{index:02d}-"
        ids.append(prefix + slug(block.title, MAX_ID - len(prefix)))
    return ids


def resolve_dependencies(plan_id: str, blocks: list[TaskBlock], ids: list[str], source: str) -> list[list[str]]:
    """Each block's dependencies as task ids.

    A name matches a task's title (any case), its position (``2`` / ``#2``) or its id.

    Raises:
        PlanProblems: a name that matches no task, with the Depends: line.
    """
    by_name: dict[str, str] = {}
    for index, (block, task_id) in enumerate(zip(blocks, ids, strict=True), start=1):
        for key in (block.title.lower(), str(index), f"#{index}", task_id):
            by_name.setdefault(key, task_id)
    problems: list[tuple[int, str]] = []
    resolved: list[list[str]] = []
    for block in blocks:
        found: list[str] = []
        for name in block.depends:
            dependency = by_name.get(name.lower())
            if dependency is None:
                problems.append(
                    (
                        block.depends_line or block.line,
                        f"'{block.title}' depends on '{name}', which is not a task of this plan",
                    )
                )
            elif dependency not in found:
                found.append(dependency)
        resolved.append(found)
    if problems:
        raise PlanProblems(source, problems)
    return resolved


def compute_waves(
    dependencies: dict[str, list[str]], titles: dict[str, str] | None = None, source: str = "plan"
) -> dict[str, int]:
    """Each task's wave (1 + its deepest dependency's wave).

    Args:
        dependencies: task id → the ids it depends on (every id a key).
        titles: names for the cycle message (default: the ids).
        source: the file, for the message.

    Raises:
        PlanProblems: the graph has a cycle; the message names it (``A -> B -> A``).
    """
    names = titles or {}
    wave: dict[str, int] = {}
    visiting: list[str] = []

    def visit(task_id: str) -> int:
        if task_id in wave:
            return wave[task_id]
        if task_id in visiting:
            cycle = [*visiting[visiting.index(task_id) :], task_id]
            raise PlanProblems(
                source, [(0, "dependency cycle: " + " -> ".join(names.get(each, each) for each in cycle))]
            )
        visiting.append(task_id)
        depth = 1 + max((visit(dependency) for dependency in dependencies[task_id]), default=0)
        visiting.pop()
        wave[task_id] = depth
        return depth

    for task_id in dependencies:
        visit(task_id)
    return wave
