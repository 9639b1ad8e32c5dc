"""Which calls a function makes of itself as the last thing it does.

Such a call (in the function's body, or in a branch of an `if` or `match`
that is itself last) is compiled as the next iteration of a loop around
the function's body (see `emit.FunctionEmitter.function_body`): the
parameters take the new arguments and the body starts again. A loop
written as recursion then holds one iteration's values, not one frame
of them per call.

A closure made in a looping function's frame is made by a function of
its own from the values it reads (`emit.FunctionEmitter.emit_function`):
a Python closure would read the loop's variables as they are when it
runs, not as they were when it was made. A call stays a call through a
region outlined into a function of its own (see `emit`), and where its
value is checked against an annotation after it returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.expr import Call, Expr, Function, GlobalVar, If, Let, Match, Var
from .code import shape_obligation
from .plan import LEAVES, Region

if TYPE_CHECKING:
    from .emit import FunctionEmitter

TailSites = dict[Expr, tuple[int, list[str]]]
"""A self tail call -> (the index of its site in the program, the names of
the parameters it assigns)."""


def find_loops(emitter: FunctionEmitter, fn: Function, name: str) -> tuple[TailSites, set[Function], set[Function]]:
    """The self tail calls of a top-level function (compiled as `name`) and
    of each closure in it, registered with the compiler (`loops`,
    `tail_sites`); the functions that have some; the closures made in the
    frames of those."""
    c = emitter.c
    sites: TailSites = {}
    looping: set[Function] = set()
    functions = [(fn, name)] + [(node, c.ref(node)) for node in emitter.plan.place if type(node) is Function]
    for function, ident in functions:
        calls = tail_calls(emitter, function, ident)
        if not calls:
            continue
        looping.add(function)
        params = [c.names[p] for p in function.params]
        own = []
        for call in calls:
            own.append(len(c.tail_sites))
            sites[call] = (own[-1], params)
            c.tail_sites.append(call)
        c.loops[ident] = tuple(own)
    made = set()
    if looping:
        for node, region in emitter.plan.place.items():
            if type(node) is Function and _maker(region) in looping:
                made.add(node)
    return sites, looping, made


def _maker(region: Region) -> Expr:
    """The function in whose frame the code of `region` runs."""
    while type(region.owner) is not Function:
        region = region.parent  # type: ignore[assignment]  # a function's body region is reached first
    return region.owner


def tail_calls(emitter: FunctionEmitter, fn: Function, name: str) -> list[Call]:
    """The calls by which `fn` (compiled as `name`) calls itself last,
    passing one argument per parameter."""
    plan = emitter.plan
    (body,) = plan.opens[fn]
    found: list[Call] = []
    regions = [body]
    while regions:
        region = regions.pop()
        if region in emitter.outlined or _checks_after(emitter, region.root):
            continue
        root = emitter.resolve(region.root)
        if root is None or plan.place.get(root) is not region:
            continue
        if type(root) is If or type(root) is Match:
            regions.extend(plan.opens[root])
        elif (
            type(root) is Call
            and not _checked(emitter, root)
            and len(root.args) == len(fn.params)
            and _calls_itself(emitter, root, fn, name)
        ):
            found.append(root)
    return found


def _checks_after(emitter: FunctionEmitter, node: Expr) -> bool:
    """Whether a `let` on the way from `node` to the value it denotes
    checks a variable's annotation after that value is computed."""
    while type(node) is Let:
        if isinstance(node.value, LEAVES) and _checked(emitter, node.value):
            return True
        node = node.body
    return False


def _checked(emitter: FunctionEmitter, value: Expr) -> bool:
    """Whether the shape of `value` is checked against an annotation when
    it is computed (see `emit.FunctionEmitter.check_shape`)."""
    pending = emitter.let_checks.get(value)
    type_of = emitter.c.type_of
    return pending is not None and type_of is not None and shape_obligation(type_of(value), pending[0]) is not None


def _calls_itself(emitter: FunctionEmitter, call: Call, fn: Function, name: str) -> bool:
    """Whether `call` calls `fn`: its global (compiled as `name`), or the
    closure `let`-bound to a variable."""
    op = call.op
    if type(op) is GlobalVar:
        return emitter.c.ref(op) == name
    return type(op) is Var and emitter.resolve(op) is fn
