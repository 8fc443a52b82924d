"""What is wrong with a team's Claude Code task list as a whole: dependencies that name a
missing task, or that the other task does not list back (Claude Code keeps both
directions). A read function (the read model and ``validate``
use it); writing a team task is protocol/team/task_list.py."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from teamdeck.model.team import ClaudeTask
from teamdeck.store.paths import shown


@dataclass(frozen=True)
class DependencyProblem:
    """A ``blocks`` / ``blockedBy`` entry of task ``task_id`` that does not hold."""

    task_id: str
    field: str
    why: str


def dependency_problems(tasks: Iterable[ClaudeTask]) -> list[DependencyProblem]:
    """Every dependency of a list that names a missing task or is kept one way only."""
    by_id = {task.id: task for task in tasks}
    problems = []
    for task in by_id.values():
        for name, reverse in (("blocks", "blockedBy"), ("blockedBy", "blocks")):
            for other_id in getattr(task, name):
                other = by_id.get(other_id)
                if other is None:
                    problems.append(
                        DependencyProblem(task.id, name, f"names task {shown(other_id)}, which is not in the list")
                    )
                elif task.id not in getattr(other, reverse):
                    problems.append(
                        DependencyProblem(
                            task.id,
                            name,
                            f"lists task {shown(other_id)}, whose {reverse} does not list {shown(task.id)}",
                        )
                    )
    return problems
