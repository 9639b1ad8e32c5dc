"""What a run of passes shares: the Prelude, types, constants' values.

* `check(module)` type-checks a module (once per module object) against the
  Prelude; a pass that needs types (`InferType`, `SimplifyInference`, ...)
  asks for them here, after the passes before it changed the program.
* `constants` holds the values of `meta[relay.Constant][i]`: those of the
  file's `#[metadata]` section, decoded when first needed, and the tensors
  that passes computed (`FoldConstant`), each given the next free index.
  `output` writes the new ones into the section of the printed module.

A failure that a pass detects in the program (an operator it cannot
differentiate, a shape it needs and the checker could not infer) is a
`PassFailed` carrying a located diagnostic.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic, codes
from ..ir.expr import Constant, Expr
from ..ir.module import Module
from ..ir.span import Span
from ..ir.visitor import post_order


class PassFailed(Exception):
    """A pass cannot transform this program; `diagnostic` says where and why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def failed(message: str, span: Span | None = None, label: str = "", note: str = "") -> PassFailed:
    diag = Diagnostic(codes.PASS_FAILED, message, span, label=label)
    if note:
        diag.with_note(note)
    return PassFailed(diag)


class PassContext:
    """State shared by the passes of one run (see the module docstring)."""

    def __init__(self, prelude: Module | None = None, pass_name: str = "") -> None:
        self.prelude = prelude
        self.pass_name = pass_name  # the pass running now, for messages
        self._checked: dict[int, tuple[Module, Any]] = {}
        self.constants = ConstantTable()
        self.type_comments = False  # write `/* ty=... */` after each expression (InferType{comments})
        self.entry: str | None = None  # `relay opt --entry @f`: the function `gradient` differentiates
        self.warnings: list[Diagnostic] = []  # what passes report without failing

    def warn(self, message: str, span: Span | None = None) -> None:
        self.warnings.append(Diagnostic(codes.PASS_WARNING, message, span, severity=codes.WARNING))

    # ---- types ---------------------------------------------------------------

    def check(self, module: Module) -> Any:
        """The checker's result for `module` (a `CheckResult`); PassFailed
        when the module does not type-check."""
        cached = self._checked.get(id(module))
        if cached is not None and cached[0] is module:
            return cached[1]
        from ..check import check_module

        self.constants.attach(module)
        result = check_module(module, self.prelude)
        errors = [d for d in result.diagnostics if d.is_error]
        if errors:
            first = errors[0]
            where = f"after `{self.pass_name}`" if self.pass_name else "before the passes ran"
            diag = Diagnostic(
                codes.PASS_FAILED,
                f"the program does not type-check {where}: {first.message}",
                first.span,
                label=first.label or "here",
            )
            for note in first.notes:
                diag.with_note(note)
            raise PassFailed(diag)
        self._checked[id(module)] = (module, result)
        return result

    def types(self, module: Module) -> dict[Expr, Any]:
        """Every node's type in a checked `module` (see `check`)."""
        table: dict[Expr, Any] = self.check(module).types
        return table


class ConstantTable:
    """Values of `meta[relay.Constant][i]`: the file's and those passes made."""

    def __init__(self) -> None:
        self.values: dict[int, Any] = {}  # index -> numpy array
        self.added: set[int] = set()  # indices made by passes
        self.section_size = 0  # entries of the file's section
        self.highest = -1  # the highest index in use (the program's, or added)
        self.unknown = False  # the program names an entry that has no data
        self._metadata: Any = None  # the section decoded so far (a Metadata object)
        self._table: Any = None
        self.produced: list[Any] = []  # sections written by passes (holding the file's entries and the added ones)
        self.file_metadata: Any = None  # the file's own section

    def attach(self, module: Module) -> None:
        """Take note of a module's section and of the indices it names."""
        if (
            module.metadata is not None
            and module.metadata is not self._metadata
            and not any(module.metadata is m for m in self.produced)
        ):
            self._metadata = module.metadata
            self.file_metadata = module.metadata
            table, _problems = module.metadata.decoded()
            self._table = table
            if table is not None:
                self.section_size = max(self.section_size, table.kinds.get("relay.Constant", 0))
        for root in _roots(module):
            for node in post_order(root):
                if type(node) is Constant and node.meta_index is not None:
                    self.highest = max(self.highest, node.meta_index)
                    if node.meta_index >= self.section_size and node.meta_index not in self.added:
                        self.unknown = True

    def value(self, node: Constant) -> Any:
        """The numpy value of a constant (a literal, `Constant(v, shape,
        dtype)`, a metadata entry with data), or None."""
        import numpy as np

        if node.meta_index is None:
            if node.value is None or node.dtype is None:
                return None
            from ._numeric import numpy_dtype

            dtype = numpy_dtype(node.dtype)
            if dtype is None:  # a dtype numpy cannot hold (int4, float8): not foldable
                return None
            if node.shape:
                value = np.full(node.shape, node.value, dtype=dtype)
                value.flags.writeable = False
                return value
            return np.asarray(node.value, dtype=dtype)
        index = node.meta_index
        if index in self.values:
            return self.values[index]
        table = self._table
        if table is None or not 0 <= index < len(table.constants) or table.constants[index] is None:
            return None
        try:
            array = table.constants[index].array()
        except ImportError:  # bfloat16 without ml_dtypes
            return None
        self.values[index] = array
        return array

    def can_add(self) -> bool:
        """Whether new constants can be written into the output's section:
        every index below them must have data (a dump without a section,
        whose constants have no values, cannot gain a section)."""
        return not self.unknown

    def add(self, array: Any) -> int:
        """A new entry for `array`; its index."""
        index = max(self.highest, self.section_size - 1, max(self.values, default=-1)) + 1
        self.values[index] = array
        self.added.add(index)
        self.highest = index
        return index

    def table(self) -> Any:
        return self._table


def _roots(module: Module) -> list[Expr]:
    roots: list[Expr] = [module.functions[g] for g in module.order if g in module.functions]
    if module.expr is not None:
        roots.append(module.expr)
    return roots


def roots(module: Module) -> list[Expr]:
    """The functions of a module in source order, then its trailing expression."""
    return _roots(module)
