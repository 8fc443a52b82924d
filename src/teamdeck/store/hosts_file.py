"""Reading the hosts file (model/hosts.py), defensively as every YAML file teamdeck
reads: size-capped, no anchors, aliases or tags, one :class:`InvalidFile` naming the
file, the place and the problem."""

from __future__ import annotations

from pathlib import Path

from teamdeck.errors import InvalidFile
from teamdeck.model.hosts import Host, HostsFile
from teamdeck.store.loaders import read_capped, validate_raw
from teamdeck.store.yaml_text import parse_yaml


def load_hosts_file(path: Path) -> tuple[Host, ...]:
    """The hosts ``path`` lists (none when it does not exist).

    Raises:
        InvalidFile: too big, not YAML, an entry that fails its check, or a name used twice.
    """
    try:
        raw = read_capped(path)
    except FileNotFoundError:
        return ()
    listed: HostsFile = validate_raw(HostsFile, parse_yaml(raw, path) or {}, path)
    names = [host.name for host in listed.hosts]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise InvalidFile(path, "hosts", f"host name used twice: {', '.join(twice)}")
    return listed.hosts
