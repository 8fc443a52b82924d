"""Write-once records: a file that appears complete or not at all, and never changes.

Guardian assignments and verdicts are immutable (seed 003). :func:`write_once` writes
the bytes to a temp file, fsyncs it and then hard-links it into place: ``link(2)``
fails with ``EEXIST`` when the name is taken, exactly like an ``O_EXCL`` create, but a
reader can never see a half-written record (an ``O_EXCL`` create is visible while it
is being written). Writing the same bytes again is a no-op, so a writer that crashed
after the link can simply run again.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from teamdeck.errors import Conflict, WriteFailed
from teamdeck.store import fs as fs_seam
from teamdeck.store.atomic import fsync_dir, tmp_prefix
from teamdeck.store.paths import beneath


def write_once(path: Path, data: bytes) -> bool:
    """Create ``path`` holding ``data``, unless it already exists with those bytes.

    Args:
        path: the record's file; its directory is created if missing.
        data: the complete content.

    Returns:
        True when the file was created, False when it already held exactly ``data``.

    Raises:
        Conflict: the file exists with different content (records never change).
        WriteFailed: the disk refused; no file and no temp file are left.
    """
    fs = fs_seam.current()
    try:
        beneath(path).parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=tmp_prefix(path), suffix=".tmp")
    except OSError as err:
        raise WriteFailed(f"could not write {path.name}: {err.strerror}; nothing was written") from err
    try:
        try:
            view = memoryview(data)
            while view:
                written = fs.write(fd, view)
                if written <= 0:
                    raise OSError(errno.EIO, "write returned no progress")
                view = view[written:]
            fs.fsync(fd)
        finally:
            os.close(fd)
        try:
            fs.link(tmp, path)
        except FileExistsError:
            if path.read_bytes() != data:
                raise Conflict(
                    f"{path.name} already exists with other content; records are write-once, nothing was changed"
                ) from None
            return False
    except OSError as err:
        raise WriteFailed(f"could not write {path.name}: {err.strerror or err}; nothing was written") from err
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    fsync_dir(path.parent)
    return True
