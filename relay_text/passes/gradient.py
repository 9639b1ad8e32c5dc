"""`gradient`: reverse-mode automatic differentiation of one function.

`relay opt --passes gradient --entry @f` replaces `@f(%x, %y) -> T` by a
function of the same parameters returning `(value, (dx, dy))`: the value of
`@f` and the gradient of the sum of its result with respect to each
parameter (TVM's convention: the result's gradient starts as ones). Each
operator's derivative is TVM's (`_gradients.py`); an operator without one
is a `pass-failed` error naming it. Parameters must be tensors (or tuples
of tensors).

Two modes, as TVM has them:

* `mode=higher_order` (TVM's default): the program is rewritten so that
  each value travels with a reference to its gradient, and a reference to
  a closure, the backpropagator, grows a step per operator call; at the
  end the result's gradient is set to ones and the closure runs. This
  handles `let` and `if` (each branch records its own steps). Calls of
  functions, closures, data types and references are not handled here
  (TVM also differentiated through calls of global functions).
* `mode=first_order`: the forward values are bound in order, then the
  backward steps follow as straight-line code accumulating each value's
  gradient with `add`: for dataflow programs (calls, tuples, projections,
  `let`), as TVM's `FirstOrderGradient`.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ir.module import Module
from ..ir.ty import FuncType, TensorType, TupleType
from ._gradients import RULES
from ._module import call, replace, written
from ._scopes import bind_lets
from .context import PassContext, failed
from .registry import Option, register


@register(
    "gradient",
    "Differentiate the entry function (--entry @f): it returns its value and the gradients of its parameters",
    Option(
        "mode",
        "str",
        "higher_order",
        "higher_order (references and a backpropagator closure) or first_order",
        ("higher_order", "first_order"),
    ),
)
def gradient(module: Module, ctx: PassContext, mode: str) -> Module:
    name = (ctx.entry or "@main").lstrip("@")
    gv = module.global_var(name)
    if gv is None:
        raise failed(
            f"`gradient` differentiates `@{name}`, which this file does not define",
            note="choose the function with `--entry @NAME`",
        )
    fn = module.functions[gv]
    types = ctx.types(module)
    for p in fn.params:
        if not _tensors(types.get(p)):
            raise failed(f"`gradient` needs parameters that are tensors; `%{p.name}` is not", p.span)
    if fn.type_params:
        raise failed("`gradient` does not differentiate generic functions", fn.span)
    anf = bind_lets(fn, everything=True)
    retyped = ctx.types(replace(module, functions={**module.functions, gv: anf}))
    build = _FirstOrder if mode == "first_order" else _HigherOrder
    new = build(retyped).differentiate(anf)
    ret = ctx.check(module).global_types.get(gv)
    if isinstance(ret, FuncType):
        grads = TupleType(tuple(written(types.get(p)) for p in fn.params))
        new = Function(new.params, new.body, TupleType((written(ret.ret_type), grads)), (), (), fn.attrs, fn.span)
    return replace(module, functions={**module.functions, gv: new})


def _tensors(ty: Any) -> bool:
    if isinstance(ty, TensorType):
        return True
    return isinstance(ty, TupleType) and all(_tensors(f) for f in ty.fields)


def _differentiable(ty: Any) -> bool:
    return isinstance(ty, TensorType) and str(ty.dtype).startswith(("float", "bfloat"))


def _zeros(ty: Any, like: Expr | None = None) -> Expr:
    if isinstance(ty, TensorType):
        return (
            call("zeros_like", like)
            if like is not None
            # a tensor type's shape is a tuple of dimensions after checking
            else call("zeros", attrs=(("shape", tuple(ty.shape)), ("dtype", ty.dtype)))  # type: ignore[arg-type]
        )
    assert isinstance(ty, TupleType)
    return Tuple(tuple(_zeros(f) for f in ty.fields))


def _ones(ty: Any, like: Expr) -> Expr:
    if isinstance(ty, TensorType):
        return call("ones_like", like)
    assert isinstance(ty, TupleType)
    return Tuple(tuple(_ones(f, TupleGetItem(like, i)) for i, f in enumerate(ty.fields)))


def _add(ty: Any, x: Expr, y: Expr, push: Callable[[Expr], Expr]) -> Expr:
    """x + y over a tensor or a tuple of tensors (TVM's LiftedAdd); an
    integer or boolean tensor has no gradient to accumulate."""
    if isinstance(ty, TensorType):
        return push(call("add", x, y)) if _differentiable(ty) else x
    assert isinstance(ty, TupleType)
    fields = [_add(f, push(TupleGetItem(x, i)), push(TupleGetItem(y, i)), push) for i, f in enumerate(ty.fields)]
    return push(Tuple(tuple(fields)))


def _lets(bindings: list[tuple[Var, Expr]], result: Expr) -> Expr:
    body = result
    for var, value in reversed(bindings):
        body = Let(var, value, body)
    return body


class _Builder:
    def __init__(self, types: dict[Expr, Any]) -> None:
        self.types = types
        self.count = 0

    def fresh(self, stem: str = "x") -> Var:
        self.count += 1
        return Var(f"{stem}{self.count}")

    def derivative(self, node: Call, forward_args: list[Expr], grad: Expr, forward_call: Expr) -> list[Expr]:
        assert isinstance(node.op, Op)  # operator calls only
        name = node.op.name
        found = RULES.get(name)
        if found is None:
            raise failed(f"`gradient`: the operator `{name}` has no derivative", node.span, "not differentiable here")
        arg_types = [self.types.get(a) for a in node.args]
        shaped = Call(node.op, tuple(forward_args), node.attrs, node.type_args, node.span)
        try:
            grads = found(shaped, grad, arg_types, self.types.get(node), forward_call)
        except (AssertionError, ValueError, KeyError) as exc:
            raise failed(f"`gradient` cannot differentiate this `{name}`: {exc}", node.span) from None
        if len(grads) != len(node.args):
            raise failed(
                f"`gradient`: the derivative of `{name}` gives {len(grads)} gradients for {len(node.args)} arguments",
                node.span,
            )
        return grads


# ---------------------------------------------------------------- first order


class _FirstOrder(_Builder):
    def differentiate(self, fn: Function) -> Function:
        forward: list[tuple[Var, Expr]] = []
        actions: list[Callable[[Callable[[Expr], Expr]], None]] = []
        env: dict[Expr, list[Any]] = {}  # node -> [forward var, gradient expression, type]

        def push_to(bindings: list[tuple[Var, Expr]]) -> Callable[[Expr], Expr]:
            def push(value: Expr) -> Expr:
                if isinstance(value, (Var, GlobalVar, Op)):
                    return value
                var = self.fresh()
                bindings.append((var, value))
                return var

            return push

        push = push_to(forward)

        def tensor(value: Expr, ty: Any) -> list[Any]:
            v = push(value)
            return [v, push(_zeros(ty, v if isinstance(ty, TensorType) else None)), ty]

        for p in fn.params:
            env[p] = tensor(p, self.types.get(p))
        node: Expr = fn.body
        while type(node) is Let:
            env[node.var] = self.value(node.value, env, tensor, actions)
            node = node.body
        result = self.value(node, env, tensor, actions)
        backward: list[tuple[Var, Expr]] = []
        back = push_to(backward)
        result[1] = back(_ones(result[2], result[0]))
        for action in reversed(actions):
            action(back)
        grads = Tuple(tuple(env[p][1] for p in fn.params))
        body = _lets(forward, Tuple((result[0], _lets(backward, grads))))
        return Function(fn.params, body, None, (), (), fn.attrs, fn.span)

    def value(
        self, node: Expr, env: dict[Expr, list[Any]], tensor: Callable[..., list[Any]], actions: list[Any]
    ) -> list[Any]:
        t = type(node)
        ty = self.types.get(node)
        if isinstance(node, Var):
            return env[node]
        if isinstance(node, Constant):
            return tensor(node, ty)
        if isinstance(node, Call) and isinstance(node.op, Op):
            args = [env[a] if type(a) is Var else self.value(a, env, tensor, actions) for a in node.args]
            forward_call = Call(node.op, tuple(a[0] for a in args), node.attrs, node.type_args, node.span)
            out = tensor(forward_call, ty)

            call_node = node

            def step(push: Callable[[Expr], Expr], args: list[Any] = args, out: list[Any] = out) -> None:
                grads = self.derivative(call_node, [a[0] for a in args], out[1], out[0])
                for arg, g in zip(args, grads, strict=False):
                    arg[1] = _add(arg[2], arg[1], push(g), push)

            actions.append(step)
            return out
        if isinstance(node, Tuple):
            fields = [env[f] if type(f) is Var else self.value(f, env, tensor, actions) for f in node.fields]
            out = tensor(Tuple(tuple(f[0] for f in fields)), ty)

            def step_tuple(push: Callable[[Expr], Expr], fields: list[Any] = fields, out: list[Any] = out) -> None:
                for i, f in enumerate(fields):
                    f[1] = _add(f[2], f[1], push(TupleGetItem(out[1], i)), push)

            actions.append(step_tuple)
            return out
        if isinstance(node, TupleGetItem):
            whole = (
                env[node.tuple_value]
                if type(node.tuple_value) is Var
                else self.value(node.tuple_value, env, tensor, actions)
            )
            index = node.index
            out = tensor(TupleGetItem(whole[0], index), ty)

            def step_item(
                push: Callable[[Expr], Expr], whole: list[Any] = whole, out: list[Any] = out, index: int = index
            ) -> None:
                fields = []
                for i, f in enumerate(whole[2].fields):
                    before = push(TupleGetItem(whole[1], i))
                    fields.append(_add(f, before, out[1], push) if i == index else before)
                whole[1] = push(Tuple(tuple(fields)))

            actions.append(step_item)
            return out
        what = {If: "`if`", Function: "a function", Call: "a call of a function"}.get(t, f"`{t.__name__}`")
        raise failed(
            f"first-order `gradient` does not handle {what}; use mode=higher_order", getattr(node, "span", None)
        )


# ---------------------------------------------------------------- higher order


class _HigherOrder(_Builder):
    """Each tensor value becomes `(value, ref(gradient))`; `%bp` holds the
    closure that runs the backward steps recorded so far."""

    def differentiate(self, fn: Function) -> Function:
        bindings: list[tuple[Var, Expr]] = []
        bp = self.fresh("bp")
        bindings.append((bp, RefCreate(Function((), Tuple(())))))
        env: dict[Expr, Expr] = {}
        for p in fn.params:
            env[p] = self.pair(p, self.types.get(p), bindings)
        result = self.scope(fn.body, env, bp, bindings)
        ty = self.types.get(fn.body)
        self.bind(bindings, self.set_grad(result, ty))
        self.bind(bindings, Call(RefRead(bp), ()))
        grads = Tuple(tuple(self.read_grad(env[p], self.types.get(p)) for p in fn.params))
        body = _lets(bindings, Tuple((self.forward(result, ty), grads)))
        return Function(fn.params, body, None, (), (), fn.attrs, fn.span)

    def bind(self, bindings: list[tuple[Var, Expr]], value: Expr) -> Var:
        var = self.fresh()
        bindings.append((var, value))
        return var

    def pair(self, value: Expr, ty: Any, bindings: list[tuple[Var, Expr]]) -> Expr:
        """The AD form of a forward value."""
        if isinstance(ty, TensorType):
            return self.bind(bindings, Tuple((value, RefCreate(call("zeros_like", value)))))
        if isinstance(ty, TupleType):
            v = self.bind(bindings, value)
            return self.bind(
                bindings, Tuple(tuple(self.pair(TupleGetItem(v, i), f, bindings) for i, f in enumerate(ty.fields)))
            )
        raise failed("`gradient` handles tensors and tuples of tensors only")

    def forward(self, ad: Expr, ty: Any) -> Expr:
        if isinstance(ty, TensorType):
            return TupleGetItem(ad, 0)
        return Tuple(tuple(self.forward(TupleGetItem(ad, i), f) for i, f in enumerate(ty.fields)))

    def read_grad(self, ad: Expr, ty: Any) -> Expr:
        if isinstance(ty, TensorType):
            return RefRead(TupleGetItem(ad, 1))
        return Tuple(tuple(self.read_grad(TupleGetItem(ad, i), f) for i, f in enumerate(ty.fields)))

    def set_grad(self, ad: Expr, ty: Any) -> Expr:
        if isinstance(ty, TensorType):
            return RefWrite(TupleGetItem(ad, 1), call("ones_like", TupleGetItem(ad, 0)))
        steps = [self.set_grad(TupleGetItem(ad, i), f) for i, f in enumerate(ty.fields)]
        return Tuple(tuple(steps))

    def accumulate(self, ad: Expr, ty: Any, grad: Expr, bindings: list[tuple[Var, Expr]]) -> None:
        if isinstance(ty, TensorType) and not _differentiable(ty):
            return
        if isinstance(ty, TensorType):
            ref = TupleGetItem(ad, 1)
            self.bind(bindings, RefWrite(ref, call("add", RefRead(ref), grad)))
            return
        g = self.bind(bindings, grad)
        for i, f in enumerate(ty.fields):
            self.accumulate(TupleGetItem(ad, i), f, TupleGetItem(g, i), bindings)

    def scope(self, node: Expr, env: dict[Expr, Expr], bp: Var, bindings: list[tuple[Var, Expr]]) -> Expr:
        while type(node) is Let:
            env[node.var] = self.value(node.value, env, bp, bindings)
            node = node.body
        return self.value(node, env, bp, bindings)

    def value(self, node: Expr, env: dict[Expr, Expr], bp: Var, bindings: list[tuple[Var, Expr]]) -> Expr:
        t = type(node)
        ty = self.types.get(node)
        if isinstance(node, Var):
            return env[node]
        if isinstance(node, Constant):
            return self.pair(node, ty, bindings)
        if isinstance(node, Tuple):
            return self.bind(bindings, Tuple(tuple(self.value(f, env, bp, bindings) for f in node.fields)))
        if isinstance(node, TupleGetItem):
            return self.bind(bindings, TupleGetItem(self.value(node.tuple_value, env, bp, bindings), node.index))
        if isinstance(node, If):
            cond = self.value(node.cond, env, bp, bindings)
            branches = []
            for branch in (node.then_branch, node.else_branch):
                inner: list[tuple[Var, Expr]] = []
                result = self.scope(branch, dict(env), bp, inner)
                branches.append(_lets(inner, result))
            return self.bind(bindings, If(TupleGetItem(cond, 0), branches[0], branches[1], node.span))
        if isinstance(node, Call) and isinstance(node.op, Op):
            args = [self.value(a, env, bp, bindings) for a in node.args]
            arg_types = [self.types.get(a) for a in node.args]
            forwards = [self.forward(a, at) for a, at in zip(args, arg_types, strict=False)]
            value = self.bind(bindings, Call(node.op, tuple(forwards), node.attrs, node.type_args, node.span))
            out = self.pair(value, ty, bindings)
            # the backward step: this call's gradient to its arguments, then the steps before
            previous = self.bind(bindings, RefRead(bp))
            back: list[tuple[Var, Expr]] = []
            grad = self.bind(back, self.read_grad(out, ty))
            grads = self.derivative(node, forwards, grad, value)
            for arg, at, g in zip(args, arg_types, grads, strict=False):
                self.accumulate(arg, at, g, back)
            step = Function((), _lets(back, Call(previous, ())))
            self.bind(bindings, RefWrite(bp, step))
            return out
        what = {
            Function: "a function",
            Call: "a call of a function",
            RefCreate: "a reference",
            RefRead: "a reference",
            RefWrite: "a reference",
        }.get(t, f"`{t.__name__}`")
        raise failed(f"`gradient` does not differentiate through {what}", getattr(node, "span", None))
