"""The README's promises about setting up (the fresh-machine contract): its two commands
come first and are the Makefile's, CI runs the same test command, and the picture it shows
is a snapshot the suite keeps up to date."""

from __future__ import annotations

import re
from pathlib import Path

from support.locations import REPO

from teamdeck.model.settings import Settings

README = (REPO / "README.md").read_text(encoding="utf-8")
MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")


def _target(name: str) -> str:
    """The recipe lines of a Makefile target."""
    found = re.search(rf"^{name}:[^\n]*\n((?:\t[^\n]*\n)+)", MAKEFILE, re.M)
    assert found, f"no '{name}' target in the Makefile"
    return found.group(1)


def test_try_it_starts_with_the_two_make_commands():
    section = README.split("## Try it", 1)[1]
    first_block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands == ["make demo", "make test"]


def test_make_test_runs_the_suite_after_building_the_venv_from_the_lock():
    assert "python -m pytest -n 2" in _target("test")
    stamp_recipe = _target(r"\$\(STAMP\)")
    assert "--require-hashes" in stamp_recipe and "requirements.lock" in stamp_recipe
    assert re.search(r"^\$\(STAMP\): requirements\.lock pyproject\.toml$", MAKEFILE, re.M)


def test_make_test_fast_runs_the_unit_lane_the_readme_names():
    assert "python -m pytest -n 2 -m unit" in _target("test-fast")
    assert "`make test-fast`" in README


def test_ci_runs_make_test_then_make_check():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in ci.splitlines()]
    assert lines.index("make test") < lines.index("make check")


def test_the_readme_picture_is_a_snapshot_of_the_suite():
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert pictures, "the README shows the first screen"
    for picture in pictures:
        assert picture.startswith("tests/tui/__snapshots__/") and picture.endswith(".svg")
        assert (REPO / picture).is_file(), picture


def _sources() -> list[Path]:
    return [p for top in ("src", "tests", "bench", "scripts") for p in (REPO / top).rglob("*.py")]


def test_code_points_only_at_documents_the_repo_has():
    """A docstring that says "see ARCHITECTURE.md" or "issue 5" sends a reader to
    something a clone does not contain; the reliability ids it cites are defined in
    docs/reliability.md."""
    outside = re.compile(r"\b(?:ARCHITECTURE|PERFORMANCE|RELIABILITY)\.md\b|\bissue \d+\b")
    found = [
        f"{p.relative_to(REPO)}:{n}"
        for p in _sources()
        if p.name != "test_readme.py"  # this test spells out what it looks for
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if outside.search(line)
    ]
    assert found == []


def test_every_reliability_id_cited_is_defined():
    catalogue = (REPO / "docs" / "reliability.md").read_text(encoding="utf-8")
    defined = set(re.findall(r"^\| ([FBCSR]\d+) \|", catalogue, re.M))
    cited = {
        m for p in _sources() for m in re.findall(r"\b[FBCS]\d{1,2}\b|\bR\d{1,2}\b", p.read_text(encoding="utf-8"))
    }
    # C0/C1 name control-character sets, not catalogue cases; F401 and friends are lint codes.
    undefined = {c for c in cited if c not in defined and c not in {"C0", "C1"}}
    assert undefined == set()


def test_where_the_readme_describes_join_it_says_the_tui_joins_by_itself():
    """A person who wrote a blocked final.json by hand saw its gate open in the TUI at
    once and then `teamdeck join` say "nothing changed": the README did not say the TUI
    joins. Its join row says so, naming the setting that turns it off as it is spelled."""
    (row,) = [line for line in README.splitlines() if line.startswith("| `teamdeck join TASK` |")]
    assert "TUI joins by itself" in row and '"nothing changed"' in row
    (setting,) = re.findall(r"`(\w+): false` in `\.teamdeck\.yaml`", row)
    assert Settings.model_fields[setting].default is True
