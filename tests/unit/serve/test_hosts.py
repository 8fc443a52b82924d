"""Hosts from ``--host`` and the hosts file: every field checked before anything runs,
and the ssh command a fixed shape (options, ``--``, the destination, the fixed remote
command), so nothing from configuration becomes an option or shell text."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamdeck.errors import InvalidFile, Refused
from teamdeck.model.hosts import Host
from teamdeck.remote.hosts import load_hosts_file, local_host, parse_host_option


def test_an_ssh_url_names_the_box_the_user_the_port_and_the_workspace() -> None:
    host = parse_host_option("b=ssh://dev@box-2.lan:2222/home/dev/ws")
    assert (host.name, host.ssh, host.workspace) == ("b", "dev@box-2.lan:2222", "/home/dev/ws")
    assert host.ssh_argv()[-6:] == ["-l", "dev", "--", "box-2.lan", "teamdeck", "serve", "--stdio"][-6:]
    argv = host.ssh_argv()
    assert argv[0] == "ssh" and "BatchMode=yes" in argv
    assert argv[argv.index("-p") + 1] == "2222"
    assert argv[argv.index("--") :] == ["--", "box-2.lan", "teamdeck", "serve", "--stdio"]


def test_an_ipv6_box_and_a_workspace_path_with_spaces() -> None:
    host = parse_host_option("v6=ssh://[::1]:22/srv/agent%20ws")
    assert host.workspace == "/srv/agent ws"  # travels in the hello, never on a command line
    assert host.ssh_argv()[-4:] == ["::1", "teamdeck", "serve", "--stdio"]


@pytest.mark.parametrize(
    "option",
    [
        "b=ssh://-oProxyCommand=touch%20x/ws",  # an option posing as a box
        "b=ssh://box;reboot/ws",
        "b=ssh://us er@box/ws",
        "b=ssh://box:99999999/ws",
        "b=http://box/ws",
        "b=ssh://box/ws?x=1",
        "b ssh://box/ws",
        "b/../x=ssh://box/ws",
        "b=ssh://box/ws%0Aevil",
    ],
)
def test_b24_a_hostile_or_malformed_host_is_refused_naming_it(option: str) -> None:
    with pytest.raises(Refused) as refused:
        parse_host_option(option)
    assert "--host" in str(refused.value)


def test_the_hosts_file_holds_every_field(tmp_path: Path) -> None:
    listed = tmp_path / "hosts.yaml"
    listed.write_text(
        "hosts:\n"
        "  - name: box2\n"
        "    ssh: dev@box2:2222\n"
        "    workspace: /home/dev/.claude\n"
        "    teamdeck: /opt/teamdeck/.venv/bin/teamdeck\n"
        "    ssh_options: [StrictHostKeyChecking=no, ServerAliveInterval=1]\n"
        "    read_only: true\n"
    )
    (host,) = load_hosts_file(listed)
    assert host.read_only and host.teamdeck == "/opt/teamdeck/.venv/bin/teamdeck"
    argv = host.ssh_argv()
    assert argv[argv.index("--") + 2] == "/opt/teamdeck/.venv/bin/teamdeck"
    assert "StrictHostKeyChecking=no" in argv and argv.index("StrictHostKeyChecking=no") < argv.index("--")
    assert load_hosts_file(tmp_path / "none.yaml") == ()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("hosts:\n  - name: [b\n", "line "),
        ("hosts:\n  - name: b\n    workspace: /ws\n    shell: bash\n", "hosts.0.shell"),
        (
            "hosts:\n  - name: b\n    ssh: box\n    workspace: /ws\n    teamdeck: teamdeck; rm -rf ~\n",
            "hosts.0.teamdeck",
        ),
        ("hosts:\n  - name: b\n    ssh: box\n    workspace: relative\n", "hosts.0.workspace"),
        ('hosts:\n  - name: b\n    ssh: box\n    workspace: /ws\n    teamdeck: "teamdeck\\n"\n', "hosts.0.teamdeck"),
        (
            'hosts:\n  - name: b\n    workspace: /ws\n    ssh_options: ["Port=22\\nProxyCommand x"]\n',
            "hosts.0.ssh_options.0",
        ),
        ("hosts:\n  - {name: b, workspace: /a}\n  - {name: b, workspace: /b}\n", "hosts"),
    ],
    ids=[
        "broken-yaml",
        "unknown-field",
        "shell-in-command",
        "relative-workspace",
        "newline-ending-command",
        "newline-in-option",
        "name-twice",
    ],
)
def test_b24_a_broken_hosts_file_is_one_line_naming_file_and_place(tmp_path: Path, text: str, where: str) -> None:
    listed = tmp_path / "hosts.yaml"
    listed.write_text(text)
    with pytest.raises(InvalidFile) as broken:
        load_hosts_file(listed)
    assert broken.value.path == listed and where in str(broken.value)
    assert "\n" not in str(broken.value)


def test_local_workspaces_are_named_after_their_directory() -> None:
    first = local_host(Path("/home/dev/.claude"), taken=set())
    second = local_host(Path("/srv/claude"), taken={first.name})
    assert (first.name, second.name) == ("claude", "claude-2")
    assert isinstance(first, Host) and first.ssh is None
