"""The rewrites `relay run` applies to each function before compiling it.

They are passes of the registry (`relay_text/passes/`), each in its module,
applied here in this order to each top-level function, with the checker's
types (`relay run --no-opt` skips them):

* `FoldAffine` - batch norms and per-channel scales and shifts after a
  convolution or dense layer folded into its weights (float16 ones
  computed in float32 and rounded once at the chain's end, after a
  following relu);
* `FoldConstant` - calls of foldable operators (their properties say so)
  whose arguments are constants (literals, `meta[relay.Constant][i]` with
  their values, random constants once drawn, what was folded before)
  computed once, with the kernel the call site would use;
* `DenseWeightLayout` - constant dense weights laid out column-major.

Results stay within float rounding. The `Optimizer` is the environment the
passes see: node types (`passes._rewrite.Rewrite`), and the compiler's
kernels and constants. A folded value becomes a constant of the program
under an index no file uses (`meta[relay.Constant][2^40 + k]`). A rewritten
node keeps the span of the node it replaces (a runtime error is reported
there) and the type the checker gave it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir.expr import Call, Constant, Expr, Function, Op
from ..passes._rewrite import Rewrite
from ..passes.fold_constant import MISSING

if TYPE_CHECKING:
    from .compile import Compiler

# The passes `relay run` applies, in order.
PASSES = ("FoldAffine", "FoldConstant", "DenseWeightLayout")


def is_pure(name: str) -> bool:
    """Whether a call of the operator with constant arguments may be computed
    at compile time (its properties: not stateful, and computational or
    lowering to plain arithmetic)."""
    from ..ops import registry

    return registry.properties(name).foldable(fold_qnn=True)


class Optimizer(Rewrite):
    """Optimises the functions one compiler compiles."""

    def __init__(self, compiler: Compiler) -> None:
        super().__init__(compiler.checker_type_of)
        self.c = compiler
        self.next_meta = 1 << 40  # indices of folded constants (never in a file)

    def run(self, fn: Function) -> Function:
        if self.c.checker_type_of is None:
            return fn
        from ..passes import registry

        for name in PASSES:
            found = registry.get(name)
            assert found is not None and found.evaluator is not None, name
            fn = found.evaluator(fn, self, self)
        return fn

    # ---- values, for the passes (`passes.fold_constant.Values`) -------------

    def constant_value(self, node: Constant) -> Any:
        c = self.c
        if node.value is None and node.meta_index not in c.meta_values:
            return MISSING
        name = c.constant(node)
        if name == "None":
            return MISSING
        return c.ns[name]

    def evaluate(self, call: Call, args: list[Any]) -> Any:
        """The call's value with the kernel its call site binds, or MISSING."""
        import numpy as np

        c = self.c
        if type(call.op) is not Op:
            return MISSING
        try:
            names = c.operator_call(call.op, call)
        except Exception:
            return MISSING
        if names is None:
            c.diagnostics.pop()  # reported again when the call itself is compiled
            return MISSING
        kname, aname = names
        try:
            with np.errstate(all="ignore"):
                if aname is None:
                    out = c.ns[kname](*[a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args])
                else:
                    arrays = tuple(a if type(a) is tuple else np.asarray(a) for a in args)
                    out = c.ns[kname](arrays, c.ns[aname])
        except Exception:
            return MISSING
        if not _plain(out):
            return MISSING
        return out

    def constant(self, node: Expr, value: Any) -> Expr:
        import numpy as np

        if not isinstance(value, (np.ndarray, np.generic)):
            return node
        if isinstance(value, np.ndarray) and value.flags.writeable:
            value = value.view()
            value.flags.writeable = False
        index = self.next_meta
        self.next_meta += 1
        self.c.meta_values[index] = value
        const = Constant(None, value.dtype.name, tuple(value.shape), index, getattr(node, "span", None))
        ty = self.type_of(node)
        if ty is not None:
            self.types[const] = ty
        return const


def _plain(value: Any) -> bool:
    import numpy as np

    if type(value) is tuple:
        return all(_plain(v) for v in value)
    return isinstance(value, (np.ndarray, np.generic))
