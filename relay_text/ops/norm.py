"""Normalization beyond batch norm: `nn.layer_norm`, `nn.lrn`, and `variance`.

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
"""

from __future__ import annotations

from typing import Any

from ..ir.ty import TensorType
from ._np import np, wrap
from .reduce import REDUCE_ATTRS, axes_of, reduced_axes
from .registry import Attr, register
from .relations import broadcast_dims, known_rank, normalize_axis, relation, RelationCall, shape_text


def _float_data(r: RelationCall) -> Any:
    x = r.tensor(0)
    d = x.dtype
    if isinstance(d, str) and not d.startswith(("float", "bfloat")):
        r.fail("type-mismatch", f"`{r.op}` takes a floating-point tensor, found `{d}`", arg=0, label=f"this is `{d}`")
    return x


# ---------------------------------------------------------------- layer norm


@relation("LayerNorm")
def layer_norm_rel(r: RelationCall) -> bool:
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
    attrs=(Attr("axis", "int", -1), Attr("epsilon", "float", 1e-5), Attr("center", "bool", True), Attr("scale", "bool", True)),
    doc="Normalize over one axis, then scale by gamma and shift by beta.",
)
def layer_norm(args: tuple, attrs: dict) -> Any:
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
def lrn_rel(r: RelationCall) -> bool:
    x = _float_data(r)
    if r.attrs["size"] <= 0:
        r.fail("type-mismatch", f"`nn.lrn` size must be positive, found {r.attrs['size']}")
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
def lrn(args: tuple, attrs: dict) -> Any:
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
def variance_rel(r: RelationCall) -> bool:
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
    both = broadcast_dims(r, data.shape, mean.shape)
    if both is not None and len(both) != len(data.shape):
        r.fail(
            "shape-mismatch",
            f"`variance`: the mean {shape_text(mean.shape)} has more axes than the data {shape_text(data.shape)}",
            arg=1,
        )
    keep = r.attrs["keepdims"]
    shape = tuple(1 if i in axes else d for i, d in enumerate(data.shape) if keep or i not in axes)
    r.set_result(TensorType(shape, data.dtype))
    return True


@register(
    "variance",
    inputs=2,
    relation=variance_rel,
    attrs=REDUCE_ATTRS + (Attr("unbiased", "bool", False),),
    doc="Mean of (data - mean) ** 2 over the axes (divided by n - 1 when unbiased).",
)
def variance(args: tuple, attrs: dict) -> Any:
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
