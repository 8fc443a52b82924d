"""The kinds of decision ``teamdeck run`` asks (runs/decisions.jsonl, answered by
protocol/runs/requests.py): a run that failed every retry, a budget reached. Listed in
:data:`SPECS`, which decisions/registry.py registers with every other kind's."""

from __future__ import annotations

from collections.abc import Callable

from teamdeck.decisions.spec import Answer, Answered, DecisionSpec, Part, Run, detail, ours, question_about, team_json
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import Decision


def _run_answer(word: str, *, done: str) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.runs.requests import answer

        answered = answer(ws, decision.key, word, note)
        raised = f" by ${answered.raise_usd:g}" if answered.raise_usd else ""
        return Answered(
            summary=f"{decision.agent}: {done}{raised}",
            data={"team": answered.team, "member": answered.member, "answer": word, "raiseUsd": answered.raise_usd},
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
            id="run-retry",
            action="retry",
            positive=True,
            label="Retry",
            command="Run the failed member again",
            help="failed run: retry (from attempt 1)",
            note="optional",
            note_label="Note",
            question=question_about("Retry"),
            run=_run_answer("retry", done="run again"),
            outcome="The member runs again now, with the messages of the failed run, and its retries start over.",
        ),
        Answer(
            id="run-give-up",
            action="give_up",
            positive=False,
            label="Give up",
            command="Give up the failed run",
            help="failed run: give up",
            note="optional",
            note_label="Note",
            question=question_about("Give up"),
            run=_run_answer("give_up", done="given up"),
            outcome="Its messages are not run again; a new message wakes the member as usual.",
        ),
    ),
    what=lambda decision: f"run {decision.request_id}",
    alert_reason="has a run that failed every retry",
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
            id="run-raise",
            action="raise",
            positive=True,
            label="Raise budget",
            command="Raise the budget of the selected member or team",
            help="budget: raise (by the note's amount, else by the budget again)",
            note="optional",
            note_label="Amount",
            question=question_about("Raise"),
            run=_run_answer("raise", done="budget raised"),
            outcome="Runs start again until the new budget is spent (the note may name the amount: 5, +2.50).",
        ),
        Answer(
            id="run-stop",
            action="stop",
            positive=False,
            label="Stop",
            command="Keep the member or team stopped",
            help="budget: stop (no more runs)",
            note="optional",
            note_label="Note",
            question=question_about("Stop"),
            run=_run_answer("stop", done="stays stopped"),
            outcome="No more runs start; its messages wait (change budget_usd in .teamdeck.yaml to go on).",
        ),
    ),
    what=lambda decision: f"budget {decision.team}/{decision.member}",
    alert_reason="reached its budget",
    detail=_run_detail("budget reached"),
    json=team_json,
)
"""A member or team (member ``*``) whose runs' reported cost reached its budget."""

SPECS = (RUN_FAILED, RUN_BUDGET)
"""The runner's kinds, in the order decisions/registry.py registers them."""
