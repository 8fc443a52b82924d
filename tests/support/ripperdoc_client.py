"""The pinned Ripperdoc (tests/conformance/ripperdoc/requirements.lock), run against the
scripted model.

``make test`` installs the version the lock pins into its own venv, ``.cache/ripperdoc``
(see the Makefile). :func:`binary` finds it; when it is missing the tests that need it
skip with one reason, except under ``CI=true``, where a missing client fails them.

:func:`ripperdoc_env` is the whole environment the client gets: a temporary ``HOME``
and ``RIPPERDOC_CONFIG_DIR`` (where its teams and tasks go), the scripted model on
127.0.0.1 as an ``anthropic`` provider, a dummy key, this venv's ``bin`` first on PATH
(so ``teamdeck`` is found), and ``IS_SANDBOX=1`` (Ripperdoc refuses ``--yolo`` as root
otherwise). Ripperdoc reads ``RIPPERDOC_BASE_URL`` even when a provider is configured:
without it, it would go to the provider's public address.

A Ripperdoc teammate runs only while its query loop does (between model calls it reads
its inbox; once its turn ends it is idle and nothing wakes it), and a ``-p`` lead ends
its process, teammates and all, when its own turn ends. So a test that acts while a team
runs holds a model call: :class:`Gate` answers one step of a script only once the test
opens it, and tells the test when an agent has reached it.
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from support.locations import REPO
from support.scripted_model import DUMMY_API_KEY, Reply, Request

PIN = REPO / "tests" / "conformance" / "ripperdoc"
"""requirements.in and its hashed requirements.lock: the Ripperdoc version the suite runs."""
INSTALL = REPO / ".cache" / "ripperdoc"
"""The venv ``make ripperdoc`` installs it into (git-ignored)."""
MODEL = "claude-sonnet-4-5-20250929"
"""The model name Ripperdoc is given (one its catalog prices, so runs report a cost)."""
RUN_TIMEOUT_S = 120
GATE_TIMEOUT_S = 60.0


def pinned_version() -> str:
    found = re.search(r"^ripperdoc==(\S+)", (PIN / "requirements.lock").read_text(), re.MULTILINE)
    assert found, f"{PIN / 'requirements.lock'} pins no ripperdoc"
    return found.group(1)


def _installed_version() -> str | None:
    for info in INSTALL.glob("lib/python*/site-packages/ripperdoc-*.dist-info"):
        return info.name[len("ripperdoc-") : -len(".dist-info")]
    return None


def binary() -> Path:
    """The installed pinned ``ripperdoc``; skips the test (fails it under CI=true) without it."""
    exe = INSTALL / "bin" / "ripperdoc"
    if exe.exists() and _installed_version() == pinned_version():
        return exe
    reason = (
        f"Ripperdoc {pinned_version()} is not installed in {INSTALL.relative_to(REPO)}: "
        "run `make ripperdoc` (needs PyPI, or its wheels in pip's cache)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(reason + " (CI=true: the conformance tests must run)", pytrace=False)
    pytest.skip(reason)


def python() -> Path:
    """The Python of the pinned Ripperdoc's venv (it imports ``ripperdoc``)."""
    binary()
    return INSTALL / "bin" / "python"


def config_dir(home: Path) -> Path:
    """Where Ripperdoc keeps its teams and tasks under ``home`` (``RIPPERDOC_CONFIG_DIR``)."""
    return home / ".ripperdoc"


def ripperdoc_env(home: Path, base_url: str, *, model: str = MODEL, **extra: str) -> dict[str, str]:
    """The client's whole environment: a fresh HOME and config directory, the scripted
    model at ``base_url`` with the dummy key, this venv's ``bin`` first on PATH."""
    config_dir(home).mkdir(parents=True, exist_ok=True)
    venv_bin = str(Path(sys.executable).parent)
    return {
        "PATH": os.pathsep.join([venv_bin, os.environ.get("PATH", "/usr/bin:/bin")]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "TMPDIR": str(home),
        "RIPPERDOC_CONFIG_DIR": str(config_dir(home)),
        "RIPPERDOC_BASE_URL": base_url,
        "RIPPERDOC_PROTOCOL": "anthropic",
        "RIPPERDOC_API_KEY": DUMMY_API_KEY,
        "RIPPERDOC_MODEL": model,
        "IS_SANDBOX": "1",
        "TEAMDECK_WORKSPACE": "",
        **extra,
    }


def _argv(prompt: str, args: Sequence[str]) -> list[str]:
    return [str(binary()), "-p", prompt, "--yolo", *args]


def start_ripperdoc(
    prompt: str, *, cwd: Path, env: Mapping[str, str], args: Sequence[str] = ()
) -> subprocess.Popen[str]:
    """Start ``ripperdoc -p PROMPT --yolo ARGS`` in ``cwd`` (a lead whose team the test
    watches while it runs); stdout and stderr piped."""
    return subprocess.Popen(
        _argv(prompt, args),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_ripperdoc(
    prompt: str, *, cwd: Path, env: Mapping[str, str], args: Sequence[str] = (), timeout: float = RUN_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run ``ripperdoc -p PROMPT --yolo ARGS`` in ``cwd`` to the end."""
    return subprocess.run(
        _argv(prompt, args),
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


class Gate:
    """One scripted step held until the test opens it: a turn for
    :meth:`ScriptedModel.script`. ``reached`` is set when an agent's request arrives
    at it (the agent's loop is running and waits on its model), ``open()`` lets the
    ``reply`` go, and the request it answered is :attr:`request`. A retried request
    at an open gate is answered at once."""

    def __init__(self, reply: Reply, *, timeout: float = GATE_TIMEOUT_S) -> None:
        self.reply = reply
        self.timeout = timeout
        self.reached = threading.Event()
        self._open = threading.Event()
        self.request: Request | None = None

    def __call__(self, request: Request) -> Reply:
        self.request = request
        self.reached.set()
        if not self._open.wait(self.timeout):
            raise AssertionError(f"the gate was not opened within {self.timeout}s")
        return self.reply

    def wait(self, timeout: float = GATE_TIMEOUT_S) -> Request:
        """Block until an agent is at the gate; its request."""
        if not self.reached.wait(timeout):
            raise AssertionError(f"no agent reached the gate within {timeout}s")
        assert self.request is not None
        return self.request

    def open(self) -> None:
        self._open.set()


@contextmanager
def team_lock(root: Path, team: str) -> Iterator[None]:
    """Hold Ripperdoc's own lock of ``team`` (``flock(LOCK_EX)`` on ``teams/<team>/.lock``)
    as Ripperdoc's ``_team_lock`` does, from this process."""
    path = root / "teams" / team / ".lock"
    with path.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
