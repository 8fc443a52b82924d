"""The times of docs/reliability.md's rows that name one, added to the table by run.py
(target ``extra``) or printed alone (``python bench/rows_reliability.py``):

- B2, a 342-byte YAML alias bomb: refused in under 100 ms (it is never walked);
- S7, 10 MB of one character and of each escape start through ``sanitize()``: no hang
  (the cut happens before any pattern runs);
- C18, MCP under load: ``list_agents`` with 150 ``wait_for_agent`` calls waiting answers
  as when idle (waits hold no thread), and a ``wait_for_agent(timeout_s=2)`` among them
  returns within 0.2 s of its timeout.

The tests of those rows (tests/unit/reliability, tests/e2e/test_mcp_load.py) check what
happens and bound a time only where a hang or the old bug is seconds away; the numbers
are here. C18 speaks to ``teamdeck mcp`` with the tests' MCP client (tests/support/mcp_clients.py).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from common import Result, print_table

from teamdeck.errors import InvalidFile
from teamdeck.store.yaml_text import parse_yaml
from teamdeck.text import sanitize

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.mcp_clients import make_workspace, time_waits

TEN_MB = 10_485_760
WAITERS = 150


def _alias_bomb() -> bytes:
    """Nine levels of nine aliases each: 9^9 strings if anything walked it."""
    levels = "abcdefghi"
    lines = ["id: t1", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"{name}: &{name} [{','.join(['*' + prev] * 9)}]" for prev, name in zip(levels, levels[1:], strict=False)]
    return ("\n".join(lines) + "\n").encode()


def _ms(once: Callable[[], object], runs: int) -> list[float]:
    """The wall time of ``runs`` calls of ``once``, in ms."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        once()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def alias_bomb(runs: int) -> Result:
    bomb = _alias_bomb()

    def refuse() -> None:
        try:
            parse_yaml(bomb, Path("task.yaml"))
        except InvalidFile:
            return
        raise AssertionError("the alias bomb was accepted")

    samples = _ms(refuse, runs)
    slowest = max(samples)
    return Result(
        f"B2: {len(bomb)}-byte YAML alias bomb refused",
        f"median {statistics.median(samples):.2f} / max {slowest:.2f} ms (n={runs})",
        "< 100 ms",
        slowest < 100,
    )


def sanitize_ten_megabytes(runs: int) -> list[Result]:
    rows = []
    for name, unit in (("x", "x"), ("ESC ]", "\x1b]"), ("ESC [", "\x1b["), ("U+202E", "\u202e"), ("U+009B", "\x9b")):
        text = unit * (TEN_MB // len(unit))
        samples = _ms(lambda text=text: sanitize(text), runs)
        rows.append(
            Result(
                f"S7: sanitize(10 MB of {name})",
                f"median {statistics.median(samples):.1f} / max {max(samples):.1f} ms (n={runs})",
                note="no target: docs/reliability.md asks for no hang",
            )
        )
    return rows


def mcp_under_load(waiters: int) -> list[Result]:
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="teamdeck-bench-") as scratch:
        root = Path(scratch) / "ws"
        make_workspace(root)

        async def main() -> None:
            timings.update(await time_waits(root, waiters))

        anyio.run(main)
    late = timings["wait"] - 2
    return [
        Result(
            f"C18: list_agents with {waiters} waits",
            f"{timings['loaded'] * 1000:.0f} ms (idle {timings['idle'] * 1000:.0f} ms)",
            "as when idle (within 0.5 s)",
            timings["loaded"] - timings["idle"] <= 0.5,
        ),
        Result(
            f"C18: wait_for_agent(timeout_s=2) with {waiters} waits",
            f"returned {late * 1000:.0f} ms after its timeout",
            "≤ 200 ms",
            0 <= late <= 0.2,
        ),
    ]


def results(quick: bool = False) -> list[Result]:
    if quick:
        return [alias_bomb(3), *sanitize_ten_megabytes(1), *mcp_under_load(5)]
    return [alias_bomb(50), *sanitize_ten_megabytes(10), *mcp_under_load(WAITERS)]


if __name__ == "__main__":
    os.environ.pop("TEAMDECK_WORKSPACE", None)
    print_table("Reliability rows with a time", results("--quick" in sys.argv))
