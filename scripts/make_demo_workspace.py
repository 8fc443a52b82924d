"""Generate demo-workspace/: a small, realistic world, the same bytes every run.

    python scripts/make_demo_workspace.py            # rewrite demo-workspace/
    python scripts/make_demo_workspace.py --out DIR  # write it somewhere else

The world is built the way it would come about: teams, messages, tasks, joins and gate
decisions go through teamdeck's own protocol functions, and the files agents write
themselves (final.json) through :mod:`teamdeck.sim.outputs`, one step after another on
a scripted clock. Reproducible because the clock is fixed per step and every ULID's
random part comes from a counter (see :func:`seeded_ids`); lock files, whose content
names a pid and host, are removed at the end. tests/unit/test_sim_demo_workspace.py
regenerates into a temp directory and fails, printing this command, when the committed
copy differs.

The story (2026-03-01, UTC; docs/protocol.md has the tour):

- team ``checkout-revamp`` (shaped like the captures in shared/fixtures/claude-code):
  a lead and five teammates, in-process and tmux; task assignments, idle
  notifications, a plan approval request waiting for an answer, a finished shutdown
  handshake (docs-writer, now offline) and one in progress (test-writer), unread
  messages both ways, and a Claude Code task list.
- team ``perf-audit``: a smaller team with a plan-mode member and a crashed one.
- team ``quant``: an issue-driven team (seed 001) whose blackboard is Gitea: the
  recorded webhook deliveries of tests/fixtures/gitea/ up to the rejected review are
  received through ``forge serve``'s function, so panel 7 shows parent #100 executing,
  sub #101 back to working after changes were requested, and sub #102 waiting on it.
- teamdeck tasks: ``checkout-api`` and ``payment-retry`` wait for a person (blocked
  gates with questions; payment-retry also has a failed worker and an invalid
  final.json), ``search-index`` is working (two workers have not reported: the
  simulator makes them), ``release-notes`` went the whole way to done through an
  approved gate, and ``flaky-ci`` failed.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from teamdeck import ids
from teamdeck.clock import iso
from teamdeck.formats.claude_code.tasks import write_task_file
from teamdeck.formats.claude_code.teamfiles import transact_config
from teamdeck.model.team import LEAD_NAME
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.forge.deliveries import receive
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.lifecycle import transition
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown, respond_shutdown
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.sim.acts import as_member, ask_plan_approval, assign_task, go_idle, take_messages, tell_lead
from teamdeck.sim.clock import DEMO_NOW
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace
from teamdeck.webhook.signature import signed

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "demo-workspace"
DAY = DEMO_NOW.date()
HUMAN = "human:alex"
"""The person at the keyboard in the demo's history (joins, decisions)."""


@dataclass
class ScriptClock:
    """A clock the script sets before each step: every file of a step shares its time."""

    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def at(self, hhmmss: str) -> None:
        """Move to ``hh:mm[:ss]`` of the demo day (never backwards)."""
        parts = [int(part) for part in hhmmss.split(":")] + [0]
        moment = datetime(DAY.year, DAY.month, DAY.day, parts[0], parts[1], parts[2], tzinfo=UTC)
        if moment < self.now:
            raise ValueError(f"the script went back in time: {hhmmss}")
        self.now = moment


def seeded_ids(seed: str) -> None:
    """Make every ULID and UUID from now on reproducible.

    Every ULID's time part comes from the workspace clock (the script's); its random
    part is taken from a hash of a counter (:func:`teamdeck.ids.reproducible`).
    TeamCreate's ``leadSessionId`` is a random UUID; ``uuid.uuid4`` is replaced the same
    way, for this process only.
    """
    counter = itertools.count()

    def randomness(size: int) -> bytes:
        return hashlib.sha256(f"{seed}:{next(counter)}".encode()).digest()[:size]

    ids.reproducible(randomness)
    uuid.uuid4 = lambda: uuid.UUID(bytes=randomness(10) + randomness(6), version=4)


def remove_lock_files(root: Path) -> None:
    """Drop the lock files our writers leave behind (they hold a pid, host and time).

    Claude Code's own empty ``tasks/<team>/.lock`` companions are part of the format
    and stay.
    """
    for lock in root.rglob("*.lock"):
        if lock.is_file() and lock.name != ".lock":
            lock.unlink()


# --- the story ------------------------------------------------------------------

SHOP = "/home/dev/shop"
CHECKOUT = "checkout-revamp"
PERF = "perf-audit"

CHECKOUT_MEMBERS = (
    # name, colour, model, backend (tmux pane or in-process), plan mode, prompt
    (
        "api-dev",
        "blue",
        "claude-opus-4-6",
        "in-process",
        False,
        "You are api-dev on checkout-revamp. Build the checkout API (task #1): POST /orders, guest checkout, "
        "idempotency keys. Write your final output to tasks/checkout-api/agents/api-dev/artifacts/final.json.",
    ),
    (
        "ui-dev",
        "green",
        "claude-sonnet-4-5-20250929",
        "in-process",
        False,
        "You are ui-dev on checkout-revamp. Wire the cart UI to the new checkout API (task #2).",
    ),
    (
        "db-migrator",
        "purple",
        "claude-opus-4-6",
        "%14",
        True,
        "You are db-migrator on checkout-revamp. Plan, then run, the payments-table migration for card retries "
        "(task #3). You are in plan mode: get the lead's approval before changing anything.",
    ),
    (
        "test-writer",
        "yellow",
        "haiku",
        "in-process",
        False,
        "You are test-writer on checkout-revamp. Write end-to-end checkout tests (task #4).",
    ),
    (
        "docs-writer",
        "orange",
        "haiku",
        "in-process",
        False,
        "You are docs-writer on checkout-revamp. Write the 2.4 release notes (task #5).",
    ),
)
PERF_MEMBERS = (
    ("profiler", "cyan", "haiku", "%21", False, "You are profiler on perf-audit. Profile product search (task #1)."),
    (
        "bench-runner",
        "pink",
        "claude-opus-4-6",
        "%22",
        True,
        "You are bench-runner on perf-audit. Benchmark the rebuilt search index (task #2). Plan mode: "
        "submit your plan first.",
    ),
    (
        "log-miner",
        "red",
        "haiku",
        "in-process",
        False,
        "You are log-miner on perf-audit. Mine the CI logs for the flaky tests (task #3).",
    ),
)
QUANT = "quant"
QUANT_MEMBERS = (
    (
        "pangtong-fujunshi",
        "purple",
        "claude-opus-4-6",
        "in-process",
        False,
        "You are pangtong-fujunshi, the coordinator of acme/quant: open parent issues, guide the discussion, "
        "run the round reviews.",
    ),
    (
        "zhangfei-dev",
        "red",
        "claude-sonnet-4-5-20250929",
        "in-process",
        False,
        "You are zhangfei-dev on acme/quant: strategy code, scripts, implementation.",
    ),
    ("guanyu-risk", "green", "claude-opus-4-6", "in-process", False, "You are guanyu-risk on acme/quant: risk rules."),
    ("simayi-review", "blue", "haiku", "in-process", False, "You are simayi-review on acme/quant: review PRs."),
)
QUANT_TASKS = (
    (
        "1",
        "Work the acme/quant issues",
        "Gitea is the blackboard: teamdeck forge serve puts each issue event in your inbox.",
        "Working the acme/quant issues",
        "in_progress",
        "",
        [],
        [],
    ),
)
GITEA_FIXTURES = REPO / "tests" / "fixtures" / "gitea"
GITEA_SECRET = "teamdeck-test-secret"
"""The secret the recorded deliveries are signed with (tests/fixtures/gitea/README.md)."""
GITEA_STORY = (
    "issues-opened-parent-100",
    "issue-comment-created-100-guanyu",
    "issues-opened-sub-101",
    "issues-assigned-sub-101-at-create",
    "issues-opened-sub-102",
    "issues-assigned-sub-102",
    "pull-request-opened-104",
    "pull-request-review-rejected-104",
)
"""The deliveries the demo has received: the story up to the rejected review."""

CHECKOUT_TASKS = (
    # id, subject, description, activeForm, status, owner, blocks, blockedBy
    (
        "1",
        "Build the checkout API",
        "POST /orders with guest checkout and idempotency keys.",
        "Building the checkout API",
        "in_progress",
        "api-dev",
        ["3"],
        [],
    ),
    (
        "2",
        "Wire the cart UI to the new API",
        "Replace the legacy cart calls with the new endpoints.",
        "Wiring the cart UI",
        "in_progress",
        "ui-dev",
        [],
        [],
    ),
    (
        "3",
        "Migrate the payments table for retries",
        "Add retry bookkeeping; must not lock the table long.",
        "Migrating the payments table",
        "pending",
        "db-migrator",
        [],
        ["1"],
    ),
    (
        "4",
        "End-to-end checkout tests",
        "Cover guest and signed-in checkout, happy path and declines.",
        "Writing checkout tests",
        "completed",
        "test-writer",
        [],
        [],
    ),
    (
        "5",
        "Release notes for 2.4",
        "Draft, get the version confirmed, publish.",
        "Writing release notes",
        "completed",
        "docs-writer",
        [],
        [],
    ),
    ("6", "Spike: one-page checkout", "Dropped: out of scope for 2.4.", None, "deleted", None, [], []),
)
PERF_TASKS = (
    (
        "1",
        "Profile product search",
        "Find where p99 search latency goes.",
        "Profiling search",
        "completed",
        "profiler",
        ["2"],
        [],
    ),
    (
        "2",
        "Benchmark the rebuilt search index",
        "Old vs new index on yesterday's queries.",
        "Benchmarking the index",
        "pending",
        "bench-runner",
        [],
        ["1"],
    ),
    (
        "3",
        "Mine CI logs for flaky tests",
        "Which tests fail one run in five, and why.",
        "Mining CI logs",
        "in_progress",
        "log-miner",
        [],
        [],
    ),
)


class Story:
    """The demo's history, told step by step on the script clock."""

    def __init__(self, out: Path) -> None:
        self.clock = ScriptClock(DEMO_NOW - timedelta(hours=3))
        seeded_ids("teamdeck-demo")
        self.ws = Workspace.at(out, clock=self.clock, actor=HUMAN)

    def at(self, hhmmss: str) -> Story:
        self.clock.at(hhmmss)
        return self

    def idle(self, team: str, member: str, **details: str) -> None:
        """A turn ends a moment after its last message: Claude Code's idle notification."""
        self.clock.now += timedelta(milliseconds=1700)
        go_idle(self.ws, team, member, **details)

    # --- teams ---------------------------------------------------------------
    def team(self, name: str, description: str, lead_model: str, members: tuple[tuple, ...]) -> None:
        """TeamCreate, then each teammate spawned 12 s apart (tmux ones get their pane)."""
        create_team(self.ws, name, description=description, cwd=SHOP, lead_model=lead_model)
        for member, color, model, backend, plan_mode, prompt in members:
            self.clock.now += timedelta(seconds=12)
            tmux = backend.startswith("%")
            add_member(
                self.ws,
                name,
                member,
                model=model,
                color=color,
                plan_mode=plan_mode,
                prompt=prompt,
                cwd=SHOP,
                backend_type="tmux" if tmux else "in-process",
            )
            if tmux:
                self.spawn_pane(name, member, backend)

    def spawn_pane(self, team: str, member: str, pane: str) -> None:
        """Claude Code records the tmux pane it started a teammate in."""

        def change(raw: dict) -> tuple[None, bool]:
            for entry in raw["members"]:
                if entry.get("name") == member:
                    entry["tmuxPaneId"] = pane
            return None, True

        transact_config(self.ws, team, change)

    def task_list(self, team: str, tasks: tuple[tuple, ...], members: tuple[tuple, ...]) -> None:
        """TaskCreate for each task, then TaskUpdate setting its owner (a task_assignment);
        then each teammate's hidden bookkeeping task (``_internal``), as Claude Code makes."""
        for task_id, subject, description, active_form, status, owner, blocks, blocked_by in tasks:
            task: dict[str, object] = {"id": task_id, "subject": subject, "description": description}
            if active_form:
                task["activeForm"] = active_form
            task.update(status=status, blocks=blocks, blockedBy=blocked_by)
            if owner:
                task["owner"] = owner
            write_task_file(self.ws, team, task)
            if owner:
                assign_task(self.ws, team, owner, task_id, subject, description)
        for number, (member, _color, _model, _backend, _plan, prompt) in enumerate(members, start=len(tasks) + 1):
            write_task_file(
                self.ws,
                team,
                {
                    "id": str(number),
                    "subject": member,
                    "description": prompt[:100],
                    "status": "in_progress",
                    "blocks": [],
                    "blockedBy": [],
                    "metadata": {"_internal": True},
                },
            )

    # --- teamdeck tasks ------------------------------------------------------
    def task(self, task_id: str, title: str, team: str, workers: list[tuple[str, str | None, str]]) -> None:
        create_task(
            self.ws,
            task_id,
            title,
            team=team,
            extra={
                "workers": [
                    {
                        "id": agent,
                        **({"member": member} if member else {}),
                        "role": role,
                        "assignedAt": iso(self.clock.now),
                    }
                    for agent, member, role in workers
                ]
            },
        )

    def output(self, task_id: str, agent: str, status: str, summary: str, **more: object) -> None:
        write_final_output(
            self.ws, task_id, agent, {"status": status, "summary": summary, **more, "finishedAt": iso(self.clock.now)}
        )

    def join(self, task_id: str) -> None:
        join_task(self.ws, task_id)

    # --- messages ------------------------------------------------------------
    def gitea(self, folder: str) -> None:
        """Gitea delivers a recorded webhook; it is received as ``forge serve`` receives it."""
        headers = json.loads((GITEA_FIXTURES / folder / "headers.json").read_text())
        body = (GITEA_FIXTURES / folder / "body.json").read_bytes()
        if not signed(GITEA_SECRET, headers, body):
            raise RuntimeError(f"the demo's delivery {folder} is not signed with the test secret")
        outcome = receive(self.ws, headers, body)
        if outcome.outcome != "applied":
            raise RuntimeError(f"the demo's delivery {folder} was not applied: {outcome.detail}")

    def lead_reads(self, team: str) -> None:
        """The person reads the lead's inbox in teamdeck: everything so far is marked read."""
        take_messages(self.ws, team, LEAD_NAME)


def tell(story: Story) -> None:
    """The whole history, in the order it happened."""
    s = story
    s.at("09:00").team(
        CHECKOUT,
        "Rebuild the checkout flow: API, cart UI, payment retries, release",
        "claude-opus-4-6",
        CHECKOUT_MEMBERS,
    )
    s.at("09:02").task_list(CHECKOUT, CHECKOUT_TASKS, CHECKOUT_MEMBERS)
    for member, *_ in CHECKOUT_MEMBERS:
        s.clock.now += timedelta(seconds=3)
        take_messages(s.ws, CHECKOUT, member)
    s.at("09:05").task(
        "release-notes",
        "Write the release notes for checkout 2.4",
        CHECKOUT,
        [("docs-writer", "docs-writer", "implementor")],
    )
    s.at("09:06").task(
        "checkout-api",
        "Checkout API: orders, guest checkout, idempotency",
        CHECKOUT,
        [("api-dev", "api-dev", "implementor"), ("ui-dev", "ui-dev", "implementor")],
    )
    s.at("09:07").task(
        "payment-retry",
        "Retry failed card payments safely",
        CHECKOUT,
        [
            ("db-migrator", "db-migrator", "implementor"),
            ("gateway-probe", None, "implementor"),
            ("schema-check", None, "verifier"),
        ],
    )
    s.at("09:10")
    tell_lead(
        s.ws,
        CHECKOUT,
        "api-dev",
        "Starting on POST /orders. I'll put the idempotency key in a header (Idempotency-Key) unless you object.",
        summary="Starting task #1: POST /orders",
    )
    s.idle(CHECKOUT, "api-dev")
    s.at("09:12").lead_reads(CHECKOUT)

    s.at("09:20").output(
        "release-notes",
        "docs-writer",
        "blocked",
        "Draft of the 2.4 release notes is in docs/releases/2.4.md; the version number is undecided.",
        questions=["Is this release 2.4.0 or 3.0.0? Guest checkout changes the public API."],
        nextActions=["Fill in the version and publish the notes"],
        changedFiles=["docs/releases/2.4.md"],
    )
    tell_lead(
        s.ws,
        CHECKOUT,
        "docs-writer",
        "Release notes drafted; I need the version number before I publish (question in my final.json).",
        summary="Release notes: blocked on the version",
    )
    s.idle(CHECKOUT, "docs-writer")
    s.at("09:21").join("release-notes")
    s.at("09:22").lead_reads(CHECKOUT)
    s.at("09:25")
    decide_gate(  # docs-writer is told in its inbox, from the lead
        s.ws,
        "release-notes",
        "g-docs-writer-1",
        "approve",
        "2.4.0: guest checkout ships behind a flag, so the public API does not change.",
    )
    s.at("09:26")
    take_messages(s.ws, CHECKOUT, "docs-writer")

    s.at("09:30").team(PERF, "Find and fix the slow paths in search and CI", "claude-sonnet-4-5-20250929", PERF_MEMBERS)
    s.at("09:31").task_list(PERF, PERF_TASKS, PERF_MEMBERS)
    for member, *_ in PERF_MEMBERS:
        s.clock.now += timedelta(seconds=3)
        take_messages(s.ws, PERF, member)
    s.at("09:35").task(
        "search-index",
        "Profile and rebuild the product search index",
        PERF,
        [("profiler", "profiler", "implementor"), ("indexer", None, "implementor"), ("ranker", None, "implementor")],
    )
    s.at("09:36").task(
        "flaky-ci", "Find why the CI suite fails one run in five", PERF, [("log-miner", "log-miner", "implementor")]
    )
    s.at("09:40")
    tell_lead(
        s.ws,
        CHECKOUT,
        "ui-dev",
        "Cart page now calls GET /cart/v2; checkout button still on the old endpoint until POST /orders lands.",
        summary="Cart UI half-way",
    )
    s.idle(CHECKOUT, "ui-dev")

    s.at("09:58").output(
        "release-notes",
        "docs-writer",
        "completed",
        "Release notes for 2.4.0 published, including the guest checkout flag.",
        changedFiles=["docs/releases/2.4.md", "CHANGELOG.md"],
    )
    tell_lead(s.ws, CHECKOUT, "docs-writer", "Release notes for 2.4.0 are published.", summary="Task #5 done")
    s.idle(CHECKOUT, "docs-writer", summary="Release notes published")
    s.at("09:59").join("release-notes")
    for at, state, reason in (
        ("10:00", "verifying", "every worker completed"),
        ("10:04", "guard-review", "schema guardian: PASS"),
        ("10:08", "verified", "reviewed by alex"),
        ("10:10", "done", "published"),
    ):
        s.at(at)
        transition(s.ws, "release-notes", state, reason=reason)
    s.at("10:12").lead_reads(CHECKOUT)

    s.at("10:15").output(
        "search-index",
        "profiler",
        "completed",
        "78% of p99 search latency is the synonym expansion: one query per synonym.",
        nextActions=["Batch the synonym lookups", "Rebuild the index with expanded synonyms"],
        changedFiles=["reports/search-profile.md"],
    )
    tell_lead(
        s.ws,
        PERF,
        "profiler",
        "Profile done: synonym expansion is the p99 problem. Report in reports/search-profile.md.",
        summary="Task #1 done: synonym expansion is slow",
    )
    s.idle(PERF, "profiler", summary="Search profiled")
    s.at("10:16").join("search-index")

    s.at("10:20")
    request_shutdown(s.ws, CHECKOUT, "docs-writer", reason="Release notes are done, thanks!")
    s.at("10:20:04")
    request = take_messages(s.ws, CHECKOUT, "docs-writer")[0]
    s.at("10:20:06")
    respond_shutdown(as_member(s.ws, "docs-writer"), CHECKOUT, request.request_id, approve=True, sender="docs-writer")

    s.at("10:30").output(
        "flaky-ci",
        "log-miner",
        "failed",
        "Stopped after the Claude API returned 529 (overloaded) three times; no logs were mined.",
        nextActions=["Restart log-miner when the API recovers"],
    )
    s.idle(PERF, "log-miner", reason="failed", failure="API error: 529 overloaded (3 retries)")
    s.at("10:31").join("flaky-ci")
    s.at("10:32")
    transition(s.ws, "flaky-ci", "failed", reason="log-miner crashed; the team will retry tomorrow")
    s.at("10:45").lead_reads(PERF)

    s.at("10:50").output(
        "payment-retry",
        "gateway-probe",
        "failed",
        "The sandbox gateway answered 503 to every call for 20 minutes; gave up after 5 retries.",
        nextActions=["Retry when the sandbox is back", "Ask the payments team for a stub"],
    )
    s.at("11:00")
    write_final_output(
        s.ws, "payment-retry", "schema-check", {"status": "DONE", "result": "schemas look fine", "questions": "none"}
    )
    s.at("11:05")
    s.idle(CHECKOUT, "api-dev", reason="interrupted")
    s.at("11:08").lead_reads(CHECKOUT)
    s.at("11:10").output(
        "checkout-api",
        "api-dev",
        "blocked",
        "POST /orders and GET /orders/{id} are done and tested; guest checkout and idempotency "
        "need a product decision.",
        questions=[
            "Should guest checkout silently create an account from the e-mail address?",
            "Is the Idempotency-Key header required on POST /orders in v1, or optional?",
        ],
        nextActions=["Implement guest checkout as decided", "Enforce or document the idempotency key"],
        changedFiles=["api/orders.py", "api/tests/test_orders.py"],
    )
    tell_lead(
        s.ws,
        CHECKOUT,
        "api-dev",
        "Blocked on two product questions (guest accounts, idempotency key); they are in my final.json.",
        summary="Task #1 blocked: 2 questions",
    )
    s.idle(CHECKOUT, "api-dev")
    s.at("11:12").output(
        "checkout-api",
        "ui-dev",
        "completed",
        "Cart and checkout pages use the new API behind the checkout_v2 flag.",
        changedFiles=["web/cart.tsx", "web/checkout.tsx"],
    )
    s.idle(CHECKOUT, "ui-dev", summary="Cart UI wired behind checkout_v2")
    s.at("11:15").join("checkout-api")

    s.at("11:30").output(
        "payment-retry",
        "db-migrator",
        "blocked",
        "Migration script written and dry-run on a copy; two limits must come from a person.",
        questions=[
            "What is the maximum number of retries per card per day?",
            "May the migration lock the payments table for about 40 s at 03:00 UTC?",
        ],
        nextActions=["Run the migration in the approved window"],
        changedFiles=["migrations/0042_payment_retries.sql"],
    )
    s.at("11:31").join("payment-retry")
    s.at("11:35")
    ask_plan_approval(
        s.ws,
        CHECKOUT,
        "db-migrator",
        (
            "# Plan: payments retry migration\n"
            "1. Add `retry_count` and `next_retry_at` to payments (nullable, no default: no rewrite)\n"
            "2. Backfill in batches of 5,000 rows\n"
            "3. Add the partial index CONCURRENTLY\n"
            "4. Roll back by dropping the two columns; nothing else changes"
        ),
        plan_file="/home/dev/.claude/plans/payments-retry-migration.md",
    )
    s.at("11:40")
    send_message(
        s.ws, CHECKOUT, "ui-dev", "Please hold the cart PR until guest checkout is decided.", summary="Hold the cart PR"
    )
    s.at("11:45")
    s.idle(CHECKOUT, "ui-dev")
    s.idle(PERF, "profiler")
    s.at("11:50")
    request_shutdown(s.ws, CHECKOUT, "test-writer", reason="The e2e suite is green; you can stop.")
    s.at("11:52")
    s.idle(PERF, "bench-runner")

    s.at("11:53").team(
        QUANT, "Issue-driven team of acme/quant (Gitea is its blackboard)", "claude-opus-4-6", QUANT_MEMBERS
    )
    s.at("11:54").task_list(QUANT, QUANT_TASKS, QUANT_MEMBERS)
    for folder in GITEA_STORY:
        s.clock.now += timedelta(seconds=20)
        s.gitea(folder)
    s.at("11:58")
    tell_lead(
        s.ws,
        QUANT,
        "zhangfei-dev",
        "simayi-review requested changes on PR #104 (look-ahead bias in the crossover); fixing it on feat/101-dual-ma.",
        summary="Fixing PR #104 after review",
    )
    take_messages(s.ws, QUANT, "guanyu-risk")
    s.idle(QUANT, "guanyu-risk", summary="Waiting for #101 before starting #102")


def build(out: Path) -> None:
    """Write the whole demo workspace into the empty directory ``out``."""
    tell(Story(out))
    remove_lock_files(out)
    # What teamdeck recorded of the inboxes while the story was written is session
    # state (protocol/team/observed.py), not demo content: a demo run records its own.
    shutil.rmtree(out / ".teamdeck", ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write (replaced entirely)")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    with tempfile.TemporaryDirectory(prefix="demo-workspace.", dir=out.parent) as scratch:
        staging = Path(scratch) / "ws"
        staging.mkdir()
        build(staging)
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
