"""`teamdeck run` takes a changed ``.teamdeck.yaml`` without a restart, and says so:
the settings it keeps when the file cannot be read, and that the fixed file is taken."""

from __future__ import annotations

from support.runner_world import wait_for


def test_a_broken_settings_file_is_said_and_once_fixed_is_said_to_be_taken(world) -> None:
    w = world(["dev"])
    w.start()
    good = (w.root / ".teamdeck.yaml").read_text()
    (w.root / ".teamdeck.yaml").write_text("agents:\n  defaults: {retries: 0\n  crew/*:\n    runtime: command\n")
    wait_for(lambda: "not reloaded" in w.output(), 20)
    assert ".teamdeck.yaml line 3 column 9: invalid YAML" in w.output()
    (w.root / ".teamdeck.yaml").write_text(good)  # fixed
    wait_for(lambda: w.output().rstrip().endswith("agents: reloaded from .teamdeck.yaml"), 20)
    w.send("dev", "hello")  # the fixed settings run the member
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 20)[0]
    assert run.outcome == "succeeded"
