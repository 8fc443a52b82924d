"""`teamdeck run` wakes members (docs/protocol.md, "Running the agents"): a message wakes its member
once; a burst never starts a member twice; --once runs what is pending and exits; a
run owes nothing for the messages unread when it started."""

from __future__ import annotations

from support.runner_world import wait_for


def test_a_message_wakes_its_member_with_the_teamdeck_env_and_placeholders(world) -> None:
    w = world(["dev", "qa"])
    w.start()
    w.send("dev", "hello")
    entry = wait_for(lambda: w.agent_log(), 20)[0]
    assert entry["member"] == "dev" and entry["texts"] == ["hello"]
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 20)[0]
    assert entry["argv"] == ["crew", "dev", run.id]  # {team} {member} {run_id}
    assert run.outcome == "succeeded" and run.exitStatus == 0 and run.trigger == "message"
    assert [m.sender for m in run.messages] == ["team-lead"]
    assert run.pid == entry["pid"] and run.startedAt and run.endedAt
    assert w.runs("qa") == []  # nobody wrote to qa


def test_a_burst_of_100_messages_starts_the_member_once_at_a_time(world) -> None:
    """C-style burst: 100 messages while the agent is slow: never two runs at once, and
    every message is read by some run (none lost)."""
    w = world(["dev"])
    w.start()
    w.send("dev", "sleep:1")
    wait_for(lambda: w.agent_log(), 20)
    for number in range(100):
        w.send("dev", f"m{number}")
    wait_for(lambda: sum(len(e["texts"]) for e in w.agent_log()) == 101 and not any(r.live for r in w.runs()), 60)
    runs = w.runs("dev")
    assert len(runs) == len(w.agent_log()) < 20  # runs read what piled up, not one run per message
    assert all(entry["texts"] for entry in w.agent_log())  # no run was started for nothing
    for earlier, later in zip(runs, runs[1:], strict=False):
        assert earlier.endedAt is not None and later.startedAt is not None and earlier.endedAt <= later.startedAt
    texts = [text for entry in w.agent_log() for text in entry["texts"]]
    assert sorted(texts) == sorted(["sleep:1", *(f"m{n}" for n in range(100))])


def test_a_run_that_leaves_its_messages_unread_is_not_woken_again_for_them(world) -> None:
    w = world(["dev"])
    w.configure({"crew/*": {"runtime": "command", "command": w_command(), "env": {"AGENT": "noread"}}})
    w.start()
    w.send("dev", "please read me")
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 20)[0]
    assert run.unreadAfter == 1  # the finding
    assert "1 left unread" in w.cli("runs").stdout
    import time

    time.sleep(1.5)
    assert len(w.runs("dev")) == 1  # no restart loop
    w.send("dev", "a new one")
    wait_for(lambda: len(w.runs("dev")) == 2, 20)


def w_command() -> list[str]:
    import sys

    from support.runner_world import AGENT

    return [sys.executable, str(AGENT), "{team}", "{member}", "{run_id}"]


def test_once_runs_what_is_pending_and_exits(world) -> None:
    w = world(["dev", "qa", "ops"])
    w.send("dev", "one")
    w.send("qa", "two")
    done = w.cli("run", "--once", timeout=60)
    assert done.returncode == 0, done.stderr
    assert sorted(e["member"] for e in w.agent_log()) == ["dev", "qa"]
    assert all(not run.live for run in w.runs())
    again = w.cli("run", "--once", timeout=60)
    assert again.returncode == 0 and len(w.agent_log()) == 2  # nothing new: nothing runs twice


def test_a_second_runner_names_the_first(world) -> None:
    """C13: one runner per workspace; the second says who holds it."""
    w = world(["dev"])
    runner = w.start()
    second = w.cli("run", "--once")
    assert second.returncode != 0
    assert f"pid {runner.pid}" in second.stderr and "another `teamdeck run`" in second.stderr
