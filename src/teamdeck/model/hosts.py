"""The hosts a person watches (``~/.config/teamdeck/hosts.yaml``, ``--host``): each
one's name, how ssh reaches it and where its workspace is (schemas/hosts.schema.json).

Every field is checked against an allow-list: the remote side is started by a fixed
command (``<teamdeck> serve --stdio``) through the user's own ``ssh``, and the workspace
travels in the stream's hello, so no value from configuration ever becomes an ssh
option or shell text.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
"""A host's name, as the screens show it (``\\Z``, not ``$``, in every pattern here: ``$``
matches before a final newline, and a newline is what the remote shell would read as
the end of a command)."""
SSH_RE = re.compile(
    r"^(?:(?P<user>[A-Za-z0-9_][A-Za-z0-9._-]{0,63})@)?"
    r"(?P<box>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])"
    r"(?::(?P<port>[0-9]{1,5}))?\Z"
)
"""``[user@]box[:port]``: a user, a host name or address (IPv6 in brackets), a port.
Nothing that ssh would read as an option (a leading ``-``) or a shell would read as
syntax."""
COMMAND_RE = re.compile(r"^(?:/[A-Za-z0-9._+-]+)+\Z|^[A-Za-z0-9._+-]+\Z")
"""The remote teamdeck: a bare command name (found on the remote PATH) or an absolute
path, of letters, digits and ``._+-`` only: it is the one word of the remote command
line that comes from configuration, and the remote shell reads it."""
SSH_OPTION_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]{1,63}=[^\x00-\x1f\x7f]{0,1000}\Z")
"""One ``-o`` value for ssh: ``Key=value``, no control characters. ssh gets it as one
argument (no shell between)."""


def _checked(pattern: re.Pattern[str], what: str) -> AfterValidator:
    def check(value: str) -> str:
        if not pattern.match(value):
            raise ValueError(f"{value[:80]!r} is not {what}")
        return value

    return AfterValidator(check)


def _absolute_path(value: str) -> str:
    if not value.startswith("/") or any(ord(char) < 0x20 or ord(char) == 0x7F for char in value):
        raise ValueError(f"{value[:80]!r} is not an absolute path (the workspace's path on that host)")
    return value


class Host(BaseModel):
    """One host's workspace and how to reach it.

    Attributes:
        name: what the screens call it.
        ssh: ``[user@]box[:port]``; ``None`` for a workspace on this machine (``-w``).
        workspace: the workspace's absolute path on that host.
        teamdeck: the remote teamdeck command (default: ``teamdeck`` on the remote PATH).
        ssh_options: ``-o`` values for ssh (``StrictHostKeyChecking=no``, ...).
        read_only: no action is sent to this host.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Annotated[str, _checked(NAME_RE, "a host name (letters, digits, ._- ; at most 64)")]
    ssh: Annotated[str, _checked(SSH_RE, "[user@]box[:port]")] | None = None
    workspace: Annotated[str, AfterValidator(_absolute_path)]
    teamdeck: Annotated[str, _checked(COMMAND_RE, "a command name or an absolute path")] = "teamdeck"
    ssh_options: Annotated[tuple[Annotated[str, _checked(SSH_OPTION_RE, "Key=value")], ...], Field(max_length=32)] = ()
    read_only: bool = False

    @property
    def where(self) -> str:
        """``box:/path`` (or the path alone, here), for headers and messages."""
        return f"{self.ssh}:{self.workspace}" if self.ssh else self.workspace

    def ssh_argv(self) -> list[str]:
        """The ssh command that starts ``teamdeck serve --stdio`` there: options first,
        ``--`` before the destination, the remote command as fixed words.

        ``BatchMode``: no prompt a screen could not answer (keys and agents work);
        ``ServerAlive*``: a host that vanished is noticed within seconds, not at TCP's
        timeout; ``ConnectTimeout``: an unreachable one fails fast."""
        assert self.ssh is not None
        match = SSH_RE.match(self.ssh)
        assert match is not None
        user, box, port = match["user"], match["box"].strip("[]"), match["port"]
        argv = ["ssh", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]
        argv += ["-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3"]
        for option in self.ssh_options:
            argv += ["-o", option]
        if port:
            argv += ["-p", port]
        if user:
            argv += ["-l", user]
        return [*argv, "--", box, self.teamdeck, "serve", "--stdio"]


class HostsFile(BaseModel):
    """The hosts file: ``hosts:``, one entry per host."""

    model_config = ConfigDict(extra="forbid")
    hosts: Annotated[tuple[Host, ...], Field(max_length=64)] = ()
