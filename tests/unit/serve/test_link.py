"""The client's link (remote/link.py) against servers that misbehave: one that speaks
another protocol is marked incompatible and not retried, one that never answers leaves
an action unknown (never retried behind the person's back), one whose command cannot
start is unreachable with the reason; a read-only host is asked nothing."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from teamdeck.model.hosts import Host
from teamdeck.remote.link import Link

HOST = Host(name="odd", workspace="/nowhere")


def fake_server(tmp_path: Path, body: str) -> list[str]:
    """A server script: reads the hello, then runs ``body`` (``say(frame)`` writes one)."""
    script = tmp_path / "server.py"
    script.write_text(
        "import json, sys, time\n"
        "def say(frame):\n"
        "    sys.stdout.write(json.dumps(frame) + '\\n'); sys.stdout.flush()\n"
        "sys.stdin.readline()\n" + textwrap.dedent(body)
    )
    return [sys.executable, str(script)]


def test_a_server_of_another_protocol_is_incompatible_and_not_tried_again(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    argv = fake_server(
        tmp_path,
        f"""
        open({str(starts)!r}, "a").write("x")
        say({{"frame": "hello", "protocol": 99, "teamdeck": "9.0.0"}})
        time.sleep(5)
        """,
    )
    link = Link(HOST, argv=argv).start()
    try:
        assert not link.wait_first(10)
        assert link.status == "incompatible"
        assert "protocol 99" in link.why and "9.0.0" in link.why
        link._stop.wait(1.5)  # a dropped link would have been tried again by now
        assert starts.read_text() == "x"
    finally:
        link.stop()


def test_an_answer_that_never_comes_is_unknown(tmp_path: Path) -> None:
    argv = fake_server(
        tmp_path,
        """
        say({"frame": "hello", "protocol": 1, "teamdeck": "0.1.0"})
        say({"frame": "state", "seq": 1, "full": True, "state": {"gates": []}})
        time.sleep(30)
        """,
    )
    link = Link(HOST, argv=argv).start()
    try:
        assert link.wait_first(10) and link.status == "live"
        reply = link.ask("answer", {"key": "task:t:g", "answer": "approve"}, timeout=0.5)
        assert reply.unknown and not reply.ok and reply.text.startswith("unknown: check odd")
    finally:
        link.stop()


def test_a_command_that_cannot_start_is_unreachable_with_the_reason() -> None:
    link = Link(HOST, argv=["/nonexistent/teamdeck-ssh"]).start()
    try:
        assert not link.wait_first(10)
        assert link.status == "unreachable" and "cannot start /nonexistent/teamdeck-ssh" in link.why
    finally:
        link.stop()


def test_a_read_only_host_is_asked_nothing(tmp_path: Path) -> None:
    link = Link(Host(name="ro", workspace="/nowhere", read_only=True), argv=["true"])
    reply = link.ask("answer", {"key": "task:t:g", "answer": "approve"}, timeout=0.1)
    assert not reply.ok and not reply.unknown and "read-only" in reply.text


def test_a_server_that_refuses_the_hello_gives_its_reason_every_time(tmp_path: Path) -> None:
    argv = fake_server(
        tmp_path,
        """
        say({"frame": "problem", "text": "cannot serve /nowhere: not a teamdeck workspace"})
        """,
    )
    link = Link(HOST, argv=argv).start()
    try:
        assert not link.wait_first(10)
        link._stop.wait(1.0)  # tried again once at least
        assert link.status == "unreachable" and link.why == "cannot serve /nowhere: not a teamdeck workspace"
    finally:
        link.stop()


def test_a_host_that_never_says_hello_is_given_up_and_tried_again(tmp_path: Path, monkeypatch) -> None:
    """ssh's ConnectTimeout covers the connection and the key exchange, not a remote
    command that hangs: the link ends such an attempt and tries again."""
    import teamdeck.remote.link as link_module

    monkeypatch.setattr(link_module, "HELLO_TIMEOUT_S", 0.5)
    starts = tmp_path / "starts"
    argv = fake_server(tmp_path, f'open({str(starts)!r}, "a").write("x")\ntime.sleep(60)\n')
    link = Link(HOST, argv=argv).start()
    try:
        assert not link.wait_first(3)
        assert link.status == "unreachable" and "no hello" in link.why
        link._stop.wait(1.5)
        assert len(starts.read_text()) >= 2  # given up, and tried again
    finally:
        link.stop()


def test_a_host_whose_command_dies_before_the_hello_is_written_is_tried_again_and_again(
    tmp_path: Path, monkeypatch
) -> None:
    """ssh refused at once can be gone before the link writes its hello (a broken pipe):
    the link said nothing more and never came back, whatever the host did next."""
    import teamdeck.remote.link as link_module

    real = link_module.stream.encode

    def broken_pipe(frame: dict) -> bytes:
        if frame.get("frame") == "hello":
            raise BrokenPipeError(32, "Broken pipe")
        return real(frame)

    monkeypatch.setattr(link_module.stream, "encode", broken_pipe)
    starts = tmp_path / "starts"
    argv = [sys.executable, "-c", f"open({str(starts)!r}, 'a').write('x')"]
    link = Link(HOST, argv=argv).start()
    try:
        link._stop.wait(3.0)
        assert link._thread is not None and link._thread.is_alive()
        assert len(starts.read_text()) >= 3 and link.status == "unreachable"
    finally:
        link.stop()


def test_a_line_over_the_limit_is_dropped_unparsed_and_the_link_goes_on(tmp_path: Path, monkeypatch) -> None:
    """B26: a host's line longer than the client's cap is read to its end and dropped
    (named by its size); the frames after it are taken."""
    monkeypatch.setattr("teamdeck.shapes.stream.MAX_SERVER_LINE_BYTES", 1000)
    argv = fake_server(
        tmp_path,
        """
        say({"frame": "hello", "protocol": 1, "teamdeck": "0.1.0"})
        sys.stdout.write('{"frame": "state", "x": "' + "x" * 5000 + '"}\\n'); sys.stdout.flush()
        say({"frame": "state", "seq": 1, "full": True, "state": {"gates": [], "takenAt": "now"}})
        time.sleep(30)
        """,
    )
    link = Link(HOST, argv=argv).start()
    try:
        assert link.wait_first(10)
        assert link.status == "live" and link.state == {"gates": [], "takenAt": "now"}
        assert list(link.problems) == ["the host sent a line of 5,028 bytes, over the limit of 1,000; dropped"]
    finally:
        link.stop()
