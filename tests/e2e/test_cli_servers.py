"""The servers say when they start and stop, and a port in use is one line.

``teamdeck mcp --http`` on a taken port printed a 40-line BaseExceptionGroup traceback,
and said nothing when it started or stopped; ``forge serve`` on a taken port printed
uvicorn's log line and exited 3; the forge log lines did not name the event.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.forge_world import delivery, make_team, post, serving
from support.mcp_clients import make_workspace, server_args, server_env

IN_USE = os.strerror(errno.EADDRINUSE).lower()


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        yield taken.getsockname()[1]


def test_mcp_http_on_a_port_in_use_is_one_line(tmp_path: Path, taken_port: int) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    argv = [sys.executable, *server_args(root, "coder", "--http", f"127.0.0.1:{taken_port}", "--no-token")]
    _refused_in_one_line(argv, server_env(), f"the MCP server for coder on 127.0.0.1:{taken_port}")
    assert not (root / "teams" / "alpha" / "connections" / "coder.json").exists()


def test_forge_serve_on_a_port_in_use_is_one_line(tmp_path: Path, taken_port: int) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    argv = [sys.executable, "-m", "teamdeck", "-w", str(root), "forge", "serve", "--listen", f"127.0.0.1:{taken_port}"]
    env = {**server_env(), "TEAMDECK_FORGE_SECRET": "s"}
    _refused_in_one_line(argv, env, f"the forge webhook server on 127.0.0.1:{taken_port}")


def _refused_in_one_line(argv: list[str], env: dict[str, str], what: str) -> None:
    """``argv`` exits 1 with one line naming ``what`` and the port in use, and never
    says it is serving."""
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"teamdeck: Could not start {what}: {IN_USE}"]
    assert proc.stdout == ""


def _wait_for_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    line = proc.stdout.readline()
    assert line or time.monotonic() < deadline, "the server printed nothing"
    return line


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_mcp_http_says_where_it_serves_and_when_it_stops(tmp_path: Path, stop: signal.Signals) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, *server_args(root, "coder", "--http", f"127.0.0.1:{port}", "--no-token")],
        env=server_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = _wait_for_line(proc)
        assert first == f"teamdeck: MCP tools as alpha/coder for {root} on http://127.0.0.1:{port}/mcp\n"
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # it is listening when it says so
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out == "teamdeck: MCP server for alpha/coder stopped\n"
    assert "Traceback" not in err


def test_forge_log_lines_name_the_event(ws, caplog: pytest.LogCaptureFixture) -> None:
    make_team(ws)
    headers, body = delivery("issues-opened-parent-100")
    with caplog.at_level(logging.INFO, logger="teamdeck.forge"), serving(ws) as url:
        assert post(url, headers, body).status_code == 200
        assert post(url, {**headers, "X-Gitea-Signature": "0" * 64}, body).status_code == 401
    lines = [record.getMessage() for record in caplog.records if record.name == "teamdeck.forge"]
    delivery_id = headers["X-Gitea-Delivery"]
    assert lines[0].startswith(f"forge: 200 applied, event issues, delivery {delivery_id}: issues opened")
    assert lines[1].startswith("forge: 401 unauthorized, event issues, delivery -: the signature does not match")
