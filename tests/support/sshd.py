"""A real OpenSSH server on 127.0.0.1 for tests: Debian's ``sshd``, a generated host key
and client key, the test's own user, nothing off loopback.

:class:`SshHost` starts one server on a free port (in a process group of its own, so
killing it takes the sessions it serves too: a host that goes away) and gives the
``Host`` teamdeck reaches it by: the server's key pinned in a known_hosts file of the
test, the client key given explicitly, and a remote ``teamdeck`` that is this checkout's
(a wrapper script: the remote side gets a login shell's environment, not the test's).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from teamdeck.model.hosts import Host

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
SRC = Path(__file__).resolve().parents[2] / "src"
START_S = 10.0


def sshd_available() -> bool:
    return os.path.exists(SSHD) and shutil.which("ssh") is not None and shutil.which("ssh-keygen") is not None


def need_sshd() -> None:
    """Skip without OpenSSH's server and client; under CI, fail (.ci/run installs them)."""
    if not sshd_available():
        if os.environ.get("CI"):
            pytest.fail("OpenSSH's sshd, ssh and ssh-keygen are needed (.ci/run installs openssh-server)")
        pytest.skip("OpenSSH's sshd, ssh and ssh-keygen are not installed (apt-get install openssh-server)")


def start_hosts(directory: Path, demo: Path, *names: str) -> dict[str, SshHost]:
    """One sshd per name, each serving its own copy of ``demo`` (the caller kills them)."""
    need_sshd()
    started: dict[str, SshHost] = {}
    for name in names:
        workspace = directory / name / "ws"
        shutil.copytree(demo, workspace)
        started[name] = SshHost(directory / name / "sshd", name, workspace).start()
    return started


RUNNER_AGENT = Path(__file__).with_name("runner_agent.py")


def start_runner(workspace: Path, member: str = "quant/zhangfei-dev") -> subprocess.Popen[bytes]:
    """``teamdeck run`` on a host's workspace, running ``member`` (TEAM/NAME) as the
    scripted agent of support/runner_agent.py: woken by its unread messages, it reads
    them and obeys their directives (``reply:team-lead`` answers the lead)."""
    (workspace / ".teamdeck.yaml").write_text(
        "agents:\n"
        "  defaults: {retries: 0, backoff_s: 0.2, grace_s: 1}\n"
        f"  {member}:\n"
        "    runtime: command\n"
        f"    command: [{sys.executable}, {RUNNER_AGENT}, '{{team}}', '{{member}}', '{{run_id}}']\n"
    )
    return subprocess.Popen(
        [sys.executable, "-m", "teamdeck", "-w", str(workspace), "run"],
        stdout=open(workspace.parent / "runner.out", "ab"),
        stderr=subprocess.STDOUT,
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class SshHost:
    """One sshd on loopback serving ``workspace`` as host ``name``."""

    def __init__(self, directory: Path, name: str, workspace: Path) -> None:
        self.directory, self.name, self.workspace = directory, name, workspace
        directory.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        for key in ("host_key", "client_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(directory / key)], check=True)
        (directory / "authorized_keys").write_text((directory / "client_key.pub").read_text())
        host_key = (directory / "host_key.pub").read_text().split()[:2]
        (directory / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {' '.join(host_key)}\n")
        self.config = directory / "sshd_config"
        self.config.write_text(
            "\n".join(
                [
                    f"Port {self.port}",
                    "ListenAddress 127.0.0.1",
                    f"HostKey {directory / 'host_key'}",
                    f"AuthorizedKeysFile {directory / 'authorized_keys'}",
                    f"PidFile {directory / 'sshd.pid'}",
                    "StrictModes no",
                    "UsePAM no",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "PermitRootLogin prohibit-password",
                    "LogLevel ERROR",
                    "",
                ]
            )
        )
        remote = directory / "bin" / "teamdeck"
        remote.parent.mkdir()
        remote.write_text(f'#!/bin/sh\nPYTHONPATH={SRC} exec {sys.executable} -m teamdeck "$@"\n')
        remote.chmod(0o755)
        self.remote_teamdeck = str(remote)
        self.process: subprocess.Popen[bytes] | None = None
        self._reserved: socket.socket | None = None
        """While the host is down, its port, bound and not listening: a connection is
        refused, as to a host that went away, and no other test's server takes the port
        meanwhile (a client would then talk to the wrong server)."""

    @property
    def host(self) -> Host:
        """How teamdeck reaches this server."""
        return Host(
            name=self.name,
            ssh=f"127.0.0.1:{self.port}",
            workspace=str(self.workspace),
            teamdeck=self.remote_teamdeck,
            ssh_options=(
                "StrictHostKeyChecking=yes",
                f"UserKnownHostsFile={self.directory / 'known_hosts'}",
                f"IdentityFile={self.directory / 'client_key'}",
                "IdentitiesOnly=yes",
            ),
        )

    def hosts_yaml(self) -> str:
        """This host as an entry of a hosts file."""
        host = self.host
        options = ", ".join(host.ssh_options)
        return (
            f"  - name: {host.name}\n    ssh: {host.ssh}\n    workspace: {host.workspace}\n"
            f"    teamdeck: {host.teamdeck}\n    ssh_options: [{options}]\n"
        )

    def start(self) -> SshHost:
        if self._reserved is not None:
            self._reserved.close()
            self._reserved = None
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(exist_ok=True)  # privilege separation, as Debian's unit makes it
        self.process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=open(self.directory / "sshd.log", "ab"),
            start_new_session=True,
        )
        deadline = time.monotonic() + START_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"sshd did not start: {(self.directory / 'sshd.log').read_text()}") from None
                time.sleep(0.05)

    def kill(self) -> None:
        """The host goes away: the server and every session it serves (sshd puts each
        session in a session of its own, so they are found by parentage), at once."""
        if self.process is None:
            return
        doomed = [self.process.pid, *_descendants(self.process.pid)]
        for pid in doomed:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait()
        self.process = None
        reserved = socket.socket()
        reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        reserved.bind(("127.0.0.1", self.port))
        self._reserved = reserved


def _descendants(root: int) -> list[int]:
    """Every process below ``root``, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found
