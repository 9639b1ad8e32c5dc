"""Calls computed into the buffer of an argument, as the emitter writes them.

Where an elementwise call reads last a fresh tensor of its own type (see
`inplace`), `inplace_call` picks the function that writes into it, and
`chain` fuses it with the in-place call just emitted whose buffer it
continues, so that a run of them is one pass over the buffer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from ..ir.expr import Call, Constant, Expr, Op, int_attr
from ..ir.ty import TensorType
from .code import Block

if TYPE_CHECKING:
    from .compile import Compiler

# Steps fused into one pass over a buffer at most (see `chain`): past a few,
# fusing saves little, and a longer chain would be rebuilt at every step.
CHAIN_STEPS = 16


class InPlaceCalls:
    """The in-place part of `emit.FunctionEmitter`."""

    c: Compiler
    # tensor-valued node -> the nodes of its own region still to read it
    readers: dict[Expr, set[Expr]]
    # tensor-valued node -> every node of its region that reads it
    all_readers: dict[Expr, frozenset[Expr]]
    # the last in-place call emitted: (block, line index, node, keys, parts, argument texts, names)
    last_inplace: tuple[Any, ...] | None
    resolve: Callable[[Expr], Expr | None]  # (see `emit.FunctionEmitter.resolve`)

    def chain(
        self, node: Call, fn: Any, into: int, key: tuple[Any, ...], args: list[str], target: str, block: Block
    ) -> bool:
        """Fuse an in-place call into the in-place call just emitted whose
        buffer it continues (see `inplace.Chain`): one pass over the buffer,
        block by block, instead of two. Only `del` lines may stand between."""
        from .inplace import Chain

        last = self.last_inplace
        if last is None or not getattr(fn, "fusable", False):
            return False
        home, index, prev, keys, parts, texts, names = last
        if home is not block or self.resolve(node.args[into]) is not prev:
            return False
        if len(keys) >= CHAIN_STEPS:
            return False  # a new pass starts: each step's cost stays bounded, a long chain compiles in linear time
        for item in block.items[index + 1 :]:
            if not isinstance(item, tuple) or not item[0].startswith("del "):
                return False
        others = [a for i, a in enumerate(args) if i != into]
        if any(a in names for a in others):
            return False  # reads the buffer twice (`x * x`): not a step of one pass
        keys = [*keys, key]
        parts = [*parts, fn]
        texts = texts + others
        key = ("chain", *keys)
        ident = self.c.inplace_names.get(key)
        if ident is None:
            ident = self.c.inplace_names[key] = self.c.fresh("I")
            self.c.ns[ident] = Chain(parts)
        # every name of the chain stays bound (each is released after its reader)
        text = f"{target} = {ident}({', '.join(texts)})" + "".join(f"; {n} = {target}" for n in names)
        block.items[index] = (text, node)
        self.last_inplace = (block, index, node, keys, parts, texts, [*names, target])
        return True

    def inplace_call(self, node: Call) -> tuple[str, Any, int, tuple[Any, ...]] | None:
        """A function computing `node` into the buffer of an argument it
        reads last (see `inplace`): (its name, the function, the argument,
        its key), or None."""
        from . import inplace
        from ..ops._np import np

        type_of = self.c.type_of
        if type(node.op) is not Op or type_of is None:
            return None
        name = node.op.name
        if not node.args or not inplace.fresh(name):
            return None
        ty = type_of(node)
        if not isinstance(ty, TensorType) or ty.dtype not in inplace.FLOATS or type(ty.shape) is not tuple:
            return None  # (a shape may still be a variable where a generic function is applied)
        candidates = [0, 1] if name in inplace.BINARY_UFUNCS else [0]
        for i in candidates:
            if i >= len(node.args) or not self.reusable(node.args[i], node, ty):
                continue
            fn: Any = None
            key: tuple[Any, ...] = (name, i)
            if name in inplace.BINARY_UFUNCS and len(node.args) == 2:
                other = type_of(node.args[1 - i])
                if not isinstance(other, TensorType) or other.dtype != ty.dtype:
                    return None
                fn = inplace.binary(getattr(np, inplace.BINARY_UFUNCS[name]), i)
            elif name == "nn.bias_add" and len(node.args) == 2:
                axis = int_attr(dict(node.attrs), "axis", 1)
                if axis is None:
                    return None
                key = (name, axis, len(ty.shape))
                fn = inplace.bias_add(axis, len(ty.shape))
            elif name == "power" and len(node.args) == 2:
                e = node.args[1]
                if type(e) is Constant and e.value in (2.0, 3.0) and e.shape == () and e.dtype == ty.dtype:
                    key = (name, float(e.value))
                    fn = inplace.power(float(e.value))
            elif name in ("nn.softmax", "nn.log_softmax"):
                axis = int_attr(dict(node.attrs), "axis", -1)
                if axis is None or len(ty.shape) == 0 or axis % len(ty.shape) != len(ty.shape) - 1:
                    return None
                key = (name,)
                fn = inplace.softmax(name == "nn.log_softmax")
            elif len(node.args) == 1 and not node.attrs:
                step = inplace.unary_step(name)
                if step is not None:
                    fn = inplace.unary(step)
            if fn is None:
                return None
            names = self.c.inplace_names
            ident = names.get(key)
            if ident is None:
                ident = names[key] = self.c.fresh("I")
                self.c.ns[ident] = fn
            return ident, self.c.ns[ident], i, key
        return None

    def reusable(self, arg: Expr, node: Expr, ty: Any) -> bool:
        """Whether `node` may write its result into the buffer of `arg`: a
        fresh tensor of the same type that `node` reads last, which no other
        reader could have made a view of."""
        from . import inplace

        target = self.resolve(arg)
        if type(target) is not Call or type(target.op) is not Op:
            return False
        if not inplace.fresh(target.op.name) and not self.dead_view(target):
            return False
        pending = self.readers.get(target)
        if pending is None or pending != {node}:
            return False
        for reader in self.all_readers[target]:
            if type(reader) is not Call or type(reader.op) is not Op or not inplace.fresh(reader.op.name):
                return False
        type_of = self.c.type_of
        if type_of is None:
            return False
        found = type_of(target)
        return isinstance(found, TensorType) and found == ty and all(type(d) is int for d in ty.shape)

    def dead_view(self, node: Call) -> bool:
        """Whether `node` reshapes (a view, or a copy) a fresh tensor that it
        alone reads: its buffer is then the reshape's own."""
        from ..ops import registry
        from .inplace import fresh

        op = node.op
        if not isinstance(op, Op) or len(node.args) != 1 or not registry.properties(op.name).reshape:
            return False
        base = self.resolve(node.args[0])
        if type(base) is not Call or type(base.op) is not Op or not fresh(base.op.name):
            return False
        return self.all_readers.get(base) == frozenset({node})
