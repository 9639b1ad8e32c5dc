"""Finding and reading the files a command works on."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

SUFFIXES = (".rly", ".relay")
STDIN = "-"


class InputError(Exception):
    """A path that cannot be read as Relay text (missing, unreadable, not UTF-8)."""


def collect(paths: list[str], keep: Callable[[str, bool], bool] | None = None) -> list[str]:
    """Files named on the command line; directories expand to their `*.rly`
    and `*.relay` files, recursively, skipping hidden directories. Order is
    stable (as given; sorted within a directory). `keep(path, is_directory)`,
    if given, decides about each directory and file a search meets
    (`discovery`: .gitignore and exclude patterns)."""
    out: list[str] = []
    seen: set[str] = set()
    for path in paths:
        if path == STDIN:
            out.append(path)
            continue
        if os.path.isdir(path):
            found: list[str] = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                if keep is not None:
                    dirs[:] = [d for d in dirs if keep(os.path.join(root, d), True)]
                    files = [f for f in files if not f.endswith(SUFFIXES) or keep(os.path.join(root, f), False)]
                found.extend(os.path.join(root, f) for f in files if f.endswith(SUFFIXES))
            for f in sorted(found):
                if f not in seen:
                    seen.add(f)
                    out.append(f)
        elif path not in seen:
            seen.add(path)
            out.append(path)
    return out


def is_single_file(paths: list[str]) -> bool:
    """Whether the command line names one file (or stdin), not a directory:
    output for one file keeps its one-file form."""
    return len(paths) == 1 and not os.path.isdir(paths[0])


@dataclass
class Input:
    """A file's text as the stages see it, and how the file spells it.

    `text` has no byte order mark and keeps the file's line endings;
    `restore` turns a `\\n`-separated text (what the formatter returns) back
    into the file's conventions: CRLF line endings, a UTF-8 BOM and the
    presence or absence of a final newline, as the file had them."""

    name: str  # the path as given, or <stdin>
    text: str
    bom: bool = False

    @property
    def newline(self) -> str:
        """`\\r\\n` if the first line ends that way, else `\\n`."""
        end = self.text.find("\n")
        return "\r\n" if end > 0 and self.text[end - 1] == "\r" else "\n"

    @property
    def lf_text(self) -> str:
        """The text with `\\n` line endings (what the formatter reads)."""
        return self.text.replace("\r\n", "\n") if self.newline == "\r\n" else self.text

    @property
    def original(self) -> str:
        """The file's text exactly as read (with its BOM)."""
        return ("\ufeff" if self.bom else "") + self.text

    def restore(self, text: str, bom: bool = True) -> str:
        """`text` (with `\\n` line endings) in the file's conventions; without
        the BOM if `bom` is False."""
        if self.text and not self.text.endswith("\n") and text.endswith("\n"):
            text = text.rstrip("\n")
        if self.newline == "\r\n":
            text = text.replace("\n", "\r\n")
        return ("\ufeff" if self.bom and bom else "") + text


def read(path: str) -> Input:
    if path == STDIN:
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        try:
            data = Path(path).read_bytes()
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise InputError(f"{path}: is a directory") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror})") from None
        name = path
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    bom = text.startswith("\ufeff")
    return Input(name, text[1:] if bom else text, bom)


def write_atomic(path: str, text: str) -> None:
    """Replace a file's content in one step: a reader sees the old text or
    the new one, never a mix, and an error leaves the old file in place.

    A symbolic link stays a link: its target gets the new text. The file's
    permissions are kept."""
    import tempfile

    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    mode = None
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=".relay-fmt-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
