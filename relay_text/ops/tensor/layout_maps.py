"""Layout changes written by TVM's tuners: `auto_scheduler_layout_transform`
and `meta_schedule_layout_transform`.

`auto_scheduler_layout_transform(data, src_layout, dst_layout)` takes
layouts written as size-then-name pairs, `"1N32C112H112W"` (names are runs
of letters, sizes are positive integers). The result has the sizes of
`dst_layout`; an axis of `src_layout` may be split over several axes of
`dst_layout` carrying its name (`"1N2C112H112W16C"` splits C into 2 x 16,
the outer first): the element of the result at a position reads the data
where each source axis's coordinate combines the coordinates of the
destination axes of its name, outer to inner (0 if there are none).
Destination axes whose name the source lacks repeat the data. TVM reads
only the names of `src_layout`, so the data must have one axis per name;
a split that reaches past the data's axis is a `shape-mismatch`.

`meta_schedule_layout_transform(data, index_map)` moves the element at
position (i_0, ..., i_{n-1}) of the data to the position the index map
computes from it. TVM stores the map as a TIR `IndexMap` object, which
the text format can only reference in its metadata
(`index_map=meta[IndexMap][0]`); this toolchain reads no TIR from
metadata, so it also accepts the map as a string in TVMScript's
notation, `"lambda i, j: (i // 4, j // 16, i % 4, j % 16)"` (the
arithmetic `+ - * // %`, with `//` and `%` by positive constants, and
integer constants). With such a string the result's shape is computed as
TVM does, each output coordinate's range over the data's positions (it
must start at 0), and the kernel runs; the map must be a bijection onto
that shape. With a metadata reference the result has a shape still to
be inferred and the kernel stops with a `runtime-error`.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ...diagnostics import codes
from ...ir.expr import MetaRef
from ...ir.ty import AnyDim, TensorType
from .._np import np
from ..registry import Attr, KernelError, attr_kind, register
from ..relations import Relation, is_unknown, known_rank, relation, shape_text
from ..types import Args, Attrs, Shape, Value

# ---------------------------------------------------------------- auto_scheduler_layout_transform

_PAIR = re.compile(r"(\d+)([A-Za-z]+)")


class LayoutError(ValueError):
    pass


def parse_tuner_layout(text: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """`"1N32C"` -> ((1, 32), ("N", "C")); LayoutError if it is not size-name pairs."""
    sizes, names = [], []
    pos = 0
    while pos < len(text):
        m = _PAIR.match(text, pos)
        if m is None or int(m.group(1)) == 0:
            raise LayoutError(f'"{text}" is not a layout of size-name pairs such as "1N32C112H112W"')
        sizes.append(int(m.group(1)))
        names.append(m.group(2))
        pos = m.end()
    return tuple(sizes), tuple(names)


@relation("auto_scheduler_layout_transform", inputs=1)
def auto_scheduler_layout_transform_rel(r: Relation) -> bool:
    try:
        _, src = parse_tuner_layout(r.attrs["src_layout"])
        dst_sizes, dst = parse_tuner_layout(r.attrs["dst_layout"])
    except LayoutError as exc:
        r.fail(codes.TYPE_MISMATCH, f"`auto_scheduler_layout_transform`: {exc}")
    x = r.tensor(0)
    r.set_result(TensorType(dst_sizes, x.dtype))
    if not known_rank(x.shape):
        return False
    if len(x.shape) != len(src):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`auto_scheduler_layout_transform`: the data has rank {len(x.shape)}, but src_layout "
            f'"{r.attrs["src_layout"]}" names {len(src)} axes',
            arg=0,
        )
    for k, (name, d) in enumerate(zip(src, x.shape, strict=False)):
        span = 1
        for size, other in zip(dst_sizes, dst, strict=False):
            if other == name:
                span *= size
        if type(d) is int and span > d:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`auto_scheduler_layout_transform`: the axes `{name}` of dst_layout cover {span} positions, but axis "
                f"{k} of the data has {d}",
                arg=0,
            )
    return True


@register(
    "auto_scheduler_layout_transform",
    inputs=1,
    relation=auto_scheduler_layout_transform_rel,
    attrs=(Attr("src_layout", "str"), Attr("dst_layout", "str")),
    doc='Rearrange a tensor between the auto-scheduler\'s layouts, e.g. "1N32C" to "1N2C16C".',
)
def auto_scheduler_layout_transform(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    _, src = parse_tuner_layout(attrs["src_layout"])
    dst_sizes, dst = parse_tuner_layout(attrs["dst_layout"])
    rank = len(dst_sizes)
    index = []
    for k, name in enumerate(src):
        coord: Any = 0
        for i, (size, other) in enumerate(zip(dst_sizes, dst, strict=False)):
            if other == name:
                shape = [1] * rank
                shape[i] = size
                coord = coord * size + np.arange(size).reshape(shape)
        if np.max(coord) >= x.shape[k]:
            raise KernelError(
                codes.RUNTIME_ERROR,
                f"auto_scheduler_layout_transform: the axes `{name}` reach past axis {k} of size {x.shape[k]}",
            )
        index.append(coord)
    return np.array(np.broadcast_to(x[tuple(index)], dst_sizes))


# ---------------------------------------------------------------- meta_schedule_layout_transform


# A node of an index expression: ("var", k), ("const", c), (op, a, b) or
# ("neg", a), its operands nodes again. Any: Python's types cannot say which
# position holds a name, a number or a node.
IndexExpr = tuple[Any, ...]


class IndexMap:
    """A map from n coordinates to m, parsed from `lambda i, j: (...)`.

    `exprs` are trees: ("var", k), ("const", c), (op, a, b) for op in
    + - * // %, ("neg", a)."""

    def __init__(self, text: str, params: tuple[str, ...], exprs: tuple[IndexExpr, ...]) -> None:
        self.text, self.params, self.exprs = text, params, exprs

    def __repr__(self) -> str:
        return f"IndexMap({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IndexMap) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}


def parse_index_map(text: str) -> IndexMap:
    """The map written in `text`; ValueError if it is not of the accepted form."""
    source = text.strip()
    if source.startswith("T.index_map(") and source.endswith(")"):
        source = source[len("T.index_map(") : -1]
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError:
        raise ValueError(text) from None
    if (
        not isinstance(tree, ast.Lambda)
        or tree.args.vararg
        or tree.args.kwarg
        or tree.args.kwonlyargs
        or tree.args.defaults
    ):
        raise ValueError(text)
    params = tuple(a.arg for a in tree.args.posonlyargs + tree.args.args)
    body = tree.body.elts if isinstance(tree.body, (ast.Tuple, ast.List)) else [tree.body]

    def build(node: ast.AST) -> IndexExpr:
        if isinstance(node, ast.Name) and node.id in params:
            return ("var", params.index(node.id))
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return ("const", node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return ("neg", build(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            op = _OPS[type(node.op)]
            rhs = build(node.right)
            if op in ("//", "%") and not (rhs[0] == "const" and rhs[1] > 0):
                raise ValueError(text)
            return (op, build(node.left), rhs)
        raise ValueError(text)

    return IndexMap(text, params, tuple(build(e) for e in body))


def _index_map_value(value: Any) -> Any:
    if isinstance(value, MetaRef):
        return value
    if isinstance(value, str):
        return parse_index_map(value)
    raise ValueError(value)


INDEX_MAP = attr_kind(
    "index_map",
    'an index map: `meta[IndexMap][0]`, or a string such as "lambda i, j: (i // 4, j % 4)"',
    _index_map_value,
)


def value_range(expr: IndexExpr, ranges: list[tuple[int, int] | None]) -> tuple[int, int] | None:
    """The least and greatest value of `expr` with variable k in ranges[k]
    (None for a variable of unknown range); None if unknown."""
    kind = expr[0]
    if kind == "var":
        return ranges[expr[1]]
    if kind == "const":
        return expr[1], expr[1]
    if kind == "neg":
        a = value_range(expr[1], ranges)
        return None if a is None else (-a[1], -a[0])
    a, b = value_range(expr[1], ranges), value_range(expr[2], ranges)
    if a is None or b is None:
        return None
    if kind == "+":
        return a[0] + b[0], a[1] + b[1]
    if kind == "-":
        return a[0] - b[1], a[1] - b[0]
    if kind == "*":
        products = [x * y for x in a for y in b]
        return min(products), max(products)
    c = b[0]
    if kind == "//":
        return a[0] // c, a[1] // c
    if a[1] - a[0] + 1 >= c or a[0] // c != a[1] // c:
        return 0, c - 1
    return a[0] % c, a[1] % c


def mapped_shape(imap: IndexMap, shape: Shape) -> tuple[list[Any], str | None]:
    """The result shape (`AnyDim` where a size is not static), or a reason it has none."""
    ranges = [(0, d - 1) if type(d) is int else None for d in shape]
    out: list[Any] = []
    for k, e in enumerate(imap.exprs):
        bounds = value_range(e, ranges)
        if bounds is None:
            out.append(AnyDim())
            continue
        if bounds[0] != 0:
            return out, f"output coordinate {k} ranges from {bounds[0]}, not from 0"
        out.append(bounds[1] + 1)
    return out, None


def evaluate(expr: IndexExpr, coords: list[Any]) -> Any:
    kind = expr[0]
    if kind == "var":
        return coords[expr[1]]
    if kind == "const":
        return np.int64(expr[1])
    if kind == "neg":
        return -evaluate(expr[1], coords)
    a, b = evaluate(expr[1], coords), evaluate(expr[2], coords)
    return {"+": np.add, "-": np.subtract, "*": np.multiply, "//": np.floor_divide, "%": np.mod}[kind](a, b)


@relation("meta_schedule_layout_transform", inputs=1)
def meta_schedule_layout_transform_rel(r: Relation) -> bool:
    imap = r.attrs["index_map"]
    x = r.tensor(0)
    if isinstance(imap, MetaRef):
        r.set_result(TensorType(r.fresh_shape(), x.dtype))
        return True
    if not known_rank(x.shape):
        return False
    if len(x.shape) != len(imap.params):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`meta_schedule_layout_transform`: the index map takes {len(imap.params)} coordinates, but the data has "
            f"rank {len(x.shape)}",
            arg=0,
            notes=[f"the data is {shape_text(x.shape)}"],
        )
    if any(is_unknown(d) for d in x.shape):
        return False
    shape, problem = mapped_shape(imap, x.shape)
    if problem is not None:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`meta_schedule_layout_transform`: {problem} on data of shape {shape_text(x.shape)}",
            arg=0,
        )
    r.set_result(TensorType(tuple(shape), x.dtype))
    return True


@register(
    "meta_schedule_layout_transform",
    inputs=1,
    relation=meta_schedule_layout_transform_rel,
    attrs=(Attr("index_map", INDEX_MAP),),
    doc="Move every element to the position an index map computes from its own.",
)
def meta_schedule_layout_transform(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    imap = attrs["index_map"]
    if isinstance(imap, MetaRef):
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"meta_schedule_layout_transform: the index map meta[{imap.kind}][{imap.index}] is a TIR object this "
            "evaluator cannot read; "
            'write it as a string, e.g. index_map="lambda i, j: (i // 4, j % 4)"',
        )
    shape, problem = mapped_shape(imap, x.shape)
    if problem is not None:
        raise KernelError(codes.RUNTIME_ERROR, f"meta_schedule_layout_transform: {problem}")
    coords = list(np.indices(x.shape, sparse=True))
    targets = [np.broadcast_to(evaluate(e, coords), x.shape).reshape(-1) for e in imap.exprs]
    count = int(np.prod(shape, dtype=np.int64))
    flat = np.ravel_multi_index(targets, shape) if shape else np.zeros(x.size, dtype=np.int64)
    if count != x.size or len(np.unique(flat)) != x.size:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"meta_schedule_layout_transform: the index map does not move the {x.size} elements one to one onto "
            f"{tuple(shape)}",
        )
    out = np.empty(shape, dtype=x.dtype)
    out.reshape(-1)[flat] = x.reshape(-1)
    return out
