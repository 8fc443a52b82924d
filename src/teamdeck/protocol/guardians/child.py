"""The child process a guardian runs in (see protocol/guardians/process.py).

Reads ``{"code": ..., "context": {...}}`` on stdin, runs the guardian and writes one
line ``{"ok": true, "result": {...}}`` (or ``{"ok": false, "error": "..."}``) on stdout.
Whatever the guardian itself prints goes to stderr, so it cannot corrupt the answer.
A SIGTERM (the timeout) stops the processes the guardian registered with
:func:`~teamdeck.protocol.guardians.process_groups.stop_on_term` and exits.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback
from typing import Any

from teamdeck.protocol.guardians import process_groups


def _on_term(_signum: int, _frame: Any) -> None:
    process_groups.kill_all()
    os._exit(143)


def main() -> int:
    """Run one guardian request; the exit code is 0 when a result was written."""
    signal.signal(signal.SIGTERM, _on_term)
    answer_fd = os.dup(1)
    os.dup2(2, 1)  # the guardian's own prints go to stderr
    try:
        request = json.loads(sys.stdin.read())
        from teamdeck.protocol.guardians.context import GuardianContext
        from teamdeck.protocol.guardians.process import coerce_result
        from teamdeck.protocol.guardians.registry import load_guardian

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
    # The process groups to stop live in protocol/guardians/process_groups.py, one module
    # whether this file runs as __main__ or is imported, so the SIGTERM handler sees what
    # the guardian registered.
    sys.exit(main())
