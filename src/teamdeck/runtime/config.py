"""``agents:`` of ``.teamdeck.yaml`` read, checked and resolved per member (the format is
described in teamdeck/model/agents.py and docs/protocol.md, "Running the agents").

An entry's keys are split: the runner's settings (:class:`AgentEntry`) and the rest, each
checked against the options model of the entry's runtime (its own ``runtime:``, else the
one of ``defaults``), then of the other runtimes (a setting of another runtime is allowed,
and unused); a key no runtime knows is an unknown setting.

Every mistake is reported once, in teamdeck's words, naming the file and the place
(``.teamdeck.yaml agents."quant/*".timeout_s: must be a number greater than 0``); the
whole list is checked before anything runs, so one look fixes them all.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from teamdeck.errors import InvalidFile, NotFound, Refused
from teamdeck.model.agents import (
    DEFAULT_MAX_CONCURRENT,
    DEFAULT_RUNTIME,
    MEMBER_FIELDS,
    SCOPE_FIELDS,
    AgentConfig,
    AgentEntry,
    RunSettings,
)
from teamdeck.protocol.team.teams import read_team
from teamdeck.runtime.registry import BUILT_IN_RUNTIMES, runtime_named, runtime_names
from teamdeck.runtime.spec import Runtime
from teamdeck.store.loaders import read_capped
from teamdeck.store.paths import shown
from teamdeck.store.workspace import SETTINGS_FILE, Workspace
from teamdeck.store.yaml_text import parse_yaml

DEFAULTS = "defaults"
RUN_KEYS = ("runtime", *RunSettings.model_fields)
"""The keys of an entry that are the runner's; the rest are its runtime's options."""
PATTERN_PART = re.compile(r"^[A-Za-z0-9*?\[\]][A-Za-z0-9._*?\[\]!-]{0,63}$")
"""One side of a ``team/member`` key: a name, or a glob (``*``, ``?``, ``[...]``)."""
Validated = TypeVar("Validated", bound=BaseModel)


class AgentsConfigError(InvalidFile):
    """``agents:`` has mistakes: ``problems`` lists each one (the message shows them all,
    one per line)."""

    def __init__(self, problems: list[InvalidFile]) -> None:
        self.problems = problems
        first = problems[0]
        super().__init__(first.path, first.where, first.why)
        self.args = ("\n".join(str(problem) for problem in problems),)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Pattern:
    """One ``team/member`` entry: its key, its two globs and what it sets."""

    key: str
    team: str
    member: str
    entry: AgentEntry

    @property
    def exact(self) -> bool:
        return not any(char in self.key for char in "*?[")

    def matches(self, team: str, member: str) -> bool:
        return fnmatch.fnmatchcase(team, self.team) and fnmatch.fnmatchcase(member, self.member)


@dataclass(frozen=True)
class AgentsConfig:
    """The checked ``agents:`` section (empty when the file or the section is absent:
    nobody is run)."""

    defaults: AgentEntry = field(default_factory=AgentEntry)
    patterns: tuple[Pattern, ...] = ()

    @property
    def max_concurrent(self) -> int:
        """Runs at once in the workspace."""
        return self.defaults.max_concurrent or DEFAULT_MAX_CONCURRENT

    def team_limit(self, team: str) -> int | None:
        """Runs at once in ``team`` (the last ``team/*`` entry that says), or None."""
        return _last(
            pattern.entry.max_concurrent for pattern in self.patterns if fnmatch.fnmatchcase(team, pattern.team)
        )

    def team_budget(self, team: str) -> float | None:
        """The team's total cost allowed, or None (no limit)."""
        return (
            _last(pattern.entry.team_budget_usd for pattern in self.patterns if fnmatch.fnmatchcase(team, pattern.team))
            or self.defaults.team_budget_usd
        )

    def names(self, team: str, member: str, *, lead: str | None = None) -> bool:
        """Whether an entry names ``member`` (it is run), as :meth:`resolve` finds it,
        without merging its settings (the read model asks for every member)."""
        return any(p.matches(team, member) and (p.exact or member != lead) for p in self.patterns)

    def resolve(self, team: str, member: str, *, lead: str | None = None) -> AgentConfig | None:
        """``member``'s merged settings, or None when no entry names it (it is not run).
        A wildcard entry never names the team's ``lead``."""
        naming = self._naming(team, member, lead)
        if not naming:
            return None
        sources = [DEFAULTS] if self.defaults.model_fields_set else []
        sources += [p.key for p in naming]
        return _merged((self.defaults, *(p.entry for p in naming)), tuple(sources))

    def option(self, team: str, member: str, name: str, *, lead: str | None = None) -> Any:
        """The runtime option ``name`` (``model``) of ``member``'s settings as
        :meth:`resolve` merges it, without merging the rest (the read model asks for
        every member); None when it is not set or no entry names the member."""
        naming = self._naming(team, member, lead)
        return (
            _last(entry.options.get(name) for entry in (self.defaults, *(p.entry for p in naming))) if naming else None
        )

    def _naming(self, team: str, member: str, lead: str | None) -> list[Pattern]:
        """The entries naming ``member``, in the order they merge: the wildcard ones (never
        for the ``lead``), then the exact ones."""
        wild = [p for p in self.patterns if not p.exact and p.matches(team, member) and member != lead]
        return wild + [p for p in self.patterns if p.exact and p.matches(team, member)]


def _merged(entries: tuple[AgentEntry, ...], sources: tuple[str, ...] = ()) -> AgentConfig:
    """``entries`` merged in order, setting by setting (a later one wins)."""
    merged: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for entry in entries:
        merged.update({name: getattr(entry, name) for name in MEMBER_FIELDS if getattr(entry, name) is not None})
        options.update(entry.options)
    return AgentConfig.model_validate({**merged, "options": options, "sources": sources})


Setting = TypeVar("Setting")
"""A setting's value: the same type in every entry that gives it."""


def _last(values: Iterable[Setting | None]) -> Setting | None:
    found = None
    for value in values:
        if value is not None:
            found = value
    return found


def load_agents(root: Path) -> AgentsConfig:
    """The ``agents:`` section of ``root``'s ``.teamdeck.yaml``, checked.

    Raises:
        InvalidFile: the file cannot be read as YAML.
        AgentsConfigError: every mistake in ``agents:``, each naming its place.
    """
    try:
        raw = parse_yaml(read_capped(root / SETTINGS_FILE), Path(SETTINGS_FILE))
    except FileNotFoundError:
        return AgentsConfig()
    section = raw.get("agents") if isinstance(raw, dict) else None
    return check_agents(section)


def not_named(team: str, member: str) -> str:
    """Why ``teamdeck run`` never runs ``team/member``, in the words every front uses (the
    CLI's ``run wake``, ``serve``'s wake, the roster's greyed wake key)."""
    return f"no agents: entry in {SETTINGS_FILE} names {shown(team)}/{shown(member)}"


def named_settings(ws: Workspace, team: str, member: str) -> AgentConfig:
    """``team/member``'s settings, refused when no ``agents:`` entry names it: a wake of
    a member the runner does not run would be written and then never acted on.

    Raises:
        Refused: no entry names it (:func:`not_named` says so). NotFound: no such team.
        InvalidFile, AgentsConfigError: ``.teamdeck.yaml`` cannot be read.
    """
    roster = read_team(ws, team)
    if roster.member(member) is None:
        raise NotFound(f"team {shown(team)} has no member '{shown(member)}'")
    config = load_agents(ws.root).resolve(team, member, lead=roster.lead_name)
    if config is None:
        raise Refused(not_named(team, member))
    return config


def check_agents(section: Any) -> AgentsConfig:
    """``section`` (the value of ``agents:``) checked; see :func:`load_agents`."""
    if section is None:
        return AgentsConfig()
    if not isinstance(section, Mapping):
        raise AgentsConfigError([_problem("agents", "must be a mapping of 'defaults' and 'team/member' entries")])
    problems: list[InvalidFile] = []
    defaults = AgentEntry()
    patterns: list[Pattern] = []
    default_runtime = _written_runtime(section.get(DEFAULTS)) or DEFAULT_RUNTIME
    for key, value in section.items():
        place = f"agents.{_quoted(key)}"
        entry = _entry(value, place, problems, _written_runtime(value) or default_runtime)
        if key == DEFAULTS:
            defaults = entry or defaults
            continue
        split = _split_key(key)
        if split is None:
            problems.append(_problem(place, "is neither 'defaults' nor a 'team/member' pattern (e.g. quant/*)"))
            continue
        if entry is None:
            continue
        team, member = split
        for name in SCOPE_FIELDS:
            if getattr(entry, name) is not None and member != "*":
                scope = "defaults (the workspace) or a team/* entry"
                problems.append(_problem(f"{place}.{name}", f"applies to {scope}, not to one member"))
        patterns.append(Pattern(key, team, member, entry))
    config = AgentsConfig(defaults, tuple(patterns))
    problems += _runtime_problems(config)
    if problems:
        raise AgentsConfigError(problems)
    return config


def _runtime_problems(config: AgentsConfig) -> list[InvalidFile]:
    """What each entry's runtime finds wrong with the settings it leads to: checked on
    the entry as merged over ``defaults`` (an exact entry also over its team's ``*``)."""
    problems: list[InvalidFile] = []
    named = config.defaults.runtime
    if named is not None:
        _runtime(named, f"agents.{DEFAULTS}.runtime", problems)
    for pattern in config.patterns:
        merged = (
            config.resolve(pattern.team, pattern.member) if pattern.exact else _merged((config.defaults, pattern.entry))
        )
        if merged is None:
            continue
        place = f"agents.{_quoted(pattern.key)}"
        said = problems if merged.runtime != named else []  # an unknown runtime of defaults is said once, there
        runtime = _runtime(merged.runtime, f"{place}.runtime", said)
        if runtime is not None:
            problems += [_problem(f"{place}.{found.field}", found.why) for found in runtime.check(merged)]
    return problems


def _runtime(name: str, where: str, problems: list[InvalidFile]) -> Runtime | None:
    """The runtime ``name`` names; when there is none, says so in ``problems``."""
    try:
        runtime = runtime_named(name)
    except Refused as err:
        problems.append(_problem(where, str(err)))
        return None
    if runtime is None:
        problems.append(_problem(where, f"unknown runtime '{shown(name)}' (known: {', '.join(runtime_names())})"))
    return runtime


def _written_runtime(value: Any) -> str | None:
    """The ``runtime`` an entry names, when it names one."""
    named = value.get("runtime") if isinstance(value, Mapping) else None
    return named if isinstance(named, str) else None


def _split_key(key: Any) -> tuple[str, str] | None:
    if not isinstance(key, str) or key.count("/") != 1:
        return None
    team, member = key.split("/")
    if not PATTERN_PART.fullmatch(team) or not PATTERN_PART.fullmatch(member):
        return None
    return team, member


def _entry(value: Any, place: str, problems: list[InvalidFile], runtime_name: str) -> AgentEntry | None:
    """The entry ``value`` (its options checked first against ``runtime_name``'s model)."""
    if value is None:
        return AgentEntry()
    if not isinstance(value, Mapping):
        problems.append(_problem(place, "must be a mapping of settings (runtime, command, timeout_s...)"))
        return None
    found = len(problems)
    run_settings = {key: setting for key, setting in value.items() if key in RUN_KEYS}
    written = {key: setting for key, setting in value.items() if key not in RUN_KEYS and setting is not None}
    entry = _validated(AgentEntry, run_settings, place, problems)
    options = _options(written, place, problems, runtime_name)
    if entry is None or len(problems) > found:
        return None
    return entry.model_copy(update={"options": options}) if options else entry  # nothing set: nothing in sources


def _options(written: dict[Any, Any], place: str, problems: list[InvalidFile], runtime_name: str) -> dict[str, Any]:
    """The runtime settings of an entry, each checked by the first runtime whose options
    have it (``runtime_name``'s first, then the built-ins); a key none has is reported,
    unless the entry's runtime is unknown (reported with its ``runtime``)."""
    try:
        own = runtime_named(runtime_name)
    except Refused:
        own = None
    if own is None:
        return dict(written)
    runtimes = dict.fromkeys((own, *BUILT_IN_RUNTIMES.values()))
    left = dict(written)
    for runtime in runtimes:
        mine = {key: left.pop(key) for key in list(left) if key in runtime.options.model_fields}
        if mine:
            _validated(runtime.options, mine, place, problems)
    if left:
        in_order = (*BUILT_IN_RUNTIMES.values(), own)  # as the registry lists them
        options = dict.fromkeys(name for runtime in in_order for name in runtime.options.model_fields)
        known = ", ".join(["runtime", *options, *RunSettings.model_fields])
        problems += [_problem(f"{place}.{_quoted(key)}", f"unknown setting (known: {known})") for key in left]
    return {key: setting for key, setting in written.items() if key not in left}


def _validated(
    model: type[Validated], value: dict[Any, Any], place: str, problems: list[InvalidFile]
) -> Validated | None:
    try:
        return model.model_validate(value)
    except ValidationError as err:
        problems += [_problem(_place(place, error["loc"]), _why(error)) for error in err.errors()]
        return None


def _problem(where: str, why: str) -> InvalidFile:
    return InvalidFile(SETTINGS_FILE, where, why)


def _quoted(key: Any) -> str:
    text = shown(str(key))
    return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else f'"{text}"'


def _place(place: str, loc: tuple[int | str, ...]) -> str:
    return place + "".join(f"[{part}]" if isinstance(part, int) else f".{_quoted(part)}" for part in loc)


_KINDS = {
    "string_type": "must be a string",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
    "bool_type": "must be true or false",
    "list_type": "must be a list",
    "dict_type": "must be a mapping",
    "too_short": "must not be empty",
}


def _why(error: ErrorDetails) -> str:
    """A pydantic error in teamdeck's words (never pydantic's message)."""
    kind = error["type"]
    context = error.get("ctx") or {}
    if kind in ("greater_than", "greater_than_equal"):
        bound = context.get("gt", context.get("ge"))
        relation = "greater than" if kind == "greater_than" else "at least"
        return f"must be a number {relation} {bound:g}" if isinstance(bound, int | float) else "is out of range"
    return _KINDS.get(kind, f"is not a valid value ({type(error.get('input')).__name__})")
