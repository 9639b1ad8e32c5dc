"""What `relay check` and `relay fmt` learned about files in earlier runs.

A file that checked clean (no diagnostic at all) or that is formatted
(the formatter gives its text back unchanged) is remembered by its
absolute path and a hash of its bytes (BLAKE2b, 256 bits). The next run
with the same settings reads the file, and if its bytes are the ones
remembered, reports it clean or unchanged without parsing it: a big model
dump that took seconds takes milliseconds until it is edited. Only the bytes decide, never the file's
time stamps, so an edit is always seen.

A cache file belongs to one command and one set of settings (the
package's version, the Python environment, and everything in the options
that can change a file's result): `relay fmt --line-length 80` and `relay fmt` keep separate
memories. In a source checkout (not an installed package) the newest
modification time of the package's own files is part of the key too, so
that editing the toolchain forgets what the old code concluded.

The cache lives in `$RELAY_CACHE_DIR`, else the platform's cache folder
(`$XDG_CACHE_HOME/relay-text`, `~/.cache/relay-text`,
`~/Library/Caches/relay-text`, `%LOCALAPPDATA%\\relay-text\\Cache`).
`RELAY_NO_CACHE=1` or `--no-cache` turns it off. A cache that cannot be
read or written is ignored: it never makes a command fail.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterable
from typing import Any

try:  # (hashlib would load OpenSSL first: ~10 ms of a small file's check)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without the builtin module
    from hashlib import blake2b

FORMAT = "relay-text cache 1"
"""The first line of a cache file; each further line is `DIGEST PATH`."""

MAX_ENTRIES = 20_000
"""Files one cache file remembers at most (about 2 MB, read in about 10 ms):
those found clean or used most recently are kept."""

UNUSED_DAYS = 30
"""A cache file of `relay check` or `relay fmt` not used for this long
(its settings, an older relay-text or a removed environment) is deleted by
the next run that saves one; so is a temporary file of a run that was
killed while writing, after an hour."""


def digest(data: bytes) -> str:
    """The BLAKE2b hash (256 bits) of a file's bytes, in hex."""
    return blake2b(data, digest_size=32).hexdigest()


def folder() -> str | None:
    """Where the files found clean are remembered, or None when that is off."""
    if os.environ.get("RELAY_NO_CACHE", "") not in ("", "0"):
        return None
    return user_folder()


def user_folder() -> str:
    """The folder of relay-text's caches (this module's, and the parser's
    tables: `syntax.tables`): `$RELAY_CACHE_DIR`, else the platform's."""
    chosen = os.environ.get("RELAY_CACHE_DIR")
    if chosen:
        return chosen
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
        return os.path.join(base, "relay-text", "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/relay-text")
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "relay-text")


def _code_stamp() -> str:
    """The package's version; in a source checkout, with the newest
    modification time of its files (an edited toolchain starts afresh)."""
    from . import __version__

    package = os.path.dirname(os.path.abspath(__file__))
    if any(f"{os.sep}{kind}{os.sep}" in package + os.sep for kind in ("site-packages", "dist-packages")):
        return __version__
    newest = 0
    for root, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            with contextlib.suppress(OSError):
                newest = max(newest, os.stat(os.path.join(root, name)).st_mtime_ns)
    return f"{__version__}+{newest}"


class Cache:
    """The files one command found clean (or formatted) under `settings`.

    `known(path)` is the digest remembered for a path, for the task to
    compare with the text it reads; `remember` and `forget` record the
    run's findings, and `save` writes them (atomically: concurrent runs
    lose each other's entries at worst, never corrupt the file)."""

    def __init__(self, command: str, settings: Iterable[Any] | None) -> None:
        """`settings` None: no cache for this run."""
        self.path: str | None = None
        self.files: dict[str, str] = {}
        self._changed = False
        where = folder() if settings is not None else None
        if where is None:
            return
        assert settings is not None
        # (each environment its own cache: optional packages may differ)
        key = digest(repr((FORMAT, _code_stamp(), sys.prefix, command, tuple(settings))).encode())[:20]
        self.path = os.path.join(where, f"{command}-{key}.txt")
        with (
            contextlib.suppress(OSError, UnicodeError),
            open(self.path, encoding="utf-8", errors="surrogateescape", newline="\n") as stream,
        ):
            if stream.readline() == FORMAT + "\n":
                for line in stream:
                    text_digest, _, path = line.rstrip("\n").partition(" ")
                    if len(text_digest) == 64 and path:
                        self.files[path] = text_digest
                # Reading is use (a cache whose files all stay clean is never
                # written again): its time stamp keeps `prune` away.
                if time.time() - os.fstat(stream.fileno()).st_mtime > 86400:
                    os.utime(self.path)

    @property
    def on(self) -> bool:
        return self.path is not None

    def known(self, path: str) -> str | None:
        return self.files.get(os.path.abspath(path)) if self.on else None

    def remember(self, path: str, text_digest: str) -> None:
        """The file is clean with this digest; it becomes the most recent
        entry (the oldest go first when there are MAX_ENTRIES)."""
        key = os.path.abspath(path)
        if not self.on:
            return
        if self.files.pop(key, None) != text_digest:
            self._changed = True
        self.files[key] = text_digest

    def note(self, path: str, clean: str | None) -> None:
        """What a task found: the file is clean (or formatted) with this digest, or not (None)."""
        if clean is not None:
            self.remember(path, clean)
        else:
            self.forget(path)

    def forget(self, path: str) -> None:
        if self.on and self.files.pop(os.path.abspath(path), None) is not None:
            self._changed = True

    def save(self) -> None:
        """Write the findings (see `store`)."""
        if self.path is None or not self._changed:
            return
        entries = list(self.files.items())[-MAX_ENTRIES:]  # (the most recent last)
        lines = [FORMAT, *(f"{d} {p}" for p, d in entries if "\n" not in p and "\r" not in p)]
        with contextlib.suppress(UnicodeError):
            if store(self.path, ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")):
                prune(os.path.dirname(self.path))
        self._changed = False


def prune(where: str) -> None:
    """Delete the cache files of `relay check` and `relay fmt` in `where`
    unused (neither read nor written: see `Cache`) for UNUSED_DAYS, and
    temporary files older than an hour (see `store`). The parser's tables
    are left alone."""
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(where) as found:
        for entry in found:
            name = entry.name
            if name.endswith(".tmp"):
                limit = 3600.0
            elif name.startswith(("check-", "fmt-")) and name.endswith(".txt"):
                limit = UNUSED_DAYS * 86400.0
            else:
                continue
            with contextlib.suppress(OSError):
                if now - entry.stat(follow_symlinks=False).st_mtime > limit and entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)


def store(path: str, data: bytes) -> bool:
    """Write a cache file whole: a temporary file beside it, renamed over
    it (a reader sees the old file or the new one; concurrent writers lose
    each other's work at worst). False if the folder cannot take it."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return False
