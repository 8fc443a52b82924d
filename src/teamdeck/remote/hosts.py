"""The hosts a person watches, from ``--host NAME=ssh://[user@]box[:port]/path/to/ws``,
``-w DIR`` (a workspace on this machine) or the hosts file (``~/.config/teamdeck/hosts.yaml``,
or the file ``$TEAMDECK_HOSTS`` names). What a host holds and how each field is checked:
model/hosts.py."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pydantic import ValidationError

from teamdeck.errors import Refused
from teamdeck.model.hosts import Host
from teamdeck.store.hosts_file import load_hosts_file
from teamdeck.store.loaders import model_problem

__all__ = ["Host", "hosts_file_path", "load_hosts_file", "local_host", "parse_host_option"]

HOSTS_ENV = "TEAMDECK_HOSTS"
"""Names the hosts file instead of the default one."""
DEFAULT_HOSTS = Path("~/.config/teamdeck/hosts.yaml")


def parse_host_option(text: str) -> Host:
    """``NAME=ssh://[user@]box[:port]/path/to/ws`` as a host.

    Raises:
        Refused: not that shape, or a part that fails its check (named).
    """
    name, sep, url = text.partition("=")
    if not sep:
        raise Refused(f"--host {text[:80]!r}: expected NAME=ssh://[user@]box[:port]/path/to/workspace")
    parts = urlsplit(url)
    if parts.scheme != "ssh" or not parts.netloc or parts.query or parts.fragment:
        raise Refused(f"--host {name}: {url[:80]!r} is not ssh://[user@]box[:port]/path/to/workspace")
    try:
        return Host(name=name, ssh=unquote(parts.netloc), workspace=unquote(parts.path) or "/")
    except ValidationError as err:
        raise Refused(f"--host {name}: {model_problem(err)}") from None


def local_host(path: Path, *, taken: set[str]) -> Host:
    """A workspace on this machine (``-w DIR``), named after its directory (``claude``
    for ``~/.claude``), with a number when that name is taken."""
    base = re.sub(r"[^A-Za-z0-9._-]", "-", path.name.lstrip(".")) or "local"
    name, number = base[:60], 2
    while name in taken:
        name, number = f"{base[:60]}-{number}", number + 1
    return Host(name=name, workspace=str(path))


def hosts_file_path() -> Path:
    """The hosts file: ``$TEAMDECK_HOSTS``, else ``~/.config/teamdeck/hosts.yaml``."""
    named = os.environ.get(HOSTS_ENV)
    return Path(named).expanduser() if named else DEFAULT_HOSTS.expanduser()
