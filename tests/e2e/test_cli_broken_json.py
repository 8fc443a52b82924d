"""A broken-JSON error keeps the position it refers to.

The decoder's message "Unterminated string starting at" used to be printed without the
place it points at, so the line ended mid-sentence.
"""

from __future__ import annotations

from support import small_worlds as worlds


def test_unterminated_string_names_where_it_starts(ws, run_cli) -> None:
    worlds.team(ws)
    ws.team_config("alpha").write_text('{\n  "name": "alpha",\n  "members": [\n    {"name": "oops')
    for command in ("validate", "status"):
        result = run_cli(ws.root, command)
        problem = next(line for line in (result.out + result.err).splitlines() if "teams/alpha/config.json" in line)
        assert problem.rstrip().endswith(" at line 4 column 14"), problem
        assert "line 4 column 14: invalid JSON: " in problem


def test_a_message_without_a_place_is_left_as_it_is(ws, run_cli) -> None:
    worlds.team(ws)
    ws.team_config("alpha").write_text('{"name": "alpha",}')
    result = run_cli(ws.root, "validate")
    problem = next(line for line in result.out.splitlines() if "teams/alpha/config.json" in line)
    assert "line 1 column 18: invalid JSON: " in problem and not problem.rstrip().endswith("column 18")
