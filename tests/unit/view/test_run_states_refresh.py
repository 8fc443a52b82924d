"""The read model keeps a run member's state current: a refresh after its run.yaml changes,
or after `agents:` changes, gives the state a build from scratch gives (the TUI draws
from refreshes, never from a new build)."""

from __future__ import annotations

from support import small_worlds as worlds
from support.run_records import ended, name_in_agents

from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh


def _states(snapshot) -> dict[str, tuple[str, int, bool]]:
    return {m.name: (m.status, m.run_failures, m.run_by_runner) for m in snapshot.team("alpha").members}


def test_a_refresh_after_a_run_ends_or_agents_changes_equals_a_fresh_build(ws: Workspace) -> None:
    worlds.team(ws)
    name_in_agents(ws, "alpha/alice")
    snapshot = build_snapshot(ws)
    assert _states(snapshot) == {
        "team-lead": ("working", 0, False),
        "alice": ("never-run", 0, True),
        "bob": ("working", 0, False),
    }

    failed = ended(ws, "alpha", "alice", "timeout", minutes_ago=3)
    snapshot = refresh(snapshot, [ws.run_dir("alpha", "alice", failed.id) / "run.yaml"])
    assert _states(snapshot)["alice"] == ("failed", 1, True)
    alice = snapshot.member("alpha/alice")
    assert alice is not None and alice.since == failed.endedAt and alice.status_label == "failed ×1"
    assert alice.markers == ("run failed ×1: timed out",)

    name_in_agents(ws, "alpha/*")
    snapshot = refresh(snapshot, [ws.root / ".teamdeck.yaml"])
    assert _states(snapshot)["bob"] == ("never-run", 0, True)
    assert _states(snapshot) == _states(build_snapshot(ws))


def test_a_bad_agents_section_is_a_problem_and_runs_nobody(ws: Workspace) -> None:
    worlds.team(ws)
    (ws.root / ".teamdeck.yaml").write_text("agents:\n  alpha/*: {timeout_s: -1}\n")
    snapshot = build_snapshot(ws)
    assert {status for status, _, _ in _states(snapshot).values()} == {"working"}
    assert any("timeout_s" in problem.text for problem in snapshot.problems)
