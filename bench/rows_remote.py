"""Remote hosts' rows (``teamdeck tui --host``, docs/serve.md), added to the table by
run.py or printed alone (``python bench/rows_remote.py [--quick]``):

- write on the host → in the client's state: a message sent into a member's inbox on
  the host, until the client's link holds the state with it (what the hosts screen
  redraws from);
- approve → durable and in the client's state: ``ask("answer")`` until its reply came
  (the host wrote and recorded it) and the link's state no longer has the decision.

Each over ssh on loopback (a real sshd, tests/support/sshd.py) against its floor, the
same stream without ssh (``teamdeck serve --stdio`` as a child process here), measured
in pairs, one right after the other (order flipped every pair), at 1× and 10×, on two
copies of one generated workspace; the ratio is the median of the pairs' ratios (its
IQR beside it). Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from common import Result, print_table
from generate import Layout, generate
from pairs import median_and_iqr, ratios

from teamdeck.model.hosts import Host
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.remote.link import Link
from teamdeck.store.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.sshd import SshHost, sshd_available

SIZES = {
    "1×": dict(teams=20, members=200, tasks=100, files=1000, gates=250),
    "10×": dict(teams=100, members=2000, tasks=1000, files=10_000, gates=2500),
}
"""The ratio table's 1× and 10× (bench/run.py's SCALE)."""
QUICK_SIZES = {"1×": dict(teams=2, members=6, tasks=4, files=40, gates=8)}
WAIT_S = 120.0


class Watched:
    """A link and an event set on each of its changes."""

    def __init__(self, host: Host) -> None:
        self.changed = threading.Event()
        self.link = Link(host, on_change=lambda link: self.changed.set())

    def until(self, check: Callable[[], bool]) -> float:
        """Seconds until ``check()`` holds, looked at on each change of the link."""
        started = time.perf_counter()
        while not check():
            if time.perf_counter() - started > WAIT_S:
                raise TimeoutError(f"{self.link.host.name}: no such state within {WAIT_S:.0f} s")
            self.changed.wait(0.5)
            self.changed.clear()
        return time.perf_counter() - started


def _unread(link: Link, team: str) -> int:
    return next((int(row.get("unread") or 0) for row in link.state.get("teams") or [] if row.get("name") == team), 0)


def _write_ms(watched: Watched, root: Path, team: str, member: str, number: int) -> float:
    before = _unread(watched.link, team)
    watched.changed.clear()
    started = time.perf_counter()
    send_message(Workspace.at(root, actor="human:bench"), team, member, f"bench write {number}", summary="bench")
    watched.until(lambda: _unread(watched.link, team) > before)
    return (time.perf_counter() - started) * 1000


def _approve_ms(watched: Watched, key: str) -> float:
    started = time.perf_counter()
    reply = watched.link.ask("answer", {"key": key, "answer": "approve", "note": None}, timeout=WAIT_S)
    if not reply.ok:
        raise RuntimeError(f"{watched.link.host.name}: {reply.text}")
    watched.until(lambda: key not in [gate.get("key") for gate in watched.link.state.get("gates") or []])
    return (time.perf_counter() - started) * 1000


def _row(name: str, pairs: list[tuple[float, float]]) -> Result:
    spread = median_and_iqr(ratios(pairs))
    if spread is None:
        return Result(name, "no pairs")
    remote, local = statistics.median(pair[0] for pair in pairs), statistics.median(pair[1] for pair in pairs)
    median, (low, high) = spread
    return Result(
        name,
        f"**{median:.2f}×** (IQR {low:.2f}-{high:.2f}); over ssh {remote:.1f} ms, without {local:.1f} ms (medians, n={len(pairs)})",
    )


def measure(size: str, layout_of: Callable[[Path], Layout], rounds: int, where: Path) -> list[Result]:
    """The two rows at one size."""
    local_copy, remote_copy = where / "local", where / "remote"
    layout = layout_of(local_copy)
    shutil.copytree(local_copy, remote_copy, symlinks=True)
    sshd = SshHost(where / "sshd", "remote", remote_copy).start()
    remote, local = Watched(sshd.host), Watched(Host(name="local", workspace=str(local_copy)))
    try:
        for watched in (remote, local):
            watched.link.start()
            if not watched.link.wait_first(WAIT_S):
                raise RuntimeError(f"{watched.link.host.name}: {watched.link.why}")
        team, names = next(iter(layout.teams.items()))
        member = names[-1]
        writes: list[tuple[float, float]] = []
        for number in range(rounds):
            order = [(remote, remote_copy), (local, local_copy)]
            if number % 2:
                order.reverse()
            times = {watched.link.host.name: _write_ms(watched, root, team, member, number) for watched, root in order}
            writes.append((times["remote"], times["local"]))
        approvals: list[tuple[float, float]] = []
        keys = [f"task:{task}:{gate}" for task, gate in layout.gates][:rounds]
        for number, key in enumerate(keys):
            order = [remote, local] if number % 2 == 0 else [local, remote]
            times = {watched.link.host.name: _approve_ms(watched, key) for watched in order}
            approvals.append((times["remote"], times["local"]))
    finally:
        for watched in (remote, local):
            watched.link.stop()
        sshd.kill()
    return [
        _row(f"remote write → in the client's state, over ssh / without, {size}", writes),
        _row(f"remote approve → durable and in the client's state, over ssh / without, {size}", approvals),
    ]


def results(quick: bool = False) -> list[Result]:
    if not sshd_available():
        return [
            Result("remote hosts over ssh", "skipped: OpenSSH's sshd is not installed (apt-get install openssh-server)")
        ]
    sizes, rounds = (QUICK_SIZES, 3) if quick else (SIZES, 12)
    rows: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="teamdeck-bench-remote-") as scratch:
        for size, options in sizes.items():
            where = Path(scratch) / size.rstrip("×")
            rows += measure(size, lambda root, options=options: generate(root, **options), rounds, where)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny workspace, 3 pairs")
    args = parser.parse_args()
    print_table("Remote hosts: over ssh against the same stream without it", results(args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
