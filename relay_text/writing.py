"""Writing a formatted text back to its file without losing anything.

`relay fmt` rewrites only regular files. Before reading a file it will
rewrite, `write_problem` refuses what is not one (a FIFO, a device, a
socket: opening a FIFO would wait for a writer, and renaming over it would
replace it with a regular file) and what names a stream (`/dev/stdin`,
`/proc/self/fd/0`: the file behind it belongs to someone else's command).

`replace` then writes the new text:

* A file is replaced by renaming a complete, synced temporary copy over it
  (readers see the old text or the new one, never a mix). The copy is made
  as an unnamed file (Linux's `O_TMPFILE`) that gets a name only for the
  instant before the rename, so that even SIGKILL leaves no temporary file
  behind; SIGINT, SIGTERM and SIGHUP wait for the rename
  (`interrupts.critical`). The copy gets the file's mode, owner and group.
* A file the rename would change in a way the user would notice is written
  in place, through its inode: one with other hard links (a rename would
  split them), one whose owner or group the copy cannot be given (root
  formatting another user's file can; a user cannot), and one in a
  directory where no file can be created. First a copy of the original
  text is saved beside it (or in the temporary directory) and read back;
  the original is restored from it if the write fails.
* A read-only file (no write permission bit) is refused unless `force`.
* Just before replacing, the file's identity (device, inode, size,
  modification time) and text are compared with what was read: a file
  changed meanwhile (an editor saved it) is refused, and left as it is.

Every refusal is a `WriteRefused` with a message for the user.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from .interrupts import critical
import contextlib

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import (see relay_text/record.py)
    from .record import dataclass

PREFIX, SUFFIX = ".relay-fmt-", ".tmp"


class WriteRefused(Exception):
    """A file that is not written; the message says why."""


@dataclass(frozen=True)
class Identity:
    """What tells that a file is still the one that was read."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Identity:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def special_kind(mode: int) -> str | None:
    """What a file of `mode` is if it is not a regular file ("a FIFO ..."), else None."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "not a regular file"


_STREAM_DIRS = ("/dev/", "/proc/")


def _through_streams(path: str) -> bool:
    """Whether `path`, or a symbolic link on the way to its file, is under
    /dev or /proc (`/dev/stdin` leads to whatever standard input is)."""
    current = os.path.abspath(path)
    for _ in range(40):
        if current.startswith(_STREAM_DIRS) or current in ("/dev", "/proc"):
            return True
        parent = os.path.dirname(current)
        real_parent = os.path.realpath(parent)
        if real_parent != parent and real_parent.startswith(_STREAM_DIRS):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.normpath(os.path.join(parent, os.readlink(current)))
    return False


def write_problem(path: str) -> str | None:
    """Why `relay fmt` must not rewrite `path`, checked without opening it
    (None: it may, if the file is still as read when the time comes)."""
    if _through_streams(path):
        return (
            f"{path}: names a stream or device, not a file relay fmt may rewrite; "
            "to format standard input, use `relay fmt -` (the result goes to standard output)"
        )
    try:
        st = os.stat(path)
    except OSError:
        return None  # reading reports it
    kind = special_kind(st.st_mode)
    if kind is not None and not stat.S_ISDIR(st.st_mode):
        return (
            f"{path}: is {kind}, not a regular file; relay fmt rewrites regular files only "
            f"(`relay fmt - < {path}` prints the result)"
        )
    return None


def replace(path: str, data: bytes, identity: Identity | None, original: bytes | None, force: bool = False) -> None:
    """Give the file at `path` (a symbolic link: its target) the content
    `data`; `identity` and `original` are what was read, checked again just
    before the file is replaced. Raises WriteRefused, or OSError when the
    system refuses a write."""
    target = os.path.realpath(path)
    st = os.stat(target)
    kind = special_kind(st.st_mode)
    if kind is not None:
        raise WriteRefused(f"{path}: is {kind}, not a regular file; nothing was written")
    if not force and not st.st_mode & 0o222:
        raise WriteRefused(f"{path}: is read-only; nothing was written (`relay fmt --force` writes it anyway)")
    _unchanged(path, target, identity, original)
    directory = os.path.dirname(target)
    in_place = st.st_nlink > 1 or not os.access(directory, os.W_OK | os.X_OK)
    if not in_place:
        try:
            _by_rename(path, target, directory, data, st, identity, original)
            return
        except _KeepsNothing:
            in_place = True  # the copy cannot get the file's owner or group
    if not force and not os.access(target, os.W_OK):
        raise WriteRefused(f"{path}: cannot be written (no write permission); nothing was written")
    _in_place(path, target, data, identity, original)


def _unchanged(path: str, target: str, identity: Identity | None, original: bytes | None) -> None:
    """Refuse if the file is no longer what was read."""
    if identity is None:
        return
    try:
        st = os.stat(target)
        now = Identity.of(st)
        same = now == identity
        if same and original is not None:
            with open(target, "rb") as handle:
                same = handle.read(len(original) + 1) == original
    except OSError:
        same = False
    if not same:
        raise WriteRefused(
            f"{path}: changed while it was being formatted (another program wrote it); "
            "it was left as it is now: run relay fmt again"
        )


class _KeepsNothing(Exception):
    """The temporary copy cannot be given the file's owner and group."""


_UNNAMED = [True]  # whether unnamed temporary files work here


def _temporary(directory: str) -> tuple[int, str | None]:
    """An open temporary file in `directory`: unnamed if the system can
    (name None), else named `.relay-fmt-*.tmp`."""
    flag = getattr(os, "O_TMPFILE", 0)
    if flag and _UNNAMED[0] and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(directory, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600), None
        except OSError:
            pass  # (a file system without unnamed files)
    import tempfile  # (here: reading a file, as every command does, needs none of it)

    return tempfile.mkstemp(prefix=PREFIX, suffix=SUFFIX, dir=directory)


def _by_rename(
    path: str,
    target: str,
    directory: str,
    data: bytes,
    st: os.stat_result,
    identity: Identity | None,
    original: bytes | None,
) -> None:
    fd, name = -1, None
    try:
        with critical():  # (a named copy must not outlive a signal)
            fd, name = _temporary(directory)
            _fill(fd, data, st)
            if name is None:
                try:
                    name = _give_name(fd, directory)
                except OSError:  # (no /proc, or a file system that refuses)
                    _UNNAMED[0] = False
                    os.close(fd)
                    fd = -1
                    fd, name = _temporary(directory)
                    _fill(fd, data, st)
            _unchanged(path, target, identity, original)
            assert name is not None  # (named above, or by the fallback)
            os.replace(name, target)
            name = None
    finally:
        if fd >= 0:
            os.close(fd)
        if name is not None:
            _remove(name)


def _fill(fd: int, data: bytes, st: os.stat_result) -> None:
    """Write `data` to a temporary file and give it the mode, owner and
    group of the file it replaces."""
    _write_all(fd, data)
    if hasattr(os, "fchmod"):
        os.fchmod(fd, stat.S_IMODE(st.st_mode))
    if hasattr(os, "fchown") and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):  # (no owners on Windows)
        try:
            os.fchown(fd, st.st_uid, st.st_gid)
        except PermissionError:
            raise _KeepsNothing from None
    os.fsync(fd)


def _give_name(fd: int, directory: str) -> str:
    """Link an unnamed temporary file into `directory`; its new name."""
    import secrets

    dirfd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for _ in range(100):
            base = f"{PREFIX}{secrets.token_hex(4)}{SUFFIX}"
            try:
                # (linkat with AT_SYMLINK_FOLLOW: the file behind the descriptor)
                os.link(f"/proc/self/fd/{fd}", base, dst_dir_fd=dirfd, follow_symlinks=True)
                return os.path.join(directory, base)
            except FileExistsError:
                continue
    finally:
        os.close(dirfd)
    raise FileExistsError(f"no free temporary name in {directory}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _in_place(path: str, target: str, data: bytes, identity: Identity | None, original: bytes | None) -> None:
    """Write through the file's own inode, with a verified copy of the
    original text to restore from."""
    if original is None:
        with open(target, "rb") as handle:
            original = handle.read()
    with critical():
        backup = _backup(target, original)
        try:
            _unchanged(path, target, identity, original)
            _write_through(target, data, original)
        except OSError as exc:
            with open(target, "rb") as handle:
                restored = handle.read() == original
            if not restored:
                raise WriteRefused(
                    f"{path}: cannot be written ({exc.strerror}) and could not be restored; "
                    f"its original text is saved in {backup}"
                ) from None
            _remove(backup)
            raise
        except BaseException:
            _remove(backup)
            raise
        _remove(backup)


def _write_through(target: str, data: bytes, original: bytes) -> None:
    fd = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        try:
            _write_all(fd, data)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        except OSError:
            os.lseek(fd, 0, os.SEEK_SET)
            _write_all(fd, original)
            os.ftruncate(fd, len(original))
            os.fsync(fd)
            raise
    finally:
        os.close(fd)


def _backup(target: str, original: bytes) -> str:
    """A copy of `original`, read back to verify it, beside the file or in
    the temporary directory; its path."""
    import tempfile

    for directory in (os.path.dirname(target), tempfile.gettempdir()):
        try:
            fd, name = tempfile.mkstemp(prefix=PREFIX, suffix=".orig" + SUFFIX, dir=directory)
        except OSError:
            continue
        try:
            _write_all(fd, original)
            os.fsync(fd)
        finally:
            os.close(fd)
        with open(name, "rb") as handle:
            if handle.read() == original:
                return name
        _remove(name)
    raise WriteRefused(
        f"{target}: no place to save a copy of the original text before writing it in place; nothing was written"
    )


def _remove(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


def new_file_mode() -> int:
    """The permissions a new file gets: 0o666 less the umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_output(path: str, data: bytes) -> None:
    """Write a file a command produces (`relay import -o`, ...): an existing
    regular file is replaced as `replace` does it (mode, owner and links
    kept); a new one appears whole, with the permissions the umask gives,
    or not at all (a signal or an error leaves nothing behind). A special
    file (a FIFO, `/dev/stdout`) is written to as a stream."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and special_kind(st.st_mode) is not None:
        with open(path, "wb") as stream:
            stream.write(data)
        return
    if st is not None:
        if not st.st_mode & 0o222:
            raise WriteRefused(f"{path}: is read-only; nothing was written")
        replace(path, data, None, None, force=False)
        return
    directory = os.path.dirname(os.path.abspath(path))
    mode = new_file_mode()
    fd, name = -1, None
    try:
        with critical():
            fd, name = _temporary(directory)
            _write_all(fd, data)
            os.fchmod(fd, mode)
            if name is None:
                name = _give_name(fd, directory)
            os.replace(name, path)
            name = None
    finally:
        if fd >= 0:
            os.close(fd)
        if name is not None:
            _remove(name)
