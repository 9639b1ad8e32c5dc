"""The checker's view of types: holes with union-find links, and walks over types.

A `Hole` is an `IncompleteType` that inference fills in. It carries its
union-find link (`link`: another hole it was merged into, or the type it was
solved to), the generalization level at which it was created, the relations
to wake when it is refined (its trigger list) and where it came from, for
diagnostics. `find` follows links with path compression.

Types are small in practice, but a program can build a type as deep as
itself (`(((x,),),)` nested 10,000 times), so the walks here switch from
recursion to an explicit stack past a modest depth.

The same walks serve shapes (tuples of dimensions), dimensions and dtypes,
which occur inside tensor types and as explicit type arguments.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterator

from ..ir.ty import (
    AnyDim,
    DimBinOp,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    TypeRelation,
    TypeVar,
)

_DEEP = 200  # recursion depth at which walks switch to an explicit stack


class Hole(IncompleteType):
    """An unknown to be solved; see the module docstring."""

    __slots__ = ("level", "link", "origin", "triggers", "uid")
    _count = 0

    def __init__(self, kind: Kind = Kind.TYPE, level: int = 0, origin: Any = None) -> None:
        IncompleteType.__init__(self, kind, None)
        self.link: Any = None
        self.level = level
        self.triggers: list[Any] | None = None  # the constraints waiting on this hole
        self.origin = origin
        Hole._count += 1
        self.uid = Hole._count

    def __repr__(self) -> str:
        return f"?{self.uid}"


class ErrorType(Type):
    """The type of an expression that already has an error: fits everywhere."""

    __slots__ = ()

    def __str__(self) -> str:
        return "_"

    def __repr__(self) -> str:
        return "ErrorType"


ERROR = ErrorType()


class RefType(Type):
    """The type of a mutable reference cell (`ref(e)`)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RefType) and self.value == other.value

    def __hash__(self) -> int:
        return hash(("ref", id(self.value)))

    def __str__(self) -> str:
        from ..text.type_text import type_text

        return f"Ref[{type_text(self.value)}]"


def find(t: Any) -> Any:
    """The representative of `t`: its solution, or the root hole if unsolved."""
    if type(t) is not Hole:
        return t
    root = t
    while type(root) is Hole and root.link is not None:
        root = root.link
    while type(t) is Hole and t.link is not None and t.link is not root:
        t.link, t = root, t.link
    return root


# ---------------------------------------------------------------- structure


def children(t: Any) -> tuple[Any, ...]:
    """The parts of a type-level term (types, shapes, dims, dtypes)."""
    cls = type(t)
    if cls is TensorType:
        return (t.shape, t.dtype)
    if cls is tuple:
        same: tuple[Any, ...] = t
        return same
    if cls is TupleType:
        fields: tuple[Any, ...] = t.fields
        return fields
    if cls is FuncType:
        parts = (*t.arg_types, t.ret_type)
        for rel in t.type_constraints:
            parts += rel.args
        return parts
    if cls is TypeCall:
        args: tuple[Any, ...] = t.args
        return args
    if cls is DimBinOp:
        return (t.lhs, t.rhs)
    if cls is RefType:
        return (t.value,)
    return ()


def rebuild(t: Any, parts: list[Any]) -> Any:
    """`t` with its parts (in `children` order) replaced."""
    cls = type(t)
    if cls is TensorType:
        shape, dtype = parts
        if shape is t.shape and dtype is t.dtype:
            return t
        return TensorType(shape, dtype, t.span)
    if cls is tuple:
        return t if all(a is b for a, b in zip(t, parts, strict=False)) else tuple(parts)
    if cls is TupleType:
        return t if all(a is b for a, b in zip(t.fields, parts, strict=False)) else TupleType(tuple(parts), t.span)
    if cls is FuncType:
        old = children(t)
        if all(a is b for a, b in zip(old, parts, strict=False)):
            return t
        n = len(t.arg_types)
        args = tuple(parts[:n])
        ret = parts[n]
        rels = []
        pos = n + 1
        for rel in t.type_constraints:
            k = len(rel.args)
            rels.append(TypeRelation(rel.name, tuple(parts[pos : pos + k]), rel.num_inputs, rel.span))
            pos += k
        return FuncType(args, ret, t.type_params, tuple(rels), t.span)
    if cls is TypeCall:
        return t if all(a is b for a, b in zip(t.args, parts, strict=False)) else TypeCall(t.func, tuple(parts), t.span)
    if cls is DimBinOp:
        lhs, rhs = parts
        if lhs is t.lhs and rhs is t.rhs:
            return t
        return simplify_dim(DimBinOp(t.op, lhs, rhs, t.span))
    if cls is RefType:
        return t if parts[0] is t.value else RefType(parts[0])
    return t


def simplify_dim(d: DimBinOp) -> Any:
    """Normalise linear arithmetic: `2 + 3` becomes 5, `n - 1 + 1` becomes `n`."""
    from .dims import build, linear

    form = linear(d)
    return build(form) if form is not None else d


def transform(t: Any, leaf: Callable[[Any], Any], expand_holes: bool = False) -> Any:
    """Rebuild `t` bottom-up, replacing each leaf by `leaf(x)`.

    Leaves are everything without parts: holes, type variables, ints,
    dtypes, `?`. With `expand_holes`, a solved hole is replaced by its
    solution, which is then walked too (this is `resolve`).
    """
    return _transform(t, leaf, expand_holes, 0)


def _transform(t: Any, leaf: Callable[[Any], Any], expand: bool, depth: int, memo: dict[int, Any] | None = None) -> Any:
    """Recursive for shallow types (the common case, and the fastest); an
    explicit stack past _DEEP levels. Compound parts are memoised by
    identity, so a part shared many times within `t` is rebuilt once."""
    if expand and type(t) is Hole:
        t = find(t)
    kids = children(t)
    if not kids:
        if expand and type(t) is Hole:
            return leaf(t)
        return leaf(t) if type(t) is not tuple else t
    if memo is None:
        memo = {}
    hit = memo.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    if depth > _DEEP:
        return _fold(t, memo, find if expand else _same, lambda x: x if type(x) is tuple else leaf(x), rebuild)
    result = rebuild(t, [_transform(k, leaf, expand, depth + 1, memo) for k in kids])
    memo[id(t)] = (t, result)
    return result


def _keep(x: Any) -> Any:
    return x


def resolve(t: Any) -> Any:
    """`t` with every solved hole replaced by its solution, all the way down."""
    cls = type(t)
    if cls is Hole:
        t = find(t)
        cls = type(t)
    if cls is TensorType:
        return _resolve_tensor(t)
    if (
        cls is str
        or cls is int
        or cls is TypeVar
        or cls is GlobalTypeVar
        or cls is Hole
        or cls is AnyDim
        or cls is ErrorType
    ):
        return t
    return _transform(t, _keep, True, 0)


def _resolve_tensor(t: TensorType) -> Any:
    """`resolve` for the most common type, without the generic walk."""
    shape, dtype = t.shape, t.dtype
    new_dtype = find(dtype) if type(dtype) is Hole else dtype
    new_shape = find(shape) if type(shape) is Hole else shape
    if type(new_shape) is tuple:
        dims = None
        for i, d in enumerate(new_shape):
            cd = type(d)
            if cd is Hole or cd is DimBinOp:
                r = find(d) if cd is Hole else d  # (a solved dimension is mostly an int)
                r = r if type(r) is int or type(r) is Hole else _transform(r, _keep, True, 0)
                if r is not d:
                    if dims is None:
                        dims = list(new_shape)
                    dims[i] = r
        if dims is not None:
            new_shape = tuple(dims)
    if new_shape is shape and new_dtype is dtype:
        return t
    return TensorType(new_shape, new_dtype, t.span)


class Resolver:
    """`resolve` and `holes` for many types that share parts, each part done once.

    The types of nested expressions contain one another (a function's type
    contains its body's), so resolving every node's type separately would
    cost time and memory quadratic in the nesting depth. Results are
    memoised by object identity; the cache keeps the objects alive.
    """

    def __init__(self) -> None:
        self._resolved: dict[int, tuple[Any, Any]] = {}
        self._holes: dict[int, tuple[Any, tuple[Any, ...]]] = {}
        self.finals: dict[int, tuple[Any, Any, bool]] = {}

    def final(self, t: Any) -> tuple[Any, bool]:
        """`resolve(t)` and whether unsolved holes remain in it, once per
        object: the nodes of a program share their types (a model's calls
        of one signature, a variable and its uses)."""
        if type(t) is Hole:
            t = find(t)
        hit = self.finals.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1], hit[2]
        if type(t) is TensorType and static_tensor(t):
            self.finals[id(t)] = (t, t, False)  # (the most common type, known already)
            return t, False
        if type(t) is TupleType:  # (a tuple of known tensors: an operator's results)
            fields = [find(f) for f in t.fields]
            if all(type(f) is TensorType and static_tensor(f) for f in fields):
                same = all(a is b for a, b in zip(fields, t.fields, strict=True))
                rt = t if same else TupleType(tuple(fields), t.span)
                self.finals[id(t)] = (t, rt, False)
                return rt, False
        rt = self.resolve(t)
        open_ = bool(self.holes(rt))
        self.finals[id(t)] = (t, rt, open_)
        return rt, open_

    def resolve(self, t: Any) -> Any:
        cls = type(t)
        if cls is Hole:
            t = find(t)
            cls = type(t)
        if cls is TensorType:
            return _resolve_tensor(t)  # shallow: no need to memoise
        return _fold(t, self._resolved, find, _same, rebuild)

    def holes(self, t: Any) -> tuple[Any, ...]:
        """Unsolved holes in an already resolved type (each once)."""
        if type(t) is TensorType:
            shape, dtype = t.shape, t.dtype
            if type(dtype) is str and type(shape) is tuple and all(type(d) is int for d in shape):
                return ()
        found: tuple[Any, ...] = _fold(t, self._holes, _same, _hole_leaf, _union_holes)
        return found


def static_tensor(t: TensorType) -> bool:
    """Whether a tensor type has a dtype and int dimensions: nothing to resolve."""
    if type(t.dtype) is not str or type(t.shape) is not tuple:
        return False
    for d in t.shape:  # noqa: SIM110 - faster than all() over a generator, and called for every node
        if type(d) is not int:
            return False
    return True


def _same(t: Any) -> Any:
    return t


def _hole_leaf(t: Any) -> tuple[Any, ...]:
    return (t,) if type(t) is Hole else ()


def _union_holes(_node: Any, parts: list[Any]) -> tuple[Any, ...]:
    found: tuple[Any, ...] = ()
    for p in parts:
        if p:
            found = p if not found else found + tuple(h for h in p if h not in found)
    return found


def _fold(
    t: Any,
    memo: dict[int, Any],
    follow: Callable[[Any], Any],
    leaf: Callable[[Any], Any],
    combine: Callable[[Any, list[Any]], Any],
) -> Any:
    """A bottom-up value of type `t`, computed without recursion: `leaf(part)`
    for a part without children, `combine(part, values of its children)`
    otherwise. `follow` maps a hole to what stands for it (`find`, or itself).
    Every part is done once: values are memoised in `memo` by object identity
    (with the object, so a reused id is never mistaken for it)."""
    values: list[Any] = []
    work: list[tuple[Any, bool]] = [(t, False)]
    while work:
        node, done = work.pop()
        if done:
            n = len(children(node))
            parts = values[len(values) - n :] if n else []
            if n:
                del values[len(values) - n :]
            result = combine(node, parts)
            memo[id(node)] = (node, result)
            values.append(result)
            continue
        hit = memo.get(id(node))
        if hit is not None and hit[0] is node:
            values.append(hit[1])
            continue
        if type(node) is Hole:
            target = follow(node)
            if target is not node:
                hit = memo.get(id(target))
                if hit is not None and hit[0] is target:
                    memo[id(node)] = (node, hit[1])
                    values.append(hit[1])
                    continue
                node = target
        kids = children(node)
        if not kids:
            values.append(leaf(node))
            continue
        work.append((node, True))
        for k in reversed(kids):
            work.append((k, False))
    return values[0]


def walk(t: Any) -> Iterator[Any]:
    """Every leaf and part of `t` (solved holes expanded), in no particular
    order. A part shared within `t` is walked once (its leaves may repeat),
    so a type that is a DAG (a tuple of a tuple of the same tuple, ...) costs
    its number of distinct parts, not the size of its expansion."""
    stack = [t]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if type(node) is Hole:
            node = find(node)
        yield node
        kids = children(node)
        if kids:
            key = id(node)
            if key in seen:
                continue
            seen.add(key)
            stack.extend(kids)


def holes(t: Any) -> list[Hole]:
    """The unsolved holes in `t` (root holes, each once)."""
    cls = type(t)
    if cls is Hole:
        t = find(t)
        cls = type(t)
        if cls is Hole:
            return [t]
    if cls is TensorType:
        parts = tensor_parts(t)  # (the common case, without the generic walk)
        if parts is not None:
            return [h for i, h in enumerate(parts) if type(h) is Hole and all(p is not h for p in parts[:i])]
    elif cls is str or cls is int or cls is TypeVar or cls is ErrorType:
        return []
    out: list[Hole] = []
    seen: set[int] = set()
    for node in walk(t):
        if type(node) is Hole and node.uid not in seen:
            seen.add(node.uid)
            out.append(node)
    return out


def tensor_parts(t: TensorType) -> list[Any] | None:
    """The leaves `walk` yields for a tensor type whose shape is a hole or a
    tuple of ints and holes (the common case), in its order, solved holes
    followed; None for any other shape (a dimension expression)."""
    dtype, shape = t.dtype, t.shape
    if type(dtype) is Hole:
        dtype = find(dtype)
    if type(shape) is Hole:
        shape = find(shape)
    if type(shape) is not tuple:
        return [dtype, shape] if type(shape) is Hole else None
    parts = [dtype, shape]
    for i in range(len(shape) - 1, -1, -1):
        d = shape[i]
        cd = type(d)
        if cd is Hole:
            d = find(d)
            cd = type(d)
        if cd is not int and cd is not Hole:
            return None
        parts.append(d)
    return parts


def has_holes(t: Any) -> bool:
    return any(type(node) is Hole for node in walk(t))


def contains_error(t: Any) -> bool:
    return any(node is ERROR for node in walk(t))


def substitute(t: Any, mapping: dict[Any, Any]) -> Any:
    """Replace type variables (or holes) that are keys of `mapping`."""
    if not mapping:
        return t

    def leaf(x: Any) -> Any:
        return mapping.get(x, x) if isinstance(x, (TypeVar, IncompleteType)) else x

    return transform(t, leaf)


def type_vars(t: Any) -> list[TypeVar]:
    """Type variables occurring in `t`, each once, in order of first appearance."""
    out: list[TypeVar] = []
    seen: set[int] = set()
    stack = [t]
    while stack:
        node = stack.pop()
        if type(node) is Hole:
            node = find(node)
        if type(node) is TypeVar and id(node) not in seen:
            seen.add(id(node))
            out.append(node)
        kids = children(node)
        if kids:
            stack.extend(reversed(kids))
    return out


def is_scalar_bool(t: Any) -> bool:
    return type(t) is TensorType and t.shape == () and t.dtype == "bool"
