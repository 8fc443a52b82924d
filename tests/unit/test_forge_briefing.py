"""The executor's branch (seed 001 §13.5): ``{type}/{n}-{brief}``, the type from the
title's prefix, a brief that stays readable for non-ASCII titles, and always a name git
accepts (S8: a path-like or hostile title gives a plain, usable branch)."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teamdeck.protocol.forge.briefing import branch_brief, branch_type


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("[quant][sub][parent #100] 策略编码", "feat/策略编码"),
        ("fix: 数据缺失 2024-08", "fix/数据缺失-2024-08"),
        ("[quant][docs] Write the README", "docs/write-the-readme"),
        ("refactor(api)!: Split the client", "refactor/split-the-client"),
        ("[sub] test: 策略测试", "test/策略测试"),
        ("Bug: crash on empty input", "fix/crash-on-empty-input"),
        ("Dual MA strategy (MA5/MA20)", "feat/dual-ma-strategy-ma5-ma20"),
        ("[impl] Données de marché", "impl/données-de-marché"),
        ("../../etc/passwd", "feat/etc-passwd"),
        ("", "feat/work"),
    ],
)
def test_the_type_and_brief_of_a_title(title: str, expected: str) -> None:
    assert f"{branch_type(title)}/{branch_brief(title)}" == expected


def _git_accepts(branch: str) -> bool:
    done = subprocess.run(["git", "check-ref-format", "--branch", branch], capture_output=True, timeout=10)
    return done.returncode == 0


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80), st.integers(min_value=1, max_value=10**9))
def test_every_title_gives_a_branch_git_accepts(title: str, number: int) -> None:
    brief = branch_brief(title)
    assert brief and len(brief) <= 40
    assert _git_accepts(f"{branch_type(title)}/{number}-{brief}"), (title, brief)
