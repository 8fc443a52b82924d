"""The child process a guardian runs in (see :mod:`.runner`).

Reads ``{"code": ..., "context": {...}}`` on stdin, runs the guardian and writes one
line ``{"ok": true, "result": {...}}`` (or ``{"ok": false, "error": "..."}``) on stdout.
Whatever the guardian itself prints goes to stderr, so it cannot corrupt the answer.
A SIGTERM (the runner's timeout) stops the processes the guardian registered with
:func:`stop_on_term` and exits.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import traceback
from typing import Any

_GROUPS: set[int] = set()


def stop_on_term(pgid: int) -> None:
    """Kill process group ``pgid`` too if this guardian is stopped for its timeout."""
    _GROUPS.add(pgid)


def forget(pgid: int) -> None:
    """``pgid`` has ended; it need not be killed any more."""
    _GROUPS.discard(pgid)


def _on_term(_signum: int, _frame: Any) -> None:
    for pgid in list(_GROUPS):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
    os._exit(143)


def main() -> int:
    """Run one guardian request; the exit code is 0 when a result was written."""
    signal.signal(signal.SIGTERM, _on_term)
    answer_fd = os.dup(1)
    os.dup2(2, 1)  # the guardian's own prints go to stderr
    try:
        request = json.loads(sys.stdin.read())
        from teamdeck.protocol.guardians.registry import GuardianContext, load_guardian
        from teamdeck.protocol.guardians.runner import coerce_result

        context = GuardianContext(**request["context"])
        result = coerce_result(load_guardian(request["code"]).verify(context))
        answer: dict[str, Any] = {"ok": True, "result": result.model_dump(mode="json")}
        code = 0
    except BaseException as exc:  # noqa: BLE001 - reported to the supervisor as a crash
        traceback.print_exc()
        answer, code = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:1000]}, 1
    sys.stdout.flush()
    os.write(answer_fd, (json.dumps(answer, allow_nan=False, default=str) + "\n").encode())
    return code


if __name__ == "__main__":
    # Run main() from the importable module, not from __main__: guardians register the
    # process groups to stop in *that* module (stop_on_term), and the SIGTERM handler
    # must see the same registry.
    from teamdeck.protocol.guardians.child import main as imported_main

    sys.exit(imported_main())
