"""Write a user's file so that a failure (full disk, file limit, kill) never loses it.

The new content goes to a temporary file in the same folder, which is flushed
to disk and given the original's mode and owner before it is renamed over the
original; the folder is then flushed too. A rename gives the path a new inode,
which would split a file with several hard links, so such a file is instead
overwritten in place, after a backup copy in the same folder that restores the
original when the write fails.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import tempfile

from accls.files.reading import file_kind

__all__ = ["WriteError", "replace_file", "write_stdout"]

_COPY_BLOCK = 1 << 20


class WriteError(OSError):
    """A file could not be written; the message is one line, the original is intact."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_folder(folder: str) -> None:
    # Some file systems cannot fsync a folder; the rename has happened anyway.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _temporary(folder: str, name: str) -> tuple[int, str]:
    try:
        return tempfile.mkstemp(prefix=f".{name}.", suffix=".accls-tmp", dir=folder)
    except OSError as exc:
        raise WriteError(
            f"{folder}: cannot create a temporary file next to {name}: {_reason(exc)}"
        ) from None


def _keep_owner(fd: int, st: os.stat_result | None) -> bool:
    """Give the temporary file the original's owner; False if that is not allowed."""
    if st is None:
        return True
    current = os.fstat(fd)
    if (current.st_uid, current.st_gid) == (st.st_uid, st.st_gid):
        return True
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except OSError:
        return False
    return True


def _by_rename(path: str, data: bytes, st: os.stat_result | None) -> bool:
    """Write a temporary file and rename it over `path`; False to fall back."""
    folder, name = os.path.split(path)
    folder = folder or "."
    fd, tmp = _temporary(folder, name)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
            if not _keep_owner(fd, st):
                return False
            mode = stat.S_IMODE(st.st_mode) if st else 0o666 & ~_umask()
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        raise WriteError(
            f"{path}: cannot write: {_reason(exc)} (the file is unchanged)"
        ) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_folder(folder)
    return True


def _copy(source: int, dest: int) -> None:
    os.lseek(source, 0, os.SEEK_SET)
    os.lseek(dest, 0, os.SEEK_SET)
    while block := os.read(source, _COPY_BLOCK):
        _write_all(dest, block)


def _in_place(path: str, data: bytes) -> None:
    """Overwrite `path` itself (keeping its inode), restoring it on failure."""
    folder, name = os.path.split(path)
    folder = folder or "."
    fd, backup = _temporary(folder, name)
    try:
        target = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError as exc:
        os.close(fd)
        os.unlink(backup)
        raise WriteError(f"{path}: cannot write: {_reason(exc)}") from None
    restored = True
    try:
        try:
            _copy(target, fd)
            os.fsync(fd)
        except OSError as exc:
            raise WriteError(
                f"{path}: cannot write: no room for a backup copy: {_reason(exc)} "
                "(the file is unchanged)"
            ) from None
        # Writing before truncating keeps the original's blocks allocated, so a
        # full disk stops the write while a restore still fits.
        try:
            os.lseek(target, 0, os.SEEK_SET)
            _write_all(target, data)
            os.ftruncate(target, len(data))
            os.fsync(target)
        except OSError as exc:
            restored = _restore(fd, target)
            kept = "the file is unchanged" if restored else f"original kept in {backup}"
            raise WriteError(f"{path}: cannot write: {_reason(exc)} ({kept})") from None
    finally:
        os.close(fd)
        os.close(target)
        if restored:
            os.unlink(backup)


def _restore(backup: int, target: int) -> bool:
    try:
        _copy(backup, target)
        os.ftruncate(target, os.fstat(backup).st_size)
        os.fsync(target)
    except OSError:
        return False
    return True


def write_stdout(data: bytes) -> None:
    """Write bytes to stdout unbuffered, so that a failed write raises OSError.

    (Through `sys.stdout.buffer`, a write cut short by `ulimit -f` can be lost
    without an error.)
    """
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        # A stand-in stdout (tests capturing the output) has no descriptor.
        sys.stdout.write(data.decode("utf-8", errors="surrogateescape"))
        return
    _write_all(fd, data)


def replace_file(path: str, data: bytes) -> None:
    """Write `data` to `path` (created or replaced) without risking the original.

    A symbolic link is followed and the file it names is replaced, so the link
    stays. Raises WriteError with a one-line message; the original is then
    unchanged.
    """
    real = os.path.realpath(path)
    try:
        _replace(real, data)
    except WriteError as exc:
        raise WriteError(str(exc).replace(real, path, 1)) from None


def _replace(real: str, data: bytes) -> None:
    path = real
    try:
        st: os.stat_result | None = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {_reason(exc)}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise WriteError(f"{path}: is {file_kind(st.st_mode)}, not a regular file")
    if st is not None and not os.access(real, os.W_OK):
        # A rename would replace a file its owner made read-only.
        raise WriteError(f"{path}: cannot write: Permission denied")
    if st is not None and st.st_nlink > 1:
        _in_place(real, data)
        _fsync_folder(os.path.dirname(real) or ".")
    elif not _by_rename(real, data, st):
        # Only the owner's own write permission lets us keep another owner:
        # write in place rather than hand the file to ourselves.
        _in_place(real, data)
