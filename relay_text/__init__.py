"""relay-text: a toolchain for the Relay IR text format.

    relay_text.parse(text)   -> Module      (raises RelayError on syntax errors)
    relay_text.format(text, dialect="keep", line_length=100) -> str
    relay_text.run(text, *args, entry="main") -> value (numpy arrays, tuples, Data, ...)

Submodules are imported lazily so that the command line starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .ir.module import Module


def parse(text: str, name: str = "<string>") -> "Module":
    """Parse Relay text (documented syntax or TVM 0.0.4/0.0.5) into a Module.

    Raises `RelayError` (with `.diagnostics`) if the text has errors.
    """
    from .diagnostics import RelayError, has_errors
    from .syntax.parser import parse as _parse

    result = _parse(text, name)
    if result.module is None or has_errors(result.diagnostics):
        raise RelayError(result.diagnostics)
    return result.module


def format(text: str, *, dialect: str = "keep", line_length: int = 100) -> str:  # noqa: A001
    """Format Relay text: `dialect` is "keep" (each file's own), "docs" or "tvm".

    The result is checked (it parses to the same program with the same
    comments, and formatting it again changes nothing). Raises `RelayError`
    for input with errors or constructs the dialect cannot express.
    """
    from .formatter import format as _format

    return _format(text, dialect=dialect, line_length=line_length)


def run(source_or_module: "str | Module", *args: Any, entry: str | None = None, max_depth: int | None = None, prelude: bool = True) -> Any:
    """Evaluate a Relay program and return its result.

    `source_or_module` is Relay text or a parsed `Module` (parsed with
    `relay_text.std.prelude().env()` if it uses the Prelude); either is
    type-checked before it runs. The entry point is
    `entry` (a global such as "main" or "@main"); by default the program's
    trailing expression if it has one, else `@main`. `args` are the entry's
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

    request = RunRequest(entry=entry, values=tuple(args), max_depth=max_depth or DEFAULT_MAX_DEPTH)
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
    raise AttributeError(name)
