"""relay-text: a toolchain for the Relay IR text format.

    relay_text.parse(text, prelude=True) -> Module   (raises RelayError on errors)
    relay_text.check(text) -> Checked                (diagnostics and global types)
    relay_text.format(text, dialect="keep", line_length=100) -> str
    relay_text.run(text, *args, entry="main") -> value (numpy arrays, tuples, Data, ...)

Submodules are imported lazily so that the command line starts fast.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .diagnostics import RelayError
    from .ir.module import Module
    from .pipeline import Checked


class _Package(types.ModuleType):
    """This package's module object: `relay_text.check` stays the function
    below when the checker package of the same name is imported (the import
    system binds a subpackage to its parent's attribute), and the checker
    learns then where the standard Prelude is. Importing the package itself
    loads neither, so that `relay fmt` starts without the checker."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "check" and isinstance(value, types.ModuleType):
            providers = value.PRELUDE_PROVIDER
            if not providers:
                providers.append(_prelude_module)
            return
        super().__setattr__(name, value)


def _prelude_module() -> Module:
    """The standard Prelude's module: what `check_module` checks a module
    using its names against (the checker does not import `std`: it sits
    downstream)."""
    from .std import prelude

    return prelude().module


sys.modules[__name__].__class__ = _Package

__all__ = ["Checked", "RelayError", "__version__", "check", "format", "parse", "run"]


def parse(text: str, name: str = "<string>", *, prelude: bool = True) -> Module:
    """Parse Relay text (documented syntax or TVM 0.0.4/0.0.5) into a Module.

    With `prelude` (the default) the names of the Prelude (`List`, `Cons`,
    `@map`, ...) are known, as they are to `relay check` and `relay run`;
    the module holds only the text's own definitions. Raises `RelayError`
    (with `.diagnostics`) if the text has syntax or name errors.
    """
    from .diagnostics import RelayError, has_errors
    from .ir.span import Source
    from .syntax.parser import parse_source

    env = None
    if prelude:
        from .std import prelude as load_prelude

        env = load_prelude().env()
    result = parse_source(Source(name, text), env)
    if result.module is None or has_errors(result.diagnostics):
        raise RelayError(result.diagnostics)
    return result.module


def check(text: str, name: str = "<string>", *, prelude: bool = True, warnings_as_errors: bool = False) -> Checked:
    """Parse and type-check Relay text, as `relay check` does; never raises
    for errors in the text.

    The result has `.diagnostics` (a list of `Diagnostic`: `.code`,
    `.severity`, `.message`, `.span`, `.notes`; `relay: ignore` comments
    honoured), `.ok` (no errors), `.errors` and `.warnings` (counts),
    `.global_types` (`{"@name": "fn(...) -> ..."}`, each global's most
    general type as text) and `.module` (None if the text did not parse).
    With `warnings_as_errors`, warnings are reported as errors.
    """
    from .ir.span import Source
    from .pipeline import check_source

    checked = check_source(Source(name, text), use_prelude=prelude)
    if warnings_as_errors:
        from .suppress import warnings_as_errors as promote

        checked.diagnostics = promote(checked.diagnostics)
    return checked


def format(text: str, *, dialect: str = "keep", line_length: int = 100) -> str:
    """Format Relay text: `dialect` is "keep" (each file's own), "docs" or "tvm".

    The result is checked (it parses to the same program with the same
    comments, and formatting it again changes nothing). Raises `RelayError`
    for input with errors or constructs the dialect cannot express.
    """
    from .formatter import format as _format

    return _format(text, dialect=dialect, line_length=line_length)


def run(
    source_or_module: str | Module,
    *args: Any,
    entry: str | None = None,
    max_depth: int | None = None,
    prelude: bool = True,
) -> Any:
    """Evaluate a Relay program and return its result.

    `source_or_module` is Relay text or a parsed `Module` (from `parse`);
    either is type-checked before it runs. The entry point is `entry` (a
    global such as "main" or "@main"); by default the program's trailing
    expression if it has one, else `@main`. `args` are the entry's
    arguments: numpy arrays, Python numbers or nested lists (converted to the
    parameter's dtype), tuples, or values returned by an earlier run.

    The result is a numpy array (a numpy scalar for a 0-d tensor), a tuple,
    `relay_text.eval.values.Data` for a constructor value, `Ref`, or a Python
    function for a closure; `relay_text.eval.values.to_python` turns it into
    plain Python data. Raises `RelayError` (with `.diagnostics`) if the
    program has errors or fails while running.
    """
    from .diagnostics import RelayError
    from .eval.entry import RunFailed, RunRequest, run_module
    from .eval.runtime import DEFAULT_MAX_DEPTH
    from .ir.span import Source
    from .pipeline import run_source

    request = RunRequest(entry=entry, values=tuple(args), max_depth=max_depth or DEFAULT_MAX_DEPTH, from_python=True)
    if isinstance(source_or_module, str):
        ran = run_source(Source("<string>", source_or_module), request, use_prelude=prelude)
        if not ran.ok:
            raise RelayError([d for d in ran.diagnostics if d.is_error])
        return ran.value
    from .check import check_module
    from .std import prelude as load_prelude

    std = load_prelude() if prelude else None
    checked = check_module(source_or_module, std.module if std else None)
    if not checked.ok:
        raise RelayError([d for d in checked.diagnostics if d.is_error])
    from .pipeline import _type_lookup

    try:
        return run_module(
            source_or_module,
            request,
            std.module if std else None,
            None,
            type_of=_type_lookup(checked, std.checked() if std else None),
            meta_types=checked.meta_types,
        ).value
    except RunFailed as exc:
        raise RelayError(exc.diagnostics) from None


def __getattr__(name: str) -> Any:
    if name == "RelayError":
        from .diagnostics import RelayError

        return RelayError
    if name == "Checked":
        from .pipeline import Checked

        return Checked
    raise AttributeError(name)
