"""Ids that become path parts, and paths that must stay inside the workspace (R10).

Every id read from data or typed by a person passes an allow-list before it is joined
into a path, and the joined path is resolved and checked to be inside the workspace,
so ``../../etc``, absolute paths, NUL bytes, bidi tricks and symlinks out are refused
(S8, S9).

Every file teamdeck opens, creates, replaces or removes under a workspace also passes
:func:`beneath` first (the fs seam and the read primitives call it): a symbolic link on
the way that resolves outside the workspace is refused, so a link planted by an agent
never turns a send, an approve or a read into one outside the workspace (S16).

Opening, creating, replacing, linking and removing go further (S10): :func:`open_beneath`
and :func:`parent_beneath` walk from the workspace root one component at a time with
``openat`` (``dir_fd``) and ``O_NOFOLLOW``, so a directory swapped for a link between a
check and the open is met *by* the open and refused, never followed out.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from teamdeck.errors import InvalidFile, TeamdeckError

ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
"""Our own ids: tasks, gates, agents (workers), teams."""

REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{7,63}$")
"""A client's request id (``teamdeck serve``): 8 to 64 letters, digits, ``-`` and ``_``
(a ULID is 26)."""

MEMBER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
"""Names an agent tool gives: members and teams (Claude Code's member names, Ripperdoc's
team names keep case); still a single safe path part."""

ID_RULE = "use a-z, 0-9, '.', '_', '-' (max 64, starting with a letter or digit)"


class InvalidId(TeamdeckError):
    """An id that cannot be used as a path part."""


def shown(value: str) -> str:
    """An id as it may be printed: controls and non-ASCII escaped, long ones cut."""
    text = value.encode("unicode_escape").decode("ascii")
    return text if len(text) <= 80 else text[:77] + "..."


def check_id(value: object, kind: str = "id", *, pattern: re.Pattern[str] = ID_RE) -> str:
    """Return ``value`` if it is a safe id, else raise.

    Args:
        value: the candidate (anything: it may come from a file).
        kind: how to name it in the message ("worker id", "task id"...).
        pattern: the allow-list (:data:`ID_RE` or :data:`MEMBER_RE`).

    Raises:
        InvalidId: "invalid worker id '../../etc': use a-z, 0-9, '.', '_', '-' (max 64)".
    """
    if not isinstance(value, str) or not pattern.fullmatch(value):
        text = value if isinstance(value, str) else repr(value)
        rule = ID_RULE if pattern is ID_RE else ID_RULE.replace("a-z", "A-Z, a-z")
        raise InvalidId(f"invalid {kind} '{shown(text)}': {rule}")
    return value


def check_member(value: object, kind: str = "member name") -> str:
    """:func:`check_id` with the allow-list of names agent tools give (capitals kept)."""
    return check_id(value, kind, pattern=MEMBER_RE)


def check_team(value: object, kind: str = "team name") -> str:
    """A team name, as an agent tool keeps it on disk (Ripperdoc keeps case): the
    allow-list of :func:`check_member`, for every path built from it (``teams/``,
    ``runs/``, ``.teamdeck/``, ``sessions/``)."""
    return check_id(value, kind, pattern=MEMBER_RE)


def inside(root: Path, path: Path, *, within: Path | None = None) -> Path:
    """``path`` if, with every symlink resolved, it is inside ``root`` (S9).

    Args:
        root: the resolved workspace root.
        path: the path to check, built from checked ids under ``root``.
        within: a narrower directory (under ``root``, not resolved) the path must stay
            in, so a symlink pointing elsewhere inside the workspace is refused too.

    Raises:
        InvalidFile: it resolves outside the workspace (or outside ``within``).
    """
    resolved = path.resolve()
    for boundary in (root, within):
        if boundary is not None and not resolved.is_relative_to(boundary):
            place = "the workspace" if boundary == root else _relative(root, boundary)
            raise InvalidFile(_relative(root, _first_link(root, path)), "", f"resolves outside {place}; ignored")
    return path


def _relative(root: Path, path: Path) -> Path:
    try:
        return path.relative_to(root)
    except ValueError:
        return path


def _first_link(root: Path, path: Path) -> Path:
    """The first symlink on the way from ``root`` to ``path`` (the one to blame), else ``path``."""
    if not path.is_relative_to(root):
        return path
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            return current
    return path


_P = TypeVar("_P", bound="str | os.PathLike[str]")

_ROOTS: dict[str, str] = {}
"""Each workspace root opened in this process (as its paths spell it) -> its real path."""


class EscapesWorkspace(OSError):
    """A symbolic link on the way to a path resolves outside the workspace (not followed).

    An ``OSError`` so that every writer and reader turns it into its usual one-line
    message ("could not append to messages.jsonl: ...; nothing was written").
    """


def confine_to(root: Path) -> None:
    """Check every path under ``root`` with :func:`beneath` from now on (a :class:`Workspace`
    calls this for its root)."""
    _ROOTS[os.fspath(root)] = os.path.realpath(root)


def _root_of(text: str) -> str | None:
    """The innermost registered root that ``text`` lies under (a dict lookup per level)."""
    end = len(text)
    while (end := text.rfind(os.sep, 0, end)) > 0:
        if text[:end] in _ROOTS:
            return text[:end]
    return None


def beneath(path: _P) -> _P:
    """``path`` if no symbolic link between its workspace root and it leads outside.

    Cheap on the hot path: one ``lstat`` per component below the root and a
    ``realpath`` only for a link met on the way; a link that stays inside the workspace
    is followed (and what lies past it checked the same way). A path under no workspace
    root is returned unchecked. (The check and the open are two steps: a link swapped in
    between is not caught, see S10 in docs/reliability.md.)

    Raises:
        EscapesWorkspace: a link on the way (or ``path`` itself) resolves outside.
    """
    given: str | os.PathLike[str] = path
    text = os.fspath(given)
    root = _root_of(text)
    if root is None:
        return path
    current = root
    for part in text[len(root) + 1 :].split(os.sep):
        current = f"{current}{os.sep}{part}"
        try:
            mode = os.lstat(current).st_mode
        except OSError:
            return path  # the rest does not exist yet: it is made below a checked directory
        if stat.S_ISLNK(mode):
            real, real_root = os.path.realpath(current), _ROOTS[root]
            if real != real_root and not real.startswith(real_root + os.sep):
                link = current[len(root) + 1 :]
                raise EscapesWorkspace(
                    errno.EXDEV, f"{link} is a symbolic link to {real}, outside the workspace; not followed", text
                )
    return path


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_LINKS = 40
"""Links followed (inside the workspace) on the way to one path, as the kernel's limit."""


def _escapes(root: str, link: str, text: str) -> EscapesWorkspace:
    real = os.path.realpath(link)
    shown_link = link[len(root) + 1 :]
    return EscapesWorkspace(
        errno.EXDEV, f"{shown_link} is a symbolic link to {real}, outside the workspace; not followed", text
    )


def _relinked(root: str, walked: str, rest: list[str], text: str) -> list[str]:
    """The parts below ``root`` to walk instead, after the component ``walked`` (a path
    under ``root``) turned out to be a symbolic link: every link resolved, which must
    stay inside the workspace (else :class:`EscapesWorkspace`)."""
    real, real_root = os.path.realpath(walked), _ROOTS[root]
    if real != real_root and not real.startswith(real_root + os.sep):
        raise _escapes(root, walked, text)
    below = real[len(real_root) + 1 :]
    return [*(below.split(os.sep) if below else []), *rest]


@contextmanager
def parent_beneath(path: str | os.PathLike[str]) -> Iterator[tuple[int | None, str]]:
    """The directory that holds ``path``, opened by walking from its workspace root
    with ``O_NOFOLLOW`` at each step (S10), and ``path``'s last component: use them
    as ``dir_fd`` and name (``os.replace(src, name, dst_dir_fd=fd)``, ``os.unlink(name,
    dir_fd=fd)``). A link inside the workspace is followed by walking again to where it
    resolves; one leading out is refused. For a path under no workspace root: ``(None,
    path)``.

    Raises:
        EscapesWorkspace: a link on the way resolves outside the workspace.
        OSError: a directory on the way is missing (ENOENT) or not one (ENOTDIR);
            ELOOP past :data:`_MAX_LINKS` links.
    """
    text = os.fspath(path)
    root = _root_of(text)
    if root is None:
        yield None, text
        return
    parts = text[len(root) + 1 :].split(os.sep)
    fd = _walk(root, parts[:-1], text)
    try:
        yield fd, parts[-1]
    finally:
        os.close(fd)


def _walk(root: str, parts: list[str], text: str) -> int:
    """A descriptor of the directory ``root/parts...``, reached without following a
    link out of the workspace (see :func:`parent_beneath`)."""
    for _attempt in range(_MAX_LINKS):
        fd = os.open(root, _DIR_FLAGS & ~os.O_NOFOLLOW)  # the root itself as given (it may be a link)
        walked = root
        try:
            for index, part in enumerate(parts):
                if part in ("", "."):
                    continue
                try:
                    child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as err:
                    if err.errno not in (errno.ELOOP, errno.ENOTDIR) or not _is_link(part, fd):
                        raise
                    parts = _relinked(root, f"{walked}{os.sep}{part}", parts[index + 1 :], text)
                    break
                os.close(fd)
                fd, walked = child, f"{walked}{os.sep}{part}"
            else:
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    raise OSError(errno.ELOOP, "too many symbolic links on the way", text)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def open_beneath(path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int:
    """``os.open(path, flags, mode)`` with no window between the check and the open
    (S10): the directories are walked as :func:`parent_beneath` does and the file is
    opened in the last one with ``O_NOFOLLOW``; a file that is a link inside the
    workspace is opened where it resolves, one leading out is refused.

    Raises:
        EscapesWorkspace: a link on the way, or ``path`` itself, resolves outside.
        OSError: what ``os.open`` raises.
    """
    text = os.fspath(path)
    for _attempt in range(_MAX_LINKS):
        with parent_beneath(text) as (fd, name):
            if fd is None:
                return os.open(text, flags, mode)
            try:
                return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=fd)
            except OSError as err:
                if err.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EEXIST) or not _is_link(name, fd):
                    raise
                if flags & os.O_NOFOLLOW or flags & os.O_CREAT and flags & os.O_EXCL:
                    root = _root_of(text)
                    if root is not None:
                        _relinked(root, text, [], text)  # a link out is named as one
                    raise  # asked not to follow a link; an exclusive create never goes through one
        root = _root_of(text)
        if root is None:  # unreachable: a path under no root returned above
            break
        text = os.sep.join([root, *_relinked(root, text, [], text)])  # the file is a link: open where it leads
    raise OSError(errno.ELOOP, "too many symbolic links on the way", os.fspath(path))
