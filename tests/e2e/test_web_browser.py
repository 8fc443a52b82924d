"""``teamdeck web`` in a real headless Chromium (Debian's, driven by Playwright): the
queue on the demo workspace, an answer from the page written to disk with its note and
its person, a decision written on disk showing up without a reload, a message landing
in an inbox, hostile agent text shown as text, and the phone layout.

Screenshots: every test that takes them writes into ``$TEAMDECK_SCREENSHOTS`` when it
is set (docs/web/ holds the committed ones: ``TEAMDECK_SCREENSHOTS=docs/web pytest
tests/e2e/test_web_browser.py -k screenshots``), else into the test's tmp directory.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.decision_world import ask_permission
from support.sshd import start_hosts
from support.web import chromium, web_server

from teamdeck.clock import iso
from teamdeck.model.run import RunRecord
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.store.runs import write_run
from teamdeck.store.workspace import Workspace

pytestmark = [pytest.mark.slow, pytest.mark.browser]

GATE = "task:checkout-api:g-api-dev-1"
RUN_ID = "r-01m8cg0000000000000000abcd"
LIVE_S = 1.0
"""A change on disk is on the page within a second."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as opened:
        yield opened


def open_page(browser: Any, url: str, size: tuple[int, int] = (1280, 800)) -> Any:
    """A fresh context (no cookie yet) on ``url``, its dialogs recorded (none may open)."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(url)
    page.wait_for_selector("#live-status[data-state=live]")
    return page


def queue_keys(page: Any) -> list[str]:
    return page.eval_on_selector_all("[data-live=queue] .decision", "rows => rows.map(row => row.dataset.key)")


def events_of(root: Path, task: str = "checkout-api") -> list[dict[str, Any]]:
    lines = (root / "tasks" / task / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def shots_dir(tmp_path: Path) -> Path:
    named = os.environ.get("TEAMDECK_SCREENSHOTS")
    where = Path(named) if named else tmp_path
    where.mkdir(parents=True, exist_ok=True)
    return where


def test_the_queue_renders_on_the_demo_workspace_oldest_first_with_the_registry_s_answers(
    demo: Path, tmp_path: Path, browser: Any, run_cli: Any
) -> None:
    listed = run_cli(demo, "decisions", "list", "--json").json["decisions"]
    with web_server(demo, tmp_path) as server:
        page = open_page(browser, server.url)
        assert page.url == server.base + "/"  # the token left the address once exchanged
        assert queue_keys(page) == [decision["key"] for decision in listed]
        labels = page.eval_on_selector_all(
            "[data-live=queue] .decision",
            "rows => rows.map(row => [...row.querySelectorAll('.answers .button')].map(b => b.textContent))",
        )
        assert labels == [[d["answers"]["approve"]["label"], d["answers"]["reject"]["label"]] for d in listed]
        assert "4 waiting · 3 teams · 15 members" in page.inner_text("[data-live=hosts]")
        assert "zhangfei-dev" in page.inner_text("[data-live=roster]")


def test_approving_a_gate_from_the_page_writes_gate_approved_with_the_note_and_the_page_updates(
    demo: Path, tmp_path: Path, browser: Any
) -> None:
    with web_server(demo, tmp_path) as server:
        page = open_page(browser, server.url)
        page.click(f"[data-key='{GATE}'] .answers .button:not(.danger)")
        assert "Approve" in page.inner_text(".question")  # the confirm step: the registry's question
        page.fill("#note", "guest checkout: yes, from my phone")
        page.click("form.confirm button[type=submit]")
        page.wait_for_selector(".flash-done")
        assert "approved" in page.inner_text(".flash-done")
        approved = [event for event in events_of(demo) if event["type"] == "gate.approved"]
        assert len(approved) == 1 and approved[0]["actor"] == "human:web:tester"
        assert approved[0]["payload"]["note"] == "guest checkout: yes, from my phone"
        notes = (demo / "tasks" / "checkout-api" / "shared" / "human-notes.md").read_text()
        assert "guest checkout: yes, from my phone" in notes
        page.locator(f"[data-key='{GATE}']").wait_for(state="detached", timeout=5000)


def test_a_decision_appearing_on_disk_appears_on_the_page_within_a_second_without_a_reload(
    demo: Path, tmp_path: Path, browser: Any
) -> None:
    with web_server(demo, tmp_path) as server:
        page = open_page(browser, server.url)
        page.evaluate("window.notReloaded = true")
        before = len(queue_keys(page))
        started = time.monotonic()
        ask_permission(Workspace.at(demo, actor="human:tester"), "quant", "zhangfei-dev", "perm-web-1")
        page.locator("[data-live=queue] .decision").nth(before).wait_for(timeout=LIVE_S * 1000)
        took = time.monotonic() - started
        assert took < LIVE_S and page.evaluate("window.notReloaded") is True
        assert "permit" in page.inner_text("[data-live=queue]")


def test_without_javascript_the_page_reads_and_its_forms_answer(demo: Path, tmp_path: Path, browser: Any) -> None:
    with web_server(demo, tmp_path) as server:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(server.url)
        assert page.inner_text("#live-status") == "reload to update" and len(queue_keys(page)) == 4
        page.click(f"[data-key='{GATE}'] .answers .button.danger")
        page.fill("#note", "not without a product decision")
        page.click("form.confirm button[type=submit]")
        assert "rejected" in page.inner_text(".flash-done") and GATE not in queue_keys(page)
        assert [event["type"] for event in events_of(demo)].count("gate.rejected") == 1


def test_messaging_a_member_from_the_page_lands_in_its_inbox(demo: Path, tmp_path: Path, browser: Any) -> None:
    with web_server(demo, tmp_path) as server:
        page = open_page(browser, server.url)
        page.click("a.member-link:has-text('zhangfei-dev')")
        page.wait_for_selector("[data-live=inbox] h2")
        page.fill("#message-summary", "from the web")
        page.fill("#message-text", "Please rerun the backtest with 2025 data.")
        page.click("form[action='/message'] button")
        page.wait_for_selector(".flash-done")
        inbox = json.loads((demo / "teams" / "quant" / "inboxes" / "zhangfei-dev.json").read_text())
        assert (
            inbox[-1]["text"] == "Please rerun the backtest with 2025 data." and inbox[-1]["summary"] == "from the web"
        )
        page.locator("[data-live=inbox]", has_text="rerun the backtest").wait_for(timeout=5000)


def test_one_page_over_a_workspace_here_and_a_host_over_ssh_answers_where_the_decision_lives(
    demo: Path, tmp_path: Path, browser: Any
) -> None:
    """A real sshd on 127.0.0.1 serves the second host: both queues are one, and the
    answer to the remote decision is written on that host only."""
    remote = start_hosts(tmp_path / "hosts", demo, "far")["far"]
    try:
        hosts_file = tmp_path / "hosts.yaml"
        hosts_file.write_text(f"hosts:\n  - name: near\n    workspace: {demo}\n{remote.hosts_yaml()}")
        with web_server(None, tmp_path, hosts_file=hosts_file) as server:
            page = open_page(browser, server.url)
            assert page.locator("[data-live=queue] .decision").count() == 8
            hosts_line = page.inner_text("[data-live=hosts]")
            assert hosts_line.count("4 waiting") == 2 and "near" in hosts_line and "far" in hosts_line
            page.click(f".decision:has(.host:text-is('far'))[data-key='{GATE}'] .answers .button:not(.danger)")
            page.fill("#note", "answered on far")
            page.click("form.confirm button[type=submit]")
            page.wait_for_selector(".flash-done")
            assert "far: " in page.inner_text(".flash-done")
            far = [e for e in events_of(remote.workspace) if e["type"] == "gate.approved"]
            assert len(far) == 1 and far[0]["actor"] == "human:web:tester"
            assert not [e for e in events_of(demo) if e["type"] == "gate.approved"]
            page.locator(".decision:has(.host:text-is('far'))").nth(2).wait_for(timeout=5000)
            assert page.locator(".decision:has(.host:text-is('far'))").count() == 3
    finally:
        remote.kill()


def test_s23_in_the_browser_a_wrong_or_missing_token_is_401_and_shows_no_data(
    demo: Path, tmp_path: Path, browser: Any
) -> None:
    with web_server(demo, tmp_path) as server:
        page = browser.new_context().new_page()
        for address in (server.base + "/", server.base + "/?token=wrong-token-000000000000",
                        server.base + "/member?host=demo&team=quant&member=zhangfei-dev"):  # fmt: skip
            response = page.goto(address)
            assert response.status == 401 and "zhangfei-dev" not in page.content()
            assert "Unauthorized" in page.inner_text("h1")


def test_s23_a_form_on_another_site_cannot_answer_nor_can_a_post_without_the_csrf_token(
    demo: Path, tmp_path: Path, browser: Any
) -> None:
    """A page on another site (localhost, another port) posts an approval to the page the
    person has open: the session cookie is SameSite=Strict, so the browser does not send
    it and the write is refused. A POST from the person's own session without the form's
    CSRF token is refused too."""
    with web_server(demo, tmp_path) as server:
        evil = tmp_path / "evil"
        evil.mkdir()
        (evil / "index.html").write_text(
            f'''<form id="f" method="post" action="{server.base}/answer">
            <input name="host" value="demo"><input name="key" value="{GATE}"><input name="action" value="approve">
            </form><script>document.getElementById("f").submit()</script>'''
        )
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(evil))
        elsewhere = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
        try:
            page = open_page(browser, server.url)  # the person's session is open in this browser
            with page.expect_response(f"{server.base}/answer") as posted:
                page.goto(f"http://localhost:{elsewhere.server_address[1]}/index.html")
            assert posted.value.status == 401
            refused = page.request.post(
                server.base + "/answer", form={"host": "demo", "key": GATE, "action": "approve", "note": ""}
            )
            assert refused.status == 403
            assert not [event for event in events_of(demo) if event["type"] == "gate.approved"]
        finally:
            elsewhere.shutdown()


HOSTILE = (
    "<script>window.pwned = 'script'</script><img src=x onerror=\"window.pwned = 'img'\">"
    "<a href=\"javascript:window.pwned='link'\">click</a> [more](javascript:alert(1)) "
    "\u202eevil\u202c \x1b]52;c;cGF5bG9hZA==\x07 \x1b[2J done"
)


def test_s22_hostile_agent_text_renders_as_text_and_runs_nothing(demo: Path, tmp_path: Path, browser: Any) -> None:
    ws = Workspace.at(demo, actor="human:tester")
    send_message(ws, "quant", "zhangfei-dev", HOSTILE, summary="<b>bold?</b> \u202eRTL")
    ask_permission(ws, "quant", "zhangfei-dev", "perm-hostile", description=HOSTILE)
    with web_server(demo, tmp_path) as server:
        page = open_page(browser, server.url)
        page.goto(f"{server.base}/member?team=quant&member=zhangfei-dev&host=demo")
        page.wait_for_selector("[data-live=inbox] .message")
        page.goto(server.url)
        queue_text = page.inner_text("[data-live=queue]")
        page.goto(f"{server.base}/member?team=quant&member=zhangfei-dev&host=demo")
        page.wait_for_selector("[data-live=inbox] .message")
        inbox_text = page.inner_text("[data-live=inbox]")
        for shown in (queue_text, inbox_text):
            assert "<script>" in shown or "<img" in shown  # the markup is on the page as text
        assert "<script>window.pwned" in inbox_text and "<U+202E>evil" in inbox_text
        assert "\x1b" not in inbox_text and "<b>bold?</b>" in inbox_text
        assert page.evaluate("window.pwned") is None and page.dialogs == []
        assert page.eval_on_selector_all("main script, main img, main [onerror]", "found => found.length") == 0
        hrefs = page.eval_on_selector_all("a", "links => links.map(link => link.getAttribute('href'))")
        assert all(href.startswith("/") for href in hrefs), hrefs


def test_screenshots_at_1280_and_390_and_the_phone_never_scrolls_sideways(
    demo: Path, tmp_path: Path, browser: Any
) -> None:
    where = shots_dir(tmp_path)
    ws = Workspace.at(demo, actor="human:tester")
    record = RunRecord(
        id=RUN_ID, team="checkout-revamp", member="ui-dev", runtime="command", trigger="message",
        argv=["make", "cart-ui"], state="ended", outcome="succeeded", createdAt=iso(ws.clock()), costUsd=0.42,
    )  # fmt: skip
    run_dir = write_run(ws, record)
    (run_dir / "output.log").write_text("wired the cart page to GET /cart/v2\n" + "a long line of output " * 30 + "\n")
    pages = {
        "queue": "/",
        "confirm": f"/answer?host=demo&key={GATE.replace(':', '%3A')}&word=reject",
        "member": "/member?host=demo&team=checkout-revamp&member=ui-dev",
        "run": f"/run?host=demo&run={RUN_ID}",
    }
    with web_server(demo, tmp_path) as server:
        for size in ((1280, 800), (390, 844)):
            page = open_page(browser, server.url, size)
            targets: list[float] = []
            for name, path in pages.items():
                page.goto(server.base + path)
                page.wait_for_selector("#live-status[data-state=live]")
                page.screenshot(path=str(where / f"{name}-{size[0]}x{size[1]}.png"))
                assert name != "run" or "wired the cart page" in page.inner_text("[data-live=run]")
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= size[0], f"{name} at {size[0]} px is {wide} px wide"
                targets += page.eval_on_selector_all(
                    ".button", "buttons => buttons.map(b => b.getBoundingClientRect().height)"
                )
            assert targets and min(targets) >= 44  # a thumb's target on the phone, as on the desk
