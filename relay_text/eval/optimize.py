"""Rewrites of a function before it is compiled, keeping its results within
float rounding (`relay run --no-opt` skips them).

Two passes over each top-level function's graph, both `ExprMutator`s:

* `fold_affine`: a convolution (`nn.conv2d`, NCHW / OIHW) or `nn.dense`
  followed by per-channel affine steps (`nn.batch_norm` in inference,
  `nn.bias_add`, `add` or `multiply` of a per-channel vector or a scalar)
  becomes one convolution whose weight is scaled, followed by one
  `nn.bias_add`: `bn(conv(x, W)) = conv(x, W * s) + (beta - mean * s)`
  with `s = gamma / sqrt(var + eps)`. The weight and vector arithmetic is
  written as operator calls, so that where the weights are constants the
  next pass computes it once; where they are parameters it runs on the
  small weight tensors instead of the large activations.
* `fold_constants`: every call of a pure operator whose arguments are all
  constants (literals, `meta[relay.Constant][i]` with their values, random
  constants once drawn, and what this pass already folded) is evaluated
  once, with the kernel the call site would use, and replaced by a constant.
  Only operators whose properties allow it are folded (TVM's rule with
  quantized operators included: not stateful, and computational or
  lowering to plain arithmetic), so allocations (which `vm.invoke_tvm_op`
  writes into), device placement and VM bookkeeping never are; nor are
  references, nor anything that fails while folding (it fails, located,
  when it runs).

A rewritten node keeps the span of the node it replaces (a runtime error is
reported there) and the type the checker gave it (`types`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard

from ..ir.expr import Call, Constant, Expr, Function, Let, Op, Tuple, TupleGetItem, Var, int_attr
from ..ir.schema import region_edges
from ..ir.ty import TensorType
from ..ir.visitor import ExprMutator, post_order

if TYPE_CHECKING:
    from .compile import Compiler

# Largest value computed at compile time (bytes): bigger ones stay calls.
FOLD_LIMIT = 1 << 28

FLOATS = frozenset({"float32", "float64"})


def is_pure(name: str) -> bool:
    """Whether a call of the operator with constant arguments may be computed
    at compile time (see the module docstring)."""
    from ..ops import registry

    return registry.properties(name).foldable(fold_qnn=True)


class Optimizer:
    """Optimises the functions one compiler compiles."""

    def __init__(self, compiler: Compiler) -> None:
        self.c = compiler
        self.types: dict[Expr, Any] = {}  # types of the nodes the passes made
        self.origins: dict[Expr, Expr] = {}  # a rebuilt node -> the source node it stands for
        self.next_meta = 1 << 40  # indices of folded constants (never in a file)

    def type_of(self, node: Expr) -> Any:
        ty = self.types.get(node)
        if ty is None and self.c.checker_type_of is not None:
            ty = self.c.checker_type_of(node)
        return ty

    def run(self, fn: Function) -> Function:
        if self.c.checker_type_of is None:
            return fn
        fn = self.fold_affine(fn)
        fn = self.fold_constants(fn)
        return fn

    # ---- helpers -----------------------------------------------------------

    def _adopt(self, mutator: ExprMutator) -> None:
        """Rebuilt nodes have the types of the nodes they replace."""
        for old, new in mutator.memo.items():
            if new is not old:
                if new not in self.origins and type(new) is type(old):
                    self.origins[new] = self.origins.get(old, old)
                if new not in self.types:
                    ty = self.type_of(old)
                    if ty is not None:
                        self.types[new] = ty

    def _call(self, name: str, args: tuple, attrs: tuple, ty: Any, span: Any) -> Call:
        node = Call(Op(name), args, attrs, (), span)
        self.types[node] = ty
        return node

    def _scalar(self, value: float, dtype: str, span: Any) -> Constant:
        import numpy as np

        node = Constant(float(np.dtype(dtype).type(value)), dtype, (), None, span)
        self.types[node] = TensorType((), dtype)
        return node

    # ---- conv / dense with per-channel affine steps --------------------------

    def fold_affine(self, fn: Function) -> Function:
        order = post_order(fn)
        parents: dict[Expr, list[Expr]] = {}
        for node in order:
            inline, opened = region_edges(node)
            for child in (*inline, *opened):
                parents.setdefault(child, []).append(node)
        replace: dict[Expr, Expr] = {}
        for node in order:
            if type(node) is Call and type(node.op) is Op and node.op.name in ("nn.conv2d", "nn.dense"):
                found = self._affine_chain(node, parents)
                if found is not None:
                    tail, new = found
                    replace[tail] = new
        for node in order:
            if type(node) is TupleGetItem and node not in replace:
                alone = self._batch_norm_alone(node, parents)
                if alone is not None:
                    replace[node] = alone
        if not replace:
            return fn
        outer = self

        class Rewrite(ExprMutator):
            def visit_call(self, node: Call) -> Expr:
                target = replace.get(node)
                if target is not None:
                    return self.visit(target) if target not in self.memo else self.memo[target]
                return super().visit_call(node)

            def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
                target = replace.get(node)
                if target is not None:
                    return self.visit(target) if target not in self.memo else self.memo[target]
                return super().visit_tuple_get_item(node)

        # The replacements are built from nodes of the original graph: rebuild
        # them first (a nested `visit` is a fresh iterative walk over them).
        rewrite = Rewrite()
        for target in replace.values():
            rewrite.visit(target)
        new = rewrite.visit(fn)
        outer._adopt(rewrite)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    def _affine_chain(self, head: Call, parents: dict[Expr, list[Expr]]) -> tuple[Expr, Expr] | None:
        """The affine steps after a conv/dense `head` (each the only user of
        the step before): (the last step, its replacement)."""
        head_ty = self.type_of(head)
        if not isinstance(head_ty, TensorType) or head_ty.dtype not in FLOATS or not _static(head_ty.shape):
            return None
        attrs = dict(head.attrs)
        dtype = head_ty.dtype
        if type(head.op) is Op and head.op.name == "nn.conv2d":
            if attrs.get("data_layout", "NCHW") != "NCHW" or attrs.get("kernel_layout", "OIHW") != "OIHW":
                return None
            if attrs.get("out_layout", "") not in ("", "NCHW") or attrs.get("out_dtype", "") not in ("", None, dtype):
                return None
            axis = 1
        else:
            if attrs.get("out_dtype", "") not in ("", None, dtype):
                return None
            axis = len(head_ty.shape) - 1
        weight_ty = self.type_of(head.args[1])
        if not isinstance(weight_ty, TensorType) or weight_ty.dtype != dtype or not _static(weight_ty.shape):
            return None
        channels = head_ty.shape[axis]
        rank = len(head_ty.shape)
        if not isinstance(head.args[1], Constant) and _size(weight_ty.shape) > _size(head_ty.shape):
            # a weight that is a parameter is scaled at every call: worth it
            # only where it is smaller than the activations it saves a pass over
            return None
        scale: Expr | None = None  # per output channel, shape (C,)
        shift: Expr | None = None
        node: Expr = head
        tail: Expr | None = None
        span = head.span
        vec_ty = TensorType((channels,), dtype)
        while True:
            users = parents.get(node, [])
            if len(users) != 1:
                break
            step = self._affine_step(users[0], node, axis, rank, channels, dtype, parents)
            if step is None:
                break
            next_node, s, b = step
            span = getattr(next_node, "span", None) or span
            # (y * scale + shift) * s + b
            if s is not None:
                scale = s if scale is None else self._call("multiply", (scale, s), (), vec_ty, span)
                if shift is not None:
                    shift = self._call("multiply", (shift, s), (), vec_ty, span)
            if b is not None:
                shift = b if shift is None else self._call("add", (shift, b), (), vec_ty, span)
            node = next_node
            tail = next_node
        if tail is None or (scale is None and shift is None):
            return None
        if scale is None:
            return None  # a bias alone: nothing to fold into the weights
        weight = head.args[1]
        shape = (-1,) + (1,) * (len(weight_ty.shape) - 1)
        s_shaped = self._call("reshape", (scale,), (("newshape", shape),), TensorType((channels,) + (1,) * (len(weight_ty.shape) - 1), dtype), span)
        new_weight = self._call("multiply", (weight, s_shaped), (), weight_ty, span)
        conv = Call(head.op, (head.args[0], new_weight), head.attrs, head.type_args, head.span, head.infix)
        self.types[conv] = head_ty
        result: Expr = conv
        if shift is not None:
            result = self._call("nn.bias_add", (conv, shift), (("axis", axis),), head_ty, span)
        return tail, result

    def _batch_norm_alone(self, item: TupleGetItem, parents: dict[Expr, list[Expr]]) -> Expr | None:
        """`nn.batch_norm(x, ...).0` used alone: `x * s + shift` with the
        per-channel vectors computed once (two steps that can run in x's
        buffer, see `inplace`)."""
        bn = item.tuple_value
        if item.index != 0 or type(bn) is not Call or type(bn.op) is not Op or bn.op.name != "nn.batch_norm":
            return None
        ty = self.type_of(item)
        if not isinstance(ty, TensorType) or ty.dtype not in FLOATS or not _static(ty.shape) or self.type_of(bn.args[0]) != ty:
            return None
        rank = len(ty.shape)
        axis = int_attr(dict(bn.attrs), "axis", 1)
        if axis is None:
            return None
        axis %= rank
        step = self._affine_step(bn, bn.args[0], axis, rank, ty.shape[axis], ty.dtype, parents)
        if step is None:
            return None
        _, s, b = step
        span = item.span or bn.span
        shape = tuple(-1 if i == axis else 1 for i in range(rank))
        vshape = tuple(ty.shape[axis] if i == axis else 1 for i in range(rank))
        s_shaped = self._call("reshape", (s,), (("newshape", shape),), TensorType(vshape, ty.dtype), span)
        scaled = self._call("multiply", (bn.args[0], s_shaped), (), ty, span)
        return self._call("nn.bias_add", (scaled, b), (("axis", axis),), ty, span)

    def _affine_step(
        self, parent: Expr, node: Expr, axis: int, rank: int, channels: int, dtype: str, parents: dict[Expr, list[Expr]]
    ) -> tuple[Expr, Expr | None, Expr | None] | None:
        """`parent` as an affine step on `node`: (the node giving its result,
        scale, shift), the vectors of shape (C,) or None."""
        if type(parent) is not Call or type(parent.op) is not Op:
            return None
        name = parent.op.name
        vec_ty = TensorType((channels,), dtype)
        if name == "nn.batch_norm" and parent.args[0] is node:
            a = dict(parent.attrs)
            bn_axis = int_attr(a, "axis", 1)
            if bn_axis is None or bn_axis % rank != axis:
                return None
            # every use of the batch norm is its first field
            items = parents.get(parent, [])
            if len(items) != 1 or type(items[0]) is not TupleGetItem or items[0].index != 0:
                return None
            for v in parent.args[1:]:
                if self.type_of(v) != vec_ty:
                    return None
            gamma, beta, mean, var = parent.args[1:]
            span = parent.span
            epsilon = a.get("epsilon", 1e-5)
            if not isinstance(epsilon, (int, float)):
                return None
            eps = self._scalar(epsilon, dtype, span)
            root = self._call("sqrt", (self._call("add", (var, eps), (), vec_ty, span),), (), vec_ty, span)
            if a.get("scale", True):
                s = self._call("divide", (gamma, root), (), vec_ty, span)
            else:
                s = self._call("divide", (self._scalar(1.0, dtype, span), root), (), vec_ty, span)
            mean_s = self._call("multiply", (mean, s), (), vec_ty, span)
            if a.get("center", True):
                b = self._call("subtract", (beta, mean_s), (), vec_ty, span)
            else:
                b = self._call("negative", (mean_s,), (), vec_ty, span)
            return items[0], s, b
        if name == "nn.bias_add" and parent.args[0] is node:
            bias_axis = int_attr(dict(parent.attrs), "axis", 1)
            if bias_axis is None or bias_axis % rank != axis or self.type_of(parent.args[1]) != vec_ty:
                return None
            return parent, None, parent.args[1]
        if name in ("add", "multiply") and len(parent.args) == 2 and node in parent.args:
            other = parent.args[1] if parent.args[0] is node else parent.args[0]
            if other is node or self.type_of(parent) != self.type_of(node):
                return None
            vec = self._as_channel_vector(other, axis, rank, channels, dtype, parent.span)
            if vec is None:
                return None
            return (parent, None, vec) if name == "add" else (parent, vec, None)
        return None

    def _as_channel_vector(self, other: Expr, axis: int, rank: int, channels: int, dtype: str, span: Any) -> Expr | None:
        """`other` (broadcast against the channel axis) as a (C,) vector, if
        it only varies along that axis and is a constant."""
        if not isinstance(other, Constant):
            return None
        ty = self.type_of(other)
        if not isinstance(ty, TensorType) or ty.dtype != dtype or not _static(ty.shape):
            return None
        shape = ty.shape
        vec_ty = TensorType((channels,), dtype)
        if shape == ():
            return self._call("broadcast_to", (other,), (("shape", (channels,)),), vec_ty, span)
        if len(shape) > rank:
            return None
        padded = (1,) * (rank - len(shape)) + tuple(shape)
        if any(d != 1 for i, d in enumerate(padded) if i != axis) or padded[axis] not in (1, channels):
            return None
        flat = self._call("reshape", (other,), (("newshape", (-1,)),), TensorType((padded[axis],), dtype), span)
        if padded[axis] == 1:
            return self._call("broadcast_to", (flat,), (("shape", (channels,)),), vec_ty, span)
        return flat

    # ---- constants ---------------------------------------------------------

    def fold_constants(self, fn: Function) -> Function:
        import numpy as np

        c = self.c
        order = post_order(fn)
        alias: dict[Var, Expr] = {}
        roots: set[Expr] = set()
        for node in order:
            if type(node) is Let:
                alias[node.var] = node.value
        for node in order:
            if type(node) is Function:
                roots.add(_resolve(node.body, alias))
        values: dict[Expr, Any] = {}
        folded: dict[Expr, Any] = {}

        def value_of(node: Expr) -> Any:
            node = _resolve(node, alias)
            if node in values:
                return values[node]
            if type(node) is Constant:
                if node.value is None and node.meta_index not in c.meta_values:
                    return _MISSING
                name = c.constant(node)
                if name == "None":
                    return _MISSING
                value = c.ns[name]
                values[node] = value
                return value
            return _MISSING

        with np.errstate(all="ignore"):
            for node in order:
                if type(node) is Tuple:
                    fields = [value_of(f) for f in node.fields]
                    if fields and all(f is not _MISSING for f in fields):
                        values[node] = tuple(fields)
                    continue
                if type(node) is TupleGetItem:
                    value = value_of(node.tuple_value)
                    if type(value) is tuple and node.index < len(value):
                        values[node] = value[node.index]
                        if node not in roots:
                            folded[node] = value[node.index]
                    continue
                if type(node) is not Call or type(node.op) is not Op or not is_pure(node.op.name):
                    continue
                args = [value_of(a) for a in node.args]
                if any(a is _MISSING for a in args):
                    continue
                if not _small_enough(self.type_of(node)):
                    continue
                value = self._evaluate(node, args)
                if value is _MISSING:
                    continue
                values[node] = value
                if node not in roots:
                    folded[node] = value
        outer = self

        def constant_for(node: Expr, value: Any) -> Expr:
            if not isinstance(value, (np.ndarray, np.generic)):
                return node
            if isinstance(value, np.ndarray) and value.flags.writeable:
                value = value.view()
                value.flags.writeable = False
            index = outer.next_meta
            outer.next_meta += 1
            c.meta_values[index] = value
            const = Constant(None, value.dtype.name, tuple(value.shape), index, getattr(node, "span", None))
            ty = outer.type_of(node)
            if ty is not None:
                outer.types[const] = ty
            return const

        transposed: dict[int, Expr] = {}

        def dense_weight(call: Call) -> Expr:
            """`nn.dense` multiplies by its weight transposed: a constant
            weight is laid out column-major once, so that the product reads
            it as a row-major matrix (BLAS is faster on that layout)."""
            weight = call.args[1]
            if type(weight) is not Constant:
                return call
            value = value_of(weight)
            if not isinstance(value, np.ndarray) or value.ndim != 2 or value.dtype.name not in FLOATS or not value.flags.c_contiguous:
                return call
            if value.shape[0] < 2 or value.shape[1] < 2:
                return call
            new = transposed.get(id(value))
            if new is None:
                new = transposed[id(value)] = constant_for(weight, np.asfortranarray(value))
            rebuilt = Call(call.op, (call.args[0], new), call.attrs, call.type_args, call.span, call.infix)
            outer.types[rebuilt] = outer.type_of(call)
            outer.origins[rebuilt] = outer.origins.get(call, call)
            return rebuilt

        class Fold(ExprMutator):
            def visit_call(self, node: Call) -> Expr:
                if node in folded:
                    return constant_for(node, folded[node])
                new = super().visit_call(node)
                if type(new) is Call and type(new.op) is Op and new.op.name == "nn.dense" and len(new.args) == 2:
                    return dense_weight(new)
                return new

            def visit_tuple_get_item(self, node: TupleGetItem) -> Expr:
                if node in folded:
                    return constant_for(node, folded[node])
                return super().visit_tuple_get_item(node)

        fold = Fold()
        new = fold.visit(fn)
        self._adopt(fold)
        assert type(new) is Function  # a rebuilt function is a function
        return new

    def _evaluate(self, call: Call, args: list) -> Any:
        """The call's value with the kernel its call site binds, or _MISSING."""
        import numpy as np

        c = self.c
        if type(call.op) is not Op:
            return _MISSING
        try:
            names = c.operator_call(call.op, call)
        except Exception:  # noqa: BLE001 - an operator that cannot be bound is left to the compiler
            return _MISSING
        if names is None:
            c.diagnostics.pop()  # reported again when the call itself is compiled
            return _MISSING
        kname, aname = names
        try:
            if aname is None:
                out = c.ns[kname](*[a[()] if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args])
            else:
                arrays = tuple(a if type(a) is tuple else np.asarray(a) for a in args)
                out = c.ns[kname](arrays, c.ns[aname])
        except Exception:  # noqa: BLE001 - it fails, located, when it runs
            return _MISSING
        if not _plain(out):
            return _MISSING
        return out


_MISSING = object()


def _plain(value: Any) -> bool:
    import numpy as np

    if type(value) is tuple:
        return all(_plain(v) for v in value)
    return isinstance(value, (np.ndarray, np.generic))


def _size(shape: tuple) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _static(shape: object) -> TypeGuard[tuple[int, ...]]:
    return type(shape) is tuple and all(type(d) is int for d in shape)


def _small_enough(ty: Any) -> bool:
    """Whether a value of this type is small enough to keep as a constant."""
    from ..ir.ty import TupleType

    if isinstance(ty, TensorType):
        if not _static(ty.shape):
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
            node = node.body  # type: ignore[attr-defined]  # t is type(node), kept in a local for speed
        else:
            return node
