"""Security (docs/reliability.md 3.4): hostile text (S1-S7) and hostile ids and links (S8, S9).

S1-S7 here test :func:`teamdeck.text.sanitize` itself, the one function every front
uses; the end-to-end pty run of the TUI belongs to the TUI tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from teamdeck.errors import InvalidFile
from teamdeck.store.paths import InvalidId, check_id, check_member
from teamdeck.text import MAX_DISPLAY_CHARS, REPLACEMENT, one_line, sanitize

ESC = "\x1b"
ST = ESC + "\\"

# --- S1: escape sequences ---------------------------------------------------------

INJECTIONS = {
    "osc52 clipboard": f"{ESC}]52;c;ZXZpbCBjb21tYW5k\x07",
    "osc0 title": f"{ESC}]0;pwned title\x07",
    "osc2 title st": f"{ESC}]2;pwned title{ST}",
    "osc8 link": f"{ESC}]8;;https://evil.example{ST}",
    "dcs": f"{ESC}P1$qm{ST}",
    "apc": f"{ESC}_payload{ST}",
    "pm": f"{ESC}^privacy{ST}",
    "sos": f"{ESC}Xstring{ST}",
    "csi clear": f"{ESC}[2J",
    "csi report": f"{ESC}[6n",
    "csi move": f"{ESC}[10;20H",
    "csi sgr": f"{ESC}[31;1m",
    "reset": f"{ESC}c",
    "charset": f"{ESC}(0",
    "c1 csi": "\x9b2J",
    "c1 osc": "\x9d0;pwned\x07",
    "c1 dcs": "\x90q\x9c",
}


@pytest.mark.parametrize("name", INJECTIONS)
def test_s1_escape_sequences_become_one_visible_placeholder(name):
    shown = sanitize(f"before {INJECTIONS[name]} after")
    assert shown == f"before {REPLACEMENT} after"


def test_s1_osc8_link_text_stays_but_the_link_does_not():
    shown = sanitize(f"{ESC}]8;;https://evil.example{ST}docs{ESC}]8;;{ST} end")
    assert shown == f"{REPLACEMENT}docs{REPLACEMENT} end"
    assert "evil.example" not in shown


def test_s1_unterminated_osc_swallows_only_to_the_end_of_this_text():
    assert sanitize(f"title{ESC}]0;never terminated") == f"title{REPLACEMENT}"
    assert sanitize(f"next{ESC}[") == f"next{REPLACEMENT}"
    assert sanitize(f"lone{ESC}") == f"lone{REPLACEMENT}"


# --- S5, S6 ------------------------------------------------------------------------


def test_s5_carriage_return_cannot_overwrite_visible_text():
    assert sanitize("rm -rf /\rsafe command") == "rm -rf /\nsafe command"
    assert sanitize("line\r\nnext") == "line\nnext"


def test_s5_backspace_form_feed_and_other_c0_are_removed():
    assert sanitize("approve\x08\x08\x08\x08\x08\x08\x08reject") == "approvereject"
    assert sanitize("a\x0cb\x0bc\x00d\x07e\x7ff") == "abcdef"
    assert sanitize("keep\ttabs\nand newlines") == "keep\ttabs\nand newlines"


@pytest.mark.parametrize(
    "char", ["\u202e", "\u202d", "\u2066", "\u2069", "\u200b", "\u200d", "\u200f", "\u061c", "\ufeff", "\u2028"]
)
def test_s6_bidi_and_zero_width_characters_are_shown_as_code_points(char):
    assert sanitize(f"ok{char}exe") == f"ok<U+{ord(char):04X}>exe"


def test_s6_ordinary_unicode_is_untouched():
    text = "Grüße, 世界, emoji 🎉, Ωmega"
    assert sanitize(text) == text


def test_s6_lone_surrogates_are_shown_escaped():
    assert sanitize("x\ud800y") == "x\\ud800y"
    sanitize("x\udfffy").encode("utf-8")  # encodable: no UnicodeEncodeError downstream


def test_one_line_folds_newlines_for_table_cells():
    assert one_line(f"multi\nline\r{ESC}[2J\ttext") == f"multi line {REPLACEMENT} text"


# --- S7 ----------------------------------------------------------------------------


def test_s7_ten_megabytes_return_quickly_with_the_truncation_note():
    text = "x" * 10_485_760
    started = time.perf_counter()
    shown = sanitize(text)
    elapsed = time.perf_counter() - started
    assert shown == "x" * MAX_DISPLAY_CHARS + "… (truncated, 10,485,760 characters)"
    assert elapsed < 2.0  # no hang: the cut happens before any pattern runs (bench/rows_reliability.py)


@pytest.mark.parametrize("unit", [f"{ESC}]", f"{ESC}[", "\u202e", "\x9b"])
def test_s7_ten_megabytes_of_escape_starts_do_not_hang(unit):
    started = time.perf_counter()
    shown = sanitize(unit * (10_485_760 // len(unit)))
    assert time.perf_counter() - started < 2.0
    assert ESC not in shown and "\u202e" not in shown
    assert shown.endswith("characters)")


def test_s7_a_100_kb_single_line_is_capped():
    shown = sanitize("y" * 100_000)
    assert len(shown) < MAX_DISPLAY_CHARS + 50
    assert shown.endswith("(truncated, 100,000 characters)")


# --- property: nothing dangerous survives, whatever the input ----------------------

DANGEROUS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
SPECIAL = [
    ESC,
    "[",
    "]",
    "P",
    "X",
    "^",
    "_",
    "\\",
    "\x07",
    "\x9b",
    "\x9c",
    "\x9d",
    "\x90",
    "\r",
    "\x08",
    "\x00",
    "\x7f",
    "\u202e",
    "\u200b",
    "\ud800",
    ";",
    "2",
    "J",
    "\n",
    "\t",
]
hostile_text = st.text(alphabet=st.one_of(st.sampled_from(SPECIAL), st.characters(exclude_categories=())), max_size=300)


@settings(max_examples=400, deadline=None)
@given(text=hostile_text, limit=st.sampled_from([0, 5, 80, MAX_DISPLAY_CHARS]))
def test_s1_property_no_escape_control_or_invisible_character_survives(text, limit):
    shown = sanitize(text, limit)
    assert DANGEROUS.search(shown) is None, repr(shown)
    shown.encode("utf-8")  # no lone surrogate left


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.sampled_from("\n\t"), max_size=300)
)
def test_s1_property_benign_text_is_unchanged(text):
    assert sanitize(text) == text


# --- S8: hostile ids ----------------------------------------------------------------

HOSTILE_IDS = [
    "../../etc",
    "/etc/passwd",
    "a\x00b",
    "",
    ".",
    "..",
    ".hidden",
    "ok\u202eexe",
    "UPPER",
    "a/b",
    "x" * 65,
    "-lead",
]


@pytest.mark.parametrize("value", HOSTILE_IDS)
def test_s8_hostile_worker_ids_are_refused_with_the_rule(ws, value):
    with pytest.raises(InvalidId) as failure:
        ws.final_output("t1", value)
    shown = value.encode("unicode_escape").decode("ascii")
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    assert (
        str(failure.value)
        == f"invalid worker id '{shown}': use a-z, 0-9, '.', '_', '-' (max 64, starting with a letter or digit)"
    )
    assert "\x00" not in str(failure.value) and "\u202e" not in str(failure.value)


@pytest.mark.parametrize("value", ["../../etc", "/etc/passwd", "", "..", "a\x00b", "ok\u202eexe"])
def test_s8_every_path_builder_checks_its_ids(ws, value):
    for build in (
        lambda: ws.task_dir(value),
        lambda: ws.team_dir(value),
        lambda: ws.inbox("alpha", value),
        lambda: ws.final_output(value, "w1"),
    ):
        with pytest.raises(InvalidId, match=r"^invalid (task id|team name|member name|worker id) '"):
            build()


def test_s8_valid_ids_pass():
    assert check_id("w1.retry_2-b") == "w1.retry_2-b"
    assert check_member("Team-Lead") == "Team-Lead"
    with pytest.raises(InvalidId, match="use A-Z, a-z, 0-9"):
        check_member("../lead")
    with pytest.raises(InvalidId, match="invalid id '42'"):
        check_id(42)


S8_NOTHING_OPENED = textwrap.dedent(
    """
    import sys
    from teamdeck.store.workspace import Workspace
    from teamdeck.store.paths import InvalidId
    ws = Workspace.at(sys.argv[1])
    "warm up".encode("unicode_escape")  # the codec's own import is not what we look for
    opened = []
    sys.addaudithook(lambda event, args: opened.append((event, str(args[0]))) if event in ("open", "os.listdir", "os.scandir") else None)
    for value in ["../../etc", "/etc/passwd", "a\\x00b", "", ".", "..", ".hidden", "ok\\u202eexe"]:
        try:
            ws.final_output("t1", value)
        except InvalidId:
            pass
    print(repr(opened))
    """
)


def test_s8_nothing_is_opened_for_a_hostile_id(ws):
    proc = subprocess.run(
        [sys.executable, "-c", S8_NOTHING_OPENED, str(ws.root)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# --- S9: symlinks out ---------------------------------------------------------------


def _agents(ws):
    agents = ws.agents_dir("t1")
    agents.mkdir(parents=True)
    return agents


def test_s9_agent_dir_symlinked_outside_the_workspace_is_refused(ws, tmp_path):
    outside = tmp_path / "outside"
    (outside / "artifacts").mkdir(parents=True)
    (outside / "artifacts" / "final.json").write_text('{"status": "completed", "summary": "secret"}')
    os.symlink(os.path.relpath(outside, _agents(ws)), ws.agents_dir("t1") / "evil")
    with pytest.raises(InvalidFile) as failure:
        ws.final_output("t1", "evil")
    assert str(failure.value) == "tasks/t1/agents/evil: resolves outside the workspace; ignored"


def test_s9_the_catalogues_relative_link_into_another_part_of_the_workspace_is_refused(ws):
    target = ws.root / "tasks" / "outside"
    (target / "artifacts").mkdir(parents=True)
    os.symlink("../../outside", _agents(ws) / "evil")  # lands on tasks/outside: inside the root
    with pytest.raises(InvalidFile) as failure:
        ws.final_output("t1", "evil")
    assert str(failure.value) == "tasks/t1/agents/evil: resolves outside tasks/t1/agents/evil; ignored"


def test_s9_symlinked_artifacts_or_final_json_are_refused_too(ws, tmp_path):
    agents = _agents(ws)
    (agents / "w2" / "artifacts").mkdir(parents=True)
    (agents / "w1").mkdir()
    os.symlink("../w2/artifacts", agents / "w1" / "artifacts")
    with pytest.raises(
        InvalidFile, match=r"^tasks/t1/agents/w1/artifacts: resolves outside tasks/t1/agents/w1; ignored$"
    ):
        ws.final_output("t1", "w1")
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    os.symlink(secret, agents / "w2" / "artifacts" / "final.json")
    with pytest.raises(
        InvalidFile, match=r"^tasks/t1/agents/w2/artifacts/final.json: resolves outside the workspace; ignored$"
    ):
        ws.final_output("t1", "w2")


def test_s9_a_plain_agent_directory_is_fine(ws):
    (_agents(ws) / "w1" / "artifacts").mkdir(parents=True)
    assert ws.final_output("t1", "w1") == ws.root / "tasks" / "t1" / "agents" / "w1" / "artifacts" / "final.json"
    assert ws.final_output("t1", "w9").name == "final.json"  # not there yet: still a safe path
