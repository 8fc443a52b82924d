"""What teamdeck reads from Gitea titles, bodies and comments (seed 001 §14, §15, §17)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamdeck.protocol.forge.comment_rules import is_action_report
from teamdeck.protocol.forge.parse import closes_of, depends_of, mentions_of, parent_of


def test_parent_comes_from_the_title_first_then_a_parent_line():
    assert parent_of("[quant][sub][parent #100] 策略编码", "Parent: #7") == 100
    assert parent_of("a sub", "## Task\nParent: #100\n") == 100
    assert parent_of("a sub", "see the Parent: #100 above") is None, "only a line that starts with Parent:"
    assert parent_of("Dual moving-average strategy", "## 任务\n...") is None


def test_depends_allows_several_numbers_and_lines_each_once():
    assert depends_of("Parent: #100\nDepends: #101, #103\ndepends on: #101 #104\n") == [101, 103, 104]
    assert depends_of("no dependencies; #12 is just a reference") == []


def test_closes_uses_gitea_s_keywords():
    assert closes_of("Closes #101\nParent: #100") == [101]
    assert closes_of("fixes #7, resolves #8 and closes: #7") == [7, 8]
    assert closes_of("encloses #5 and #6") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("@zhangfei-dev 你来认领", ["zhangfei-dev"]),
        ("ping @Guanyu-Risk and\n@simayi-review.", ["guanyu-risk", "simayi-review"]),
        ("mail zhangfei@acme.test or a@b", []),
        ("(@zhangfei-dev)", []),
        ("@a @a @A", ["a"]),
    ],
)
def test_mentions_are_at_line_start_or_after_whitespace(text, expected):
    assert mentions_of(text) == expected


@given(st.text(max_size=300))
def test_mentions_never_include_an_email_local_part(text):
    for login in mentions_of(text + " user@example.com"):
        assert login != "example.com"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("## Action Report\n- branch: feat/101-x", True),
        ("**[Action Report]** done: PR #104", True),
        ("\n\n> action report: CI green", True),
        ("Here is my Action Report:\n...", False),
        ("[张飞] Action Report 明天提交", False),
        ("", False),
    ],
)
def test_an_action_report_is_a_comment_that_starts_with_it(body: str, expected: bool) -> None:
    assert is_action_report(body) is expected
