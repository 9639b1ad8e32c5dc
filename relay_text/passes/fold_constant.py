"""`FoldConstant`: what can be computed before the program runs, computed.

As TVM's pass, over the module (`relay opt`):

* a call of an operator whose arguments are all constants (or tuples of
  constants) is computed with the operator's kernel, as `relay run` would
  compute it, and replaced by its value: a scalar literal, a tuple of
  constants, or a new entry `meta[relay.Constant][i]` of the `#[metadata]`
  section (a file whose constants have no data, a model dump without a
  section, cannot gain one: there the call stays);
* a `let` whose value becomes a constant is dissolved into its uses;
* `if` with a constant condition becomes the branch taken;
* `(a, b, c).1` becomes `b`;
* `shape_of` and `ndarray_size` of a tensor whose shape the checker knows
  become that shape or size, whatever the tensor's value.

Not folded, as in TVM: calls without arguments (`zeros(shape=...)` would
only grow the program), calls inside functions marked `Primitive=1`, calls
of stateful operators, calls of operators that are not computational
(allocations, device placement; the quantized operators too, unless
`fold_qnn=true` and they lower to plain arithmetic), `device_copy`, and a
call whose kernel fails (it fails, located, when the program runs).

`relay run` applies the same rewrite to each function before compiling it
(`fold_for_evaluator`), with the evaluator's own kernels and constants and
three differences: quantized operators are folded, calls without arguments
too, and a function's result is left as a call (its value is computed when
the function returns, where an error would be reported).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Protocol

from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, If, Let, Op, Tuple, TupleGetItem, Var
from ..ir.module import Module
from ..ir.ty import TensorType, TupleType
from ..ir.visitor import ExprMutator, post_order
from ._module import map_functions
from ._rewrite import Rewrite
from ._scopes import is_primitive
from .context import PassContext
from .registry import Option, register

# Largest value the evaluator computes at compile time (bytes): bigger ones stay calls.
FOLD_LIMIT = 1 << 28

MISSING: Any = object()


class Values(Protocol):
    """How the evaluator gives values to `fold_for_evaluator`."""

    def constant_value(self, node: Constant) -> Any:
        """The value of a constant of the program, or MISSING."""

    def evaluate(self, call: Call, args: list[Any]) -> Any:
        """The value of a call on argument values, or MISSING."""

    def constant(self, node: Expr, value: Any) -> Expr:
        """A constant node for `value`, standing where `node` stood (or
        `node` itself when the value cannot be a constant)."""


@register(
    "FoldConstant",
    "Compute calls whose arguments are all constants, and if/let/projections of constants",
    Option("fold_qnn", "bool", False, "also fold quantized operators that lower to plain arithmetic"),
    evaluator=lambda fn, rw, values: fold_for_evaluator(fn, rw, values),
)
def fold_constant(module: Module, ctx: PassContext, fold_qnn: bool) -> Module:
    types = ctx.types(module)
    folder = _Folder(ctx, types, fold_qnn)

    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        new = folder.visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    out = map_functions(module, convert)
    if ctx.constants.added:
        from .output import with_section

        out = with_section(out, ctx)
    return out


class _Folder(ExprMutator):
    """TVM's folding rules over one module (see the module docstring)."""

    pre_order = frozenset({Let, Function})

    def __init__(self, ctx: PassContext, types: dict[Expr, Any], fold_qnn: bool) -> None:
        super().__init__()
        self.ctx = ctx
        self.types = types
        self.fold_qnn = fold_qnn
        self.primitive = 0

    def visit_function(self, node: Function) -> Generator[Expr, Expr, Expr]:  # type: ignore[override]  # a generator method (see ExprFunctor)
        primitive = is_primitive(node)
        self.primitive += primitive
        for p in node.params:
            self.memo[p] = p
        body = yield node.body
        self.primitive -= primitive
        if body is node.body:
            return node
        return Function(node.params, body, node.ret_type, node.type_params, node.relations, node.attrs, node.span)

    def visit_let(self, node: Let) -> Generator[Expr, Expr, Expr]:  # type: ignore[override]
        value = yield node.value
        if type(value) is Constant:
            self.memo[node.var] = value
            body = yield node.body
            return body
        self.memo[node.var] = node.var
        body = yield node.body
        if value is node.value and body is node.body:
            return node
        return Let(node.var, value, body, node.span)

    def visit_if(self, node: If) -> Expr:
        new = super().visit_if(node)
        if type(new) is If and type(new.cond) is Constant and new.cond.is_scalar and new.cond.value is not None:
            return new.then_branch if new.cond.value else new.else_branch
        return new

    def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
        new = super().visit_tuple_get_item(node)
        if type(new) is TupleGetItem and type(new.tuple_value) is Tuple and new.index < len(new.tuple_value.fields):
            return new.tuple_value.fields[new.index]
        return new

    def visit_call(self, node: Call) -> Expr:
        from ..ops import registry

        new = super().visit_call(node)
        if self.primitive or type(new) is not Call or type(new.op) is not Op or not new.args:
            return new
        name = new.op.name
        props = registry.properties(name)
        if props.stateful:
            return new
        if name in ("shape_of", "vm.shape_of", "ndarray_size"):
            return self._shape(node, new)
        if not props.foldable(self.fold_qnn) or name == "device_copy":
            return new
        args = []
        for arg in new.args:
            value = self._value(arg)
            if value is MISSING:
                return new
            args.append(value)
        from ._numeric import evaluate

        result = evaluate(name, new.attrs, args, self.types.get(node))
        if result is None:
            return new
        built = self._constant(result, new)
        return built if built is not None else new

    def _value(self, node: Expr) -> Any:
        if type(node) is Constant:
            value = self.ctx.constants.value(node)
            return MISSING if value is None else value
        if type(node) is Tuple:
            fields = [self._value(f) for f in node.fields]
            return MISSING if any(f is MISSING for f in fields) else tuple(fields)
        return MISSING

    def _constant(self, value: Any, like: Call) -> Expr | None:
        """A constant node for a computed value (None: it cannot be written)."""
        import numpy as np

        if type(value) is tuple:
            fields = [self._constant(v, like) for v in value]
            return (
                None if any(f is None for f in fields) else Tuple(tuple(f for f in fields if f is not None), like.span)
            )
        array = np.asarray(value)
        dtype = array.dtype.name
        if array.ndim == 0 and _literal(array[()], dtype):
            item = array[()].item()
            return Constant(float(item) if dtype.startswith("float") else item, dtype, (), None, like.span)
        if not self.ctx.constants.can_add():
            return None
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        index = self.ctx.constants.add(array)
        shape = tuple(int(d) for d in array.shape)
        # as the reader makes it: the type comes from the section (or the comment)
        return Constant(None, None, None, index, like.span, TensorType(shape, dtype))

    def _shape(self, old: Call, new: Call) -> Expr:
        """`shape_of` / `ndarray_size` of a tensor of known shape."""
        import numpy as np

        ty = self.types.get(old.args[0])
        if not isinstance(ty, TensorType) or type(ty.shape) is not tuple or not all(type(d) is int for d in ty.shape):
            return new
        dtype = dict(new.attrs).get("dtype", "int32")
        if not isinstance(dtype, str):
            return new
        from ._numeric import numpy_dtype

        np_dtype = numpy_dtype(dtype)
        if np_dtype is None:
            return new
        if isinstance(new.op, Op) and new.op.name == "ndarray_size":
            size = 1
            for d in ty.shape:
                size *= d
            value = np.asarray(size, dtype=np_dtype)
        else:
            value = np.asarray(ty.shape, dtype=np_dtype)
        built = self._constant(value, new)
        return built if built is not None else new


def _literal(value: Any, dtype: str) -> bool:
    """Whether a scalar of `dtype` can be written as a literal in both dialects."""
    from ..syntax.spelling import literal_text

    python = value.item() if hasattr(value, "item") else value
    if dtype.startswith("float"):
        python = float(python)
    try:
        return literal_text(python, dtype, True) is not None and literal_text(python, dtype, False) is not None
    except Exception:
        return False


# ---------------------------------------------------------------- the evaluator's rewrite


def fold_for_evaluator(fn: Function, rw: Rewrite, values: Values) -> Function:
    """`relay run`'s folding of one function (see the module docstring):
    every call of a foldable operator whose arguments have known values
    (through `let` variables), every projection of a known tuple, except a
    function's result, and values no larger than FOLD_LIMIT bytes."""
    import numpy as np

    from ..ops import registry

    order = post_order(fn)
    alias: dict[Var, Expr] = {}
    roots: set[Expr] = set()
    for node in order:
        if type(node) is Let:
            alias[node.var] = node.value
    for node in order:
        if type(node) is Function:
            roots.add(_resolve(node.body, alias))
    known: dict[Expr, Any] = {}
    folded: dict[Expr, Any] = {}

    def value_of(node: Expr) -> Any:
        node = _resolve(node, alias)
        if node in known:
            return known[node]
        if type(node) is Constant:
            value = values.constant_value(node)
            if value is not MISSING:
                known[node] = value
            return value
        return MISSING

    with np.errstate(all="ignore"):
        for node in order:
            if type(node) is Tuple:
                fields = [value_of(f) for f in node.fields]
                if fields and all(f is not MISSING for f in fields):
                    known[node] = tuple(fields)
                continue
            if type(node) is TupleGetItem:
                value = value_of(node.tuple_value)
                if type(value) is tuple and node.index < len(value):
                    known[node] = value[node.index]
                    if node not in roots:
                        folded[node] = value[node.index]
                continue
            if (
                type(node) is not Call
                or type(node.op) is not Op
                or not registry.properties(node.op.name).foldable(fold_qnn=True)
            ):
                continue
            args = [value_of(a) for a in node.args]
            if any(a is MISSING for a in args):
                continue
            if not _small_enough(rw.type_of(node)):
                continue
            value = values.evaluate(node, args)
            if value is MISSING:
                continue
            known[node] = value
            if node not in roots:
                folded[node] = value

    class Fold(ExprMutator):
        def visit_call(self, node: Call) -> Expr:
            if node in folded:
                return values.constant(node, folded[node])
            return super().visit_call(node)

        def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
            if node in folded:
                return values.constant(node, folded[node])
            return super().visit_tuple_get_item(node)

    fold = Fold()
    new = fold.visit(fn)
    rw.adopt(fold)
    assert type(new) is Function  # a rebuilt function is a function
    return new


def _small_enough(ty: Any) -> bool:
    """Whether a value of this type is small enough to keep as a constant."""
    if isinstance(ty, TensorType):
        if type(ty.shape) is not tuple or not all(type(d) is int for d in ty.shape):
            return False
        n = 8
        for d in ty.shape:
            n *= d
        return n <= FOLD_LIMIT
    if isinstance(ty, TupleType):
        return all(_small_enough(f) for f in ty.fields)
    return False


def _resolve(node: Expr, alias: dict[Var, Expr]) -> Expr:
    while True:
        t = type(node)
        if t is Var and node in alias:
            node = alias[node]
        elif t is Let:
            node = node.body  # type: ignore[attr-defined]  # (as above)
        else:
            return node
