"""Settings from `[tool.relay]` in the nearest `pyproject.toml`.

    [tool.relay]
    line-length = 88
    dialect = "keep"

The nearest file is found by walking up from the common directory of the
paths given on the command line (the current directory for stdin), as black
does. Command-line options override it. Python 3.11+ reads the file with
`tomllib`; on 3.10 a small reader understands the flat `key = value` lines
such a table holds.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

SECTION = "tool.relay"


class ConfigError(Exception):
    """A pyproject.toml that cannot be read, or a bad value in `[tool.relay]`."""


def find_pyproject(paths: list[str]) -> Path | None:
    """The pyproject.toml nearest to the common directory of `paths`."""
    dirs = []
    for p in paths:
        if p == "-":
            dirs.append(os.getcwd())
            continue
        absolute = os.path.abspath(p)
        dirs.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    if not dirs:
        dirs = [os.getcwd()]
    try:
        base = Path(os.path.commonpath(dirs))
    except ValueError:  # paths on different drives
        base = Path(os.getcwd())
    for directory in (base, *base.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load(path: Path) -> dict[str, Any]:
    """The `[tool.relay]` table of a pyproject.toml (empty if it has none)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    try:
        import tomllib
    except ImportError:  # Python 3.10
        return _read_section(text, path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})") from None
    table = data.get("tool", {}).get("relay", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.relay] must be a table")
    return table


_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-\" ]+?)\s*\]\s*(?:#.*)?$")
_ENTRY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=\s*(.+?)\s*(?:#[^\"']*)?$")


def _read_section(text: str, path: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            inside = header.group(1).replace('"', "").replace(" ", "") == SECTION
            continue
        if not inside or not line.strip() or line.lstrip().startswith("#"):
            continue
        entry = _ENTRY.match(line)
        if entry is None:
            raise ConfigError(f"{path}:{number}: cannot read `{line.strip()}` in [tool.relay]")
        out[entry.group(1)] = _value(entry.group(2), path, number)
    return out


def _value(raw: str, path: Path, number: int) -> Any:
    if raw in ("true", "false"):
        return raw == "true"
    if re.fullmatch(r"[+-]?[0-9_]+", raw):
        return int(raw.replace("_", ""))
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    raise ConfigError(f"{path}:{number}: unsupported value `{raw}` in [tool.relay]")


def fmt_settings(table: dict[str, Any], path: Path) -> dict[str, Any]:
    """Validated `relay fmt` settings: `line_length` and `dialect`."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key == "line-length":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{path}: [tool.relay] line-length must be a positive integer, not {value!r}")
            out["line_length"] = value
        elif key == "dialect":
            if value not in ("keep", "docs", "tvm"):
                raise ConfigError(f'{path}: [tool.relay] dialect must be "keep", "docs" or "tvm", not {value!r}')
            out["dialect"] = value
    return out
