"""``teamdeck web`` for tests: the real command on a free loopback port, and Debian's
Chromium driven by Playwright (its own browser downloads are never used: the
executable is the system's, with the network features that call home turned off).

Tests that need Chromium skip with one reason without it, except under ``CI``, where
they fail (.ci/run installs it).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",  # the suite may run as root in a container, where Chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TOKEN = "test-token-0123456789abcdef"
START_S = 30.0


def need_chromium() -> None:
    """Skip without Chromium; under CI, fail (.ci/run installs Debian's chromium)."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail("Chromium is needed for the web page's tests (.ci/run installs Debian's chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class WebServer:
    """``teamdeck -w ROOT web --listen 127.0.0.1:<free port> --token-file …`` running, or
    over the hosts of ``hosts_file`` (``$TEAMDECK_HOSTS``) when ``root`` is None.

    Attributes:
        url: the address it printed on its first line (with the token).
        base: the address without the token.
    """

    def __init__(
        self, root: Path | None, scratch: Path, *extra: str, who: str = "tester", hosts_file: Path | None = None
    ) -> None:
        self.port = free_port()
        token_file = scratch / "web-token"
        token_file.write_text(TOKEN + "\n")
        where = ["-w", str(root)] if root is not None else []
        env = {**os.environ, "TEAMDECK_WORKSPACE": "", **({"TEAMDECK_HOSTS": str(hosts_file)} if hosts_file else {})}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "teamdeck", *where, "web", "--listen", f"127.0.0.1:{self.port}",
             "--token-file", str(token_file), "--who", who, *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )  # fmt: skip
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        self.base = f"http://127.0.0.1:{self.port}"
        assert self.url == f"{self.base}/?token={TOKEN}", self.url or self.process.stderr.read()  # type: ignore[union-attr]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextmanager
def web_server(
    root: Path | None, scratch: Path, *extra: str, who: str = "tester", hosts_file: Path | None = None
) -> Iterator[WebServer]:
    server = WebServer(root, scratch, *extra, who=who, hosts_file=hosts_file)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright's ``Browser``), closed on the way out."""
    need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
