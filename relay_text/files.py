"""Finding and reading the files a command works on."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

SUFFIXES = (".rly", ".relay")
STDIN = "-"


class InputError(Exception):
    """A path that cannot be read as Relay text (missing, unreadable, not UTF-8)."""


def collect(paths: list[str]) -> list[str]:
    """Files named on the command line; directories expand to their `*.rly`
    and `*.relay` files, recursively, skipping hidden directories. Order is
    stable (as given; sorted within a directory)."""
    out: list[str] = []
    seen: set[str] = set()
    for path in paths:
        if path == STDIN:
            out.append(path)
            continue
        if os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found.extend(os.path.join(root, f) for f in files if f.endswith(SUFFIXES))
            for f in sorted(found):
                if f not in seen:
                    seen.add(f)
                    out.append(f)
        elif path not in seen:
            seen.add(path)
            out.append(path)
    return out


@dataclass
class Input:
    name: str  # the path as given, or <stdin>
    text: str


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
    if text.startswith("\ufeff"):
        text = text[1:]
    return Input(name, text)
