"""Shape and data movement: views, permutations, concatenation, splitting,
indexing and slicing, and the tensor factories (`zeros`, `full`, `arange`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported, numpy_dtype
from ..onnx._common import cast, known_dims, norm_axes, norm_axis, scalar
from .graph import Ctx, dtype_of
from .table import Args, AtenConverter, Converted, aten


class Refused:
    """A result of a node that no inference program should read (the indices
    of a max pool): reading it is reported."""

    def __init__(self, what: str) -> None:
        self.what = what


def _ints(cx: Ctx, values: Sequence[int | Expr], what: str = "a size") -> list[int]:
    """A list of sizes: Python ints, or sizes the program computes and the importer knows."""
    out = []
    for v in values:
        if isinstance(v, Expr):
            known = cx.b.value(v)
            if known is None:
                raise Unsupported(f"{what} computed at run time is not supported")
            v = int(np.asarray(known).reshape(()))
        out.append(int(v))
    return out


def _shape_tensor(cx: Ctx, values: Sequence[int | Expr]) -> Expr:
    """Sizes, some computed at run time (int64 scalars), as one int64 vector."""
    b = cx.b
    parts = [cast(b, v, "int64") if isinstance(v, Expr) else scalar(b, int(v), "int64") for v in values]
    return b.call("stack", b.tuple(parts), axis=0)


@aten("view.default", "reshape.default", "_unsafe_view.default")
def view(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    sizes = a["size"] if "size" in a else a["shape"]
    unknown = [i for i, v in enumerate(sizes) if isinstance(v, Expr) and b.value(v) is None]
    if unknown:
        if len(unknown) == 1 and -1 not in [v for v in sizes if isinstance(v, int)]:
            # one size known at run time only: reshape infers it (-1), the rest stay static
            static = [-1 if i == unknown[0] else v for i, v in enumerate(sizes)]
            return b.call("reshape", x, newshape=_ints(cx, static))
        return b.call("dyn.reshape", x, _shape_tensor(cx, sizes))
    return b.call("reshape", x, newshape=_ints(cx, sizes))


def _size_arith(op: str, fn: Callable[[int, int], int]) -> AtenConverter:
    def convert(cx: Ctx, a: Args) -> Converted:
        b = cx.b
        x, y = a["args"]
        if not isinstance(x, Expr) and not isinstance(y, Expr):
            return fn(x, y)
        return b.call(
            op,
            cast(b, x, "int64") if isinstance(x, Expr) else scalar(b, x, "int64"),
            cast(b, y, "int64") if isinstance(y, Expr) else scalar(b, y, "int64"),
        )

    return convert


aten("mul")(_size_arith("multiply", lambda x, y: x * y))
aten("add")(_size_arith("add", lambda x, y: x + y))
aten("sub")(_size_arith("subtract", lambda x, y: x - y))
aten("floordiv")(_size_arith("floor_divide", lambda x, y: x // y))


@aten("flatten.using_ints")
def flatten(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    rank = b.rank(x)
    if rank == 0:
        return b.call("reshape", x, newshape=[1])
    start, end = norm_axis(a.get("start_dim", 0), rank), norm_axis(a.get("end_dim", -1), rank)
    shape = b.shape(x)
    middle = known_dims(shape[start : end + 1])
    size = -1 if middle is None else int(np.prod(middle, dtype=np.int64))
    new = (
        [d if d is not None else -1 for d in shape[:start]]
        + [size]
        + [d if d is not None else -1 for d in shape[end + 1 :]]
    )
    if new.count(-1) > 1:
        raise Unsupported("flattening a tensor with several dimensions of unknown size is not supported")
    return b.call("reshape", x, newshape=new)


@aten("unflatten.int")
def unflatten(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    shape = list(b.shape(x))
    dim = norm_axis(a["dim"], len(shape))
    new = shape[:dim] + _ints(cx, a["sizes"]) + shape[dim + 1 :]
    return b.call("reshape", x, newshape=[-1 if d is None else d for d in new])


@aten("permute.default")
def permute(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    return b.call("transpose", x, axes=norm_axes(a["dims"], b.rank(x)))


@aten("transpose.int")
def transpose(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    rank = b.rank(x)
    perm = list(range(rank))
    d0, d1 = norm_axis(a["dim0"], rank), norm_axis(a["dim1"], rank)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return b.call("transpose", x, axes=perm)


@aten("t.default", "numpy_T.default")
def t(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    return x if b.rank(x) < 2 else b.call("transpose", x, axes=list(reversed(range(b.rank(x)))))


@aten("unsqueeze.default")
def unsqueeze(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    return b.call("expand_dims", x, axis=norm_axis(a["dim"], b.rank(x) + 1))


@aten("squeeze.dim", "squeeze.dims", "squeeze.default")
def squeeze(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    shape = b.shape(x)
    dims = a.get("dim")
    if dims is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        axes = norm_axes([dims] if isinstance(dims, int) else list(dims), len(shape))
        axes = [i for i in axes if shape[i] == 1]  # PyTorch leaves other dimensions alone
    return x if not axes else b.call("squeeze", x, axis=axes)


@aten("expand.default", "expand_copy.default")
def expand(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    if any(isinstance(v, Expr) and b.value(v) is None for v in a["size"]):
        shape = list(b.shape(x))
        lead = len(a["size"]) - len(shape)
        sizes = [
            v
            if not (isinstance(v, int) and v == -1)
            else b.call("take", b.call("shape_of", x, dtype="int64"), scalar(b, i - lead, "int64"), axis=0)
            for i, v in enumerate(a["size"])
        ]
        return b.call("dyn.broadcast_to", x, _shape_tensor(cx, sizes))
    static_sizes = _ints(cx, a["size"])
    shape = list(b.shape(x))
    lead = len(static_sizes) - len(shape)
    target = [s if s != -1 else shape[i - lead] for i, s in enumerate(static_sizes)]
    if any(d is None for d in target):
        raise Unsupported("expanding to a size of unknown length is not supported")
    return x if target == shape else b.call("broadcast_to", x, shape=target)


@aten("cat.default", "concat.default")
def cat(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    xs = [x for x in a["tensors"] if not (b.rank(x) == 1 and b.shape(x) == (0,))] or list(a["tensors"][:1])
    dtype = cx.out_dtype()
    xs = [cast(b, x, dtype) for x in xs]
    return b.call("concatenate", b.tuple(xs), axis=norm_axis(a.get("dim", 0), b.rank(xs[0])))


@aten("stack.default")
def stack(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    xs = list(a["tensors"])
    return b.call("stack", b.tuple(xs), axis=norm_axis(a.get("dim", 0), b.rank(xs[0]) + 1))


def _split_sizes(b: Builder, x: Expr, axis: int, sizes: Sequence[int]) -> list[Expr]:
    points, total = [], 0
    for s in sizes[:-1]:
        total += s
        points.append(total)
    if len(sizes) == 1:
        return [x]
    return b.items(b.call("split", x, indices_or_sections=points, axis=axis))


@aten("split.Tensor", "split_with_sizes.default", "split_with_sizes_copy.default")
def split(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    axis = norm_axis(a.get("dim", 0), b.rank(x))
    length = b.static_shape(x)[axis]
    size: int | Sequence[int | Expr] = a["split_size"] if "split_size" in a else a["split_sizes"]
    if isinstance(size, int):
        sizes = [size] * (length // size) + ([length % size] if length % size else [])
    else:
        sizes = _ints(cx, size)
    return _split_sizes(b, x, axis, sizes)


@aten("chunk.default")
def chunk(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    axis = norm_axis(a.get("dim", 0), b.rank(x))
    length = b.static_shape(x)[axis]
    each = -(-length // int(a["chunks"]))
    sizes = [each] * (length // each) + ([length % each] if length % each else [])
    return _split_sizes(b, x, axis, sizes)


@aten("unbind.int")
def unbind(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    axis = norm_axis(a.get("dim", 0), b.rank(x))
    length = b.static_shape(x)[axis]
    return [b.call("squeeze", p, axis=[axis]) for p in _split_sizes(b, x, axis, [1] * length)]


@aten("getitem")
def getitem(cx: Ctx, a: Args) -> Converted:
    value, index = a["args"]
    item = value[index] if isinstance(value, (list, tuple)) else cx.b.item(value, index)
    if isinstance(item, Refused):
        raise Unsupported(f"{item.what} is not supported")
    result: Expr = item
    return result


@aten("select.int")
def select(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    axis = norm_axis(a["dim"], b.rank(x))
    index = int(a["index"])
    size = b.shape(x)[axis]
    if index < 0:
        if size is None:
            raise Unsupported("a negative index on a dimension of unknown size is not supported")
        index += size
    return b.call("take", x, b.const(np.array(index, dtype=np.int64)), axis=axis)


@aten("slice.Tensor")
def slice_(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    axis = norm_axis(a.get("dim", 0), b.rank(x))
    size = b.shape(x)[axis]
    start, end, step = a.get("start"), a.get("end"), a.get("step", 1)
    start = 0 if start is None else int(start)
    end = (size if size is not None else 2**31 - 1) if end is None else int(end)
    if size is not None:
        start = min(max(start + size if start < 0 else start, 0), size)
        end = min(max(end + size if end < 0 else end, 0), size)
    if size is not None and start == 0 and end == size and step == 1:
        return x
    return b.call("strided_slice", x, begin=[start], end=[min(end, 2**31 - 1)], strides=[int(step)], axes=[axis])


@aten("index_select.default")
def index_select(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    return b.call("take", x, a["index"], axis=norm_axis(a["dim"], b.rank(x)))


@aten("index.Tensor")
def index(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    picks = [(i, t) for i, t in enumerate(a["indices"]) if t is not None]
    if len(picks) != 1:
        raise Unsupported("indexing with more than one index tensor is not supported")
    axis, t = picks[0]
    if b.dtype(t) == "bool":
        raise Unsupported("indexing with a boolean mask is not supported")
    return b.call("take", x, t, axis=axis)


@aten("repeat.default")
def repeat(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    reps = _ints(cx, a["repeats"])
    if len(reps) > b.rank(x):
        x = b.call(
            "reshape", x, newshape=[1] * (len(reps) - b.rank(x)) + [d if d is not None else -1 for d in b.shape(x)]
        )
    return b.call("tile", x, reps=reps)


@aten("flip.default")
def flip(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    for axis in norm_axes(list(a["dims"]), b.rank(x)):
        x = b.call("reverse", x, axis=axis)
    return x


def _factory_dtype(cx: Ctx) -> str:
    return cx.out_dtype()


@aten("zeros.default", "ones.default", "empty.memory_format", "new_zeros.default", "new_ones.default")
def zeros(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    name = str(cx.node.target)
    shape = _ints(cx, a["size"])
    op = "ones" if "ones" in name else "zeros"
    return b.call(op, shape=shape, dtype=_factory_dtype(cx))


@aten("full.default", "new_full.default")
def full(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    dtype = _factory_dtype(cx)
    return b.call("full", scalar(b, a["fill_value"], dtype), shape=_ints(cx, a["size"]), dtype=dtype)


@aten("zeros_like.default", "ones_like.default", "full_like.default", "empty_like.default")
def like(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    dtype = _factory_dtype(cx)
    name = str(cx.node.target)
    fill = a.get("fill_value", 1 if "ones" in name else 0)
    shape = b.shape(x)
    if any(d is None for d in shape):
        return b.call("full_like", cast(b, x, dtype), scalar(b, fill, dtype))
    return b.call("full", scalar(b, fill, dtype), shape=list(shape), dtype=dtype)


@aten("arange.default", "arange.start", "arange.start_step")
def arange(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    dtype = _factory_dtype(cx)
    start = a.get("start", 0)
    end = a["end"]
    step = a.get("step", 1)
    values = np.arange(start, end, step).astype(numpy_dtype(dtype))
    if values.size <= 16:
        return b.const(values)
    return b.call("arange", scalar(b, start, dtype), scalar(b, end, dtype), scalar(b, step, dtype), dtype=dtype)


@aten("sym_size.int")
def sym_size(cx: Ctx, a: Args) -> Converted:
    b = cx.b
    x: Expr = a["self"]
    axis = norm_axis(a["dim"], b.rank(x))
    size = b.shape(x)[axis]
    if size is None:  # known at run time: an int64 scalar
        return b.call("take", b.call("shape_of", x, dtype="int64"), scalar(b, axis, "int64"), axis=0)
    return int(size)


@aten("scalar_tensor.default")
def scalar_tensor(cx: Ctx, a: Args) -> Converted:
    return scalar(cx.b, a["s"], dtype_of(cx.node.meta["val"].dtype))
