"""Remote hosts' rows (``teamdeck tui --host``, docs/serve.md), added to the table by
run.py or printed alone (``python bench/rows_remote.py [--quick]``), each on the real
hosts TUI in a pty (bench/hosts_main.py under bench/screen.py's ``Terminal``):

- write on the host → on screen: a message sent into a member's inbox on the host,
  until the screen's total line shows one more ``<n> unread in all``;
- approve → durable and on screen: the person presses ``a`` on the oldest decision and
  confirms (Enter), until the total line shows one fewer ``<n> decisions waiting``
  (which it shows only once the host's own state, read from its files, has lost it).

Each over ssh on loopback (a real sshd, tests/support/sshd.py) against its floor: the
same app on the same stream without ssh (``teamdeck serve --stdio`` as its child
process), measured in pairs, one right after the other (order flipped every pair), at
1× and 10×, on two copies of one generated workspace; the ratio is the median of the
pairs' ratios (its IQR beside it). Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import Result, print_table
from generate import Layout, generate
from pairs import median_and_iqr, ratios
from screen import Terminal
from targets_screen import _shown, _value

from teamdeck.protocol.team.messaging.sending import send_message
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
SETTLE_S = 1.0
"""After the first live screen, let start-up work finish before measuring."""
HOSTS_MAIN = Path(__file__).with_name("hosts_main.py")
UNREAD = re.compile(rb"(?<![0-9])([0-9]+) unread in all")
WAITING = re.compile(rb"(?<![0-9])([0-9]+) decisions waiting \xc2\xb7 ")  # "· " in UTF-8


class HostsScreen:
    """The hosts TUI over one host, in a pty, and the counts of its total line."""

    def __init__(self, entry: str, name: str, where: Path) -> None:
        self.name = name
        hosts_file = where / f"{name}-hosts.yaml"
        hosts_file.write_text(f"hosts:\n{entry}", encoding="utf-8")
        self.term = Terminal(hosts_file, program=HOSTS_MAIN, size=(160, 40))
        self.term.wait_for(b"1 live", 0, WAIT_S)
        time.sleep(SETTLE_S)

    def write_ms(self, root: Path, team: str, member: str, number: int) -> float:
        """A message into ``team/member``'s inbox on the host, until the screen counts it."""
        wanted = _value(UNREAD, _shown(self.term, UNREAD) + 1)
        mark = self.term.mark()
        started = time.perf_counter()
        send_message(Workspace.at(root, actor="human:bench"), team, member, f"bench write {number}", summary="bench")
        arrived, _match = self.term.wait_for(wanted, mark, WAIT_S)
        return (arrived - started) * 1000

    def approve_ms(self) -> float:
        """``a`` on the oldest decision, then Enter once its confirm question is up, until
        the screen counts one decision fewer."""
        wanted = _value(WAITING, _shown(self.term, WAITING) - 1)
        mark = self.term.mark()
        self.term.send(b"a")
        self.term.wait_for(re.compile(rb"on " + self.name.encode() + rb"\?"), mark, WAIT_S)
        mark = self.term.mark()
        started = self.term.send(b"\r")
        arrived, _match = self.term.wait_for(wanted, mark, WAIT_S)
        time.sleep(0.3)  # the confirm bar's answered state goes before the next a
        return (arrived - started) * 1000

    def close(self) -> None:
        self.term.close()


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
    screens: list[HostsScreen] = []
    try:
        screens.append(HostsScreen(sshd.hosts_yaml(), "remote", where))
        screens.append(HostsScreen(f"  - name: local\n    workspace: {local_copy}\n", "local", where))
        roots = {"remote": remote_copy, "local": local_copy}
        team, names = next(iter(layout.teams.items()))
        member = names[-1]
        writes: list[tuple[float, float]] = []
        approvals: list[tuple[float, float]] = []
        for number in range(rounds):
            order = screens if number % 2 == 0 else screens[::-1]
            times = {screen.name: screen.write_ms(roots[screen.name], team, member, number) for screen in order}
            writes.append((times["remote"], times["local"]))
        for number in range(min(rounds, len(layout.gates))):
            order = screens if number % 2 == 0 else screens[::-1]
            times = {screen.name: screen.approve_ms() for screen in order}
            approvals.append((times["remote"], times["local"]))
    finally:
        for screen in screens:
            screen.close()
        sshd.kill()
    return [
        _row(f"remote write → on screen, over ssh / without, {size}", writes),
        _row(f"remote approve → durable and on screen, over ssh / without, {size}", approvals),
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
