"""A module: global functions, ADT definitions and an optional trailing expression."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias
from collections.abc import Callable

from .adt import TypeData
from .expr import Constructor, Expr, Function, GlobalVar, Var
from .positions import Positions
from .span import Source, Span
from .ty import GlobalTypeVar

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass, field


@dataclass(eq=False, slots=True)
class Comment:
    """A comment and where it stands; `text` includes its delimiters."""

    text: str
    span: Span


@dataclass(eq=False, slots=True)
class Metadata:
    """The `#[metadata]` section of a TVM file, kept as its raw JSON text.

    `decoded()` gives the table the section holds (constants, attributes,
    devices) and the problems found in it, decoded once, when first asked
    for, by the decoder the parser attached (`relay_text.syntax.metadata`)."""

    text: str
    span: Span
    decoder: Callable[[Metadata], tuple[Any, list[Any]]] | None = field(default=None, repr=False)
    _decoded: tuple[Any, list[Any]] | None = field(default=None, repr=False)

    def decoded(self) -> tuple[Any, list[Any]]:
        """(the table or None when the section is unusable, its `bad-metadata` diagnostics)."""
        if self._decoded is None:
            self._decoded = self.decoder(self) if self.decoder is not None else (None, [])
        return self._decoded[0], list(self._decoded[1])

    @property
    def header(self) -> str:
        """How the section is introduced: `#[metadata]`, or `METADATA:` in v0.0.4."""
        return "METADATA:" if self.span.text.startswith("METADATA:") else "#[metadata]"


Definition: TypeAlias = GlobalVar | GlobalTypeVar


@dataclass(eq=False, slots=True)
class Module:
    """What one file defines.

    `functions` and `type_defs` keep source order; `order` interleaves the
    two as they were written. `expr` is the file's trailing top-level
    expression, if any, and `free_vars` the variables it declares with
    `free_var`. `version` is the version header (`"0.0.5"`, `"0.0.4"`) or
    None for the documented syntax; `header` is where the header stands
    (comments may precede it).
    """

    functions: dict[GlobalVar, Function] = field(default_factory=dict)
    type_defs: dict[GlobalTypeVar, TypeData] = field(default_factory=dict)
    order: list[Definition] = field(default_factory=list)
    expr: Expr | None = None
    free_vars: tuple[Var, ...] = ()
    version: str | None = None
    header: Span | None = None
    metadata: Metadata | None = None
    comments: list[Comment] = field(default_factory=list)
    source: Source | None = None
    # Where shared nodes are used, and other positions diagnostics need.
    positions: Positions = field(default_factory=Positions)

    def written_at(self, parent: Expr, index: int) -> Span | None:
        """Where child `index` (in `visitor.children` order) of `parent` is written."""
        span = self.positions.use(parent, index)
        if span is not None:
            return span
        from .schema import children

        return getattr(children(parent)[index], "span", None)

    def global_var(self, name: str) -> GlobalVar | None:
        """The global called `name` (without `@`), if this module defines it."""
        for gv in self.functions:
            if gv.name == name:
                return gv
        return None

    def type_def(self, name: str) -> TypeData | None:
        for gtv, data in self.type_defs.items():
            if gtv.name == name:
                return data
        return None

    def __str__(self) -> str:
        """The module as text, in its own dialect (comments of its source are not included)."""
        from ..printer.render import print_module

        return print_module(self)

    def _repr_html_(self) -> str:
        """The module's dataflow graph in the `relay viz` viewer, for notebooks
        (Jupyter, VS Code): checked against the Prelude, drawn even where
        checking finds errors (types are then missing where unknown)."""
        from ..viz import module_html

        return module_html(self)

    def _repr_svg_(self) -> str:
        """The module's dataflow graph as a static SVG picture."""
        from ..viz import module_svg

        return module_svg(self)

    def constructors(self) -> dict[str, Constructor]:
        return {c.name: c for data in self.type_defs.values() for c in data.constructors}
