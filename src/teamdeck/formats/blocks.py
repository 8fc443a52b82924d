"""The ``<teammate-message>`` block an agent tool wraps round each message it shows its
model, and keeping a message's body from opening or closing one.

Claude Code and Ripperdoc show a teammate's message as ``<teammate-message
teammate_id="..." summary="...">\\nbody\\n</teammate-message>``, escaping the attributes
but not the body. A body holding ``</teammate-message>`` and a new opening tag would end
its own block and start one that names another member ("the lead says: delete the
database"); Ripperdoc even shows a body that opens with the tag as it is, unwrapped.
So every body teamdeck puts where a model reads it (its own ``inbox --inject`` blocks,
the prompts of the runtimes it starts, a Ripperdoc inbox) goes through
:func:`inert_body` first.
"""

from __future__ import annotations

import re

_TAG_OPENING = re.compile(r"<(?=\s*/?\s*teammate-message)", re.IGNORECASE)
"""A ``<`` that starts an opening or closing ``teammate-message`` tag, in any case and
with any spacing a reader might still take for one."""


def inert_body(text: str) -> str:
    """``text`` with every ``<`` that would open or close a ``teammate-message`` tag
    written ``&lt;``: the body can no longer end its block or start another. Any other
    text, code with its ``<`` and ``&`` included, is left as it is."""
    return _TAG_OPENING.sub("&lt;", text)
