"""Settings from `[tool.relay]` in the nearest `pyproject.toml`.

    [tool.relay]
    line-length = 88            # relay fmt
    dialect = "keep"            # relay fmt: keep, docs or tvm
    warnings-as-errors = true   # relay check, relay run
    color = "auto"              # every command: auto, always or never
    max-depth = 100000          # relay run
    max-memory = "2G"           # relay run (a size, or a number of bytes)
    max-output = "64M"          # relay run (default: 64M on a terminal only)
    timeout = 60                # relay run: seconds
    jobs = 4                    # relay check, relay fmt: processes ("auto" by default)
    exclude = ["build"]         # relay check, relay fmt: patterns left out of searches (discovery.py)
    extend-exclude = ["tests/fixtures/"]  # ... in addition to `exclude`
    respect-gitignore = true    # relay check, relay fmt: leave out what .gitignore files ignore
    ignore = ["unused-binding"] # warnings no command reports

The nearest file is found by walking up from the common directory of the
paths given on the command line (the current directory for stdin), as black
does. Command-line options override it. The file is read with `tomllib`
(`tomli` on Python 3.10). A key this table does not know gets a warning
naming the closest known key; a known key with a bad value is an error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from .record import dataclass, field

SECTION = "tool.relay"


class ConfigError(Exception):
    """A pyproject.toml that cannot be read, or a bad value in `[tool.relay]`."""


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _size(value: Any) -> bool:
    """`"512M"`, `"2G"`, or a number of bytes."""
    from .limits import parse_bytes

    if isinstance(value, str):
        try:
            parse_bytes(value)
        except ValueError:
            return False
        return True
    return _positive_int(value)


def size_value(value: Any) -> int:
    """Bytes of a validated size setting."""
    from .limits import parse_bytes

    return value if isinstance(value, int) else parse_bytes(value)


def _seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < float("inf")


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _choice(*allowed: str) -> Callable[[Any], bool]:
    return lambda value: value in allowed


# key -> (setting name, validator, what a valid value is, the commands it applies to)
KEYS: dict[str, tuple[str, Callable[[Any], bool], str, str]] = {
    "line-length": ("line_length", _positive_int, "a positive integer", "fmt"),
    "dialect": ("dialect", _choice("keep", "docs", "tvm"), '"keep", "docs" or "tvm"', "fmt"),
    "warnings-as-errors": ("warnings_as_errors", lambda v: isinstance(v, bool), "true or false", "check, run"),
    "color": ("color", _choice("auto", "always", "never"), '"auto", "always" or "never"', "check, fmt, run"),
    "max-depth": ("max_depth", _positive_int, "a positive integer", "run"),
    "max-memory": ("max_memory", _size, 'a size such as "512M" or "2G", or a positive number of bytes', "run"),
    "max-output": ("max_output", _size, 'a size such as "64M" or "1G", or a positive number of bytes', "run"),
    "timeout": ("timeout", _seconds, "a positive number of seconds", "run"),
    "jobs": ("jobs", lambda v: v == "auto" or _positive_int(v), 'a positive integer or "auto"', "check, fmt"),
    "exclude": ("exclude", _strings, "a list of patterns (strings)", "check, fmt"),
    "extend-exclude": ("extend_exclude", _strings, "a list of patterns (strings)", "check, fmt"),
    "respect-gitignore": ("respect_gitignore", lambda v: isinstance(v, bool), "true or false", "check, fmt"),
    "ignore": ("ignore", _strings, "a list of diagnostic codes (strings)", "check, run"),
}


@dataclass
class Settings:
    """The validated `[tool.relay]` table: `values` maps setting names
    (`line_length`, ...) to values; `warnings` are messages about keys that
    were ignored."""

    path: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)


def find_pyproject(paths: list[str]) -> Path | None:
    """The pyproject.toml nearest to the common directory of `paths`."""
    try:
        cwd = os.getcwd()
    except OSError:  # the current directory was removed, or cannot be read
        cwd = None
    dirs = []
    for p in paths:
        if p == "-":
            if cwd is not None:
                dirs.append(cwd)
            continue
        if cwd is None and not os.path.isabs(p):
            continue
        absolute = os.path.abspath(p)
        dirs.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    if not dirs:
        if cwd is None:
            return None
        dirs = [cwd]
    try:
        base = Path(os.path.commonpath(dirs))
    except ValueError:  # paths on different drives
        if cwd is None:
            return None
        base = Path(cwd)
    for directory in (base, *base.parents):
        candidate = directory / "pyproject.toml"
        try:
            if candidate.is_file():
                return candidate
        except OSError:  # a directory the user may not search: as if it had none
            continue
    return None


def load(path: Path) -> dict[str, Any]:
    """The `[tool.relay]` table of a pyproject.toml (empty if it has none)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found]  # a dependency on Python 3.10 only

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})") from None
    tool = data.get("tool", {})
    table = tool.get("relay", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.relay] must be a table")
    return table


def validate(table: dict[str, Any], path: Path) -> Settings:
    """Check every key of a `[tool.relay]` table: a known key with a bad value
    raises ConfigError; an unknown key is left out with a warning naming the
    closest known key."""
    from .text.suggest import close_names

    settings = Settings(path)
    for key, value in table.items():
        known = KEYS.get(key)
        if known is None:
            guesses = close_names(key.replace("_", "-"), KEYS) or close_names(key, KEYS)
            if key.replace("_", "-") in KEYS:
                guesses = [key.replace("_", "-")]
            hint = (
                f"; did you mean `{guesses[0]}`?"
                if guesses
                else f"; the known keys are {', '.join(f'`{k}`' for k in KEYS)}"
            )
            settings.warnings.append(f"{path}: unknown key `{key}` in [tool.relay] (ignored){hint}")
            continue
        name, valid, wanted, _ = known
        if not valid(value):
            raise ConfigError(f"{path}: [tool.relay] {key} must be {wanted}, not {_toml_text(value)}")
        settings.values[name] = value
    return settings


def settings_for(paths: list[str]) -> Settings:
    """The validated `[tool.relay]` settings of the pyproject.toml nearest to
    `paths` (empty settings if there is none). Raises ConfigError."""
    pyproject = find_pyproject(paths)
    if pyproject is None:
        return Settings()
    return validate(load(pyproject), pyproject)


def fmt_settings(table: dict[str, Any], path: Path) -> dict[str, Any]:
    """Validated `relay fmt` settings: `line_length` and `dialect` (kept for
    callers of earlier releases; `validate` covers every command)."""
    values = validate(table, path).values
    return {k: v for k, v in values.items() if k in ("line_length", "dialect")}


def _toml_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)
