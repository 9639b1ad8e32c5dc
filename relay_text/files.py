"""Finding and reading the files a command works on."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import (see relay_text/record.py)
    from .record import dataclass

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
                found.extend(
                    os.path.join(root, f) for f in files if f.endswith(SUFFIXES) and _regular(os.path.join(root, f))
                )
            for f in sorted(found):
                if f not in seen:
                    seen.add(f)
                    out.append(f)
        elif path not in seen:
            seen.add(path)
            out.append(path)
    return out


def _regular(path: str) -> bool:
    """Whether `path` is a regular file (a link to one counts), found
    without opening it: a FIFO named `x.rly` in a directory is skipped, as
    opening it would wait for a writer."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # reading it reports the problem


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
    identity: Any = None  # writing.Identity of the file as it was read
    data: bytes | None = None  # the bytes read

    @property
    def newline(self) -> str:
        """How the first line ends: `\\r\\n`, a lone `\\r`, or `\\n` (also
        when there is one line)."""
        text = self.text
        cr, lf = text.find("\r"), text.find("\n")
        if cr < 0 or (0 <= lf < cr):
            return "\n"
        return "\r\n" if lf == cr + 1 else "\r"

    @property
    def lf_text(self) -> str:
        """The text with `\\n` line endings (what the formatter reads): a
        lone `\\r` ends a line, as `\\r\\n` and `\\n` do."""
        text = self.text
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    @property
    def original(self) -> str:
        """The file's text exactly as read (with its BOM)."""
        return ("\ufeff" if self.bom else "") + self.text

    def restore(self, text: str, bom: bool = True) -> str:
        """`text` (with `\\n` line endings) in the file's conventions; without
        the BOM if `bom` is False."""
        if self.text and not self.text.endswith(("\n", "\r")) and text.endswith("\n"):
            text = text.rstrip("\n")
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return ("\ufeff" if self.bom and bom else "") + text


def read(path: str) -> Input:
    identity = None
    if path == STDIN:
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        from .writing import Identity

        try:
            with open(path, "rb") as handle:
                st = os.fstat(handle.fileno())
                data = handle.read()
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise InputError(f"{path}: is a directory") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror})") from None
        if stat.S_ISREG(st.st_mode):
            identity = Identity.of(st)
        name = path
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    bom = text.startswith("\ufeff")
    return Input(name, text[1:] if bom else text, bom, identity, data)


def write_atomic(path: str, text: str, inp: Input | None = None, force: bool = False) -> None:
    """Replace a file's content (`writing.replace`): a reader sees the old
    text or the new one, never a mix; an error or a signal leaves the old
    file in place and no temporary file. A symbolic link stays a link (its
    target gets the new text); mode, owner, group and hard links are kept.
    With `inp` (the file as it was read), a file changed since is refused."""
    from .writing import replace

    replace(
        path,
        text.encode("utf-8"),
        inp.identity if inp is not None else None,
        inp.data if inp is not None else None,
        force,
    )
