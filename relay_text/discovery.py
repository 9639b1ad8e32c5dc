"""Which files `relay check` and `relay fmt` work on.

A file named on the command line is taken as given (with `--force-exclude`
the rules below apply to it too, for tools such as pre-commit that name
every changed file). A directory is searched for `*.rly` and `*.relay`
files, leaving out:

* hidden directories (`.git`, `.venv`, ...);
* what `.gitignore` files ignore, as git reads them: those of the searched
  directories and of the directories above, up to the repository's root
  (the first holding `.git`; outside a repository, the project's: the
  directory of pyproject.toml, else the current one), a deeper file's
  patterns before a higher one's (`respect-gitignore = false` in
  `[tool.relay]` turns this off);
* paths matching the `exclude` patterns (by default `DEFAULT_EXCLUDE`) and
  the `extend-exclude` patterns: gitignore-style patterns (`tests/fixtures/`,
  `*.generated.rly`, `build`) relative to the directory of the
  pyproject.toml that sets them; `--exclude` (which replaces the setting)
  and `--extend-exclude` on the command line are relative to the current
  directory.

Patterns are read with `pathspec`; where it is missing, `.gitignore` files
are not read and exclude patterns match names and relative paths with
`fnmatch` (a warning says so).
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from .record import dataclass, field

DEFAULT_EXCLUDE = ("node_modules", "__pycache__", "build", "dist", "site-packages", "venv")


@dataclass
class Discovered:
    """The files to work on, in order, and what the rules left out."""

    files: list[str]
    excluded: list[str] = field(default_factory=list)  # directories and files left out of searches
    warnings: list[str] = field(default_factory=list)


class _Patterns:
    """Gitignore-style patterns anchored at a directory."""

    def __init__(self, anchor: Path, lines: Iterable[str]) -> None:
        self.anchor = anchor
        self.lines = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
        self._spec: Any = False  # compiled on first use: a command given files only never needs it

    @property
    def spec(self) -> Any:
        """The compiled patterns (None without `pathspec`)."""
        if self._spec is False:
            try:
                import pathspec
            except ImportError:  # pragma: no cover - pathspec is a dependency
                self._spec = None
            else:
                self._spec = pathspec.GitIgnoreSpec.from_lines(self.lines)
        return self._spec

    def relative(self, path: Path, is_dir: bool) -> str | None:
        try:
            rel = path.relative_to(self.anchor).as_posix()
        except ValueError:
            return None
        return rel + "/" if is_dir else rel

    def decide(self, path: Path, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a `!` pattern; None: no pattern matches."""
        rel = self.relative(path, is_dir)
        if rel is None:
            # Outside the anchor: patterns naming no directory still apply.
            rel = path.name + ("/" if is_dir else "")
        if self.spec is not None:
            result = self.spec.check_file(rel)
            include: bool | None = result.include
            return include
        name = rel.rstrip("/")
        for pattern in self.lines:
            bare = pattern.strip().rstrip("/").lstrip("/")
            if fnmatch.fnmatch(name, bare) or fnmatch.fnmatch(name.rsplit("/", 1)[-1], bare):
                return True
        return None


def _has_pathspec() -> bool:
    """Whether `pathspec` is installed (found, not imported: importing it
    costs a small command a noticeable part of its run)."""
    from importlib.util import find_spec

    return find_spec("pathspec") is not None


class Rules:
    """What a search leaves out (see the module's doc)."""

    def __init__(
        self,
        settings: Any,
        exclude: tuple[str, ...] = (),
        extend_exclude: tuple[str, ...] = (),
        cwd: Path | None = None,
    ) -> None:
        cwd = cwd or Path.cwd()
        root = settings.path.parent.resolve() if getattr(settings, "path", None) is not None else cwd.resolve()
        self.root = root
        self.patterns: list[_Patterns] = []
        if exclude:
            self.patterns.append(_Patterns(cwd.resolve(), exclude))
        else:
            self.patterns.append(_Patterns(root, settings.get("exclude", DEFAULT_EXCLUDE)))
        if settings.get("extend_exclude"):
            self.patterns.append(_Patterns(root, settings.get("extend_exclude")))
        if extend_exclude:
            self.patterns.append(_Patterns(cwd.resolve(), extend_exclude))
        self.gitignore = bool(settings.get("respect_gitignore", True))
        self.warnings: list[str] = []
        if not _has_pathspec():  # pragma: no cover - pathspec is a dependency
            if self.gitignore:
                self.warnings.append("the `pathspec` package is not installed: .gitignore files are not read")
            self.gitignore = False
        self._ignore_files: dict[Path, _Patterns | None] = {}
        self._git_roots: dict[Path, Path] = {}

    def excludes(self, path: str, is_dir: bool) -> bool:
        """Whether a search leaves `path` out."""
        absolute = Path(os.path.abspath(path))
        if any(p.decide(absolute, is_dir) for p in self.patterns):
            return True
        return self.gitignore and self._git_ignored(absolute, is_dir)

    def _git_ignored(self, path: Path, is_dir: bool) -> bool:
        top = self._git_root(path.parent)
        directory = path.parent
        while True:
            patterns = self._ignore_file(directory)
            if patterns is not None:
                decided = patterns.decide(path, is_dir)
                if decided is not None:
                    return decided
            if directory == top or directory.parent == directory:
                return False
            directory = directory.parent

    def _git_root(self, directory: Path) -> Path:
        """The highest directory whose .gitignore counts for `directory`:
        its repository's root; outside one, the project's root if it is
        above, else the directory itself."""
        found = self._git_roots.get(directory)
        if found is not None:
            return found
        for candidate in (directory, *directory.parents):
            if (candidate / ".git").exists():
                found = candidate
                break
        else:
            found = self.root if directory == self.root or self.root in directory.parents else directory
        self._git_roots[directory] = found
        return found

    def _ignore_file(self, directory: Path) -> _Patterns | None:
        if directory not in self._ignore_files:
            patterns = None
            try:
                text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = None
            if text is not None:
                patterns = _Patterns(directory, text.splitlines())
            self._ignore_files[directory] = patterns
        return self._ignore_files[directory]


def discover(paths: list[str], rules: Rules, force_exclude: bool = False) -> Discovered:
    """The files of `paths` (see the module's doc), in order."""
    from .files import STDIN, collect

    excluded: list[str] = []

    def keep(path: str, is_dir: bool) -> bool:
        if rules.excludes(path, is_dir):
            excluded.append(path)
            return False
        return True

    named = []
    for path in paths:
        if force_exclude and path != STDIN and rules.excludes(path, os.path.isdir(path)):
            excluded.append(path)
            continue
        named.append(path)
    files = collect(named, keep)
    return Discovered(files, excluded, list(rules.warnings))


def no_files_warning(paths: list[str], found: Discovered) -> str:
    """The warning when a command line names no Relay file at all."""
    where = ", ".join(paths)
    tail = ""
    if found.excluded:
        n = len(found.excluded)
        tail = f" ({n} path{'' if n == 1 else 's'} left out by .gitignore or exclude patterns)"
    return f"warning: no Relay files (*.rly, *.relay) found in {where}{tail}"
