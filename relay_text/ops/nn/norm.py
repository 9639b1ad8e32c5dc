"""Normalization: `nn.batch_norm`, `nn.layer_norm`, `nn.lrn`, `variance`, ...

* `nn.batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1,
  epsilon=1e-5, center=True, scale=True)` normalizes with the given moving
  statistics and returns (output, moving_mean, moving_var); the four
  vectors follow the data's channel `axis`.
* `nn.layer_norm(data, gamma, beta, axis=-1, epsilon=1e-5, center=True,
  scale=True)` normalizes over one axis with the statistics of that axis,
  then scales by `gamma` and shifts by `beta` (vectors as long as the axis;
  their types follow from the data).
* `nn.lrn(data, size=5, axis=1, bias=2, alpha=1e-4, beta=0.75)` divides each
  element by `(bias + alpha / size * s) ** beta`, where `s` is the sum of
  squares over `size` neighbours along `axis` (from `size // 2` before the
  element), as TVM (and PyTorch's `local_response_norm`) define it.
* `variance(data, mean, axis, keepdims, exclude, unbiased)` is TVM's
  variance reduction: it takes the mean as an input (TVM's `variance`
  helper computes it first), and divides by `n - 1` when `unbiased`.
* `nn.instance_norm(data, gamma, beta, axis=1, ...)` normalizes each
  sample's channel separately: the statistics are taken over every axis
  but the batch (axis 0) and the channel `axis`; the data has rank 3 or
  more.
* `nn.group_norm(data, gamma, beta, num_groups, axis=1, ...)` splits the
  channel axis into `num_groups` groups of `C / num_groups` channels and
  normalizes each group with the statistics of that group's channels and
  of every axis after the channel axis, as TVM's SimplifyInference pass
  lowers it (with `axis=1` in NCHW: a group's channels and all of H and
  W; with the channels last, the group's channels only).
* The three take the layer norm's `epsilon`, `center` and `scale`; their
  `gamma` and `beta` are vectors along the channel axis, inferred from the
  data. Statistics are the population mean and variance, computed in
  float64 and returned in the data's dtype.
* `nn.l2_normalize(data, eps, axis)` divides by
  `sqrt(max(sum(data ** 2 over axis), eps))` (all axes when `axis` is
  empty).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType, TupleType
from .._np import np, wrap
from ..tensor.reduce import REDUCE_ATTRS, axes_of, reduced_axes
from ..registry import Attr, register
from ..relations import (
    Relation,
    broadcast_dims,
    known_rank,
    normalize_axis,
    relation,
    shape_text,
)
from ..types import Args, Attrs, Shape, Value


def _float_data(r: Relation) -> Any:
    x = r.tensor(0)
    d = x.dtype
    if isinstance(d, str) and not d.startswith(("float", "bfloat")):
        r.fail(
            codes.TYPE_MISMATCH, f"`{r.op}` takes a floating-point tensor, found `{d}`", arg=0, label=f"this is `{d}`"
        )
    return x


# ---------------------------------------------------------------- layer norm


@relation("LayerNorm")
def layer_norm_rel(r: Relation) -> bool:
    """(data, gamma, beta) -> data's type; gamma and beta are (data.shape[axis],)."""
    data = _float_data(r)
    if not known_rank(data.shape):
        return False
    axis = normalize_axis(r, r.attrs["axis"], len(data.shape))
    vec = TensorType((data.shape[axis],), data.dtype)
    r.refine(1, vec)
    r.refine(2, vec)
    r.set_result(data)
    return True


@register(
    "nn.layer_norm",
    inputs=3,
    relation=layer_norm_rel,
    attrs=(
        Attr("axis", "int", -1),
        Attr("epsilon", "float", 1e-5),
        Attr("center", "bool", True),
        Attr("scale", "bool", True),
    ),
    doc="Normalize over one axis, then scale by gamma and shift by beta.",
)
def layer_norm(args: Args, attrs: Attrs) -> Value:
    x, gamma, beta = args
    axis = attrs["axis"] % x.ndim
    mean = np.mean(x, axis=axis, keepdims=True, dtype=x.dtype)
    centered = x - mean
    var = np.mean(centered * centered, axis=axis, keepdims=True, dtype=x.dtype)
    out = centered / np.sqrt(var + np.asarray(attrs["epsilon"], dtype=x.dtype))
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    if attrs["scale"]:
        out = out * gamma.reshape(shape)
    if attrs["center"]:
        out = out + beta.reshape(shape)
    return wrap(out, x.dtype)


# ---------------------------------------------------------------- local response normalization


@relation("Identity")
def lrn_rel(r: Relation) -> bool:
    x = _float_data(r)
    if r.attrs["size"] <= 0:
        r.fail(codes.TYPE_MISMATCH, f"`nn.lrn` size must be positive, found {r.attrs['size']}")
    if known_rank(x.shape):
        normalize_axis(r, r.attrs["axis"], len(x.shape))
    r.set_result(x)
    return True


@register(
    "nn.lrn",
    inputs=1,
    relation=lrn_rel,
    attrs=(
        Attr("size", "int", 5),
        Attr("axis", "int", 1),
        Attr("bias", "float", 2.0),
        Attr("alpha", "float", 1e-4),
        Attr("beta", "float", 0.75),
    ),
    doc="Local response normalization across `size` neighbours along axis.",
)
def lrn(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axis = attrs["axis"] % x.ndim
    size = attrs["size"]
    before = size // 2
    after = size - 1 - before
    sq = np.moveaxis(x, axis, -1).astype(np.float64) ** 2
    # window sums by a cumulative sum: s[i] = c[i + after + 1] - c[i - before]
    padded = np.pad(sq, [(0, 0)] * (sq.ndim - 1) + [(before + 1, after)])
    c = np.cumsum(padded, axis=-1)
    n = sq.shape[-1]
    s = c[..., size : size + n] - c[..., :n]
    denom = (attrs["bias"] + attrs["alpha"] / size * s) ** attrs["beta"]
    out = np.moveaxis(np.moveaxis(x, axis, -1) / denom, -1, axis)
    return wrap(out, x.dtype)


# ---------------------------------------------------------------- variance


@relation("Variance")
def variance_rel(r: Relation) -> bool:
    """(data, mean) -> data reduced over the axes; the mean broadcasts against the data."""
    data = r.tensor(0)
    r.unify_dtypes(0, 1)
    mean = r.tensor(1)
    if not known_rank(data.shape):
        return False
    axes = reduced_axes(r, len(data.shape))
    if not known_rank(mean.shape):
        keep = tuple(1 if i in axes else d for i, d in enumerate(data.shape))
        r.refine(1, TensorType(keep, data.dtype))
        mean = r.tensor(1)
    both = broadcast_dims(r, data.shape, mean.shape)  # type: ignore[arg-type]  # the mean's rank is known or was just refined
    if both is not None and len(both) != len(data.shape):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`variance`: the mean {shape_text(mean.shape)} has more axes than the data {shape_text(data.shape)}",
            arg=1,
        )
    if both is not None and any(
        type(a) is int and type(b) is int and a != b for a, b in zip(both, data.shape, strict=False)
    ):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`variance`: the mean {shape_text(mean.shape)} would broadcast the data {shape_text(data.shape)} to "
            f"{shape_text(both)}",
            arg=1,
            notes=["the mean has the data's shape, with 1 on the reduced axes"],
        )
    keep = r.attrs["keepdims"]
    shape = tuple(1 if i in axes else d for i, d in enumerate(data.shape) if keep or i not in axes)
    r.set_result(TensorType(shape, data.dtype))
    return True


@register(
    "variance",
    inputs=2,
    relation=variance_rel,
    attrs=(*REDUCE_ATTRS, Attr("unbiased", "bool", False)),
    doc="Mean of (data - mean) ** 2 over the axes (divided by n - 1 when unbiased).",
)
def variance(args: Args, attrs: Attrs) -> Value:
    x, m = args
    axes = axes_of(x, attrs)
    d = x - m
    count = 1
    for a in axes:
        count *= x.shape[a]
    total = np.sum(d * d, axis=axes, keepdims=attrs["keepdims"], dtype=x.dtype)
    divisor = count - 1 if attrs["unbiased"] else count
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(total / np.asarray(max(divisor, 0), dtype=x.dtype), x.dtype)


# ---------------------------------------------------------------- instance and group norm


def _channel_vectors(r: Relation, data: Any) -> int:
    axis = normalize_axis(r, r.attrs["axis"], len(data.shape))
    vec = TensorType((data.shape[axis],), data.dtype)
    r.refine(1, vec)
    r.refine(2, vec)
    return axis


@relation("InstanceNorm")
def instance_norm_rel(r: Relation) -> bool:
    """(data, gamma, beta) -> data's type; gamma and beta are (C,), C the channel axis' size."""
    data = _float_data(r)
    if not known_rank(data.shape):
        return False
    if len(data.shape) < 3:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.instance_norm` needs data of rank 3 or more (batch, channels, ...), found {shape_text(data.shape)}",
            arg=0,
        )
    _channel_vectors(r, data)
    r.set_result(data)
    return True


@relation("GroupNorm")
def group_norm_rel(r: Relation) -> bool:
    """(data, gamma, beta) -> data's type; the channel count is a multiple of num_groups."""
    data = _float_data(r)
    groups = r.attrs["num_groups"]
    if groups < 1:
        r.fail(
            codes.TYPE_MISMATCH,
            f"`nn.group_norm` num_groups must be positive, found {groups}",
            notes=["TVM's default of 0 is a placeholder: give the number of groups"],
        )
    if not known_rank(data.shape):
        return False
    axis = _channel_vectors(r, data)
    c = data.shape[axis]
    if type(c) is int and c % groups:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.group_norm`: {c} channels cannot be split into num_groups={groups} groups",
            arg=0,
            notes=[f"the channel axis is axis {axis} of {shape_text(data.shape)}"],
        )
    r.set_result(data)
    return True


def _standardize(x: Any, axes: Shape, eps: float) -> Any:
    """(x - mean) / sqrt(var + eps) over the axes, in float64."""
    t = x.astype(np.float64)
    mean = t.mean(axis=axes, keepdims=True)
    centered = t - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    return centered / np.sqrt(var + eps)


def _affine(out: Any, gamma: Any, beta: Any, axis: int, attrs: Attrs, dtype: Any) -> Any:
    shape = [1] * out.ndim
    shape[axis] = out.shape[axis]
    if attrs["scale"]:
        out = out * gamma.reshape(shape)
    if attrs["center"]:
        out = out + beta.reshape(shape)
    return wrap(out, dtype)


_NORM_ATTRS = (
    Attr("axis", "int", 1),
    Attr("epsilon", "float", 1e-5),
    Attr("center", "bool", True),
    Attr("scale", "bool", True),
)


@register(
    "nn.instance_norm",
    inputs=3,
    relation=instance_norm_rel,
    attrs=_NORM_ATTRS,
    doc="Normalize each sample's channels over the other axes, then scale by gamma and shift by beta.",
)
def instance_norm(args: Args, attrs: Attrs) -> Value:
    x, gamma, beta = args
    axis = attrs["axis"] % x.ndim
    axes = tuple(i for i in range(1, x.ndim) if i != axis)
    return _affine(_standardize(x, axes, attrs["epsilon"]), gamma, beta, axis, attrs, x.dtype)


@register(
    "nn.group_norm",
    inputs=3,
    relation=group_norm_rel,
    attrs=(Attr("num_groups", "int", 0), *_NORM_ATTRS),
    doc="Normalize groups of channels (with the axes after the channels), then scale by gamma and shift by beta.",
)
def group_norm(args: Args, attrs: Attrs) -> Value:
    x, gamma, beta = args
    axis = attrs["axis"] % x.ndim
    g = attrs["num_groups"]
    c = x.shape[axis]
    grouped = x.reshape((*x.shape[:axis], g, c // g, *x.shape[axis + 1 :]))
    out = _standardize(grouped, tuple(range(axis + 1, grouped.ndim)), attrs["epsilon"]).reshape(x.shape)
    return _affine(out, gamma, beta, axis, attrs, x.dtype)


# ---------------------------------------------------------------- l2 normalize


@relation("Identity")
def l2_normalize_rel(r: Relation) -> bool:
    x = _float_data(r)
    if known_rank(x.shape):
        seen: list[int] = []
        for a in r.attrs["axis"]:
            n = normalize_axis(r, a, len(x.shape))
            if n in seen:
                r.fail(codes.TYPE_MISMATCH, f"`nn.l2_normalize`: axis {a} is listed twice")
            seen.append(n)
    r.set_result(x)
    return True


@register(
    "nn.l2_normalize",
    inputs=1,
    relation=l2_normalize_rel,
    attrs=(Attr("eps", "float"), Attr("axis", "ints")),
    doc="x / sqrt(max(sum(x ** 2) over axis, eps)).",
)
def l2_normalize(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    axes = tuple(a % x.ndim for a in attrs["axis"]) if attrs["axis"] else None
    t = x.astype(np.float64)
    total = np.sum(t * t, axis=axes, keepdims=True)
    return wrap(t / np.sqrt(np.maximum(total, attrs["eps"])), x.dtype)


# ---------------------------------------------------------------- batch norm


@relation("BatchNorm")
def batch_norm_rel(r: Relation) -> bool:
    """(data, gamma, beta, mean, var) -> (data's type, (C,), (C,)); the vectors follow the channel axis."""
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    axis = normalize_axis(r, r.attrs["axis"], len(data.shape))
    c = data.shape[axis]
    vec = TensorType((c,), data.dtype)
    for i in range(1, 5):
        r.refine(i, vec)
    r.set_result(TupleType((data, vec, vec)))
    return True


@register(
    "nn.batch_norm",
    inputs=5,
    relation=batch_norm_rel,
    attrs=(
        Attr("axis", "int", 1),
        Attr("epsilon", "float", 1e-5),
        Attr("center", "bool", True),
        Attr("scale", "bool", True),
    ),
    doc="Normalize with the moving mean and variance: (output, moving_mean, moving_var).",
)
def batch_norm(args: Args, attrs: Attrs) -> Value:
    x, gamma, beta, mean, var = args
    axis = attrs["axis"] % x.ndim
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    eps = np.asarray(attrs["epsilon"], dtype=x.dtype)
    scale = (gamma if attrs["scale"] else np.ones_like(gamma)) / np.sqrt(var + eps)
    shift = (beta if attrs["center"] else np.zeros_like(beta)) - mean * scale
    out = x * scale.reshape(shape).astype(x.dtype, copy=False)
    np.add(out, shift.reshape(shape), out=out, casting="unsafe")  # one pass, no second temporary
    return (out, np.array(mean, copy=True), np.array(var, copy=True))
