"""`agents:` in .teamdeck.yaml (docs/protocol.md, "Running the agents"): merged per member, schema-checked with
one message per mistake naming the file and the place (B4: no coercion of types)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from teamdeck.runtime.config import AgentsConfigError, check_agents, load_agents

ISSUE_EXAMPLE = """
agents:
  defaults: {runtime: command, command: [run-it], max_concurrent: 4, timeout_s: 1800, retries: 3}
  quant/*:            {cwd: ~/src/quant, permission_mode: acceptEdits}
  quant/zhangfei-dev: {model: sonnet, budget_usd: 5}
  perf-audit/*:       {runtime: command, command: [python3, agents/worker.py, "{team}", "{member}"]}
"""


def _agents(text: str):
    return check_agents(yaml.safe_load(text)["agents"])


def test_a_member_gets_defaults_then_its_wildcards_then_its_own_entry() -> None:
    config = _agents(ISSUE_EXAMPLE)
    zhangfei = config.resolve("quant", "zhangfei-dev", lead="team-lead")
    assert zhangfei is not None
    assert (zhangfei.runtime, zhangfei.options["cwd"], zhangfei.options["model"], zhangfei.budget_usd) == (
        "command",
        "~/src/quant",
        "sonnet",
        5,
    )
    assert (zhangfei.timeout_s, zhangfei.retries) == (1800, 3)
    assert zhangfei.sources == ("defaults", "quant/*", "quant/zhangfei-dev")
    worker = config.resolve("perf-audit", "w1")
    assert worker is not None and worker.options["command"] == ["python3", "agents/worker.py", "{team}", "{member}"]
    assert config.max_concurrent == 4 and config.team_limit("quant") is None


def test_nobody_is_run_without_an_entry_and_a_wildcard_never_names_the_lead() -> None:
    config = _agents(ISSUE_EXAMPLE + "  quant/team-lead: {model: opus}\n")
    assert config.resolve("other", "dev") is None  # defaults alone run nobody
    assert config.resolve("perf-audit", "lead", lead="lead") is None
    assert config.resolve("quant", "team-lead", lead="team-lead") is not None  # named exactly


def test_every_mistake_is_reported_once_naming_file_and_place() -> None:
    bad = """
agents:
  defaults: {timeout_s: -1, retries: "3"}
  quant: {}
  quant/x: {max_concurrent: 2, runtime: command, command: [x]}
  quant/y: {colour: red}
  quant/z: {runtime: nope}
  ops/*: {runtime: command}
  web/*: {runtime: command, command: [run, "{teem}"]}
  a/*: 5
"""
    with pytest.raises(AgentsConfigError) as raised:
        _agents(bad)
    lines = str(raised.value).splitlines()
    assert lines[:6] == [
        ".teamdeck.yaml agents.defaults.timeout_s: must be a number greater than 0",
        ".teamdeck.yaml agents.defaults.retries: must be a whole number",  # "3" is a string (B4)
        ".teamdeck.yaml agents.quant: is neither 'defaults' nor a 'team/member' pattern (e.g. quant/*)",
        '.teamdeck.yaml agents."quant/x".max_concurrent: applies to defaults (the workspace) or a team/* entry, '
        "not to one member",
        '.teamdeck.yaml agents."quant/y".colour: unknown setting (known: runtime, command, cwd, env, model, '
        "permission_mode, dangerously_skip_permissions, protocol, base_url, api_key_env, profile, timeout_s, "
        "grace_s, retries, backoff_s, budget_usd, max_concurrent, team_budget_usd)",
        '.teamdeck.yaml agents."a/*": must be a mapping of settings (runtime, command, timeout_s...)',
    ]
    assert lines[6].startswith(".teamdeck.yaml agents.\"quant/z\".runtime: unknown runtime 'nope' (known: ")
    assert "command" in lines[6].split("(known: ")[1]  # every registered runtime is named
    assert lines[7:] == [
        '.teamdeck.yaml agents."ops/*".command: runtime command needs `command: [program, arg...]`',
        '.teamdeck.yaml agents."web/*".command: {teem} is no placeholder (known: {workspace}, {team}, {member}, '
        "{run_id})",
    ]


def test_the_runner_refuses_to_start_on_a_bad_config_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "teams").mkdir()
    (tmp_path / ".teamdeck.yaml").write_text("agents:\n  crew/*: {runtime: command, timeout_s: soon}\n")
    done = subprocess.run(
        [sys.executable, "-m", "teamdeck", "-w", str(tmp_path), "run", "--once"], capture_output=True, text=True
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert '.teamdeck.yaml agents."crew/*".timeout_s: must be a number' in done.stderr


def test_no_file_or_no_section_runs_nobody(tmp_path: Path) -> None:
    assert load_agents(tmp_path).patterns == ()
    (tmp_path / ".teamdeck.yaml").write_text("readOnly: false\n")
    assert load_agents(tmp_path).patterns == ()
