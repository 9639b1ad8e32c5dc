"""The failure of an import: located diagnostics, raised by either frontend."""

from __future__ import annotations

from ..diagnostics import Diagnostic


class ImportFailure(Exception):
    """The model cannot be imported; `diagnostics` say why and where.
    `usage` marks a mistake in the options (an `--input-shape` that does not
    fit the model) rather than in the model."""

    def __init__(self, diagnostics: list[Diagnostic], usage: bool = False) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "import failed")
        self.diagnostics = diagnostics
        self.usage = usage
