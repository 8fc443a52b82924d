"""F25: a timed-out run says why it ended (docs/reliability.md F25, docs/protocol.md
"Running the agents"): its error was null."""

from __future__ import annotations

from support.runner_world import wait_for


def test_f25_a_run_past_its_timeout_says_so(world) -> None:
    """A timed-out run's error says it timed out and after how long (it was null)."""
    w = world(["dev"], timeout_s=1, grace_s=0.5)
    w.start()
    w.send("dev", "sleep:30")
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 15)[0]
    assert run.outcome == "timeout" and run.error == "timed out after 1 s"
