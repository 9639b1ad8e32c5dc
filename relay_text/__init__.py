"""relay-text: a toolchain for the Relay IR text format.

    relay_text.parse(text)   -> Module      (raises RelayError on syntax errors)
    relay_text.format(text, dialect="keep", line_length=100) -> str

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


def __getattr__(name: str) -> Any:
    if name == "RelayError":
        from .diagnostics import RelayError

        return RelayError
    raise AttributeError(name)
