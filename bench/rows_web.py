"""The web page's row (``teamdeck web``, docs/web.md), added to the table by run.py or
printed alone (``python bench/rows_web.py [--quick]``): a write on disk → visible in the
browser, against the TUI's write → screen, both on the same writes in the same run.

The TUI (bench/screen.py's ``Terminal``, the app as ``teamdeck tui`` builds it) and
``teamdeck web`` (in Debian's Chromium, driven by Playwright) watch one generated
workspace at once. An agent appends a message to a random inbox (Claude Code's in-place
rewrite), 20-60 ms after the last one was seen; each write is timed from just before it
until the TUI's overview line shows ``<n+1> unread`` and until the page's hosts line says
so, at the first animation frame after the page changed (recorded in the page by a
MutationObserver, on the same clock). Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import Result, append_inbox_in_place, latency_result, print_table
from generate import generate
from pairs import median_and_iqr, ratios
from screen import Terminal
from targets_screen import STAMP, UNREAD, _shown, _value

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.web import CHROMIUM, CHROMIUM_ARGS, web_server

SIZES = {"1×": dict(teams=20, members=200, tasks=100, files=1000, gates=250)}
QUICK_SIZES = {"1×": dict(teams=2, members=6, tasks=4, files=40, gates=8)}
WAIT_S = 10.0
SETTLE_S = 1.5
WATCH = """want => {
  window.benchSeen = null;
  const region = document.querySelector("[data-live=hosts]");
  const pattern = new RegExp("(^|[^0-9])" + want + " unread");
  const observer = new MutationObserver(() => {
    if (pattern.test(region.textContent)) {
      observer.disconnect();
      requestAnimationFrame(() => { window.benchSeen = performance.timeOrigin + performance.now(); });
    }
  });
  observer.observe(region, {childList: true, subtree: true, characterData: true});
}"""
"""Installed in the page before each write: when the hosts line first shows ``want``
unread, the time (ms since the epoch) of the next frame."""


def _page_unread(page: object) -> int:
    text = page.inner_text("[data-live=hosts]")  # type: ignore[attr-defined]
    return int(text.split(" unread")[0].rsplit(" ", 1)[-1])


def measure(size: str, options: dict[str, int], changes: int, where: Path) -> list[Result]:
    from playwright.sync_api import sync_playwright

    layout = generate(where / "ws", **options)
    inboxes = layout.inboxes()
    rng = random.Random(7)
    term = Terminal(layout.root)
    pairs: list[tuple[float, float]] = []
    web_ms: list[float] = []
    tui_ms: list[float] = []
    try:
        term.wait_for(UNREAD, 0, 60)
        with web_server(layout.root, where) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(server.url)
            page.wait_for_selector("#live-status[data-state=live]")
            time.sleep(SETTLE_S)
            total = _shown(term, UNREAD)
            assert _page_unread(page) == total, (_page_unread(page), total)
            for number in range(changes):
                total += 1
                page.evaluate(WATCH, total)
                mark = term.mark()
                started_epoch_ms, started = time.time() * 1000, time.perf_counter()
                append_inbox_in_place(rng.choice(inboxes), "bench", f"web {number}", STAMP)
                arrived, _match = term.wait_for(_value(UNREAD, total), mark, WAIT_S)
                deadline = time.monotonic() + WAIT_S
                while (seen := page.evaluate("window.benchSeen")) is None and time.monotonic() < deadline:
                    time.sleep(0.005)
                if seen is None:
                    raise TimeoutError(f"the page never showed {total} unread")
                web, tui = seen - started_epoch_ms, (arrived - started) * 1000
                web_ms.append(web)
                tui_ms.append(tui)
                pairs.append((web, tui))
                time.sleep(rng.uniform(0.02, 0.06))
            browser.close()
    finally:
        term.close()
    note = f"{layout.files} files, {layout.members} members, the same {changes} writes"
    spread = median_and_iqr(ratios(pairs))
    assert spread is not None
    median, (low, high) = spread
    return [
        latency_result(f"disk write → visible in the browser (teamdeck web), {size}", web_ms, note=note),
        latency_result(f"disk write → on screen (teamdeck tui, the same writes), {size}", tui_ms, note=note),
        Result(
            f"browser / TUI, {size}",
            f"**{median:.2f}×** (IQR {low:.2f}-{high:.2f}); medians {statistics.median(web_ms):.1f} / "
            f"{statistics.median(tui_ms):.1f} ms (n={len(pairs)})",
        ),
    ]


def results(quick: bool = False) -> list[Result]:
    if not Path(CHROMIUM).exists():
        return [Result("the web page", "skipped: Chromium is not installed (apt-get install chromium)")]
    sizes, changes = (QUICK_SIZES, 5) if quick else (SIZES, 60)
    rows: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="teamdeck-bench-web-") as scratch:
        for size, options in sizes.items():
            where = Path(scratch) / size.rstrip("×")
            where.mkdir()
            rows += measure(size, options, changes, where)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny workspace, 5 writes")
    args = parser.parse_args()
    print_table("The web page: disk write → browser, against the TUI on the same writes", results(args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
