"""Control flow: `If`, `Loop`, `Scan`.

`If` becomes Relay's `if` over the two converted branches (chosen at
import time when the condition is known). Branch results of the same rank
but different static shapes are given `?` dimensions (`dyn.reshape` by
their own shape), so that both branches have one type.

`Loop` becomes a recursive local function, as TVM's `while_loop` built it:

    let %loop = fn (%i, %cond, %v1, ..., %scan1, ...) {
      if (%i < %max && %cond) { <body>; %loop(%i + 1, %cond2, %v1', ..., concat(%scan1, %s1)) }
      else { (%i, %cond, %v1, ..., %scan1, ...) }
    };
    %loop(0, cond, v1, ..., empty scans)

A loop-carried value whose shape the body changes gets `?` dimensions;
scan outputs grow along a new first axis of length `?`.

`Scan` runs a known number of steps (the length of its scan axis), so it is
unrolled: the body is converted once per step.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir.expr import Call, Expr, Function, If, Let, Tuple, Var
from ...ir.ty import AnyDim, Dim, TensorType, TupleType, Type
from ..builder import Builder, Unsupported
from ._common import norm_axis, scalar
from .graph import Ctx
from .node import Node
from .table import Converted, converter


def _scalar_bool(b: Builder, cond: Expr) -> Expr:
    if b.rank(cond) == 0:
        return cond
    return b.call("reshape", cond, newshape=[])


def _dynamic(b: Builder, x: Expr) -> Expr:
    """`x` with every dimension `?` (same values)."""
    return b.call("dyn.reshape", x, b.call("shape_of", x, dtype="int64"))


def _unify(b: Builder, t: Expr, e: Expr) -> tuple[Expr, Expr]:
    """Make two branch results one type (see the module docstring)."""
    tt, te = b.type_of(t), b.type_of(e)
    if tt == te:
        return t, e
    if isinstance(tt, TensorType) and isinstance(te, TensorType):
        if tt.dtype != te.dtype or len(b.shape(t)) != len(b.shape(e)):
            raise Unsupported(f"the branches of `If` give values of different types ({tt} and {te})")
        return _dynamic_call(b, t), _dynamic_call(b, e)
    if isinstance(tt, TupleType) and isinstance(te, TupleType) and len(tt.fields) == len(te.fields):
        pairs = [_unify(b, b.item(t, i), b.item(e, i)) for i in range(len(tt.fields))]
        return b.tuple([p[0] for p in pairs]), b.tuple([p[1] for p in pairs])
    raise Unsupported(f"the branches of `If` give values of different types ({tt} and {te})")


def _dynamic_call(b: Builder, x: Expr) -> Expr:
    shape = b.shape(x)
    if all(d is None for d in shape) or not shape:
        return x
    return _dynamic(b, x)


@converter("If")
def if_(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    cond = n.input(0)
    then_g, else_g = n.require("then_branch"), n.require("else_branch")
    known = b.value(cond)
    if known is not None:
        chosen = then_g if bool(np.asarray(known).reshape(-1)[0]) else else_g
        return cx.subgraph(chosen, {})
    then_outs = cx.subgraph(then_g, {})
    else_outs = cx.subgraph(else_g, {})
    if len(then_outs) != len(else_outs):
        raise Unsupported("the branches of `If` give different numbers of outputs")
    pairs = [_unify(b, t, e) for t, e in zip(then_outs, else_outs, strict=False)]
    t = pairs[0][0] if len(pairs) == 1 else b.tuple([p[0] for p in pairs])
    e = pairs[0][1] if len(pairs) == 1 else b.tuple([p[1] for p in pairs])
    node = b.typed(If(_scalar_bool(b, cond), t, e))
    if len(pairs) == 1:
        return [node]
    return b.items(node)


def _relaxed(t0: Type, t1: Type) -> Type:
    """The type of a loop-carried value that starts as t0 and becomes t1."""
    if t0 == t1:
        return t0
    if (
        isinstance(t0, TensorType)
        and isinstance(t1, TensorType)
        and t0.dtype == t1.dtype
        and isinstance(t0.shape, tuple)
        and isinstance(t1.shape, tuple)
        and len(t0.shape) == len(t1.shape)
    ):
        return TensorType(tuple(a if a == c else AnyDim() for a, c in zip(t0.shape, t1.shape, strict=False)), t0.dtype)
    if isinstance(t0, TupleType) and isinstance(t1, TupleType) and len(t0.fields) == len(t1.fields):
        return TupleType(tuple(_relaxed(a, c) for a, c in zip(t0.fields, t1.fields, strict=False)))
    raise Unsupported(f"a loop-carried value changes type from {t0} to {t1}")


@converter("Loop", since=1)
def loop(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    body = n.require("body")
    max_count, cond0 = n.input(0), n.input(1)
    inits = n.inputs[2:]
    carried = len(inits)
    names = [vi.name for vi in body.input]
    if len(names) != 2 + carried:
        raise Unsupported(f"the loop body takes {len(names)} inputs, {2 + carried} expected")
    if any(isinstance(v, Tuple) and not v.fields for v in inits):
        raise Unsupported("an empty sequence carried through a loop is not supported")
    types = [b.type_of(v) for v in inits]
    i64 = TensorType((), "int64")
    boolean = TensorType((), "bool")
    scan_types = None
    for _ in range(4):
        i_var = b.var("i", i64)
        cond_var = b.var("cond", boolean)
        v_vars = [b.var(f"v{k}", t) for k, t in enumerate(types)]
        bindings = {names[0]: i_var, names[1]: cond_var}
        bindings.update({names[2 + k]: v for k, v in enumerate(v_vars)})
        outs = cx.subgraph(body, bindings)
        new_types = [b.type_of(o) for o in outs[1 : 1 + carried]]
        relaxed = [_relaxed(t, nt) for t, nt in zip(types, new_types, strict=False)]
        if relaxed == types:
            break
        types = relaxed
    else:
        raise Unsupported("the types of the loop-carried values do not settle")
    elem_types: list[TensorType] = []
    elem_shapes: list[tuple[Dim, ...]] = []
    for o in outs[1 + carried :]:
        t = b.type_of(o)
        if not isinstance(t, TensorType) or not isinstance(t.shape, tuple):
            raise Unsupported("scan outputs of a loop must be tensors")
        elem_types.append(t)
        elem_shapes.append(t.shape)
    scan_types = [TensorType((AnyDim(), *shape), t.dtype) for t, shape in zip(elem_types, elem_shapes, strict=True)]
    scan_vars = [b.var(f"scan{k}", t) for k, t in enumerate(scan_types)]
    max_var = b.var("max_count", i64)
    # continue while i < max and cond
    go = None
    if max_count is not None:
        go = b.call("less", i_var, max_var)
    if cond0 is not None:
        go = cond_var if go is None else b.call("logical_and", go, cond_var)
    if go is None:
        raise Unsupported("a loop with neither a trip count nor a condition never ends")
    loop_var = Var("while_loop", None)
    next_i = b.call("add", i_var, scalar(b, 1, "int64"))
    next_cond = _scalar_bool(b, outs[0]) if cond0 is not None else cond_var
    if b.dtype(next_cond) != "bool":
        next_cond = b.call("cast", next_cond, dtype="bool")
    next_scans = []
    for scan_var, o in zip(scan_vars, outs[1 + carried :], strict=False):
        s: Expr = scan_var
        if not all(isinstance(d, int) for d in b.shape(o)):
            # an element of unknown shape: the scan (empty at first, of shape
            # (0, 1, ...)) is broadcast to (i, element shape) before growing
            target = b.call(
                "concatenate",
                b.tuple([b.call("reshape", i_var, newshape=[1]), b.call("shape_of", o, dtype="int64")]),
                axis=0,
            )
            s = b.call("dyn.broadcast_to", s, target)
        next_scans.append(b.call("concatenate", b.tuple([s, b.call("expand_dims", o, axis=0)]), axis=0))
    state = [i_var, max_var, cond_var, *v_vars, *scan_vars]
    ret = TupleType(tuple(b.type_of(v) for v in state))
    recur = Call(loop_var, tuple([next_i, max_var, next_cond, *list(outs[1 : 1 + carried]), *next_scans]))
    done = Tuple(tuple(state))
    func = Function(tuple(state), If(go, recur, done), ret_type=ret)
    loop_var.type_annotation = None
    m = b.call("reshape", max_count, newshape=[]) if max_count is not None and b.rank(max_count) else max_count
    if m is None:
        m = scalar(b, np.iinfo(np.int64).max, "int64")
    c0 = _scalar_bool(b, cond0) if cond0 is not None else b.const(np.array(True))
    empty = [
        b.call("zeros", shape=[0] + [d if isinstance(d, int) else 1 for d in shape], dtype=t.dtype)
        for t, shape in zip(elem_types, elem_shapes, strict=True)
    ]
    start = Call(loop_var, tuple([scalar(b, 0, "int64"), m, c0, *list(inits), *empty]))
    node = b.typed(Let(loop_var, func, start))
    finals = b.items(node)
    return finals[3:]


@converter("Scan", since=9)
def scan(cx: Ctx, n: Node) -> Converted:
    return _scan(cx, n, list(n.inputs))


@converter("Scan", since=8, until=8)
def scan_v8(cx: Ctx, n: Node) -> Converted:
    """Opset 8: a batch axis first, and optional sequence lengths (input 0)."""
    b = cx.b
    lens = n.input(0)
    rest = list(n.inputs[1:])
    if lens is not None:
        known = b.value(lens)
        if known is None:
            raise Unsupported("the sequence lengths of `Scan` must be known when the model is imported")
    batch = b.static_shape(rest[0], "the first state")[0]
    per = []
    for i in range(batch):
        picked = [b.call("take", v, b.const(np.array(i, dtype=np.int64)), axis=0) for v in rest]
        per.append(_scan(cx, n, picked, v8=True))
    return [b.call("stack", b.tuple([p[k] for p in per]), axis=0) for k in range(len(per[0]))]


def _scan(cx: Ctx, n: Node, inputs: Sequence[Expr], v8: bool = False) -> list[Expr]:
    b = cx.b
    body = n.require("body")
    m = int(n.require("num_scan_inputs"))
    states = len(body.input) - m
    state, xs = inputs[:states], inputs[states:]
    in_axes = list(n.attr("scan_input_axes", [0] * m)) if not v8 else [0] * m
    in_dirs = list(n.attr("scan_input_directions", n.attr("directions", [0] * m) if v8 else [0] * m))
    outs_count = len(body.output) - states
    out_axes = list(n.attr("scan_output_axes", [0] * outs_count)) if not v8 else [0] * outs_count
    out_dirs = list(n.attr("scan_output_directions", [0] * outs_count)) if not v8 else [0] * outs_count
    in_axes = [norm_axis(a, b.rank(x)) for a, x in zip(in_axes, xs, strict=False)]
    length = b.static_shape(xs[0], "the scanned input")[in_axes[0]]
    if length == 0:
        raise Unsupported("a scan over zero steps is not supported")
    names = [vi.name for vi in body.input]
    collected: list[list[Expr]] = [[] for _ in range(outs_count)]
    for t in range(length):
        slices = []
        for x, axis, d in zip(xs, in_axes, in_dirs, strict=False):
            idx = length - 1 - t if d else t
            slices.append(b.call("take", x, b.const(np.array(idx, dtype=np.int64)), axis=axis))
        bindings = dict(zip(names, list(state) + slices, strict=False))
        outs = cx.subgraph(body, bindings)
        state = outs[:states]
        for k, o in enumerate(outs[states:]):
            collected[k].append(o)
    results = list(state)
    for k, items in enumerate(collected):
        if out_dirs[k]:
            items = items[::-1]
        rank = b.rank(items[0]) + 1
        results.append(b.call("stack", b.tuple(items), axis=norm_axis(out_axes[k], rank)))
    return results
