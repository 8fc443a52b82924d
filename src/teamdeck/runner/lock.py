"""One runner per workspace: ``runs/runner.lock``, held with ``flock`` for the runner's
whole life (the kernel lets go when the process dies, however it dies), and saying who
holds it: pid, host, the process's start time and since when."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from datetime import datetime
from typing import Any

from teamdeck.errors import Busy, WriteFailed
from teamdeck.store.files import ensure_dir
from teamdeck.store.lock_owner import process_started
from teamdeck.store.paths import open_beneath
from teamdeck.store.runs import read_holder
from teamdeck.store.workspace import Workspace


def describe(holder: dict[str, Any]) -> str:
    """``pid 4242 on host dev-3, running since 10:42:03``."""
    since = holder.get("since")
    when = f", running since {datetime.fromtimestamp(since).strftime('%Y-%m-%d %H:%M:%S')}" if since else ""
    return f"pid {holder.get('pid', '?')} on host {holder.get('host', '?')}{when}"


class RunnerLock:
    """``with RunnerLock(ws):`` the one runner of ``ws`` (see the module)."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.fd: int | None = None

    def __enter__(self) -> RunnerLock:
        path = self.ws.runner_lock
        ensure_dir(path.parent)
        try:
            fd = open_beneath(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as err:
            raise WriteFailed(f"could not open {self.ws.rel(path)}: {err.strerror or err}") from err
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = read_holder(fd)
            os.close(fd)
            raise Busy(
                f"another `teamdeck run` runs this workspace: {describe(holder)} ({self.ws.rel(path)}); "
                "stop it first, or let it run"
            ) from None
        pid = os.getpid()
        record = {"pid": pid, "host": socket.gethostname(), "started": process_started(pid), "since": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record).encode() + b"\n", 0)
        self.fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.close(self.fd)
            self.fd = None
