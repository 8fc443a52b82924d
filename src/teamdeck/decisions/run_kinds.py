"""The kinds of decision ``teamdeck run`` asks (runs/decisions.jsonl, answered by
protocol/runs/requests.py): a run that failed every retry, a budget reached. Registered
with every other kind in :data:`teamdeck.decisions.kinds.SPECS`."""

from __future__ import annotations

from collections.abc import Callable

from teamdeck.decisions.spec import Answer, Answered, DecisionSpec, Part, Run, detail, ours, question_about, team_json
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot import Decision


def _run_answer(word: str, done: str) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.runs.requests import answer

        answered = answer(ws, decision.key, word, note)
        raised = f" by ${answered.raise_usd:g}" if answered.raise_usd else ""
        return Answered(
            f"{decision.agent}: {done}{raised}",
            {"team": answered.team, "member": answered.member, "answer": word, "raiseUsd": answered.raise_usd},
        )

    return run


def _run_detail(heading: str) -> Callable[[Decision, bool], tuple[Part, ...]]:
    return lambda decision, short: detail(decision, short, (ours(heading, "bold"),), body_label="output:\n")


RUN_FAILED = DecisionSpec(
    kind="run-failed",
    label="run",
    heading="failed run",
    answers=(
        Answer(
            "run-retry",
            "retry",
            True,
            "Retry",
            "Run the failed member again",
            "failed run: retry (from attempt 1)",
            "optional",
            "Note",
            question_about("Retry"),
            _run_answer("retry", "run again"),
            outcome="The member runs again now, with the messages of the failed run, and its retries start over.",
        ),
        Answer(
            "run-give-up",
            "give_up",
            False,
            "Give up",
            "Give up the failed run",
            "failed run: give up",
            "optional",
            "Note",
            question_about("Give up"),
            _run_answer("give_up", "given up"),
            outcome="Its messages are not run again; a new message wakes the member as usual.",
        ),
    ),  # fmt: skip
    what=lambda decision: f"run {decision.request_id}",
    detail=_run_detail("failed run"),
    json=lambda decision: {**team_json(decision), "run": decision.request_id, "tail": decision.body},
)
"""A member's run that failed on every retry (``teamdeck run``)."""

RUN_BUDGET = DecisionSpec(
    kind="run-budget",
    label="budget",
    heading="budget reached",
    answers=(
        Answer(
            "run-raise",
            "raise",
            True,
            "Raise budget",
            "Raise the budget of the selected member or team",
            "budget: raise (by the note's amount, else by the budget again)",
            "optional",
            "Amount",
            question_about("Raise"),
            _run_answer("raise", "budget raised"),
            outcome="Runs start again until the new budget is spent (the note may name the amount: 5, +2.50).",
        ),
        Answer(
            "run-stop",
            "stop",
            False,
            "Stop",
            "Keep the member or team stopped",
            "budget: stop (no more runs)",
            "optional",
            "Note",
            question_about("Stop"),
            _run_answer("stop", "stays stopped"),
            outcome="No more runs start; its messages wait (change budget_usd in .teamdeck.yaml to go on).",
        ),
    ),  # fmt: skip
    what=lambda decision: f"budget {decision.team}/{decision.member}",
    detail=_run_detail("budget reached"),
    json=team_json,
)
"""A member or team (member ``*``) whose runs' reported cost reached its budget."""
