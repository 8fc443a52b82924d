"""``teamdeck run`` catches up with Gitea (it is the process that runs the whole loop): with ``$TEAMDECK_FORGE_URL``/``$TEAMDECK_FORGE_TOKEN`` set it runs
``forge serve``'s catch-up loop, so an assignment Gitea made while no webhook server
listened reaches the assignee, whose run starts; the webhook arriving later changes
nothing and wakes nobody (F18). Against the local Gitea API stand-in
(tests/support/gitea_standin.py)."""

from __future__ import annotations

import time

from support.forge_world import TEAM as QUANT
from support.forge_world import delivery, inbox, make_team
from support.gitea_standin import TOKEN, GiteaState, gitea_standin
from support.runner_world import World, wait_for

from teamdeck.protocol.forge.deliveries import receive

ASSIGNED = "work on acme/quant#101: [quant][sub][parent #100] 策略编码"


def _woken_by_the_assignment(world: World) -> list[dict]:
    return [
        entry
        for entry in world.agent_log()
        if entry["member"] == "zhangfei-dev" and any("acme/quant#101" in text for text in entry["woken_for"])
    ]


def test_teamdeck_run_applies_what_the_webhooks_missed_and_the_assignee_runs_once(tmp_path, monkeypatch) -> None:
    world = World(tmp_path / "ws", [], team=QUANT, make_team=make_team)
    assert receive(world.ws, *delivery("issues-opened-parent-100")).outcome == "applied"  # watched from here
    for member in ("zhangfei-dev", "guanyu-risk", "simayi-review"):  # the discussion prompt, read meanwhile
        assert world.cli("inbox", QUANT, member, "--inject").returncode == 0
    state = GiteaState()
    state.happen("issues-opened-parent-100", "issues-opened-sub-101")  # #101 assigned while nothing listened

    with gitea_standin(state) as url:
        monkeypatch.setenv("TEAMDECK_FORGE_URL", url)
        monkeypatch.setenv("TEAMDECK_FORGE_TOKEN", TOKEN)
        world.start()
        try:
            wait_for(lambda: _woken_by_the_assignment(world), 60)
            assert "forge: caught up: " in world.output()
            runs = len(world.runs("zhangfei-dev"))
            late = receive(world.ws, *delivery("issues-opened-sub-101"))  # the webhook, delivered at last
            assert late.outcome == "applied"
            time.sleep(2)  # a message would wake the member within the runner's next look
            assert len(world.runs("zhangfei-dev")) == runs
            assert [entry["summary"] for entry in inbox(world.ws, "zhangfei-dev")].count(ASSIGNED) == 1
        finally:
            assert world.stop() == 0  # the catch-up loop ends with the runner
    assert len(_woken_by_the_assignment(world)) == 1
    assert any(request.startswith("/api/v1/repos/acme/quant/issues") for request in state.requests)


def test_teamdeck_run_without_gitea_settings_does_not_catch_up(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("TEAMDECK_FORGE_URL", raising=False)
    monkeypatch.delenv("TEAMDECK_FORGE_TOKEN", raising=False)
    world = World(tmp_path / "ws", [], team=QUANT, make_team=make_team)
    world.start()
    try:
        wait_for(lambda: "runner of " in world.output(), 30)
    finally:
        assert world.stop() == 0
    assert "forge:" not in world.output()
