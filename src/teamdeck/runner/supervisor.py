"""``teamdeck run``: the runner of a workspace (docs/protocol.md, "Running the agents").

It watches the workspace with the TUI's watcher (teamdeck/watch.py) and keeps one rule:
a member configured under ``agents:`` that has unread work (a message, an assignment, a
decision's answer, a Gitea dispatch: each is a message in its inbox) and no live run is
woken, once. A run owes nothing for the messages that were unread when it started,
whether its agent read them or not: they are recorded with the run (``messages``), the
ones still unread at its end are counted (``unreadAfter``, a finding on the roster), and
only newer messages wake the member again. No restart loops.

Runs wait in arrival order for room (``max_concurrent`` in the workspace and per team); a
failed run is retried with exponential backoff, then a ``run-failed`` decision waits for
a person (retry / give up); past a member's or team's budget no more runs start and a
``run-budget`` decision waits (raise / stop). An approved shutdown stops the member's run
and marks it offline. A member that joins the roster with a ``prompt`` while the runner
watches (``create_agent``) is started once.

Everything lives in the event loop's thread; the watcher's thread only hands batches over.
Ending the runner (Ctrl-C, SIGTERM) stops its runs; a runner that is killed leaves them
running, and the next one adopts those still alive (pid and start time checked), records
the end of those whose process ended meanwhile with what their output says, and retries
those whose agent never started, as failed runs (F25: adoption.py). A retry that waited
out its backoff when the runner ended is taken up again by the next one.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

from teamdeck.clock import moment_of
from teamdeck.errors import TeamdeckError
from teamdeck.model.agents import AgentConfig
from teamdeck.model.run import RunRecord
from teamdeck.model.team import TeamConfig
from teamdeck.protocol.runs.decisions import RUN_BUDGET, RUN_FAILED, RunDecision, run_decisions
from teamdeck.protocol.runs.requests import ask
from teamdeck.protocol.team.teams import list_teams, read_team
from teamdeck.runner.adoption import Recovered, execution_of, recover
from teamdeck.runner.budgets import Unpriced, overrun
from teamdeck.runner.changes import classify
from teamdeck.runner.execution import Execution, new_record, new_run_id
from teamdeck.runner.inboxes import Unread, approved_shutdown, named, unread, woken_for
from teamdeck.runner.lock import RunnerLock
from teamdeck.runner.prompts import role_prompt, roster_prompt
from teamdeck.runner.wakes import Key, Wake, WakeQueue, next_due, promote_due
from teamdeck.runtime.config import AgentsConfig, load_agents
from teamdeck.runtime.registry import runtime_named
from teamdeck.runtime.spec import RunRequest
from teamdeck.store.jsonl import Tail
from teamdeck.store.paths import InvalidId, check_member, shown
from teamdeck.store.runs import requests_log
from teamdeck.store.workspace import SETTINGS_FILE, Workspace
from teamdeck.view.readers.runs import all_runs, member_runs
from teamdeck.watch import watch_batches

log = logging.getLogger(__name__)

RESCAN_S = 30.0
"""A full look at every member without a change (a safety net under the watcher)."""


class Runner:
    """The runner of one workspace (see the module).

    Args:
        ws: the workspace.
        team: run only this team's members.
        once: run what is pending now (and its retries), then return.
        say: where the one-line account of each start and end goes.
        signals: SIGINT and SIGTERM end it (only on the main thread; a host that runs it
            on another thread, ``teamdeck demo``'s, sets :attr:`stopping` itself).
    """

    def __init__(
        self,
        ws: Workspace,
        *,
        team: str | None = None,
        once: bool = False,
        say: Callable[[str], None] = print,
        signals: bool = True,
    ) -> None:
        self.ws, self.team, self.once, self.say = ws, team, once, say
        self.signals = (signal.SIGINT, signal.SIGTERM) if signals else ()
        self.config = AgentsConfig()
        self.live: dict[Key, Execution] = {}
        self.queue = WakeQueue()
        self.backoff: dict[Key, Wake] = {}
        self.owed: dict[Key, set[str]] = {}
        self.spent: dict[Key, float] = {}
        self.unpriced: dict[Key, list[Unpriced]] = {}
        self.rosters: dict[str, TeamConfig] = {}
        self.requests = Tail(requests_log(ws))
        self.decisions = Tail(ws.run_decisions_log)
        self.stopping = asyncio.Event()
        self.changed = asyncio.Event()
        self.pending_paths: set[Path] = set()
        self.started_at = time.time()
        self.decided: list[RunDecision] | None = None
        self.seen: set[Key] = set()
        self.unusable: set[Key] = set()

    # --- the loop ---------------------------------------------------------------------

    async def run(self) -> int:
        """Run until stopped (or, with ``once``, until what was pending has run); returns the runs started.

        Raises:
            Busy: another runner holds the workspace. AgentsConfigError: ``agents:`` is wrong.
        """
        with RunnerLock(self.ws):
            self.config = load_agents(self.ws.root)
            loop = asyncio.get_running_loop()
            for sig in self.signals:
                loop.add_signal_handler(sig, self.stopping.set)
            stop_watch = threading.Event()
            ready = threading.Event()
            watcher = threading.Thread(target=self._watch, args=(loop, stop_watch, ready), daemon=True)
            watcher.start()
            await asyncio.to_thread(ready.wait, 5.0)
            self._load_history()
            self._read_requests(initial=True)
            self._read_answers(initial=True)
            self.looked = True
            self._say_ready()
            started = 0
            try:
                started = await self._loop()
            finally:
                stop_watch.set()
                for sig in self.signals:
                    loop.remove_signal_handler(sig)
                await self._stop_all("the runner is ending")
            return started

    async def _loop(self) -> int:
        started = 0
        next_scan = time.monotonic() + RESCAN_S
        while not self.stopping.is_set():
            started += self._dispatch()
            if self.once and not self.live and not self.queue and not self.backoff:
                break
            timeout = max(0.0, min(next_scan, next_due(self.backoff)) - time.monotonic())
            waiter = asyncio.ensure_future(self.changed.wait())
            stopper = asyncio.ensure_future(self.stopping.wait())
            await asyncio.wait({waiter, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            stopper.cancel()
            self.changed.clear()
            self._handle_changes()
            promote_due(self.backoff, self.queue)
            if time.monotonic() >= next_scan:
                self._scan_all()
                next_scan = time.monotonic() + RESCAN_S
        return started

    def _say_ready(self) -> None:
        """One line once the first look is done: what it runs, and how to stop it."""
        members = [
            key for key in self.seen if (roster := self._roster(key[0])) and self._settings(*key, roster) is not None
        ]
        teams = len({team for team, _member in members})
        adopted = sum(1 for execution in self.live.values() if execution.identity is not None)
        self.say(
            f"runner of {self.ws.root}: {len(members)} member(s) of {teams} team(s) to run, {len(self.queue)} woken, "
            f"{adopted} adopted; " + ("--once: ends when these runs end" if self.once else "Ctrl-C stops it")
        )

    def _watch(self, loop: asyncio.AbstractEventLoop, stop: threading.Event, ready: threading.Event) -> None:
        try:
            for batch in watch_batches(self.ws.root, stop, ready=ready):
                loop.call_soon_threadsafe(self._on_batch, batch)
        except Exception:
            log.exception("the watcher stopped; the runner looks every %s s instead", RESCAN_S)
            ready.set()

    def _on_batch(self, batch: frozenset[Path]) -> None:
        self.pending_paths |= batch
        self.changed.set()

    def _kick(self) -> None:
        self.changed.set()

    # --- what changed -----------------------------------------------------------------

    def _handle_changes(self) -> None:
        paths, self.pending_paths = self.pending_paths, set()
        changes = classify(self.ws.root, paths)
        if changes.settings:
            self._reload_config()
            changes.teams.update(self._teams())
        if changes.requests:
            self._read_requests()
        if changes.answers:
            self._read_answers()
        for team in changes.teams:
            self.rosters.pop(team, None)
            self._scan_team(team)
        for team, member in changes.members - {(t, m) for t, m in changes.members if t in changes.teams}:
            roster = self._roster(team)
            if roster is not None:
                if roster.is_lead(member):
                    self._check_shutdowns(team, roster)
                self._consider(team, member, roster)

    def _reload_config(self) -> None:
        """Take the changed ``agents:`` settings, and say so either way: after a file
        that could not be read, the last line said the old settings were kept, and it
        stayed there once the file was fixed and taken."""
        try:
            self.config = load_agents(self.ws.root)
        except TeamdeckError as err:
            self.say(f"agents: not reloaded, the runner keeps the settings it had:\n{err}")
        else:
            self.say(f"agents: reloaded from {SETTINGS_FILE}")

    def _teams(self) -> list[str]:
        try:
            names = list_teams(self.ws)
        except TeamdeckError:
            return []
        return [name for name in names if self.team is None or name == self.team]

    def _roster(self, team: str) -> TeamConfig | None:
        if self.team is not None and team != self.team:
            return None
        if team not in self.rosters:
            try:
                self.rosters[team] = read_team(self.ws, team)
            except TeamdeckError:
                return None
        return self.rosters[team]

    def _scan_all(self) -> None:
        self.rosters.clear()
        for team in self._teams():
            self._scan_team(team)

    def _scan_team(self, team: str) -> None:
        roster = self._roster(team)
        if roster is None:
            return
        self._check_shutdowns(team, roster)
        for member in roster.members:
            self._consider(team, member.name, roster)

    def _settings(self, team: str, member: str, roster: TeamConfig) -> AgentConfig | None:
        return self.config.resolve(team, member, lead=roster.lead_name)

    def _consider(self, team: str, member: str, roster: TeamConfig, trigger: str = "message") -> None:
        """Queue a wake for ``team/member`` when it has new work and nothing going, or
        when it joined the roster with a prompt while this runner watched (create_agent)."""
        key = (team, member)
        if not self._usable(key):
            return
        joined = self.looked and key not in self.seen
        self.seen.add(key)
        if self.once and self.accepting_done:
            return
        if key in self.live or key in self.queue or key in self.backoff:
            return
        entry = roster.member(member)
        if entry is None or not entry.isActive or self._settings(team, member, roster) is None:
            return
        if self._held(team, member):
            return
        owed = self.owed.get(key, set())
        if any(item.key not in owed for item in unread(self.ws, team, member)):
            self.queue.push(Wake(team, member, trigger, time.time()))
        elif entry.prompt and joined and key not in self.owed:
            self.queue.push(Wake(team, member, "created", time.time()))

    def _usable(self, key: Key) -> bool:
        """Whether the member's name can name its files (inbox, runs). A roster any agent
        writes may hold one that cannot (``bob smith``): that member is not run, said once,
        and every other member still is."""
        try:
            check_member(key[1])
        except InvalidId as err:
            if key not in self.unusable:
                self.unusable.add(key)
                self.say(f"{key[0]}/{shown(key[1])}: not run: {err}")
            return False
        return True

    accepting_done = False
    """With ``once``: set after the first look, so later messages wait for the next runner."""
    looked = False
    """Set after the first look: a member not seen then joined the roster since."""

    def _held(self, team: str, member: str) -> bool:
        """A decision about the member (or its team's budget) waits for a person."""
        return any(d.open and d.team == team and d.member in (member, "*") for d in self._decisions())

    def _decisions(self) -> list[RunDecision]:
        if self.decided is None:
            try:
                self.decided = run_decisions(self.ws)
            except TeamdeckError:
                self.decided = []
        return self.decided

    # --- starting ---------------------------------------------------------------------

    def _dispatch(self) -> int:
        """Start what the limits let through; a run the disk refuses to record is said and
        dropped (the next look wakes the member again: its messages are still not owed)."""
        self.accepting_done = self.once
        started = 0
        limits = (self.config.max_concurrent, self.config.team_limit)
        for wake in [] if self.stopping.is_set() else self.queue.take(self.live, *limits):
            try:
                started += self._start(wake)
            except TeamdeckError as err:
                self.say(f"could not start {wake.team}/{wake.member}: {err}")
        return started

    def _start(self, wake: Wake) -> int:
        roster = self._roster(wake.team)
        config = self._settings(wake.team, wake.member, roster) if roster is not None else None
        if roster is None or config is None:
            return 0
        key = wake.key
        owed = self.owed.setdefault(key, set())
        carried_keys = {item.key for item in wake.carried}
        fresh = [item for item in unread(self.ws, wake.team, wake.member) if item.key not in owed | carried_keys]
        messages = [*wake.carried, *fresh]
        if wake.trigger == "message" and not fresh:
            return 0  # read meanwhile (by its agent, or a person): nothing left to do
        over = overrun(self.config, config, self._decisions(), self.spent, wake.team, wake.member, self.unpriced)
        if over is not None:
            about = {"run": over.run} if over.run is not None else {}
            self._ask(
                over.key,
                RUN_BUDGET,
                over.team,
                over.member,
                over.title,
                reason=over.reason,
                allowance=over.step,
                **about,
            )
            return 0
        runtime = runtime_named(config.runtime)  # loaded when .teamdeck.yaml was checked
        if runtime is None:
            return 0
        run_id = new_run_id(self.ws)
        history = member_runs(self.ws, wake.team, wake.member)
        request = RunRequest(
            workspace=self.ws.root,
            team=wake.team,
            member=wake.member,
            run_id=run_id,
            run_dir=self.ws.run_dir(wake.team, wake.member, run_id),
            config=config,
            messages=tuple(item.message for item in messages),
            session_id=history.session_id,
            prompt=roster_prompt(roster, wake.member),
            role_prompt=role_prompt(roster, wake.member),
            lead=roster.lead_name,
            trigger=wake.trigger,
            attempt=wake.attempt,
        )
        record = new_record(self.ws, request, runtime.name, wake.arrived, wake.retry_of)
        execution = Execution(self.ws, record, request, runtime, frozenset(item.key for item in messages))
        execution.create()  # before anything is owed or started: a refused write leaves the wake to the next look
        owed.update(item.key for item in messages)
        self.live[key] = execution
        asyncio.ensure_future(self._supervise(execution, tuple(messages)))
        return 1

    async def _supervise(self, execution: Execution, messages: tuple[Unread, ...]) -> None:
        record = execution.record
        error: str | None = None
        try:
            await execution.start()
            self.say(f"▶ {record.team}/{record.member} {record.id} started ({record.trigger}, {len(messages)} unread)")
            await execution.wait()
        except (TeamdeckError, OSError) as err:
            error = f"could not start: {err}"
        self._ended(execution, messages, error)

    async def _supervise_adopted(self, execution: Execution) -> None:
        await execution.wait()
        self._ended(execution, self._woken_for(execution.record), None)

    async def _record_gone(self, execution: Execution) -> None:
        """A run whose process ended while no runner watched: what it left running ends,
        then its end is recorded with what its output says (adoption.py), as any run's."""
        await execution.end_leftovers()
        self._ended(execution, self._woken_for(execution.record), None)

    def _ended(self, execution: Execution, messages: tuple[Unread, ...], error: str | None) -> None:
        try:
            record = execution.finish(error)
        except (TeamdeckError, OSError) as err:  # not recorded (a full disk): still an end, the member is not left live
            record = execution.record
            self.say(f"could not record the end of {record.team}/{record.member} {record.id}: {err}")
        key = (record.team, record.member)
        self.live.pop(key, None)
        self.spent[key] = self.spent.get(key, 0.0) + (record.costUsd or 0.0)
        if record.costProblem is not None:
            self.unpriced.setdefault(key, []).append(Unpriced(record.id, record.costProblem))
        cost = f", {record.cost_shown}" if record.cost_shown else ""
        left = f", {record.unreadAfter} left unread" if record.unreadAfter else ""
        self.say(f"■ {record.team}/{record.member} {record.id} {record.outcome}{cost}{left}")
        self._after_shutdown(record)
        if record.failed and execution.stop_reason is None:
            self._retry_or_ask(execution, messages)
        roster = self._roster(record.team)
        if roster is not None:
            self._consider(record.team, record.member, roster)
        self._kick()

    def _retry_or_ask(self, execution: Execution, messages: tuple[Unread, ...]) -> None:
        """A run that failed (or was lost before its agent started) is retried after its
        backoff, counted from its end (a runner started since waits only what is left),
        or, with no retry left, the run-failed decision is asked (once per run)."""
        record, config = execution.record, execution.request.config
        if record.attempt <= config.retries:
            ended = moment_of(record.endedAt or "")
            since = max(0.0, (self.ws.clock() - ended).total_seconds()) if ended is not None else 0.0
            delay = max(0.0, config.backoff_s * 2 ** (record.attempt - 1) - since)
            wake = Wake(record.team, record.member, "retry", time.time(), record.attempt + 1, record.id, messages)
            wake.due = time.time() + delay
            self.backoff[(record.team, record.member)] = wake
            left = f"{round(delay, 1):g}"
            self.say(f"  retry {record.attempt} of {config.retries} for {record.team}/{record.member} in {left} s")
            return
        failures = record.attempt
        self._ask(
            f"{RUN_FAILED}:{record.team}/{record.member}:{record.id}",
            RUN_FAILED,
            record.team,
            record.member,
            f"{record.member} failed {failures} time{'s' if failures != 1 else ''}: retry / give up",
            reason=record.error or "",
            tail=named(messages) + "\n" + execution.tail(),
            run=record.id,
            messages=[
                {"from": item.message.sender, "timestamp": item.message.timestamp, "key": item.key} for item in messages
            ],
        )

    def _ask(self, key: str, kind: str, team: str, member: str, title: str, **fields: object) -> None:
        try:
            if ask(self.ws, key, kind, team, member, title, **fields):
                self.say(f"? {title} (teamdeck decisions list)")
        except TeamdeckError as err:
            self.say(f"could not ask '{title}': {err}")
        self.decided = None

    # --- requests, answers, shutdowns -------------------------------------------------

    def _read_requests(self, initial: bool = False) -> None:
        """Act on the wakes and stops asked since the last look (``initial``: those asked
        while no runner ran count when no run of the member started after them)."""
        for request in self.requests.read_new():
            team, member, kind = str(request.get("team")), str(request.get("member")), request.get("type")
            key, at = (team, member), str(request.get("at", ""))
            if self.team is not None and team != self.team:
                continue
            if kind == "stop":
                self.queue.drop(key)
                if not initial or not member_runs(self.ws, team, member).ran_since(at):
                    self.backoff.pop(key, None)  # a retry taken up again (F25) is dropped by a stop asked after its run
                execution = self.live.get(key)
                if execution is not None and at >= execution.record.createdAt:
                    asyncio.ensure_future(execution.stop(f"stopped by {request.get('by', 'a person')}"))
            elif kind == "wake" and key not in self.live and key not in self.backoff:
                if not initial or not member_runs(self.ws, team, member).ran_since(at):
                    self.queue.push(Wake(team, member, "wake", time.time()))
        self._kick()

    def _read_answers(self, initial: bool = False) -> None:
        """Act on the decisions answered since the last look: a ``retry`` runs the member
        again with the failed run's messages (``initial``: one answered while no runner
        ran, when no run of the member started after the answer)."""
        self.decided = None
        for record in self.decisions.read_new():
            if record.get("type") != "answered":
                continue
            decision = next((d for d in self._decisions() if d.key == record.get("decision")), None)
            if decision is None or decision.answer != record.get("answer"):
                continue
            if initial and member_runs(self.ws, decision.team, decision.member).ran_since(decision.answered_at or ""):
                continue
            self.say(f"  {decision.key}: {decision.answer} (by {decision.answered_by})")
            if decision.kind == RUN_FAILED and decision.answer == "retry":
                carried = woken_for(self.ws, decision.team, decision.member, decision.run)
                self.queue.push(Wake(decision.team, decision.member, "retry", time.time(), 1, decision.run, carried))
        self._scan_all()

    def _check_shutdowns(self, team: str, roster: TeamConfig) -> None:
        for (t, member), execution in list(self.live.items()):
            if t != team or execution.stop_reason is not None:
                continue
            request_id = approved_shutdown(self.ws, team, roster.lead_name, member, execution.record.createdAt)
            if request_id is not None:
                asyncio.ensure_future(execution.stop(f"shutdown {request_id} approved"))

    def _after_shutdown(self, record: RunRecord) -> None:
        """A member that approved its shutdown during the run is marked offline."""
        roster = self._roster(record.team)
        if (
            roster is None
            or approved_shutdown(self.ws, record.team, roster.lead_name, record.member, record.createdAt) is None
        ):
            return
        from teamdeck.protocol.team.messaging.handshake_writes import deactivate_member

        try:
            deactivate_member(self.ws, record.team, record.member, reason=f"shutdown approved; run {record.id} ended")
        except TeamdeckError:
            return  # already offline, or the roster changed: nothing to mark
        self.rosters.pop(record.team, None)
        self.say(f"  {record.team}/{record.member} is offline (shutdown approved)")

    async def _stop_all(self, reason: str) -> None:
        for execution in list(self.live.values()):
            await execution.stop(reason)
        while self.live:
            await asyncio.sleep(0.01)

    # --- a restart --------------------------------------------------------------------

    def _load_history(self) -> None:
        """What each member's runs owe and spent; what became of the runs recorded as
        running (:meth:`_recover`); and the retry (or decision) a member's last run was
        owed when it failed just before the last runner ended (F25)."""
        for runs in all_runs(self.ws, self.team):
            key = (runs.team, runs.member)
            self.owed[key], self.spent[key] = runs.owed_keys(), runs.cost_usd
            self.unpriced[key] = [Unpriced(run.id, run.costProblem) for run in runs.runs if run.costProblem is not None]
            for record in runs.runs:
                if record.live:
                    self._recover(record)
            last = runs.runs[-1] if runs.runs else None
            if last is not None and last.state == "ended" and last.failed:
                config = self._config_of(last)
                if config is not None:
                    self._retry_or_ask(execution_of(self.ws, last, config), self._woken_for(last))

    def _config_of(self, record: RunRecord) -> AgentConfig | None:
        roster = self._roster(record.team)
        return self._settings(record.team, record.member, roster) if roster is not None else None

    def _woken_for(self, record: RunRecord) -> tuple[Unread, ...]:
        return woken_for(self.ws, record.team, record.member, record.id)

    def _recover(self, record: RunRecord) -> None:
        """A run recorded as running (adoption.py): adopted and watched; its end recorded
        when its process ended meanwhile; retried as a failed run when its agent never
        started. Nothing is started twice."""
        config = self._config_of(record)
        found, execution = recover(self.ws, record, config)
        if found is Recovered.LOST:
            self.say(f"✗ {record.team}/{record.member} {record.id} lost ({execution.record.error})")
            if config is not None:  # a member no longer run is not retried
                self._retry_or_ask(execution, self._woken_for(record))
            return
        self.live[(record.team, record.member)] = execution
        if found is Recovered.GONE:
            self.say(f"↺ {record.team}/{record.member} {record.id} ended while no runner watched")
            asyncio.ensure_future(self._record_gone(execution))
            return
        self.say(f"↺ {record.team}/{record.member} {record.id} adopted (pid {execution.record.pid})")
        asyncio.ensure_future(self._supervise_adopted(execution))
