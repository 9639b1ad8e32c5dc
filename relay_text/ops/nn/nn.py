"""Neural-network operators: activations, dense layers, 2-D convolution.
(2-D pooling is in `pool2d`, `nn.batch_norm` in `norm`.)

Layouts follow TVM's attribute strings: data `NCHW` (or any order of the
letters N, C, H, W, e.g. `NHWC`), kernels `OIHW` (or e.g. `HWIO`). Padding
of a 2-D window is one value (all sides), two (top/bottom, left/right) or
four (top, left, bottom, right). Several relations infer an operand from
the others: `nn.dense`'s weight from `units`, `nn.conv2d`'s weight from
`channels` and `kernel_size`, `nn.bias_add`'s per-channel vector from
the data's channel axis; a constant without a metadata table gets its
type that way.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType, TupleType
from .._checks import dim_times
from .._np import np, wrap
from .._threads import PARALLEL_MIN, ranges, run_parts, split_count
from ..tensor._blas import matmul_nt
from ..tensor._rows import compute
from ._attrs import CONV2D_ATTRS
from .conv import (
    conv2d_nchw,
    pads_2d,
    pair_of,
    weight_dtype_of,
)
from ..registry import Attr, register
from ..relations import (
    Relation,
    is_unknown,
    known_rank,
    normalize_axis,
    numeric_identity,
    relation,
    shape_text,
)
from ..types import Args, Attrs, Shape, Value

# ---------------------------------------------------------------- activations


@register("nn.relu", inputs=1, relation=numeric_identity, doc="max(x, 0), elementwise.")
def relu(args: Args, attrs: Attrs) -> Value:
    x = np.asarray(args[0])
    return relu_into(x, np.empty(x.shape, dtype=x.dtype), split=True)


_ZERO: dict[Any, Any] = {}  # dtype -> its 0-d zero


def relu_into(x: Any, out: Any, split: bool = False) -> Any:
    """max(x, 0) written into `out` (of x's shape and dtype; it may be x) and
    returned, with the bits of `np.maximum(x, 0)` (NaN kept, -0.0 made 0),
    by rows of zeros where x is contiguous (`_rows.compute`: numpy's
    maximum against a scalar skips its vector loop). `split`: spread over
    the kernel threads (the operator's kernel; a fused chain's step runs on
    them already)."""
    zero = _ZERO.get(x.dtype)
    if zero is None:
        zero = _ZERO[x.dtype] = np.zeros((), dtype=x.dtype)
    return compute(np.maximum, x, zero, out, split)


@register(
    "nn.leaky_relu",
    inputs=1,
    relation=numeric_identity,
    attrs=(Attr("alpha", "float", 0.25),),
    doc="x where x > 0, else alpha * x.",
)
def leaky_relu(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return wrap(np.where(x > 0, x, x * np.asarray(attrs["alpha"], dtype=x.dtype)), x.dtype)


@relation("Identity")
def softmax_rel(r: Relation) -> bool:
    x = r.tensor(0)
    if isinstance(x.dtype, str) and not x.dtype.startswith(("float", "bfloat")):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes a floating-point tensor, found `{x.dtype}`",
            arg=0,
            label=f"this is `{x.dtype}`",
        )
    if known_rank(x.shape):
        normalize_axis(r, r.attrs["axis"], len(x.shape))
    r.set_result(x)
    return True


@register(
    "nn.softmax",
    inputs=1,
    relation=softmax_rel,
    attrs=(Attr("axis", "int", -1),),
    doc="exp(x) / sum(exp(x)) along axis.",
)
def softmax(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    fast = softmax_rows(x, attrs["axis"], None, log=False)
    if fast is not None:
        return fast
    shifted = x - np.max(x, axis=attrs["axis"], keepdims=True)
    e = np.exp(shifted)
    return wrap(e / np.sum(e, axis=attrs["axis"], keepdims=True), x.dtype)


@register(
    "nn.log_softmax",
    inputs=1,
    relation=softmax_rel,
    attrs=(Attr("axis", "int", -1),),
    doc="log(softmax(x)) along axis, computed stably.",
)
def log_softmax(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    fast = softmax_rows(x, attrs["axis"], None, log=True)
    if fast is not None:
        return fast
    shifted = x - np.max(x, axis=attrs["axis"], keepdims=True)
    return wrap(shifted - np.log(np.sum(np.exp(shifted), axis=attrs["axis"], keepdims=True)), x.dtype)


def softmax_rows(x: Any, axis: int, out: Any, log: bool, before: Any = None) -> Any:
    """(log) softmax over the last axis of a large float tensor, a few rows
    at a time (each block stays in cache through its five passes) and the
    rows spread over the kernel threads; the same arithmetic as the
    whole-tensor formula. `out` may be None (a new tensor) or `x` itself.
    None where this does not apply (another axis, a small tensor).
    `before(rows)`, with `out` being `x`, first updates each block of rows
    of x in place (the elementwise steps that made x, fused)."""
    if (
        x.dtype.kind != "f"
        or x.dtype.itemsize < 4
        or x.ndim == 0
        or axis % x.ndim != x.ndim - 1
        or x.size < PARALLEL_MIN
    ):
        return None
    if not x.flags.c_contiguous or x.shape[-1] == 0:
        return None
    width = x.shape[-1]
    rows = x.reshape(-1, width)
    if out is None:
        out = np.empty_like(x)
    dst = out.reshape(-1, width)
    block = max(1, (1 << 17) // width)  # rows of 512 KB at most: measured 15-20 % faster than 128 KB

    def part(lo: int, hi: int) -> None:
        tmp = np.empty((min(block, hi - lo), width), dtype=x.dtype)
        for r0 in range(lo, hi, block):
            r1 = min(hi, r0 + block)
            src, o, t = rows[r0:r1], dst[r0:r1], tmp[: r1 - r0]
            if before is not None:
                before(src)
            top = np.max(src, axis=1, keepdims=True)
            np.subtract(src, top, out=o)
            np.exp(o, out=t)
            total = np.sum(t, axis=1, keepdims=True)
            if log:
                np.log(total, out=total)
                np.subtract(o, total, out=o)
            else:
                np.divide(t, total, out=o)

    n = rows.shape[0]
    pieces = min(split_count(x.size), n)
    run_parts(part, ranges(n, pieces) if pieces > 1 else [(0, n)])
    return out


def dropout_rel(r: Relation) -> bool:
    x = r.tensor(0)
    rate = r.attrs["rate"]
    if not 0 <= rate < 1:
        r.fail(codes.TYPE_MISMATCH, f"`nn.dropout` rate must be in [0, 1), found {rate}")
    r.set_result(TupleType((x, x)))
    return True


@register(
    "nn.dropout",
    inputs=1,
    relation=dropout_rel,
    attrs=(Attr("rate", "float", 0.5),),
    doc="(x, mask): the identity at inference time.",
)
def dropout(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return (np.array(x, copy=True), np.ones_like(x))


# ---------------------------------------------------------------- dense and matmul


@relation("Dense")
def dense_rel(r: Relation) -> bool:
    """data (..., K), weight (units, K) -> (..., units); the weight can be inferred from units."""
    data = r.tensor(0)
    units = r.attrs["units"]
    if known_rank(data.shape):
        if not data.shape:
            r.fail(codes.SHAPE_MISMATCH, "`nn.dense` needs data of rank at least 1, found a scalar", arg=0)
        k = data.shape[-1]
        weight = r.tensor(1)
        if not known_rank(weight.shape) and units is not None:
            # the weight's own dtype when it has one (TVM's MatmulRel)
            r.refine(1, TensorType((units, k), weight.dtype if isinstance(weight.dtype, str) else data.dtype))
        weight = r.tensor(1)
        if not known_rank(weight.shape):
            return False
        if len(weight.shape) != 2:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.dense` needs a weight of rank 2 (units, in), found {shape_text(weight.shape)}",
                arg=1,
            )
        wk = weight.shape[1]
        if type(k) is int and type(wk) is int and k != wk:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.dense`: the data has {k} input features but the weight expects {wk}",
                arg=1,
                notes=[
                    f"the data is {shape_text(data.shape)} (features last), the weight {shape_text(weight.shape)} "
                    "(units, features)"
                ],
            )
        r.unify(k, wk, arg=1)
        n = weight.shape[0]
        if units is not None and type(n) is int and n != units:
            r.fail(codes.SHAPE_MISMATCH, f"`nn.dense` has units={units}, but the weight has {n} rows", arg=1)
        # the data and the weight may differ in dtype (int8 data, uint8
        # weight): out_dtype decides the result, else the data's dtype
        dtype = r.attrs["out_dtype"] or data.dtype
        r.set_result(TensorType((*data.shape[:-1], units if units is not None else n), dtype))
        return True
    return False


@register(
    "nn.dense",
    inputs=2,
    relation=dense_rel,
    attrs=(Attr("units", "opt_int", None), Attr("out_dtype", "opt_dtype", "")),
    doc="x @ weight.T: data (..., in) with weight (units, in) gives (..., units).",
)
def dense(args: Args, attrs: Attrs) -> Value:
    x, w = args
    dtype = attrs["out_dtype"] or x.dtype
    if x.dtype != w.dtype or x.dtype != np.dtype(dtype):  # both read in the result's dtype first, as TVM computes
        x, w = x.astype(dtype, copy=False), w.astype(dtype, copy=False)
    return wrap(matmul_nt(x, w), dtype)


def batch_matmul_rel(r: Relation) -> bool:
    x = r.tensor(0)
    y = r.tensor(1)
    if not (known_rank(x.shape) and known_rank(y.shape)):
        return False
    for i, shape in ((0, x.shape), (1, y.shape)):
        if len(shape) != 3:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.batch_matmul` needs tensors of rank 3 (batch, rows, columns), found {shape_text(shape)}",
                arg=i,
            )
    bx, m, kx = x.shape if not r.attrs["transpose_a"] else (x.shape[0], x.shape[2], x.shape[1])
    by, ky, n = y.shape if not r.attrs["transpose_b"] else (y.shape[0], y.shape[2], y.shape[1])
    if type(kx) is int and type(ky) is int and kx != ky:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.batch_matmul`: the inner dimensions differ ({kx} and {ky})",
            arg=1,
            notes=[
                f"x is {shape_text(x.shape)} (transpose_a={r.attrs['transpose_a']}), y is {shape_text(y.shape)} "
                f"(transpose_b={r.attrs['transpose_b']})"
            ],
        )
    r.unify(kx, ky, arg=1)
    if type(bx) is int and type(by) is int and bx != by and 1 not in (bx, by):
        r.fail(codes.SHAPE_MISMATCH, f"`nn.batch_matmul`: batch sizes {bx} and {by} differ", arg=1)
    batch = by if bx == 1 else bx
    r.unify_dtypes(0, 1)
    dtype = r.attrs["out_dtype"] or x.dtype
    r.set_result(TensorType((batch, m, n), dtype))
    return True


@register(
    "nn.batch_matmul",
    inputs=2,
    relation=batch_matmul_rel,
    attrs=(Attr("out_dtype", "opt_dtype", ""), Attr("transpose_a", "bool", False), Attr("transpose_b", "bool", False)),
    doc="Batched matrix product; by default y is given transposed, (batch, N, K).",
)
def batch_matmul(args: Args, attrs: Attrs) -> Value:
    x, y = args
    if attrs["transpose_a"]:
        x = np.swapaxes(x, 1, 2)
    if attrs["transpose_b"]:
        y = np.swapaxes(y, 1, 2)
    return wrap(np.matmul(x, y), attrs["out_dtype"] or x.dtype)


def bias_add_rel(r: Relation) -> bool:
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    axis = normalize_axis(r, r.attrs["axis"], len(data.shape))
    r.refine(1, TensorType((data.shape[axis],), data.dtype))
    r.set_result(data)
    return True


@register(
    "nn.bias_add",
    inputs=2,
    relation=bias_add_rel,
    attrs=(Attr("axis", "int", 1),),
    doc="Add a vector along one axis (the channels).",
)
def bias_add(args: Args, attrs: Attrs) -> Value:
    x, b = args
    axis = attrs["axis"] % x.ndim
    shape = [1] * x.ndim
    shape[axis] = b.shape[0]
    return wrap(x + b.reshape(shape), x.dtype)


@relation("Flatten", inputs=1)
def batch_flatten_rel(r: Relation) -> bool:
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    if not x.shape:
        r.fail(codes.SHAPE_MISMATCH, "`nn.batch_flatten` needs a tensor of rank at least 1", arg=0)
    # The product of the other axes (seed 001, "Type Relation": Flatten), kept
    # symbolic for shape variables (`n * 4`); `?` if one of them is `?`.
    rest: Any = 1
    for d in x.shape[1:]:
        if is_unknown(d):
            return False
        rest = dim_times(rest, d)
    r.set_result(TensorType((x.shape[0], rest), x.dtype))
    return True


@register(
    "nn.batch_flatten",
    inputs=1,
    relation=batch_flatten_rel,
    doc="Flatten all axes but the first: (N, ...) to (N, rest).",
)
def batch_flatten(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return np.reshape(x, (x.shape[0], -1))


# ---------------------------------------------------------------- convolution


def padding4(r: Relation, pad: Shape) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from 1, 2 or 4 values."""
    if any(p < 0 for p in pad):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` padding cannot be negative, found {list(pad)}")
    if len(pad) == 1:
        return (pad[0],) * 4
    if len(pad) == 2:
        return (pad[0], pad[1], pad[0], pad[1])
    if len(pad) == 4:
        return (pad[0], pad[1], pad[2], pad[3])
    r.fail(codes.TYPE_MISMATCH, f"`{r.op}` padding takes 1, 2 or 4 values, found {len(pad)}")
    raise AssertionError


def pair(r: Relation, name: str) -> tuple[int, int]:
    """A (height, width) attribute of positive sizes; one value stands for both."""
    v = r.attrs[name]
    if len(v) == 1:
        v = (v[0], v[0])
    if len(v) != 2:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} takes 2 values (height, width), found {len(v)}")
    if v[0] < 1 or v[1] < 1:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {name} must be positive, found {list(r.attrs[name])}")
    return (v[0], v[1])


def _layout(r: Relation, name: str, letters: str) -> str:
    layout: str = r.attrs[name]
    if sorted(layout) != sorted(letters):
        r.fail(
            codes.TYPE_MISMATCH, f'`{r.op}`: {name} "{layout}" is not supported; use an order of the letters {letters}'
        )
    return layout


def window_out(size: Any, k: int, stride: int, dilation: int, pad: int, ceil: bool = False) -> Any:
    """Output length of a sliding window."""
    if type(size) is not int:
        return AnyDim()
    extent = dilation * (k - 1) + 1
    span = size + pad - extent
    if ceil:
        return (span + stride - 1) // stride + 1
    return span // stride + 1


@relation("Conv2D")
def conv2d_rel(r: Relation) -> bool:
    data = r.tensor(0)
    dl = _layout(r, "data_layout", "NCHW")
    kl = _layout(r, "kernel_layout", "OIHW")
    ol = _layout(r, "out_layout", "NCHW") if r.attrs["out_layout"] else dl
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`nn.conv2d` needs 4-D data ({dl}), found {shape_text(data.shape)}", arg=0)
    n, c, h, w = (data.shape[dl.index(x)] for x in "NCHW")
    groups = r.attrs["groups"]
    if groups < 1:
        r.fail(codes.TYPE_MISMATCH, f"`nn.conv2d` groups must be positive, found {groups}")
    channels = r.attrs["channels"]
    kernel_size = r.attrs["kernel_size"]
    weight = r.tensor(1)
    if not known_rank(weight.shape) and channels is not None and kernel_size is not None and type(c) is int:
        kh, kw = pair(r, "kernel_size")
        dims = {"O": channels, "I": c // groups, "H": kh, "W": kw}
        r.refine(1, TensorType(tuple(dims[x] for x in kl), weight.dtype if type(weight.dtype) is str else data.dtype))
        weight = r.tensor(1)
    if not known_rank(weight.shape):
        return False
    if len(weight.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`nn.conv2d` needs a 4-D weight ({kl}), found {shape_text(weight.shape)}", arg=1)
    o, i, kh, kw = (weight.shape[kl.index(x)] for x in "OIHW")
    if type(c) is int and type(i) is int and c != i * groups:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.conv2d`: the data has {c} channels, but the weight expects {i * groups} (groups={groups})",
            arg=1,
            notes=[
                f"data {shape_text(data.shape)} ({dl}), weight {shape_text(weight.shape)} ({kl}): its "
                f"{kl.index('I')}th axis is input channels per group"
            ],
        )
    if channels is not None and type(o) is int and o != channels:
        r.fail(
            codes.SHAPE_MISMATCH, f"`nn.conv2d` has channels={channels}, but the weight has {o} output channels", arg=1
        )
    if kernel_size is not None:
        ks = pair(r, "kernel_size")
        if all(type(x) is int for x in (kh, kw)) and (kh, kw) != ks:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.conv2d` has kernel_size={list(ks)}, but the weight's window is ({kh}, {kw})",
                arg=1,
            )
    if type(o) is int and o % groups:
        r.fail(codes.SHAPE_MISMATCH, f"`nn.conv2d`: {o} output channels cannot be divided into groups={groups}", arg=1)
    weight_dtype_of(r, data.dtype)
    sh, sw = pair(r, "strides")
    dh, dw = pair(r, "dilation")
    pt, pleft, pb, pr = padding4(r, r.attrs["padding"])
    if type(kh) is not int or type(kw) is not int:
        oh: Any = AnyDim()
        ow: Any = AnyDim()
    else:
        oh = window_out(h, kh, sh, dh, pt + pb)
        ow = window_out(w, kw, sw, dw, pleft + pr)
        for name, v, size in (("height", oh, h), ("width", ow, w)):
            if type(v) is int and v <= 0:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`nn.conv2d`: the window does not fit: the input {name} is {size}, the output would be {v}",
                    arg=0,
                )
    dims = {"N": n, "C": o, "H": oh, "W": ow}
    dtype = r.attrs["out_dtype"] or data.dtype
    r.set_result(TensorType(tuple(dims[x] for x in ol), dtype))
    return True


def _to_nchw(x: Any, layout: str) -> Any:
    return np.transpose(x, [layout.index(c) for c in "NCHW"])


def _from_nchw(x: Any, layout: str) -> Any:
    return np.transpose(x, ["NCHW".index(c) for c in layout])


@register(
    "nn.conv2d",
    inputs=2,
    relation=conv2d_rel,
    attrs=CONV2D_ATTRS,
    doc="2-D convolution (cross-correlation), with strides, padding, dilation and groups.",
)
def conv2d(args: Args, attrs: Attrs) -> Value:
    x, w = args
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]
    ol = attrs["out_layout"] or dl
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    x = _to_nchw(x, dl)
    w = np.transpose(w, [kl.index(c) for c in "OIHW"])
    strides, dilation = pair_of(attrs["strides"]), pair_of(attrs["dilation"])
    out = conv2d_nchw(x, w, strides, pads_2d(attrs["padding"]), dilation, attrs["groups"], dtype)
    return wrap(_from_nchw(out, ol), dtype)
