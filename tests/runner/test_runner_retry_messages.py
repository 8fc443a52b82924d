"""F22: a failed run's messages are its retry's work (docs/reliability.md F22,
docs/protocol.md "Running the agents"). An agent that reads its messages with
`teamdeck inbox --inject` marks them read; when it then failed, its retry's
`inbox --inject` returned nothing, the retry had nothing to do and succeeded, no
`run-failed` decision was ever asked, and the work was silently dropped."""

from __future__ import annotations

import json

from support.runner_world import wait_for


def test_f22_a_retry_reads_the_messages_its_failed_attempt_read(world) -> None:
    """The message tells the agent to fail: every attempt reads it again with
    `inbox --inject`, so every attempt fails, and once the retries are spent the
    decision is asked, naming the message it keeps."""
    w = world(["dev"], retries=1, backoff_s=0.2)
    w.start()
    w.send("dev", "fail")
    asked = wait_for(lambda: [d for d in w.decisions() if d["type"] == "asked"], 30)[0]
    runs = w.runs("dev")
    assert [(run.attempt, run.outcome) for run in runs] == [(1, "failed"), (2, "failed")]
    assert [entry["texts"] for entry in w.agent_log()] == [["fail"], ["fail"]]
    assert asked["kind"] == "run-failed" and asked["run"] == runs[-1].id
    assert [m["from"] for m in asked["messages"]] == ["team-lead"]
    assert asked["messages"][0]["key"] == runs[0].messages[0].key
    assert "--- messages (1), unread again for a retry\nteam-lead at " in asked["tail"]
    assert ": work" in asked["tail"]  # the message's summary
    log = w.root / "runs" / "crew" / "dev" / runs[1].id / "events.jsonl"
    first = json.loads(log.read_text().splitlines()[0])
    assert (first["type"], first["count"]) == ("marked-unread", 1)  # before the retry's agent started


def test_f22_a_retry_answered_by_a_person_reads_the_messages_again(world) -> None:
    """The person's retry of the give-up decision gives the message back too: the
    agent reads it again (and, told to fail, fails: a second decision is asked)."""
    w = world(["dev"], retries=0)
    w.start()
    w.send("dev", "fail")
    asked = wait_for(lambda: [d for d in w.decisions() if d["type"] == "asked"], 30)[0]
    done = w.cli("decisions", "decide", asked["decision"], "retry")
    assert done.returncode == 0, done.stderr
    wait_for(lambda: len([d for d in w.decisions() if d["type"] == "asked"]) == 2, 30)
    assert [entry["texts"] for entry in w.agent_log()] == [["fail"], ["fail"]]  # its work, delivered again
