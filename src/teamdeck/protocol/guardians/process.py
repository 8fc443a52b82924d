"""A guardian's process: running a guardian with a hard timeout, so a verification
always ends with a verdict.

:func:`run_guardian` runs the guardian in a child process (``python -m
teamdeck.protocol.guardians.child``) in its own session, sends it the context as JSON
on stdin and reads the result as JSON from stdout. A guardian that runs past its
timeout is stopped (SIGTERM to its process group, so it can stop what it started, then
SIGKILL) and the result is FAIL with the timeout as evidence; one that crashes, exits
non-zero or prints something that is not a result is FAIL with the error. Nothing a
guardian does leaves a task stuck.

``isolation="thread"`` runs the guardian in a daemon thread of this process instead
(a timed-out thread is abandoned, not killed): fast, for tests and for guardians
registered in-process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from teamdeck.model.guardian import Flag, GuardianResult
from teamdeck.protocol.guardians.context import GuardianContext
from teamdeck.protocol.guardians.registry import load_guardian

Isolation = Literal["process", "thread"]
TERM_GRACE_S = 1.0
"""How long a timed-out guardian has between SIGTERM and SIGKILL."""
TAIL_CHARS = 2000
"""How much of a crashed guardian's stderr is kept as evidence."""


@dataclass(frozen=True)
class RunOutcome:
    """A guardian run: its result (always one) and how long it took."""

    result: GuardianResult
    duration_s: float


def run_guardian(
    code: str, context: GuardianContext, *, timeout_s: float, isolation: Isolation = "process"
) -> RunOutcome:
    """Run guardian ``code`` on ``context``, never longer than ``timeout_s``.

    Returns:
        The guardian's result; a FAIL result naming the problem when it timed out,
        crashed or answered something that is not a result.
    """
    started = time.monotonic()
    run = _in_process if isolation == "process" else _in_thread
    result = run(code, context, timeout_s)
    return RunOutcome(result, round(time.monotonic() - started, 3))


def failure(code: str, message: str, evidence: dict[str, Any]) -> GuardianResult:
    """A FAIL result with one ``fail`` flag (timeouts, crashes, bad answers)."""
    return GuardianResult(status="FAIL", flags=[Flag(code=code, severity="fail", message=message)], evidence=evidence)


def coerce_result(value: Any) -> GuardianResult:
    """A guardian's return value as a :class:`GuardianResult`.

    Raises:
        ValueError: it is neither a GuardianResult nor a dict of that shape.
    """
    if isinstance(value, GuardianResult):
        return value
    if isinstance(value, dict):
        try:
            return GuardianResult.model_validate(value)
        except ValidationError as err:
            raise ValueError(
                f"the result is not a guardian result: {err.errors()[0]['loc']}: {err.errors()[0]['msg']}"
            ) from None
    raise ValueError(f"the result is a {type(value).__name__}, not a guardian result")


def _timed_out(timeout_s: float, elapsed: float) -> GuardianResult:
    return failure(
        "timeout",
        f"the guardian did not finish within {timeout_s:g} s and was stopped",
        {"timeoutS": timeout_s, "stoppedAfterS": round(elapsed, 3)},
    )


def _in_process(code: str, context: GuardianContext, timeout_s: float) -> GuardianResult:
    request = json.dumps({"code": code, "context": context.to_json()})
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "teamdeck.protocol.guardians.child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(request.encode(), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _stop(proc)
        return _timed_out(timeout_s, time.monotonic() - started)
    stderr_tail = err.decode("utf-8", "replace")[-TAIL_CHARS:]
    try:
        answer = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = None
    if not isinstance(answer, dict) or proc.returncode != 0 or not answer.get("ok"):
        error = answer.get("error") if isinstance(answer, dict) else None
        message = error or f"the guardian process exited with code {proc.returncode} without a result"
        return failure(
            "crashed",
            f"the guardian crashed: {message}"[:500],
            {"exitCode": proc.returncode, "error": message, "stderrTail": stderr_tail},
        )
    try:
        return coerce_result(answer.get("result"))
    except ValueError as exc:
        return failure(
            "bad-result", f"the guardian answered something else than a verdict: {exc}"[:500], {"error": str(exc)}
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the guardian's process group, then SIGKILL it after a grace period."""
    for sig, wait in ((signal.SIGTERM, TERM_GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.communicate(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue


def _in_thread(code: str, context: GuardianContext, timeout_s: float) -> GuardianResult:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = coerce_result(load_guardian(code).verify(context))
        except BaseException as exc:  # noqa: BLE001 - a guardian's crash becomes a FAIL verdict
            box["error"] = exc
            box["trace"] = traceback.format_exc()[-TAIL_CHARS:]

    started = time.monotonic()
    thread = threading.Thread(target=target, name=f"guardian-{code}", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        return _timed_out(timeout_s, time.monotonic() - started)
    if "error" in box:
        exc = box["error"]
        message = f"{type(exc).__name__}: {exc}"
        return failure(
            "crashed", f"the guardian crashed: {message}"[:500], {"error": message, "traceback": box["trace"]}
        )
    result: GuardianResult = box["result"]
    return result
