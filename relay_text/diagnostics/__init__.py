"""Diagnostics as data: a record with a stable code, a span and notes.

Rendering (text like rustc, or JSON) lives in `render`; this module only
defines the record, so every stage can produce diagnostics cheaply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.span import Span
from .codes import ERROR, REGISTRY, WARNING, Code

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import
    from ..record import dataclass, field


@dataclass(slots=True)
class Label:
    """A secondary location shown with a message (`- unclosed '(' here`)."""

    span: Span
    message: str = ""


@dataclass(slots=True)
class Edit:
    """Replace the text of `span` with `text` (insert it, for an empty span)."""

    span: Span
    text: str


SAFE, UNSAFE = "safe", "unsafe"


@dataclass(slots=True)
class Fix:
    """The change a help line names, as edits a tool can apply.

    `message` is the help line itself. A `safe` fix is what the text can
    only have meant (a sigil left out, `=` for `==`, a `;` missing):
    `relay check --fix` applies it. An `unsafe` one is a guess among close
    names (`did you mean `%x`?`): shown and offered to editors, applied only
    with `--unsafe-fixes`. A help naming several candidates has one unsafe
    fix for each."""

    message: str
    edits: list[Edit]
    applicability: str = SAFE

    @property
    def safe(self) -> bool:
        return self.applicability == SAFE


@dataclass(slots=True)
class Diagnostic:
    """One error or warning: its code, message and span, with labels, notes and help lines."""

    code: Code  # a registered code (`relay_text.diagnostics.codes`)
    message: str
    span: Span | None
    severity: str = ""  # the code's (`Code.severity`); stated only for a code's documented warning case
    label: str = ""  # text printed beside the primary carets
    labels: list[Label] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    helps: list[str] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)  # machine-applicable forms of helps
    promoted: bool = field(default=False, compare=False)  # a warning counted as an error (`as_error`)

    def __post_init__(self) -> None:
        code = REGISTRY.get(self.code)
        if code is None:
            raise ValueError(f"unregistered diagnostic code {self.code!r}")
        self.code = code
        if not self.severity:
            self.severity = code.severity
        elif not (code.allows(self.severity) or (self.promoted and self.severity == ERROR)):
            raise ValueError(
                f"diagnostic code {str(code)!r} is registered as {code.severity!r}, not {self.severity!r}: "
                "its severity is stated in relay_text/diagnostics/codes.py only"
            )

    def as_error(self, note: str) -> Diagnostic:
        """This diagnostic counted as an error (a promoted warning), with `note` saying why."""
        if self.is_error:
            return self
        from dataclasses import replace

        return replace(self, severity=ERROR, notes=[*self.notes, note], promoted=True)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def with_note(self, note: str) -> Diagnostic:
        self.notes.append(note)
        return self

    def with_help(self, text: str) -> Diagnostic:
        self.helps.append(text)
        return self

    def with_fix(self, text: str, span: Span | None, replacement: str, safe: bool = True) -> Diagnostic:
        """A help line that names a replacement, with its edit: the text of
        `span` becomes `replacement` (no edit without a span)."""
        self.helps.append(text)
        if span is not None:
            self.fixes.append(Fix(text, [Edit(span, replacement)], SAFE if safe else UNSAFE))
        return self

    def with_choices(self, text: str, span: Span | None, replacements: list[str]) -> Diagnostic:
        """A "did you mean ...?" help naming close candidates: one unsafe fix
        for each (the help line is given once)."""
        self.helps.append(text)
        if span is not None:
            self.fixes.extend(Fix(f"replace with `{r}`", [Edit(span, r)], UNSAFE) for r in replacements)
        return self

    def with_label(self, span: Span, message: str = "") -> Diagnostic:
        self.labels.append(Label(span, message))
        return self

    def location(self) -> tuple[str, int, int, int, int]:
        """File, start line/column and end line/column (inclusive, 1-based)."""
        if self.span is None:
            return "<unknown>", 0, 0, 0, 0
        line, col = self.span.start_line_col
        end_line, end_col = self.span.end_line_col
        return self.span.source.name, line, col, end_line, end_col

    def __str__(self) -> str:
        name, line, col, _, _ = self.location()
        return f"{name}:{line}:{col}: {self.severity}[{self.code}]: {self.message}"


class RelayError(Exception):
    """Raised by the Python API when input has errors; carries the diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        first = next((d for d in diagnostics if d.is_error), diagnostics[0] if diagnostics else None)
        super().__init__(str(first) if first else "error")


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


def sort_key(d: Diagnostic) -> tuple[str, int]:
    if d.span is None:
        return ("", 0)
    return (d.span.source.name, d.span.start)


__all__ = [
    "CODES",
    "ERROR",
    "SAFE",
    "UNSAFE",
    "WARNING",
    "Diagnostic",
    "Edit",
    "Fix",
    "Label",
    "RelayError",
    "has_errors",
    "sort_key",
]
