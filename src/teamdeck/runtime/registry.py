"""Every runtime, by the name ``runtime:`` gives it: the built-ins, listed here (add an
instance to :data:`BUILT_IN_RUNTIMES`; nothing else changes), and any runtime a package
outside teamdeck adds under the ``teamdeck.runtimes`` entry-point group:

```toml
[project.entry-points."teamdeck.runtimes"]
my-cli = "my_package.runtime:MY_CLI"   # an object with name = "my-cli" (teamdeck/runtime/spec.py)
```

Entry points are looked up only for a name that is no built-in (a member's ``runtime:``,
a run recorded by one), never when teamdeck starts: reading them costs every installed
package's metadata.
"""

from __future__ import annotations

from teamdeck.errors import Refused
from teamdeck.runtime.claude.headless import CLAUDE_CODE
from teamdeck.runtime.command import COMMAND
from teamdeck.runtime.ripperdoc.headless import RIPPERDOC
from teamdeck.runtime.spec import Runtime

BUILT_IN_RUNTIMES: dict[str, Runtime] = {runtime.name: runtime for runtime in (COMMAND, CLAUDE_CODE, RIPPERDOC)}
"""The runtimes teamdeck brings."""
ENTRY_POINT_GROUP = "teamdeck.runtimes"
"""Where another package registers a runtime (the entry point's name is the runtime's)."""
FALLBACK = COMMAND
"""Reads the log and the result of a run whose runtime is no longer installed: as plain
text, with the stream-json result line any command may print."""

_plugged: dict[str, Runtime] = {}
"""The entry-point runtimes loaded so far (each is loaded once)."""


def runtime_named(name: str) -> Runtime | None:
    """The runtime ``name`` names, or None when neither teamdeck nor an installed
    package has one by that name.

    Raises:
        Refused: the package's entry point cannot be loaded, or holds no runtime by that name.
    """
    found = BUILT_IN_RUNTIMES.get(name) or _plugged.get(name)
    if found is not None:
        return found
    from importlib.metadata import entry_points  # only for a name no built-in has

    for point in entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            loaded = point.load()
        except Exception as err:  # another package's import: any error is its own
            raise Refused(f"runtime '{name}' ({point.value}) cannot be loaded: {type(err).__name__}: {err}") from err
        if getattr(loaded, "name", None) != name or not callable(getattr(loaded, "launch", None)):
            raise Refused(f"runtime '{name}' ({point.value}) is no runtime named '{name}' (teamdeck/runtime/spec.py)")
        runtime: Runtime = loaded
        _plugged[name] = runtime
        return runtime
    return None


def runtime_of_run(name: str) -> Runtime:
    """The runtime that reads a recorded run's log and result: the one it ran with, else
    :data:`FALLBACK` (its package removed or broken since)."""
    try:
        return runtime_named(name) or FALLBACK
    except Refused:
        return FALLBACK


def runtime_names() -> list[str]:
    """Every runtime's name, the installed packages' included (for a message)."""
    from importlib.metadata import entry_points

    return sorted({*BUILT_IN_RUNTIMES, *(point.name for point in entry_points(group=ENTRY_POINT_GROUP))})
