"""The plan the autowork stories share: three tasks in two waves (Lexer and Grammar,
then Parser, which depends on both), imported from ``parser.md`` (so the plan is
``parser``), and the scripted crafter that answers its assignments
(tests/support/autowork_crafter.py)."""

from __future__ import annotations

from pathlib import Path

CRAFTER = Path(__file__).with_name("autowork_crafter.py")
PLAN = "# Parser\n\n" + "".join(
    f"@@@task\n# {title}\n## Objective\n{title}.\n## Definition of Done\n- done\n## Verification\n- checked\n"
    + (f"Depends: {depends}\n" if depends else "")
    + "@@@\n\n"
    for title, depends in [("Lexer", ""), ("Grammar", ""), ("Parser", "Lexer, Grammar")]
)
LEXER, GRAMMAR, PARSER = "parser.01-lexer", "parser.02-grammar", "parser.03-parser"
