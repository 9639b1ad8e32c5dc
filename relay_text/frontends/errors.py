"""The failure of an import: located diagnostics, raised by either frontend."""

from __future__ import annotations

from ..diagnostics import Diagnostic


class ImportFailure(Exception):
    """The model cannot be imported; `diagnostics` say why and where."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "import failed")
        self.diagnostics = diagnostics
