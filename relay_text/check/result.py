"""What the type checker hands to later stages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic
from ..ir.expr import Call, Constructor, Expr, GlobalVar
from ..ir.module import Module
from ..ir.ty import FuncType, GlobalTypeVar, Type

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass, field


@dataclass
class CheckResult:
    """Types for a checked module.

    * `types` maps every expression node (identity-keyed: a `Var` is its
      binder and every use, so this also gives each parameter, let-bound and
      pattern variable its type) to its type. A global's entry is its
      generalized type; an operator node's entry is the function type of that
      one call (argument types to result).
    * `global_types` maps each global of the module to its type, generalized
      (`fn<a>(List[a]) -> Tensor[(), int32]`).
    * `type_args` maps a call of a polymorphic function (or constructor) to
      the type arguments it was instantiated with, in parameter order.
    * `constructor_types` gives each constructor's type
      (`fn<a>(a, List[a]) -> List[a]`).
    * `meta_types` gives the type inferred for each `meta[relay.Constant][i]`.
    * `expr_type` is the type of the module's trailing expression, if any.

    A type that could not be inferred keeps `IncompleteType` holes (printed
    `_`); that case is always accompanied by an error in `diagnostics`.
    """

    module: Module
    types: dict[Expr, Any] = field(default_factory=dict)
    global_types: dict[GlobalVar, FuncType | Any] = field(default_factory=dict)
    type_args: dict[Call, tuple[Any, ...]] = field(default_factory=dict)
    constructor_types: dict[Constructor, FuncType] = field(default_factory=dict)
    meta_types: dict[int, Type] = field(default_factory=dict)
    expr_type: Any = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    dialect: str = "docs"
    # For checking programs that use this module's definitions (a prelude):
    schemes: dict[int, tuple[Any, ...]] = field(default_factory=dict, repr=False)
    type_data: dict[GlobalTypeVar, Any] = field(default_factory=dict, repr=False)
    functions: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    # name -> the first global of that name, and how many globals it was made from
    _by_name: dict[str, GlobalVar] | None = field(default=None, init=False, repr=False, compare=False)
    _indexed: int = field(default=-1, init=False, repr=False, compare=False)

    def global_type(self, name: str) -> Any:
        """The type of the global called `name` (`"main"` or `"@main"`), or None (a
        dictionary look-up: an outline of 80,000 globals asks for each)."""
        if self._by_name is None or self._indexed != len(self.global_types):
            index: dict[str, GlobalVar] = {}
            for gv in self.global_types:
                index.setdefault(gv.name, gv)
            self._by_name, self._indexed = index, len(self.global_types)
        found = self._by_name.get(name[1:] if name.startswith("@") else name)
        return None if found is None else self.global_types.get(found)

    def type_of(self, node: Expr) -> Any:
        return self.types.get(node)

    def signature(self, name: str, dialect: str = "docs") -> str | None:
        """A global's type as text, e.g. `fn(Tensor[(), int32]) -> Tensor[(), int32]`
        (`name` is `"f"` or `"@f"`)."""
        from ..text.type_text import type_text

        ty = self.global_type(name)
        return None if ty is None else type_text(ty, dialect)
