"""The web page's filters over untrusted text (S22): whatever an agent wrote, it is text
on the page: no tag, attribute or entity of its own survives, escapes and controls are
gone and bidi characters are shown, as in the terminal; and a host's odd fields draw an
empty cell, never an error (B29)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from teamdeck.web.render import href, parts, render

OUR_SPAN = re.compile(r'<span class="part(?: part-[a-z]+)?">|</span>')
HOSTILE = st.text(alphabet=st.sampled_from(list("<>\"'&=/ ;:abcjvs()\x1b\x07\u202e\u200b\n\r\t]")), max_size=80)


@given(
    text=HOSTILE,
    form=st.sampled_from(["line", "block"]),
    style=st.sampled_from(["", "bold", "<b>", 'x" onmouseover="y']),
)
def test_s22_a_part_s_text_is_never_markup(text: str, form: str, style: str) -> None:
    html = str(parts([{"text": text, "form": form, "style": style, "limit": 200}]))
    inside = OUR_SPAN.sub("", html)
    assert "<" not in inside and ">" not in inside and '"' not in inside
    assert "\x1b" not in inside and "\u202e" not in inside


@given(text=HOSTILE)
def test_s22_a_message_body_in_a_region_is_text_with_its_lines(text: str) -> None:
    inbox = {
        "ok": True,
        "data": {"messages": [{"from": text, "kind": text, "text": text, "summary": text, "read": False}]},
    }
    html = render("regions/inbox.html", inbox=inbox, host="h", team="t", member="m", csrf="", read_only=False)
    body = re.search(r'<p class="text">(.*?)</p>', html, re.S)
    assert body is not None and "<" not in body.group(1) and "\x1b" not in html


@given(value=st.text(max_size=40))
def test_s22_a_link_s_parameters_are_quoted_and_its_path_is_ours(value: str) -> None:
    link = href("/member", host=value, team="javascript:alert(1)", member=value)
    assert link.startswith("/member?") and " " not in link and "<" not in link and "javascript:" not in link


def test_b29_a_host_s_odd_fields_draw_empty_cells_not_an_error() -> None:
    """A decision and a member as a misbehaving host may send them: lists, numbers,
    nothing where text is due."""
    queue = [
        {
            "host": "h",
            "live": True,
            "writable": True,
            "waited": "?",
            "gate": {"title": ["x"], "label": 3, "key": None},
            "answers": [("approve", {"label": None})],
        }
    ]
    html = render("regions/queue.html", queue=queue, csrf="", read_only=False)
    assert "Decisions waiting" in html and "[&#39;x&#39;]" in html  # shown as text, escaped
    teams = [
        {
            "host": "h",
            "live": False,
            "team": {"name": {"a": 1}},
            "members": [{"name": None, "run": 5, "unreadCount": 0}],
        }
    ]
    assert "0 unread" in render("regions/roster.html", teams=teams, csrf="", read_only=False)
    assert "No longer waiting" in render("regions/decision.html", decision=None, host="h", key="k")
