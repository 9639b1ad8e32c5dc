"""`SimplifyExpr`: TVM's algebraic simplifications, applied to a fixed point.

Each rule matches a call and its arguments (`add` and `multiply` either way
round, as TVM's pattern matcher does) and rewrites it:

* `zeros_like`, `ones_like`, `full_like`, `reshape_like`,
  `broadcast_to_like`, `collapse_sum_like` and `cast_like` of a tensor of
  known shape become `zeros`, `ones`, `full`, `reshape`, `broadcast_to`,
  `collapse_sum_to` and `cast` with that shape or dtype;
* `add(x, x)` becomes `multiply(x, 2)`; `x / sqrt(y)` becomes `x * rsqrt(y)`;
* `x + 0`, `x - 0`, `x * 1`, `x / 1` (a scalar constant, `zeros`, `ones`,
  `zeros_like`, `ones_like`) become `x` when that keeps the result's type;
* `reshape(reshape(x))` becomes one reshape; `transpose(transpose(x))` one
  transpose; a transpose that keeps the axes in order goes;
* `cast(x)` to `x`'s own dtype goes; `cast(cast(x))` whose first cast only
  widens becomes one cast; `clip(x)` whose bounds cover the dtype goes;
* a broadcasting operator one of whose arguments is `full`, `ones` or
  `zeros` (or their `_like`) of a scalar uses that scalar, when the other
  argument already has the result's type;
* `(x + c1) * c2` becomes `x * c2 + c1 * c2`; `(x * c1) * c2` becomes
  `x * (c1 * c2)` and `(x + c1) + c2` becomes `x + (c1 + c2)`, for
  constants `c1`, `c2` (their product or sum computed).

Rules of TVM's pass not done here: `SimplifyClipAndConsecutiveCast`,
`SimplifyBinomial`, the quantized `SimplifyDQArgMax/Min/Sort`, and
transposes through rank-changing `layout_transform`s.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, Op
from ..ir.module import Module
from ..ir.ty import TensorType
from ..ir.visitor import ExprMutator
from ._module import call, map_functions, scalar, static_shape
from .context import PassContext
from .registry import register

ROUNDS = 16


@register(
    "SimplifyExpr",
    "Apply TVM's algebraic simplifications (identities, reshape/transpose/cast chains, *_like ops) to a fixed point",
)
def simplify_expr(module: Module, ctx: PassContext) -> Module:
    for _ in range(ROUNDS):
        types = ctx.types(module)
        rewriter = _Rewriter(ctx, types)

        def convert(gv: GlobalVar | None, fn: Function, rewriter: _Rewriter = rewriter) -> Function:
            new = rewriter.visit(fn)
            assert type(new) is Function  # a rebuilt function is a function
            return new

        new = map_functions(module, convert)
        if new is module:
            return module
        module = new
        ctx.check(module)
    return module


def _name(node: Any) -> str | None:
    return node.op.name if type(node) is Call and type(node.op) is Op else None


def _scalar_value(node: Any, ctx: PassContext) -> float | None:
    if type(node) is not Constant or not node.is_scalar or node.value is None:
        value = ctx.constants.value(node) if type(node) is Constant else None
        if value is None or getattr(value, "ndim", 1) != 0:
            return None
        return float(value)
    return float(node.value)


Rule = Callable[["_Rewriter", Call], "Expr | None"]


class _Rewriter(ExprMutator):
    def __init__(self, ctx: PassContext, types: dict[Expr, Any]) -> None:
        super().__init__()
        self.ctx = ctx
        self.types = types

    def visit_call(self, node: Call) -> Expr:
        new = super().visit_call(node)
        if type(new) is not Call:
            return new
        for rule in RULES:
            out = rule(self, node)
            if out is not None:
                return out
        return new

    def m(self, node: Expr) -> Expr:
        """The rebuilt form of an original node."""
        return self.memo.get(node, node)

    def tensor(self, node: Expr) -> TensorType | None:
        ty = self.types.get(node)
        return ty if isinstance(ty, TensorType) and isinstance(ty.dtype, str) else None

    def fold(self, name: str, a: Expr, b: Expr) -> Expr:
        from .fold_constant import _Folder

        return _Folder(self.ctx, {}, False).visit(call(name, a, b))


# ---------------------------------------------------------------- the rules


def _concretize(rw: _Rewriter, node: Call) -> Expr | None:
    name = _name(node)
    if name not in (
        "zeros_like",
        "ones_like",
        "full_like",
        "reshape_like",
        "broadcast_to_like",
        "collapse_sum_like",
        "cast_like",
    ):
        return None
    ty = rw.tensor(node)
    if ty is None:
        return None
    if name == "cast_like":
        return call("cast", rw.m(node.args[0]), attrs=(("dtype", ty.dtype),))
    shape = static_shape(ty)
    if shape is None:
        return None
    if name == "zeros_like":
        return call("zeros", attrs=(("shape", shape), ("dtype", ty.dtype)))
    if name == "ones_like":
        return call("ones", attrs=(("shape", shape), ("dtype", ty.dtype)))
    if name == "full_like":
        return call("full", rw.m(node.args[1]), attrs=(("shape", shape), ("dtype", ty.dtype)))
    if name == "reshape_like":
        return call("reshape", rw.m(node.args[0]), attrs=(("newshape", shape),))
    if name == "broadcast_to_like":
        return call("broadcast_to", rw.m(node.args[0]), attrs=(("shape", shape),))
    # collapse_sum_like: the target shape as an int32 tensor, as TVM writes it
    import numpy as np

    from .fold_constant import _Folder

    target = _Folder(rw.ctx, {}, False)._constant(np.asarray(shape, np.int32), node)
    if target is None:
        return None
    return call("collapse_sum_to", rw.m(node.args[0]), target, attrs=(("shape", shape),))


def _add_self(rw: _Rewriter, node: Call) -> Expr | None:
    if _name(node) != "add" or node.args[0] is not node.args[1]:
        return None
    ty = rw.tensor(node)
    if ty is None:
        return None
    return call("multiply", rw.m(node.args[0]), scalar(2, str(ty.dtype)))


def _rsqrt(rw: _Rewriter, node: Call) -> Expr | None:
    if _name(node) != "divide" or _name(node.args[1]) != "sqrt":
        return None
    root = node.args[1]
    return call("multiply", rw.m(node.args[0]), call("rsqrt", rw.m(root.args[0])))  # type: ignore[attr-defined]  # a call, tested by _name


def _identity(rw: _Rewriter, node: Call) -> Expr | None:
    name = _name(node)
    if name not in ("add", "multiply", "subtract", "divide"):
        return None
    zero = name in ("add", "subtract")
    sides = [(0, 1), (1, 0)] if name in ("add", "multiply") else [(0, 1)]
    result = rw.tensor(node)
    for keep, drop in sides:
        other = node.args[drop]
        if not _neutral(rw, other, zero):
            continue
        if result is not None and rw.tensor(node.args[keep]) == result:
            return rw.m(node.args[keep])
    return None


def _neutral(rw: _Rewriter, node: Expr, zero: bool) -> bool:
    name = _name(node)
    if name in (("zeros", "zeros_like") if zero else ("ones", "ones_like")):
        return True
    value = _scalar_value(node, rw.ctx)
    return value is not None and value == (0.0 if zero else 1.0)


def _reshape(rw: _Rewriter, node: Call) -> Expr | None:
    kinds = ("reshape", "contrib_reverse_reshape")
    if _name(node) not in kinds or _name(node.args[0]) not in kinds:
        return None
    shape = static_shape(rw.types.get(node))
    if shape is None:
        return None
    inner = node.args[0]
    return call("reshape", rw.m(inner.args[0]), attrs=(("newshape", shape),))  # type: ignore[attr-defined]  # a call, tested by _name


def _axes(rw: _Rewriter, node: Call, rank: int) -> list[int] | None:
    axes = dict(node.attrs).get("axes")
    if axes is None:
        return list(range(rank - 1, -1, -1))
    if not isinstance(axes, tuple) or len(axes) != rank:
        return None
    return [a + rank if a < 0 else a for a in axes]


def _transpose(rw: _Rewriter, node: Call) -> Expr | None:
    if _name(node) != "transpose":
        return None
    ty = rw.tensor(node)
    if ty is None or type(ty.shape) is not tuple:
        return None
    rank = len(ty.shape)
    outer = _axes(rw, node, rank)
    if outer is None:
        return None
    if _name(node.args[0]) == "transpose":
        inner_call = node.args[0]
        inner = _axes(rw, inner_call, rank)  # type: ignore[arg-type]  # a call, tested by _name
        if inner is None:
            return None
        axes = [inner[outer[i]] for i in range(rank)]
        x = rw.m(inner_call.args[0])  # type: ignore[attr-defined]
        if axes == list(range(rank)):
            return x
        return call("transpose", x, attrs=(("axes", tuple(axes)),))
    if outer == list(range(rank)):
        return rw.m(node.args[0])
    return None


def _same_cast(rw: _Rewriter, node: Call) -> Expr | None:
    if _name(node) not in ("cast", "cast_like"):
        return None
    data, result = rw.tensor(node.args[0]), rw.tensor(node)
    if data is not None and result is not None and data.dtype == result.dtype:
        return rw.m(node.args[0])
    return None


def _widens(origin: str, target: str) -> bool:
    from ..ir.ty import split_lanes

    codes = {"int": 0, "uint": 1, "float": 2, "bfloat": 4, "bool": 1}

    def parts(dtype: str) -> tuple[int, int]:
        base, _ = split_lanes(dtype)
        if base == "bool":
            return 1, 1
        for prefix in ("bfloat", "float", "uint", "int"):
            if base.startswith(prefix):
                return codes[prefix], int(base[len(prefix) :] or 32)
        return -1, 0

    (oc, ob), (cc, cb) = parts(origin), parts(target)
    if oc == cc and ob <= cb:
        return True
    if oc == 4 or cc == 4:
        return False
    return oc < cc and ob <= cb


def _consecutive_cast(rw: _Rewriter, node: Call) -> Expr | None:
    if _name(node) not in ("cast", "cast_like") or _name(node.args[0]) not in ("cast", "cast_like"):
        return None
    first = node.args[0]
    data = rw.tensor(first.args[0])  # type: ignore[attr-defined]  # a call, tested by _name
    mid, result = rw.tensor(first), rw.tensor(node)
    if data is None or mid is None or result is None or not _widens(str(data.dtype), str(mid.dtype)):
        return None
    return call("cast", rw.m(first.args[0]), attrs=(("dtype", result.dtype),))  # type: ignore[attr-defined]


def _clip(rw: _Rewriter, node: Call) -> Expr | None:
    import numpy as np

    if _name(node) != "clip" or _name(node.args[0]) in ("qnn.requantize", "qnn.add"):
        return None
    ty = rw.tensor(node)
    attrs = dict(node.attrs)
    lo, hi = attrs.get("a_min"), attrs.get("a_max")
    if ty is None or not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)):
        return None
    dtype = str(ty.dtype)
    try:
        info: Any = np.iinfo(dtype) if dtype.startswith(("int", "uint")) else np.finfo(dtype)
    except (TypeError, ValueError):
        return None
    if hi >= float(info.max) and lo <= float(info.min):
        return rw.m(node.args[0])
    return None


def _fill_value(rw: _Rewriter, node: Expr, dtype: str) -> Expr | None:
    name = _name(node)
    if name in ("ones", "ones_like"):
        return scalar(1, dtype)
    if name in ("zeros", "zeros_like"):
        return scalar(0, dtype)
    if name in ("full", "full_like"):
        value = node.args[-1] if name == "full_like" else node.args[0]  # type: ignore[attr-defined]  # a call, tested by _name
        if type(value) is Constant and value.is_scalar:
            return value
    return None


def _full_elementwise(rw: _Rewriter, node: Call) -> Expr | None:
    from ..ops import registry
    from ..ops.properties import Pattern

    if (
        type(node.op) is not Op
        or len(node.args) != 2
        or registry.properties(node.op.name).pattern is not Pattern.BROADCAST
    ):
        return None
    result = rw.tensor(node)
    if result is None:
        return None
    for fill_at in (0, 1):
        x_at = 1 - fill_at
        value = _fill_value(rw, node.args[fill_at], str(result.dtype))
        if value is None or rw.tensor(node.args[x_at]) != result:
            continue
        args = [rw.m(node.args[0]), rw.m(node.args[1])]
        args[fill_at] = value
        return Call(node.op, tuple(args), node.attrs, node.type_args, node.span)
    return None


def _constant(node: Expr) -> bool:
    return type(node) is Constant


def _split(node: Call, name: str) -> tuple[Expr, Expr] | None:
    """(x, c) for `name(x, c)` or `name(c, x)` with `c` a constant."""
    if _name(node) != name:
        return None
    a, b = node.args
    if _constant(b) and not _constant(a):
        return a, b
    if _constant(a) and not _constant(b):
        return b, a
    return None


def _switch_add_multiply(rw: _Rewriter, node: Call) -> Expr | None:
    outer = _split(node, "multiply")
    if outer is None or type(outer[0]) is not Call:
        return None
    inner = _split(outer[0], "add")
    if inner is None:
        return None
    (x, c1), c2 = inner, outer[1]
    return call("add", call("multiply", rw.m(x), c2), rw.fold("multiply", c1, c2))


def _adjacent(rw: _Rewriter, node: Call) -> Expr | None:
    for name in ("multiply", "add"):
        outer = _split(node, name)
        if outer is None or type(outer[0]) is not Call:
            continue
        inner = _split(outer[0], name)
        if inner is None:
            continue
        (x, c1), c2 = inner, outer[1]
        return call(name, rw.m(x), rw.fold(name, c1, c2))
    return None


# In TVM's order.
RULES: list[Rule] = [
    _concretize,
    _add_self,
    _rsqrt,
    _identity,
    _reshape,
    _transpose,
    _same_cast,
    _consecutive_cast,
    _full_elementwise,
    _switch_add_multiply,
    _adjacent,
    _clip,
]
