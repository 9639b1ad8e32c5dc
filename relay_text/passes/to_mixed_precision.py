"""`ToMixedPrecision`: run what is safe in float16, the rest in float32.

As TVM's pass, with TVM's operator lists (python/tvm/relay/transform/
mixed_precision.py at 21095b98):

* ALWAYS (convolutions, `nn.dense`, `nn.batch_matmul`): the float inputs
  are cast to the mixed type, the call computes in it (an `out_dtype`
  attribute set to it), its result is of that type;
* FOLLOW (data movement, simple arithmetic and activations, pooling,
  comparisons ...; and any operator in no list, which TVM counts as a
  missing operator): in the mixed type when every float argument already
  is (or is a variable or constant, cast as needed), else in float32;
* NEVER (`exp`, `power`, `nn.softmax`, `sum`, `mean`, `variance`,
  `nn.layer_norm`, `erf`, `arange`, the average pools over large windows
  ...): float inputs are cast back to float32.

A cast of a value is made once and shared. Calls of functions written in
place run in float32; calls of globals, constructors and local functions,
and of operators that are not computational (allocations, device
placement), are left as they are, their arguments cast back to the dtypes
they had (TVM leaves those arguments as they come). Functions inside a
function, branches of `if` and clauses of `match` give their results in
the dtypes they had. `clip` whose bounds do not fit float16 stays in
float32. With `keep_orig_output_dtype=true` the result of the outermost
function is cast back to the dtype it had too. `missing_op_mode`: 0 an
operator in no list is an error, 1 a warning, 2 nothing (TVM's default is
0; here 1). Results change by float16 rounding.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..ir.expr import (
    AttrPairs,
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    Op,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ir.module import Module
from ..ir.ty import TensorType, TupleType
from ..ir.visitor import ExprMutator
from ._module import call, map_functions, written
from .context import PassContext, failed
from .registry import Option, register

ALWAYS = frozenset(
    [
        "nn.conv1d",
        "nn.conv2d",
        "nn.conv3d",
        "nn.conv1d_transpose",
        "nn.conv2d_transpose",
        "nn.conv3d_transpose",
        "nn.dense",
        "nn.batch_matmul",
    ]
)
FOLLOW = frozenset(
    [
        "nn.pad",
        "nn.batch_flatten",
        "concatenate",
        "zeros",
        "split",
        "squeeze",
        "transpose",
        "expand_dims",
        "reshape",
        "dyn.reshape",
        "broadcast_to_like",
        "dyn.broadcast_to",
        "strided_slice",
        "dyn.strided_slice",
        "take",
        "argwhere",
        "where",
        "tile",
        "dyn.tile",
        "scatter",
        "scatter_elements",
        "scatter_nd",
        "full",
        "dyn.full",
        "nn.depth_to_space",
        "less",
        "greater",
        "less_equal",
        "greater_equal",
        "copy",
        "cast",
        "cast_like",
        "add",
        "subtract",
        "multiply",
        "divide",
        "nn.bias_add",
        "nn.batch_norm",
        "sqrt",
        "shape_of",
        "max",
        "min",
        "maximum",
        "minimum",
        "argmax",
        "argmin",
        "nn.relu",
        "nn.leaky_relu",
        "nn.prelu",
        "nn.dropout",
        "sigmoid",
        "tanh",
        "fast_tanh",
        "fast_exp",
        "fast_erf",
        "clip",
        "nn.max_pool1d",
        "nn.max_pool2d",
        "nn.max_pool3d",
        "nn.avg_pool1d",
        "nn.avg_pool2d",
        "nn.avg_pool3d",
        "nn.global_max_pool2d",
        "nn.adaptive_max_pool1d",
        "nn.adaptive_max_pool2d",
        "nn.adaptive_max_pool3d",
        "image.resize2d",
    ]
)
NEVER = frozenset(
    [
        "exp",
        "power",
        "nn.cross_entropy",
        "nn.cross_entropy_with_logits",
        "nn.softmax",
        "nn.l2_normalize",
        "erf",
        "arange",
        "nn.global_avg_pool2d",
        "nn.adaptive_avg_pool1d",
        "nn.adaptive_avg_pool2d",
        "nn.adaptive_avg_pool3d",
        "sum",
        "mean",
        "variance",
        "nn.layer_norm",
    ]
)
# Operators whose `out_dtype` (or `dtype` for the initializers) says what
# they compute in, set to the mixed type.
OUT_DTYPE = ALWAYS | {
    "nn.contrib_conv2d_winograd_without_weight_transform",
    "nn.contrib_conv2d_winograd_nnpack_weight_transform",
    "nn.deformable_conv2d",
    "nn.contrib_conv3d_winograd_without_weight_transform",
}
INIT_DTYPE = frozenset({"zeros", "ones", "full", "dyn.full"})
FLOAT_LIMITS = {
    "float16": 65504.0,
    "bfloat16": 3.3895313892515355e38,
    "float32": 3.4028234663852886e38,
    "float64": 1.7976931348623157e308,
}


@register(
    "ToMixedPrecision",
    "Run convolutions, dense layers and what follows them in float16 (TVM's operator lists), the rest in float32",
    Option(
        "mixed_precision_type",
        "str",
        "float16",
        "the low-precision dtype",
        ("float16", "bfloat16", "float32", "float64"),
    ),
    Option("missing_op_mode", "int", 1, "an operator in no list: 0 error, 1 warning, 2 nothing"),
    Option("keep_orig_output_dtype", "bool", False, "cast each function's result back to its original dtype"),
)
def to_mixed_precision(
    module: Module, ctx: PassContext, mixed_precision_type: str, missing_op_mode: int, keep_orig_output_dtype: bool
) -> Module:
    types = ctx.types(module)
    missing: dict[str, int] = {}

    def convert(gv: GlobalVar | None, fn: Function) -> Function:
        new = _Mixed(types, mixed_precision_type, missing, keep_orig_output_dtype, fn).visit(fn)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    out = map_functions(module, convert)
    if missing and missing_op_mode == 0:
        names = ", ".join(f"`{n}`" for n in sorted(missing))
        raise failed(
            f"`ToMixedPrecision` has no rule for {names}",
            note="they were run as FOLLOW; pass `missing_op_mode=1` or `2` to accept that",
        )
    if missing and missing_op_mode == 1:
        ctx.warn(f"`ToMixedPrecision` treated operators in no list as FOLLOW: {', '.join(sorted(missing))}")
    return out


def _floats(ty: Any, dtype: str) -> Any:
    """`ty` with its float tensors of dtype `dtype`."""
    if isinstance(ty, TensorType):
        return TensorType(ty.shape, dtype) if _is_float(ty.dtype) else ty
    if isinstance(ty, TupleType):
        return TupleType(tuple(_floats(f, dtype) for f in ty.fields))
    return ty


def _is_float(dtype: Any) -> bool:
    return isinstance(dtype, str) and dtype.startswith(("float", "bfloat"))


def _all_of(ty: Any, dtype: str) -> bool:
    """Whether every float tensor of `ty` is of `dtype`."""
    if isinstance(ty, TensorType):
        return not _is_float(ty.dtype) or ty.dtype == dtype
    if isinstance(ty, TupleType):
        return all(_all_of(f, dtype) for f in ty.fields)
    return False


class _Mixed(ExprMutator):
    pre_order = frozenset({Let, Function})

    def __init__(self, types: dict[Expr, Any], mixed: str, missing: dict[str, int], keep: bool, fn: Function) -> None:
        super().__init__()
        self.types = types
        self.mixed = mixed
        self.missing = missing
        self.keep = keep
        self.root = fn.body
        self.new_types: dict[int, Any] = {}  # id(new node) -> its type after the rewrite
        self.casts: dict[tuple[int, str], Expr] = {}

    def type_of(self, new: Expr, old: Expr | None = None) -> Any:
        found = self.new_types.get(id(new))
        if found is not None:
            return found
        return self.types.get(old if old is not None else new)

    def cast(self, expr: Expr, ty: Any, dtype: str) -> Expr:
        if isinstance(ty, TupleType):
            fields = []
            changed = False
            for i, f in enumerate(ty.fields):
                item = expr.fields[i] if type(expr) is Tuple else TupleGetItem(expr, i)
                if type(expr) is not Tuple:
                    self.new_types[id(item)] = f
                new = self.cast(item, f, dtype)
                changed |= new is not item
                fields.append(new)
            if not changed:
                return expr
            rebuilt = Tuple(tuple(fields))
            self.new_types[id(rebuilt)] = _floats(ty, dtype)
            return rebuilt
        if not isinstance(ty, TensorType) or not _is_float(ty.dtype) or ty.dtype == dtype:
            return expr
        key = (id(expr), dtype)
        found = self.casts.get(key)
        if found is not None:
            return found
        out = call("cast", expr, attrs=(("dtype", dtype),))
        self.casts[key] = out
        self.casts[(id(out), str(ty.dtype))] = expr
        self.new_types[id(out)] = TensorType(ty.shape, dtype)
        return out

    def visit_function(self, node: Function) -> Generator[Expr, Expr, Expr]:  # type: ignore[override]  # a generator method (see ExprFunctor)
        from ._scopes import is_primitive

        if is_primitive(node):
            return node  # fused already: its computation is fixed
        for p in node.params:
            self.memo[p] = p
        body = yield node.body
        if node.body is not self.root or self.keep:
            # a function inside keeps its interface (its callers are left as
            # they are); the outermost one too with keep_orig_output_dtype
            body = self.restore(body, node.body)
            ret_type = node.ret_type
        else:
            ret_type = None  # its result may now be of the mixed type
        if body is node.body and ret_type is node.ret_type:
            return node
        return Function(node.params, body, ret_type, node.type_params, node.relations, node.attrs, node.span)

    def restore(self, body: Expr, old: Expr) -> Expr:
        original = self.types.get(old)
        now = self.type_of(body, old)
        if isinstance(original, TensorType) and isinstance(now, TensorType) and _is_float(original.dtype):
            return self.cast(body, now, str(original.dtype))
        if isinstance(original, TupleType) and isinstance(now, TupleType) and type(body) is Tuple:
            fields = [
                self.restore_field(f, t, o) for f, t, o in zip(body.fields, now.fields, original.fields, strict=False)
            ]
            return Tuple(tuple(fields))
        return body

    def restore_field(self, expr: Expr, now: Any, original: Any) -> Expr:
        if isinstance(original, TensorType) and _is_float(original.dtype):
            return self.cast(expr, now, str(original.dtype))
        return expr

    def visit_let(self, node: Let) -> Generator[Expr, Expr, Expr]:  # type: ignore[override]  # a generator method (see ExprFunctor)
        value = yield node.value
        ty = self.type_of(value, node.value)
        var = node.var
        if var.type_annotation is not None and ty is not None and ty != self.types.get(node.value):
            annotation = written(ty)
            if annotation is not None:
                var = Var(var.name, annotation, var.span, var.attrs)
        self.memo[node.var] = var
        if ty is not None:
            self.new_types[id(var)] = ty
        body = yield node.body
        if var is node.var and value is node.value and body is node.body:
            return node
        new = Let(var, value, body, node.span)
        self.new_types[id(new)] = self.type_of(body, node.body)
        return new

    def visit_if(self, node: If) -> Expr:

        then = self.restore(self.memo[node.then_branch], node.then_branch)
        other = self.restore(self.memo[node.else_branch], node.else_branch)
        cond = self.memo[node.cond]
        if cond is node.cond and then is node.then_branch and other is node.else_branch:
            return node
        return If(cond, then, other, node.span)

    def visit_match(self, node: Match) -> Expr:

        clauses = tuple(Clause(c.pattern, self.restore(self.memo[c.body], c.body), c.span) for c in node.clauses)
        data = self.memo[node.data]
        if data is node.data and all(a.body is b.body for a, b in zip(clauses, node.clauses, strict=False)):
            return node
        return Match(data, clauses, node.complete, node.span)

    def visit_tuple(self, node: Tuple) -> Expr:
        new = super().visit_tuple(node)
        if new is not node:
            self.new_types[id(new)] = TupleType(tuple(self.type_of(self.memo[f], f) for f in node.fields))
        return new

    def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
        new = super().visit_tuple_get_item(node)
        ty = self.type_of(self.memo[node.tuple_value], node.tuple_value)
        if isinstance(ty, TupleType) and node.index < len(ty.fields):
            self.new_types[id(new)] = ty.fields[node.index]
        return new

    def visit_call(self, node: Call) -> Expr:
        new = super().visit_call(node)
        if type(new) is not Call:
            return new
        op = new.op
        args = list(new.args)
        arg_types = [self.type_of(a, o) for a, o in zip(args, node.args, strict=False)]
        original = self.types.get(node)
        if type(op) in (GlobalVar, Var, Constructor, Let) or (type(op) is Op and not _computational(op.name)):
            # left as it is: the arguments keep the dtypes the callee was written for
            kept = tuple(
                self._back(a, t, self.types.get(o)) for a, t, o in zip(args, arg_types, node.args, strict=False)
            )
            if all(k is a for k, a in zip(kept, args, strict=False)):
                return new
            out = Call(op, kept, new.attrs, new.type_args, new.span)
            self.new_types[id(out)] = original
            return out
        if type(op) is Function:
            category = "never"
        elif type(op) is Op:
            name = op.name
            if name in ALWAYS:
                category = "always"
            elif name in NEVER:
                category = "never"
            else:
                if name not in FOLLOW:
                    self.missing[name] = self.missing.get(name, 0) + 1
                compatible = all(
                    _all_of(t, self.mixed) or type(a) in (Var, Constant) for a, t in zip(args, arg_types, strict=False)
                )
                category = "always" if compatible else "never"
        else:
            return new
        applicable = category == "always" and self._bounds_fit(new)
        wanted = self.mixed if applicable else "float32"
        cast_args = tuple(
            self.cast(a, t, wanted) if t is not None else a for a, t in zip(args, arg_types, strict=False)
        )
        attrs = new.attrs
        if applicable and type(op) is Op:
            attrs = self._attrs(op.name, attrs)
        out = Call(op, cast_args, attrs, new.type_args, new.span)
        self.new_types[id(out)] = self._result(op, out, original, applicable, cast_args)
        return out

    def _back(self, expr: Expr, now: Any, original: Any) -> Expr:
        """`expr` cast back to the float dtypes of `original` where it changed."""
        if (
            isinstance(original, TensorType)
            and isinstance(now, TensorType)
            and _is_float(original.dtype)
            and now.dtype != original.dtype
        ):
            return self.cast(expr, now, str(original.dtype))
        if isinstance(original, TupleType) and isinstance(now, TupleType) and now != original:
            fields = []
            for i, (n, o) in enumerate(zip(now.fields, original.fields, strict=False)):
                item: Expr = expr.fields[i] if type(expr) is Tuple else TupleGetItem(expr, i)
                self.new_types[id(item)] = n
                fields.append(self._back(item, n, o))
            out = Tuple(tuple(fields))
            self.new_types[id(out)] = original
            return out
        return expr

    def _result(self, op: Expr, call_node: Call, original: Any, applicable: bool, args: tuple[Expr, ...]) -> Any:
        """The type of the rewritten call."""
        if not applicable or type(op) is not Op:
            return original
        name = op.name
        if name == "cast":
            return original
        if name == "cast_like":
            like = self.type_of(args[1])
            return (
                TensorType(original.shape, like.dtype)
                if isinstance(original, TensorType) and isinstance(like, TensorType)
                else original
            )
        return _floats(original, self.mixed)

    def _attrs(self, name: str, attrs: AttrPairs) -> AttrPairs:
        key = "out_dtype" if name in OUT_DTYPE else "dtype" if name in INIT_DTYPE else None
        if key is None:
            return attrs
        current = dict(attrs).get(key, "")
        if current not in ("", None) and not _is_float(current):
            return attrs
        if any(k == key for k, _ in attrs):
            return tuple((k, self.mixed if k == key else v) for k, v in attrs)
        return (*attrs, (key, self.mixed))

    def _bounds_fit(self, call_node: Call) -> bool:
        if type(call_node.op) is not Op or call_node.op.name != "clip":
            return True
        a = dict(call_node.attrs)
        bound = FLOAT_LIMITS.get(self.mixed)
        lo, hi = a.get("a_min"), a.get("a_max")
        if bound is None or not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)):
            return True
        return -bound <= lo and hi <= bound


def _computational(name: str) -> bool:
    from ..ops import registry

    props = registry.properties(name)
    return props.computational or props.lowers
