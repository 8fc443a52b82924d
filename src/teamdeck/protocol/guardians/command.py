"""The ``command`` guardian: run the task's check command and judge by its exit code.

Configured per task in task.yaml (``guardian.command``: ``run``, ``cwd``, ``timeoutS``;
set with ``teamdeck guardian set``). The command runs without a shell (``run`` is an
argument list, or a string split the way a shell splits words) in ``cwd`` (relative
paths start at the workspace root), in its own process group, with its output going to
a temp file (so a background grandchild holding a pipe cannot hang us). Evidence: the
command, directory, exit code, duration and the tail of its output. A non-zero exit or
a timeout is FAIL (seed 003: tests failed → blocked for a person), except the exit code
configured as ``needsChangesExit``: NEEDS_CHANGES, the output's last lines being the
recommendation the workers receive (a linter that found something they can fix).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from teamdeck.model.guardian import Flag, GuardianResult
from teamdeck.model.task import CommandCheck
from teamdeck.protocol.guardians import process_groups
from teamdeck.protocol.guardians.context import GuardianContext

OUTPUT_TAIL_CHARS = 2000


class CommandGuardian:
    """Runs a configured command (tests, a linter) and passes when it exits 0."""

    code = "command"
    description = "runs the task's configured command; passes when it exits 0"

    def verify(self, context: GuardianContext) -> GuardianResult:
        raw = context.config.get("command")
        if not raw:
            return _fail(
                "not-configured",
                "no command is configured for this task",
                {},
                ["configure one: teamdeck guardian set TASK --command 'pytest -q' --cwd DIR"],
            )
        try:
            check = CommandCheck.model_validate(raw)
            argv = check.run if isinstance(check.run, list) else shlex.split(check.run)
        except (ValidationError, ValueError) as err:
            return _fail("bad-config", f"guardian.command in task.yaml is not valid: {err}"[:500], {"command": raw})
        if not argv:
            return _fail("bad-config", "guardian.command.run is empty", {"command": raw})
        cwd = Path(check.cwd) if Path(check.cwd).is_absolute() else Path(context.workspace) / check.cwd
        evidence: dict[str, object] = {"command": argv, "cwd": str(cwd), "timeoutS": check.timeoutS}
        if not cwd.is_dir():
            return _fail("bad-cwd", f"the directory {cwd} does not exist", evidence)
        return _run(argv, cwd, check.timeoutS, evidence, check.needsChangesExit)


def _run(
    argv: list[str], cwd: Path, timeout_s: float, evidence: dict[str, object], changes_exit: int | None
) -> GuardianResult:
    started = time.monotonic()
    with tempfile.TemporaryFile() as output:
        try:
            proc = subprocess.Popen(
                argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
            )
        except OSError as err:
            return _fail("not-runnable", f"could not run {argv[0]}: {err.strerror or err}", evidence)
        process_groups.stop_on_term(proc.pid)
        try:
            exit_code: int | None = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            exit_code = None
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # whatever it left running in its group
            proc.wait()
            process_groups.forget(proc.pid)
        evidence.update(exitCode=exit_code, durationS=round(time.monotonic() - started, 3), outputTail=_tail(output))
    if exit_code is None:
        return _fail("timeout", f"{shlex.join(argv)} did not finish within {timeout_s:g} s and was stopped", evidence)
    if exit_code is not None and exit_code == changes_exit and exit_code != 0:
        said = str(evidence["outputTail"]).strip().splitlines()[-5:]
        return GuardianResult(
            status="NEEDS_CHANGES",
            flags=[
                Flag(code="changes-asked", severity="needs-changes", message=f"{shlex.join(argv)} asked for changes")
            ],
            evidence=evidence,
            recommendations=said or [f"make `{shlex.join(argv)}` pass (it exited with code {exit_code})"],
        )
    if exit_code != 0:
        return _fail(
            "exit-code",
            f"{shlex.join(argv)} exited with code {exit_code}"[:500],
            evidence,
            [f"make `{shlex.join(argv)}` pass (exit code {exit_code}; see the output tail in the verdict)"[:500]],
        )
    return GuardianResult(status="PASS", evidence=evidence)


def _tail(output: BinaryIO) -> str:
    """The last :data:`OUTPUT_TAIL_CHARS` characters of the command's output."""
    size = output.seek(0, os.SEEK_END)
    output.seek(max(0, size - OUTPUT_TAIL_CHARS * 4))
    return output.read().decode("utf-8", "replace")[-OUTPUT_TAIL_CHARS:]


def _fail(
    code: str, message: str, evidence: dict[str, object], recommendations: list[str] | None = None
) -> GuardianResult:
    return GuardianResult(
        status="FAIL",
        flags=[Flag(code=code, severity="fail", message=message)],
        evidence=evidence,
        recommendations=recommendations or [],
    )
