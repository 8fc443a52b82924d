"""A batch of changed paths that touches nothing a snapshot reads costs no refresh
(view/refresh/changes.py ``Work.empty``); every other batch must be read. Found trying the
runner: a TUI started before ``runs/`` existed never showed a run, because run records
and session logs were missing from the list of parts that count."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamdeck.view.refresh.changes import classify

READ = (
    "runs/alpha/alice/r-01/run.yaml",
    "runs/decisions.jsonl",
    "runs",
    "sessions/alpha.jsonl",
    "teams/alpha/inboxes/alice.json",
    "teams/alpha/config.json",
    "tasks/t1/task.yaml",
    "forge/issues/acme/quant/101.yaml",
    ".teamdeck.yaml",
)


@pytest.mark.parametrize("relative", READ)
def test_a_batch_with_a_file_the_view_reads_is_read(tmp_path: Path, relative: str) -> None:
    assert not classify(tmp_path, [tmp_path / relative]).empty


def test_the_views_own_bookkeeping_alone_is_no_change(tmp_path: Path) -> None:
    assert classify(tmp_path, [tmp_path / ".teamdeck" / "observed" / "alpha.jsonl"]).empty
