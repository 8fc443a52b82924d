"""start → first complete screen of two teamdeck sources and of the bare app, launched in
turn in every round (the order rotated each round), so that all three meet the same
moments of a shared machine's load.

``run.py --compare REF`` measures REF's whole table, then the working tree's: minutes
apart, and on a shared machine the load can double in between (a start ratio moved by
a quarter that way). This measures only the start row, interleaved: per round one
launch of REF, one of the other source and one of the bare app, each timed as the
ratio table times it (``targets_ratio._launch``: the overview with every member
counted and the oldest gate's row on screen). Each source is a ``git archive``
compiled to bytecode, as an install is (``run.py`` does the same).

Usage::

    python bench/compare_start.py [--ref main] [--commit HEAD] [--sizes 1,10] [--rounds 8]
"""

from __future__ import annotations

import argparse
import compileall
import io
import os
import shutil
import statistics
import subprocess
import tarfile
import tempfile
from pathlib import Path

import targets_ratio
from generate import generate
from run import SCALE

REPO = Path(__file__).resolve().parents[1]


def source(revision: str, into: Path) -> Path:
    """``revision``'s src/ extracted under ``into`` and compiled; returns it."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    compileall.compile_dir(into / "src", quiet=1)
    return into / "src"


def measure(root: Path, size: str, sides: dict[str, Path | None], rounds: int) -> dict[str, list[float]]:
    """Each side's start times (ms) at ``size``, one launch of each per round."""
    layout = generate(root / f"ws-{size}", **SCALE[size])
    names = list(sides)
    times: dict[str, list[float]] = {name: [] for name in names}

    def launch(src: Path | None) -> float:
        if src is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = str(src)
        term, ms = targets_ratio._launch(layout, src is None, 0)
        term.close()
        return ms

    launch(sides[names[0]])  # not counted: the first start records every inbox message (protocol/team/observed.py)
    for n in range(rounds):
        for name in names[n % len(names) :] + names[: n % len(names)]:
            times[name].append(launch(sides[name]))
    shutil.rmtree(root / f"ws-{size}", ignore_errors=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="main")
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--sizes", default="1,10")
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="teamdeck-start-") as tmp:
        root = Path(tmp)
        sides: dict[str, Path | None] = {
            args.ref: source(args.ref, root / "ref"),
            args.commit: source(args.commit, root / "commit"),
            "bare": None,
        }
        print(f"load average at the start: {os.getloadavg()[0]:.2f}\n")
        print(f"| size | {args.ref} (ms) | {args.commit} (ms) | bare (ms) | ratio {args.ref} | ratio {args.commit} |")
        print("|---|---|---|---|---|---|")
        for size in (f"{s.strip()}×" for s in args.sizes.split(",")):
            times = measure(root, size, sides, args.rounds)
            ref, new, bare = (times[name] for name in sides)
            ratio = [statistics.median(a / b for a, b in zip(side, bare, strict=True)) for side in (ref, new)]
            print(
                f"| {size} | {statistics.median(ref):,.0f} | {statistics.median(new):,.0f} | "
                f"{statistics.median(bare):,.0f} | {ratio[0]:.2f}× | {ratio[1]:.2f}× |"
            )
        print(f"\n{args.rounds} rounds a size; ratio: median of each round's start / the bare app's in that round")
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
