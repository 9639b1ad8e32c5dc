"""Recursive functions shaped as loops, exported as ONNX `Loop`.

A function that calls itself is a loop ONNX can express when its body is

    let ... (bindings over the parameters);
    if (cond) { ...; f(next arguments) } else { result }

(or with the branches the other way round): the only reference to itself
is that call, in tail position of one branch, and every parameter is a
tensor. TVM's while loops (`let %while_loop = fn (...) { if (...) {
... %while_loop(...) } else { ... } }`) have this shape. The loop carries
the parameters; its body computes the next arguments and, from them, the
next condition; the result is the other branch evaluated on the last
values. Anything else that recurses is reported.

`lower_loop` is a generator run by the traversal (see `Lowerer.visit_call`):
the parts of the loop are handed to child lowerers with `Delegate`, never
visited recursively.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..ir.expr import Call, Expr, Function, GlobalVar, If, Let
from ..ir.ty import TensorType
from ..ir.visitor import Delegate
from .graph import concrete
from .lower import Lowerer, unsupported
from .values import Tensor


@dataclass
class LoopShape:
    prefix: list[Let]
    branch: If
    steps: list[Let]  # the continuing branch's lets, before the call
    call: Call
    continue_on_true: bool
    exit: Expr


def _lets(expr: Expr) -> tuple[list[Let], Expr]:
    lets = []
    while isinstance(expr, Let):
        lets.append(expr)
        expr = expr.body
    return lets, expr


def loop_shape(lw: Lowerer, fn: Function, self_ref: Expr) -> LoopShape | str:
    """The parts of `fn`'s body as a loop, or why it is not one."""
    mentions = lw.ex.mentions
    prefix, tail = _lets(fn.body)
    if not isinstance(tail, If):
        return "its body does not end in an `if` choosing between the recursive call and the result"
    if any(mentions(let.value, self_ref) for let in prefix) or mentions(tail.cond, self_ref):
        return "it refers to itself before choosing whether to go on"
    for continue_on_true, cont, other in (
        (True, tail.then_branch, tail.else_branch),
        (False, tail.else_branch, tail.then_branch),
    ):
        steps, last = _lets(cont)
        if isinstance(last, Call) and last.op is self_ref:
            if mentions(other, self_ref):
                return "both branches of its `if` call it"
            if any(mentions(let.value, self_ref) for let in steps) or any(mentions(a, self_ref) for a in last.args):
                return "it calls itself other than as the last step of a branch"
            if len(last.args) != len(fn.params):
                return "its recursive call does not pass every parameter"
            return LoopShape(prefix, tail, steps, last, continue_on_true, other)
    return "neither branch of its `if` ends in the recursive call (it recurses other than as a loop)"


def _condition(lw: Lowerer, shape: LoopShape, fn: Function, values: list[Any]) -> Any:
    """Bind the parameters to `values`, export the bindings before the `if`, return its condition."""
    for param, value in zip(fn.params, values, strict=False):
        lw.bind(param, value)
    for let in shape.prefix:
        lw.bind(let.var, (yield Delegate(lw, let.value)))
    return (yield Delegate(lw, shape.branch.cond))


def _going_on(lw: Lowerer, shape: LoopShape, cond: Tensor) -> str:
    if shape.continue_on_true:
        return cond.name
    return lw.graph.node("Not", [cond.name])


def lower_loop(caller: Lowerer, node: Call, fn: Function, self_ref: Any, args: list[Any], scope: Lowerer) -> Any:
    name = f"`@{self_ref.name}`" if isinstance(self_ref, GlobalVar) else f"`%{self_ref.name}`"
    shape = loop_shape(caller, fn, self_ref)
    if isinstance(shape, str):
        raise unsupported(
            f"{name} is recursive and ONNX graphs cannot recurse: {shape}",
            node.span,
            "recursive function called here",
            help="a function of the form `if (cond) { ...; f(next) } else { result }` is exported as an ONNX `Loop`",
        )
    if self_ref in caller.ex.inlining:
        raise unsupported(
            f"{name} calls itself through another function: ONNX graphs cannot recurse", node.span, "recursive call"
        )
    caller.ex.inlining.add(self_ref)
    types = [caller.ex.type_of(p, scope.subst) for p in fn.params]
    for p, ty, a in zip(fn.params, types, args, strict=False):
        if not concrete(ty) or not isinstance(a, Tensor):
            raise unsupported(
                f"{name} is a loop, but its parameter `%{p.name}` is not a tensor: ONNX's `Loop` carries tensors",
                node.span,
            )
    graph = caller.graph
    first = yield from _condition(scope.child(graph=graph), shape, fn, args)
    start = _going_on(scope.child(graph=graph), shape, first)

    body = caller.subgraph("loop_body", node, "loop")
    body.add_input(body.fresh("iteration"), TensorType((), "int64"))
    body.add_input(body.fresh("going_on"), TensorType((), "bool"))
    carried = []
    for p, ty in zip(fn.params, types, strict=False):
        n = body.fresh(p.name)
        body.add_input(n, ty)
        carried.append(Tensor(n, ty))
    step = scope.child(graph=body)
    yield from _condition(step, shape, fn, carried)
    for let in shape.steps:
        step.bind(let.var, (yield Delegate(step, let.value)))
    nexts = []
    for a in shape.call.args:
        nexts.append((yield Delegate(step, a)))
    for p, a in zip(fn.params, nexts, strict=False):
        if not isinstance(a, Tensor):
            raise unsupported(
                f"{name} is a loop, but its next `%{p.name}` is not a tensor: ONNX's `Loop` carries tensors",
                shape.call.span,
            )
    check = scope.child(graph=body)
    cond_next = _going_on(check, shape, (yield from _condition(check, shape, fn, nexts)))
    out = body.node("Identity", [cond_next])
    body.add_output(out, TensorType((), "bool"))
    for a, ty in zip(nexts, types, strict=False):
        n = body.node("Identity", [a.name])
        body.add_output(n, ty)

    outs = graph.multi_node("Loop", ["", start, *[a.name for a in args]], len(fn.params), body=body.build())
    finals = []
    for n, ty in zip(outs, types, strict=False):
        graph.set_type(n, ty)
        finals.append(Tensor(n, ty))
    done = scope.child(graph=graph)
    yield from _condition(done, shape, fn, finals)
    value = yield Delegate(done, shape.exit)
    caller.ex.inlining.discard(self_ref)
    return value
