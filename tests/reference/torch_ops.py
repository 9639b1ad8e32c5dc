"""A second implementation of every operator, on PyTorch (CPU).

Each entry of `REFERENCE` has the registry kernel's signature, `fn(args,
attrs)`: numpy arrays in (tuples of arrays for tuple inputs), attributes
with TVM's names and every default filled in, numpy arrays out. Nothing
here calls the project's kernels: where PyTorch has the operator it does the
work; where its conventions differ from TVM's (asymmetric padding, layouts,
resize coordinate modes, `round` ties), the difference is written out
explicitly, in PyTorch tensor code.

`TorchResolver` plugs the table into the evaluator, so a whole program can
run on these kernels and be compared with the normal run.

This is test infrastructure: the toolchain never imports it.
"""

from __future__ import annotations

import math
from typing import Any
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

Fn = Callable[[tuple, dict], Any]
REFERENCE: dict[str, Fn] = {}

# Products and sums (convolutions, matrix products, normalizations) run in
# float64 when PRECISE, so that the reference is more exact than the kernels
# it checks; the benchmark turns it off to time PyTorch as a user runs it.
PRECISE = True


def W(t: torch.Tensor) -> torch.Tensor:
    """The working precision for accumulating operators."""
    return t.double() if PRECISE else t


def ref(*names: str) -> Callable[[Fn], Fn]:
    def decorate(fn: Fn) -> Fn:
        for name in names:
            REFERENCE[name] = fn
        return fn

    return decorate


def T(a: Any) -> torch.Tensor:
    """numpy -> torch; the buffer is shared when numpy allows writing to it
    (no reference function writes into its inputs), copied otherwise."""
    a = np.asarray(a)
    if a.dtype == np.uint16 or a.dtype == np.uint32 or a.dtype == np.uint64:
        return torch.from_numpy(a.astype(np.int64))
    if not a.flags.writeable:
        a = np.array(a, copy=True)
    return torch.from_numpy(a)


def N(t: torch.Tensor, dtype: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy()).astype(dtype, copy=False)


_TORCH_DTYPES = {
    "float16": torch.float16,
    "float32": torch.float32,
    "float64": torch.float64,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
}


def _is_int(a: np.ndarray) -> bool:
    return a.dtype.kind in "iu"


# ---------------------------------------------------------------- elementwise


def _binary(name: str, fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], result: str | None = None) -> None:
    def kernel(args: tuple, attrs: dict) -> np.ndarray:
        a, b = args
        return N(fn(T(a), T(b)), result or a.dtype)

    REFERENCE[name] = kernel


_binary("add", torch.add)
_binary("subtract", torch.sub)
_binary("multiply", torch.mul)
_binary("maximum", torch.maximum)
_binary("minimum", torch.minimum)
_binary("power", torch.pow)
_binary("floor_mod", torch.remainder)
_binary("mod", torch.fmod)
for _n, _f in (
    ("equal", torch.eq),
    ("not_equal", torch.ne),
    ("less", torch.lt),
    ("less_equal", torch.le),
    ("greater", torch.gt),
    ("greater_equal", torch.ge),
):
    _binary(_n, _f, "bool")
_binary("logical_and", torch.logical_and, "bool")
_binary("logical_or", torch.logical_or, "bool")
_binary("logical_xor", torch.logical_xor, "bool")


@ref("divide")
def divide(args: tuple, attrs: dict) -> np.ndarray:
    a, b = args
    if _is_int(a):
        return N(torch.div(T(a), T(b), rounding_mode="trunc"), a.dtype)
    return N(torch.div(T(a), T(b)), a.dtype)


@ref("floor_divide")
def floor_divide(args: tuple, attrs: dict) -> np.ndarray:
    a, b = args
    return N(torch.div(T(a), T(b), rounding_mode="floor"), a.dtype)


def _unary(name: str, fn: Callable[[torch.Tensor], torch.Tensor], result: str | None = None) -> None:
    def kernel(args: tuple, attrs: dict) -> np.ndarray:
        (a,) = args
        return N(fn(T(a)), result or a.dtype)

    REFERENCE[name] = kernel


for _n, _f in (
    ("negative", torch.neg),
    ("abs", torch.abs),
    ("exp", torch.exp),
    ("log", torch.log),
    ("log2", torch.log2),
    ("log10", torch.log10),
    ("sqrt", torch.sqrt),
    ("rsqrt", torch.rsqrt),
    ("tanh", torch.tanh),
    ("sigmoid", torch.sigmoid),
    ("erf", torch.special.erf),
    ("sin", torch.sin),
    ("cos", torch.cos),
    ("tan", torch.tan),
    ("floor", torch.floor),
    ("ceil", torch.ceil),
    ("trunc", torch.trunc),
    ("sign", torch.sign),
    ("copy", torch.clone),
    ("zeros_like", torch.zeros_like),
    ("ones_like", torch.ones_like),
    ("nn.relu", torch.relu),
):
    _unary(_n, _f)
_unary("logical_not", torch.logical_not, "bool")
# TVM's round is C's round(): ties go away from zero (torch.round ties to even).
_unary(
    "round", lambda x: torch.where(torch.abs(x - torch.trunc(x)) >= 0.5, torch.trunc(x) + torch.sign(x), torch.trunc(x))
)


@ref("clip")
def clip(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    lo, hi = attrs["a_min"], attrs["a_max"]
    if _is_int(a):
        info = np.iinfo(a.dtype)
        lo, hi = max(math.ceil(lo), int(info.min)), min(math.floor(hi), int(info.max))
    return N(torch.clamp(T(a), lo, hi), a.dtype)


@ref("cast")
def cast(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    dtype = attrs["dtype"]
    return N(T(a).to(_TORCH_DTYPES[dtype]), dtype)


@ref("cast_like")
def cast_like(args: tuple, attrs: dict) -> np.ndarray:
    a, like = args
    return N(T(a).to(_TORCH_DTYPES[like.dtype.name]), like.dtype)


@ref("where")
def where(args: tuple, attrs: dict) -> np.ndarray:
    c, x, y = args
    return N(torch.where(T(c), T(x), T(y)), x.dtype)


# ---------------------------------------------------------------- creation


REFERENCE["zeros"] = lambda args, attrs: N(
    torch.zeros(tuple(attrs["shape"]), dtype=_TORCH_DTYPES[attrs["dtype"]]), attrs["dtype"]
)
REFERENCE["ones"] = lambda args, attrs: N(
    torch.ones(tuple(attrs["shape"]), dtype=_TORCH_DTYPES[attrs["dtype"]]), attrs["dtype"]
)


@ref("full")
def full(args: tuple, attrs: dict) -> np.ndarray:
    (fill,) = args
    dtype = attrs["dtype"] or fill.dtype.name
    return N(torch.full(tuple(attrs["shape"]), fill.item(), dtype=_TORCH_DTYPES[dtype]), dtype)


@ref("full_like")
def full_like(args: tuple, attrs: dict) -> np.ndarray:
    x, fill = args
    return N(torch.full_like(T(x), fill.item()), x.dtype)


@ref("arange")
def arange(args: tuple, attrs: dict) -> np.ndarray:
    start, stop, step = (a.item() for a in args)
    dtype = attrs["dtype"]
    return N(torch.arange(start, stop, step, dtype=torch.float64), dtype)


# ---------------------------------------------------------------- shapes


def _newshape(shape: tuple, spec: tuple) -> list[int]:
    """TVM's reshape special values, spelled out independently of the toolchain."""
    out: list[int] = []
    src = 0
    i = 0
    while i < len(spec):
        v = spec[i]
        if v > 0:
            out.append(v)
            src += 1
        elif v == 0:
            out.append(shape[src])
            src += 1
        elif v == -1:
            out.append(-1)
            src += 1
        elif v == -2:
            out.extend(shape[src:])
            src = len(shape)
        elif v == -3:
            out.append(shape[src] * shape[src + 1])
            src += 2
        elif v == -4:
            d1, d2 = spec[i + 1], spec[i + 2]
            if d1 == -1:
                d1 = shape[src] // d2
            if d2 == -1:
                d2 = shape[src] // d1
            out.extend([d1, d2])
            src += 1
            i += 2
        i += 1
    return out


@ref("reshape")
def reshape(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    return N(T(a).reshape(_newshape(a.shape, attrs["newshape"])), a.dtype)


@ref("transpose")
def transpose(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    axes = attrs["axes"]
    perm = list(range(a.ndim))[::-1] if axes is None else [x % a.ndim for x in axes]
    return N(T(a).permute(*perm), a.dtype)


@ref("squeeze")
def squeeze(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    t = T(a)
    axis = attrs["axis"]
    dims = [i for i in range(a.ndim) if a.shape[i] == 1] if axis is None else [x % a.ndim for x in axis]
    for d in sorted(dims, reverse=True):
        t = t.squeeze(d)
    return N(t, a.dtype)


@ref("expand_dims")
def expand_dims(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    axis = attrs["axis"]
    pos = axis if axis >= 0 else a.ndim + 1 + axis
    t = T(a)
    for _ in range(attrs["num_newaxis"]):
        t = t.unsqueeze(pos)
    return N(t, a.dtype)


@ref("concatenate")
def concatenate(args: tuple, attrs: dict) -> np.ndarray:
    (parts,) = args
    return N(torch.cat([T(p) for p in parts], dim=attrs["axis"]), parts[0].dtype)


@ref("stack")
def stack(args: tuple, attrs: dict) -> np.ndarray:
    (parts,) = args
    return N(torch.stack([T(p) for p in parts], dim=attrs["axis"]), parts[0].dtype)


@ref("split")
def split(args: tuple, attrs: dict) -> tuple:
    (a,) = args
    spec = attrs["indices_or_sections"]
    axis = attrs["axis"]
    t = T(a)
    if isinstance(spec, int):
        parts = torch.split(t, a.shape[axis] // spec, dim=axis)
    else:
        parts = torch.tensor_split(t, list(spec), dim=axis)
    return tuple(N(p, a.dtype) for p in parts)


@ref("take")
def take(args: tuple, attrs: dict) -> np.ndarray:
    a, idx = args
    t, i = T(a), T(idx).to(torch.int64)
    axis = attrs["axis"]
    if axis is None:
        t = t.reshape(-1)
        axis = 0
    axis %= t.dim()
    n = t.shape[axis]
    mode = attrs["mode"]
    if mode == "clip":
        i = torch.clamp(i, 0, n - 1)
    elif mode == "wrap":
        i = torch.remainder(i, n)
    else:
        i = torch.where(i < 0, i + n, i)
    flat = torch.index_select(t, axis, i.reshape(-1))
    shape = list(t.shape[:axis]) + list(idx.shape) + list(t.shape[axis + 1 :])
    return N(flat.reshape(shape), a.dtype)


@ref("strided_slice")
def strided_slice(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    t = T(a)
    begin, end, strides = attrs["begin"], attrs["end"], attrs["strides"]
    axes = attrs["axes"]
    if axes is None:
        axes = tuple(range(len(begin)))
    for k, ax in enumerate(axes):
        ax %= a.ndim
        n = a.shape[ax]
        s = (
            strides[k]
            if strides is not None and k < len(strides)
            else (strides[0] if strides and len(strides) == 1 else 1)
        )
        b = begin[k]
        e = end[k] if k < len(end) else (n if s > 0 else -n - 1)
        if attrs["slice_mode"] == "size":
            s = 1
            e = n if e < 0 else b + e
        # clamp like Python slicing does, but TVM-style: indices as positions
        idx = list(range(n))[slice(b, e, s)] if not (s < 0 and e < -n) else list(range(n))[slice(b, None, s)]
        t = torch.index_select(t, ax, torch.tensor(idx, dtype=torch.int64))
    return N(t, a.dtype)


@ref("broadcast_to")
def broadcast_to(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    return N(T(a).expand(*attrs["shape"]).contiguous(), a.dtype)


@ref("broadcast_to_like")
def broadcast_to_like(args: tuple, attrs: dict) -> np.ndarray:
    a, like = args
    return N(T(a).expand(*like.shape).contiguous(), a.dtype)


@ref("tile")
def tile(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    return N(torch.tile(T(a), tuple(attrs["reps"])), a.dtype)


@ref("repeat")
def repeat(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    return N(torch.repeat_interleave(T(a), attrs["repeats"], dim=attrs["axis"]), a.dtype)


@ref("layout_transform")
def layout_transform(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    src, dst = attrs["src_layout"], attrs["dst_layout"]
    return N(T(a).permute(*[src.index(c) for c in dst]), a.dtype)


# ---------------------------------------------------------------- reductions


def _axes(a: np.ndarray, attrs: dict) -> list[int]:
    axis = attrs["axis"]
    axes = list(range(a.ndim)) if axis is None else sorted({x % a.ndim for x in axis})
    if attrs.get("exclude"):
        axes = [i for i in range(a.ndim) if i not in axes]
    return axes


def _reduce(name: str, fn: Callable[..., torch.Tensor]) -> None:
    def kernel(args: tuple, attrs: dict) -> np.ndarray:
        a = args[0]
        axes = _axes(a, attrs)
        t = T(a)
        if not axes:
            return N(t, a.dtype)
        # one axis at a time, from the last, keeping dims so positions stay valid
        for ax in sorted(axes, reverse=True):
            t = fn(t, ax)
        if not attrs["keepdims"]:
            t = t.reshape([d for i, d in enumerate(a.shape) if i not in axes])
        return N(t, a.dtype)

    REFERENCE[name] = kernel


_reduce("sum", lambda t, ax: torch.sum(t, dim=ax, keepdim=True))
_reduce("prod", lambda t, ax: torch.prod(t, dim=ax, keepdim=True))
_reduce("max", lambda t, ax: torch.amax(t, dim=ax, keepdim=True))
_reduce("min", lambda t, ax: torch.amin(t, dim=ax, keepdim=True))
_reduce("all", lambda t, ax: torch.all(t, dim=ax, keepdim=True))
_reduce("any", lambda t, ax: torch.any(t, dim=ax, keepdim=True))


@ref("mean")
def mean(args: tuple, attrs: dict) -> np.ndarray:
    (a,) = args
    axes = _axes(a, attrs)
    t = T(a)
    if _is_int(a):
        total = torch.sum(t, dim=axes, keepdim=attrs["keepdims"]) if axes else t
        count = math.prod(a.shape[i] for i in axes)
        return N(torch.div(total, count, rounding_mode="trunc"), a.dtype)
    return N(torch.mean(t, dim=axes, keepdim=attrs["keepdims"]) if axes else t, a.dtype)


@ref("variance")
def variance(args: tuple, attrs: dict) -> np.ndarray:
    a, m = args
    axes = _axes(a, attrs)
    d = (T(a) - T(m)) ** 2
    count = math.prod(a.shape[i] for i in axes)
    s = torch.sum(d, dim=axes, keepdim=attrs["keepdims"]) if axes else d
    return N(s / (count - (1 if attrs["unbiased"] else 0)), a.dtype)


def _arg(fn: Callable[..., torch.Tensor]) -> Fn:
    def kernel(args: tuple, attrs: dict) -> np.ndarray:
        (a,) = args
        axes = _axes(a, attrs)
        rest = [i for i in range(a.ndim) if i not in axes]
        t = T(a).permute(*(rest + axes)).reshape([a.shape[i] for i in rest] + [-1])
        last = attrs.get("select_last_index")
        idx = t.shape[-1] - 1 - fn(torch.flip(t, [-1]), dim=-1) if last else fn(t, dim=-1)
        if attrs["keepdims"]:
            idx = idx.reshape([1 if i in axes else a.shape[i] for i in range(a.ndim)])
        return N(idx, "int32")

    return kernel


REFERENCE["argmax"] = _arg(torch.argmax)
REFERENCE["argmin"] = _arg(torch.argmin)


# ---------------------------------------------------------------- neural network


def _pads(padding: tuple, n: int) -> tuple[list[int], list[int]]:
    """TVM's padding attribute -> (before, after) per spatial axis."""
    p = list(padding)
    if len(p) == 1:
        p = p * (2 * n)
    elif len(p) == n:
        p = p + p
    return p[:n], p[n:]


def _torch_pad(before: list[int], after: list[int]) -> list[int]:
    out: list[int] = []
    for b, a in zip(reversed(before), reversed(after), strict=False):
        out += [b, a]
    return out


def _pair(v: tuple) -> tuple:
    return (v[0], v[0]) if len(v) == 1 else tuple(v)


def _to_nchw(t: torch.Tensor, layout: str) -> torch.Tensor:
    return t.permute(*[layout.index(c) for c in "NCHW"]) if layout != "NCHW" else t


def _from_nchw(t: torch.Tensor, layout: str) -> torch.Tensor:
    return t.permute(*["NCHW".index(c) for c in layout]) if layout != "NCHW" else t


@ref("nn.conv2d")
def conv2d(args: tuple, attrs: dict) -> np.ndarray:
    x, w = args
    out_dtype = attrs["out_dtype"] or x.dtype.name
    tx = _to_nchw(T(x), attrs["data_layout"])
    tw = T(w).permute(*[attrs["kernel_layout"].index(c) for c in "OIHW"])
    before, after = _pads(attrs["padding"], 2)
    symmetric = before == after
    if not symmetric:
        tx = F.pad(tx, _torch_pad(before, after))
    y = F.conv2d(
        W(tx),
        W(tw),
        stride=tuple(_pair(attrs["strides"])),
        dilation=tuple(_pair(attrs["dilation"])),
        groups=attrs["groups"],
        padding=tuple(before) if symmetric else 0,
    )
    return N(_from_nchw(y, attrs["out_layout"] or attrs["data_layout"]), out_dtype)


@ref("nn.conv1d")
def conv1d(args: tuple, attrs: dict) -> np.ndarray:
    x, w = args
    out_dtype = attrs["out_dtype"] or x.dtype.name
    tx = T(x)
    if attrs["data_layout"] == "NWC":
        tx = tx.permute(0, 2, 1)
    tw = T(w).permute(*[attrs["kernel_layout"].index(c) for c in "OIW"])
    before, after = _pads(attrs["padding"], 1)
    tx = F.pad(tx, [before[0], after[0]])
    y = F.conv1d(W(tx), W(tw), stride=attrs["strides"][0], dilation=attrs["dilation"][0], groups=attrs["groups"])
    if (attrs["out_layout"] or attrs["data_layout"]) == "NWC":
        y = y.permute(0, 2, 1)
    return N(y, out_dtype)


@ref("nn.conv2d_transpose")
def conv2d_transpose(args: tuple, attrs: dict) -> np.ndarray:
    x, w = args
    out_dtype = attrs["out_dtype"] or x.dtype.name
    tx = _to_nchw(T(x), attrs["data_layout"])
    # torch wants (in, out / groups, kh, kw): TVM's IOHW
    tw = T(w).permute(*[attrs["kernel_layout"].index(c) for c in "IOHW"])
    before, after = _pads(attrs["padding"], 2)
    full = F.conv_transpose2d(
        W(tx),
        W(tw),
        stride=tuple(attrs["strides"]),
        dilation=tuple(attrs["dilation"]),
        groups=attrs["groups"],
        output_padding=tuple(attrs["output_padding"]),
    )
    # torch's padding is symmetric: crop the full result by hand instead
    h, w_ = full.shape[2], full.shape[3]
    y = full[:, :, before[0] : h - after[0], before[1] : w_ - after[1]]
    return N(_from_nchw(y, attrs["out_layout"] or attrs["data_layout"]), out_dtype)


@ref("nn.dense")
def dense(args: tuple, attrs: dict) -> np.ndarray:
    x, w = args
    return N(F.linear(W(T(x)), W(T(w))), attrs["out_dtype"] or x.dtype.name)


@ref("nn.matmul")
def matmul(args: tuple, attrs: dict) -> np.ndarray:
    a, b = args
    ta, tb = W(T(a)), W(T(b))
    if attrs["transpose_a"]:
        ta = ta.transpose(-1, -2)
    if attrs["transpose_b"]:
        tb = tb.transpose(-1, -2)
    return N(torch.matmul(ta, tb), attrs["out_dtype"] or a.dtype.name)


@ref("nn.batch_matmul")
def batch_matmul(args: tuple, attrs: dict) -> np.ndarray:
    a, b = args
    ta, tb = W(T(a)), W(T(b))
    if attrs["transpose_a"]:
        ta = ta.transpose(1, 2)
    if attrs["transpose_b"]:
        tb = tb.transpose(1, 2)
    return N(torch.matmul(ta, tb), attrs["out_dtype"] or a.dtype.name)


@ref("nn.bias_add")
def bias_add(args: tuple, attrs: dict) -> np.ndarray:
    x, b = args
    axis = attrs["axis"] % x.ndim
    shape = [1] * x.ndim
    shape[axis] = -1
    return N(T(x) + T(b).reshape(shape), x.dtype)


@ref("nn.leaky_relu")
def leaky_relu(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    return N(F.leaky_relu(T(x), attrs["alpha"]), x.dtype)


@ref("nn.softmax")
def softmax(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    return N(torch.softmax(W(T(x)), dim=attrs["axis"]), x.dtype)


@ref("nn.log_softmax")
def log_softmax(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    return N(torch.log_softmax(W(T(x)), dim=attrs["axis"]), x.dtype)


@ref("nn.batch_norm")
def batch_norm(args: tuple, attrs: dict) -> tuple:
    x, gamma, beta, mean_, var = args
    axis = attrs["axis"] % x.ndim
    tx = W(T(x)).movedim(axis, 1)
    y = F.batch_norm(
        tx,
        W(T(mean_)),
        W(T(var)),
        W(T(gamma)) if attrs["scale"] else None,
        W(T(beta)) if attrs["center"] else None,
        training=False,
        eps=attrs["epsilon"],
    )
    return (N(y.movedim(1, axis), x.dtype), np.array(mean_), np.array(var))


@ref("nn.layer_norm")
def layer_norm(args: tuple, attrs: dict) -> np.ndarray:
    x, gamma, beta = args
    axis = attrs["axis"] % x.ndim
    tx = T(x).double().movedim(axis, -1)
    y = F.layer_norm(
        tx,
        (x.shape[axis],),
        T(gamma).double() if attrs["scale"] else None,
        T(beta).double() if attrs["center"] else None,
        eps=attrs["epsilon"],
    )
    return N(y.movedim(-1, axis), x.dtype)


@ref("nn.dropout")
def dropout(args: tuple, attrs: dict) -> tuple:
    (x,) = args
    t = F.dropout(T(x), attrs["rate"], training=False)
    return (N(t, x.dtype), N(torch.ones_like(T(x)), x.dtype))


def _pool(x: np.ndarray, attrs: dict, kind: str) -> np.ndarray:
    """Pooling with TVM's asymmetric padding, dilation, ceil_mode and count_include_pad."""
    layout = attrs["layout"]
    t = W(_to_nchw(T(x), layout))
    kh, kw = attrs["pool_size"] if len(attrs["pool_size"]) == 2 else attrs["pool_size"] * 2
    sh, sw = attrs["strides"]
    dh, dw = attrs["dilation"]
    before, after = _pads(attrs["padding"], 2)
    height, width = t.shape[2], t.shape[3]

    def out_size(n: int, k: int, s: int, d: int, b: int, a: int) -> int:
        span = n + b + a - ((k - 1) * d + 1)
        return (span + s - 1) // s + 1 if attrs["ceil_mode"] else span // s + 1

    OH, OW = out_size(height, kh, sh, dh, before[0], after[0]), out_size(width, kw, sw, dw, before[1], after[1])
    # pad far enough that every window of the ceil-mode output lies inside
    extra_h = max(0, (OH - 1) * sh + (kh - 1) * dh + 1 - (height + before[0] + after[0]))
    extra_w = max(0, (OW - 1) * sw + (kw - 1) * dw + 1 - (width + before[1] + after[1]))
    # TVM pads max pooling with the lowest finite value of the dtype; a ceil-mode
    # window lying wholly in padding yields that value.
    fill = float(np.finfo(x.dtype).min) if kind == "max" else 0.0
    padded = F.pad(t, [before[1], after[1] + extra_w, before[0], after[0] + extra_h], value=fill)
    if kind == "max":
        padded = padded.to(torch.float32 if x.dtype == np.float32 else padded.dtype)
    windows = padded.unfold(2, (kh - 1) * dh + 1, sh).unfold(3, (kw - 1) * dw + 1, sw)[..., ::dh, ::dw]
    windows = windows[:, :, :OH, :OW]
    if kind == "max":
        y = windows.amax(dim=(-1, -2))
    else:
        inside = torch.zeros((1, 1, height, width), dtype=torch.float64) + 1
        region = (
            F.pad(
                torch.ones((1, 1, height + before[0] + after[0], width + before[1] + after[1]), dtype=torch.float64),
                [0, extra_w, 0, extra_h],
            )
            if attrs["count_include_pad"]
            else F.pad(inside, [before[1], after[1] + extra_w, before[0], after[0] + extra_h])
        )
        counts = (
            region.unfold(2, (kh - 1) * dh + 1, sh)
            .unfold(3, (kw - 1) * dw + 1, sw)[..., ::dh, ::dw][:, :, :OH, :OW]
            .sum(dim=(-1, -2))
        )
        y = windows.sum(dim=(-1, -2)) / counts
    return N(_from_nchw(y, attrs["out_layout"] or layout), x.dtype)


@ref("nn.max_pool2d")
def max_pool2d(args: tuple, attrs: dict) -> np.ndarray:
    x = args[0]
    before, after = _pads(attrs["padding"], 2)
    kh, kw = _pair(attrs["pool_size"])
    if before == after and not attrs["ceil_mode"] and before[0] * 2 <= kh and before[1] * 2 <= kw:
        # no window lies wholly in padding, so torch's -inf padding agrees with TVM's
        t = _to_nchw(T(x), attrs["layout"])
        y = F.max_pool2d(
            t, (kh, kw), stride=_pair(attrs["strides"]), padding=tuple(before), dilation=_pair(attrs["dilation"])
        )
        return N(_from_nchw(y, attrs["out_layout"] or attrs["layout"]), x.dtype)
    return _pool(x, attrs, "max")


@ref("nn.avg_pool2d")
def avg_pool2d(args: tuple, attrs: dict) -> np.ndarray:
    return _pool(args[0], attrs, "avg")


@ref("nn.global_avg_pool2d")
def global_avg_pool2d(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    t = W(_to_nchw(T(x), attrs["layout"]))
    return N(_from_nchw(F.adaptive_avg_pool2d(t, 1), attrs["out_layout"] or attrs["layout"]), x.dtype)


@ref("nn.global_max_pool2d")
def global_max_pool2d(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    t = _to_nchw(T(x), attrs["layout"]).double()
    return N(_from_nchw(F.adaptive_max_pool2d(t, 1), attrs["out_layout"] or attrs["layout"]), x.dtype)


@ref("nn.adaptive_avg_pool2d")
def adaptive_avg_pool2d(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    t = _to_nchw(T(x), attrs["layout"]).double()
    size = attrs["output_size"]
    if size is None or len(size) == 0:
        size = (t.shape[2], t.shape[3])
    elif len(size) == 1:
        size = (size[0], size[0])
    return N(_from_nchw(F.adaptive_avg_pool2d(t, tuple(size)), attrs["out_layout"] or attrs["layout"]), x.dtype)


@ref("nn.adaptive_max_pool2d")
def adaptive_max_pool2d(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    t = _to_nchw(T(x), attrs["layout"]).double()
    size = attrs["output_size"]
    if size is None or len(size) == 0:
        size = (t.shape[2], t.shape[3])
    elif len(size) == 1:
        size = (size[0], size[0])
    return N(_from_nchw(F.adaptive_max_pool2d(t, tuple(size)), attrs["out_layout"] or attrs["layout"]), x.dtype)


@ref("nn.batch_flatten")
def batch_flatten(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    return N(torch.flatten(T(x), 1), x.dtype)


@ref("nn.pad")
def pad(args: tuple, attrs: dict) -> np.ndarray:
    x, value = args
    t = T(x)
    widths = attrs["pad_width"]
    mode = attrs["pad_mode"]
    # torch pads only trailing axes for edge/reflect; do it one axis at a time
    for ax, (b, a) in enumerate(widths):
        if b == 0 and a == 0:
            continue
        moved = t.movedim(ax, -1).double()
        flat = moved.reshape(1, -1, moved.shape[-1])
        if mode == "constant":
            flat = F.pad(flat, [b, a], value=float(value.item()))
        else:
            flat = F.pad(flat, [b, a], mode="replicate" if mode == "edge" else "reflect")
        t = flat.reshape(*moved.shape[:-1], flat.shape[-1]).movedim(-1, ax)
    return N(t, x.dtype)


@ref("nn.lrn")
def lrn(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    t = T(x).double().movedim(attrs["axis"], 1)
    y = F.local_response_norm(t, attrs["size"], alpha=attrs["alpha"], beta=attrs["beta"], k=attrs["bias"])
    return N(y.movedim(1, attrs["axis"]), x.dtype)


def _resize_reference(x: torch.Tensor, out_h: int, out_w: int, method: str, mode: str, rounding: str) -> torch.Tensor:
    """Resize an NCHW tensor pixel by pixel, following TVM's coordinate rules."""
    _, _, H, W = x.shape

    def source(o: int, n_in: int, n_out: int) -> float:
        scale = n_in / n_out
        if mode == "half_pixel":
            return (o + 0.5) * scale - 0.5
        if mode == "align_corners":
            return (n_in - 1) / (n_out - 1) * o if n_out > 1 else 0.0
        if mode == "asymmetric":
            return scale * o
        if mode == "pytorch_half_pixel":
            return (o + 0.5) * scale - 0.5 if n_out > 1 else 0.0
        if mode == "tf_half_pixel_for_nn":
            return (o + 0.5) * scale
        raise ValueError(mode)

    def nearest(v: float, n: int) -> int:
        r = rounding or ("round" if mode == "align_corners" else "floor")
        if r == "round":
            i = math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)
        elif r == "round_prefer_floor":
            i = math.ceil(v - 0.5)
        elif r == "round_prefer_ceil":
            i = math.floor(v + 0.5)
        elif r == "floor":
            i = math.floor(v + 1e-5)
        else:
            i = math.ceil(v - 1e-5)
        return min(max(i, 0), n - 1)

    out = torch.zeros((x.shape[0], x.shape[1], out_h, out_w), dtype=torch.float64)
    for oy in range(out_h):
        for ox in range(out_w):
            sy, sx = source(oy, H, out_h), source(ox, W, out_w)
            if method == "nearest_neighbor":
                out[:, :, oy, ox] = x[:, :, nearest(sy, H), nearest(sx, W)]
            else:
                y0, x0 = math.floor(sy), math.floor(sx)
                fy, fx = sy - y0, sx - x0
                ys = [min(max(y0, 0), H - 1), min(max(y0 + 1, 0), H - 1)]
                xs = [min(max(x0, 0), W - 1), min(max(x0 + 1, 0), W - 1)]
                top = x[:, :, ys[0], xs[0]] * (1 - fx) + x[:, :, ys[0], xs[1]] * fx
                bottom = x[:, :, ys[1], xs[0]] * (1 - fx) + x[:, :, ys[1], xs[1]] * fx
                out[:, :, oy, ox] = top * (1 - fy) + bottom * fy
    return out


@ref("image.resize2d")
def resize2d(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    layout = attrs["layout"]
    t = _to_nchw(T(x), layout).double()
    out_h, out_w = attrs["size"] if len(attrs["size"]) == 2 else attrs["size"] * 2
    y = _resize_reference(
        t, out_h, out_w, attrs["method"], attrs["coordinate_transformation_mode"], attrs["rounding_method"]
    )
    return N(_from_nchw(y, layout), attrs["out_dtype"] or x.dtype.name)


@ref("nn.upsampling")
def upsampling(args: tuple, attrs: dict) -> np.ndarray:
    (x,) = args
    layout = attrs["layout"]
    t = _to_nchw(T(x), layout).double()
    out_h, out_w = int(t.shape[2] * attrs["scale_h"]), int(t.shape[3] * attrs["scale_w"])
    method = "nearest_neighbor" if attrs["method"] == "nearest_neighbor" else "linear"
    mode = "align_corners" if attrs["align_corners"] else "asymmetric"
    y = _resize_reference(t, out_h, out_w, method, mode, "")
    return N(_from_nchw(y, layout), x.dtype)


# ---------------------------------------------------------------- the evaluator seam


class _Definition:
    """What the evaluator needs from an operator: its name and a kernel."""

    def __init__(self, name: str, kernel: Fn, normalize: Any) -> None:
        self.name = name
        self.kernel = kernel
        self._normalize = normalize

    def normalize_attrs(self, given: Any) -> tuple[dict, list]:
        return self._normalize(given)


class MissingReference(LookupError):
    pass


class TorchResolver:
    """An evaluator resolver: every operator runs on its PyTorch reference.

    Attributes are still validated and filled by the registry (the schema is
    not what is being tested); an operator without a reference is an error,
    so a comparison can never silently use the toolchain's own kernel.
    `used` records which operators a run called.
    """

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, name: str) -> Any:
        from relay_text.ops import registry

        op = registry.get(name)
        fn = REFERENCE.get(name)
        if op is None or fn is None:
            raise MissingReference(f"no PyTorch reference for `{name}`")
        used = self.used

        def kernel(args: tuple, attrs: dict) -> Any:
            used.add(name)
            return fn(args, attrs)

        return _Definition(name, kernel, op.normalize_attrs)
