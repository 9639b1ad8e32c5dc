"""Losses: `nn.cross_entropy`, `nn.cross_entropy_with_logits`, `nn.nll_loss`.

* `nn.cross_entropy(x, y)`: x (predicted probabilities) and y (targets)
  are (batch, classes) tensors of one floating-point dtype; the result is
  the scalar `-sum(log(x) * y) / batch`.
* `nn.cross_entropy_with_logits(x, y)`: the same shapes; the result is
  `-sum(x * y) / batch` (x holds log-probabilities: no logarithm is taken,
  as in TVM). Integer tensors are accepted: the sum wraps around in their
  dtype and the division truncates toward zero.
* `nn.nll_loss(predictions, targets, weights, reduction="mean",
  ignore_index)`: predictions (N, C, d1, ...) of a floating-point dtype,
  targets (N, d1, ...) of a signed integer dtype, weights (C,) of the
  predictions' dtype. Each target `t` other than `ignore_index` gives
  `-predictions[n, t, ...] * weights[t]` (and weight `weights[t]`), an
  ignored one 0 (and weight 0). `reduction="none"` returns these values
  (the targets' shape), `"sum"` their sum, `"mean"` their sum divided by
  the sum of the weights (a scalar). `ignore_index` has no default. A
  target outside [0, C) that is not ignored is an error when the kernel
  runs.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from .pool import trunc_divide
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation, require_numeric, shape_text
from ..types import Args, Attrs, Value


def _is_float(dtype: Any) -> bool:
    return isinstance(dtype, str) and dtype.startswith(("float", "bfloat"))


def _require_float(r: Relation, i: int, what: str = "a floating-point tensor") -> None:
    d = r.tensor(i).dtype
    if isinstance(d, str) and not _is_float(d):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` takes {what}, found `{d}`", arg=i, label=f"this is `{d}`")


@relation("CrossEntropy")
def cross_entropy_rel(r: Relation) -> bool:
    """x (batch, classes), y of the same type -> a scalar of their dtype."""
    if r.op == "nn.cross_entropy":
        _require_float(r, 0)
    else:
        require_numeric(r, 0)
    r.unify_dtypes(0, 1)
    x, y = r.tensor(0), r.tensor(1)
    for i, t in ((0, x), (1, y)):
        if known_rank(t.shape) and len(t.shape) != 2:
            r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` takes (batch, classes) tensors, found {shape_text(t.shape)}", arg=i)
    if known_rank(x.shape) and known_rank(y.shape):
        for axis, name in ((0, "batch"), (1, "classes")):
            a, b = x.shape[axis], y.shape[axis]
            if type(a) is int and type(b) is int and a != b:
                r.fail(
                    codes.SHAPE_MISMATCH,
                    f"`{r.op}`: the predictions have {a} {name} (axis {axis}) but the targets have {b}",
                    arg=1,
                    notes=[f"x is {shape_text(x.shape)}, y is {shape_text(y.shape)}"],
                )
    r.set_result(TensorType((), x.dtype))
    return known_rank(x.shape) and known_rank(y.shape)


def _batch_mean(total: Any, batch: int, dtype: Any) -> Any:
    """-total / batch in `dtype` (integers: truncated toward zero, as TVM divides)."""
    neg = np.negative(total)
    if dtype.kind == "f":
        with np.errstate(divide="ignore", invalid="ignore"):
            return wrap(neg / np.asarray(batch, dtype=dtype), dtype)
    if batch == 0:
        raise KernelError(codes.DIVISION_BY_ZERO, "integer division by zero: the batch is empty")
    return wrap(trunc_divide(neg, np.asarray(batch, dtype=dtype)), dtype)


@register(
    "nn.cross_entropy",
    inputs=2,
    relation=cross_entropy_rel,
    doc="-sum(log(x) * y) / batch, for probabilities x and targets y.",
)
def cross_entropy(args: Args, attrs: Attrs) -> Value:
    x, y = args
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.sum(np.log(x) * y, dtype=x.dtype)
    return _batch_mean(total, x.shape[0], x.dtype)


@register(
    "nn.cross_entropy_with_logits",
    inputs=2,
    relation=cross_entropy_rel,
    doc="-sum(x * y) / batch, for log-probabilities x and targets y.",
)
def cross_entropy_with_logits(args: Args, attrs: Attrs) -> Value:
    x, y = args
    return _batch_mean(np.sum(x * y, dtype=x.dtype), x.shape[0], x.dtype)


@relation("NLLLoss")
def nll_loss_rel(r: Relation) -> bool:
    """predictions (N, C, d...), targets (N, d...), weights (C,) -> targets' shape or a scalar."""
    reduction = r.attrs["reduction"]
    if reduction not in ("none", "mean", "sum"):
        r.fail(codes.TYPE_MISMATCH, f'`nn.nll_loss` reduction must be "none", "mean" or "sum", found "{reduction}"')
    _require_float(r, 0)
    t = r.tensor(1).dtype
    if isinstance(t, str) and not t.startswith("int"):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`nn.nll_loss` takes targets of a signed integer dtype, found `{t}`",
            arg=1,
            label=f"this is `{t}`",
        )
    r.unify_dtypes(0, 2)
    pred, targets, weights = r.tensor(0), r.tensor(1), r.tensor(2)
    if not (known_rank(pred.shape) and known_rank(targets.shape) and known_rank(weights.shape)):
        return False
    if len(pred.shape) < 2:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.nll_loss` needs predictions of rank 2 or more (batch, classes, ...), found {shape_text(pred.shape)}",
            arg=0,
        )
    if len(weights.shape) != 1:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.nll_loss` takes a vector of weights, one per class, found {shape_text(weights.shape)}",
            arg=2,
        )
    c, wc = pred.shape[1], weights.shape[0]
    if type(c) is int and type(wc) is int and c != wc:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.nll_loss`: the predictions have {c} classes (axis 1) but there are {wc} weights",
            arg=2,
            notes=[f"predictions {shape_text(pred.shape)}, weights {shape_text(weights.shape)}"],
        )
    expected = pred.shape[:1] + pred.shape[2:]
    if len(targets.shape) != len(expected) or any(
        type(a) is int and type(b) is int and a != b for a, b in zip(targets.shape, expected, strict=False)
    ):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.nll_loss`: targets of shape {shape_text(targets.shape)} do not match predictions of shape "
            f"{shape_text(pred.shape)}",
            arg=1,
            notes=[f"the targets have the predictions' shape without the class axis: {shape_text(expected)}"],
        )
    shape = targets.shape if reduction == "none" else ()
    r.set_result(TensorType(shape, pred.dtype))
    return True


@register(
    "nn.nll_loss",
    inputs=3,
    relation=nll_loss_rel,
    attrs=(Attr("reduction", "str", "mean"), Attr("ignore_index", "int")),
    doc="Negative log likelihood: -predictions[n, target] * weights[target], reduced by none, mean or sum.",
)
def nll_loss(args: Args, attrs: Attrs) -> Value:
    pred, targets, weights = args
    ignored = targets == attrs["ignore_index"]
    classes = pred.shape[1]
    bad = ~ignored & ((targets < 0) | (targets >= classes))
    if bad.any():
        raise KernelError(
            codes.RUNTIME_ERROR, f"`nn.nll_loss`: target {int(targets[bad].flat[0])} is outside the {classes} classes"
        )
    t = np.where(ignored, 0, targets).astype(np.int64)
    picked = np.take_along_axis(pred, np.expand_dims(t, 1), axis=1)[:, 0]
    zero = np.zeros((), dtype=pred.dtype)
    w = np.where(ignored, zero, weights[t])
    losses = np.where(ignored, zero, -picked * w)
    if attrs["reduction"] == "none":
        return wrap(losses, pred.dtype)
    total = np.sum(losses, dtype=pred.dtype)
    if attrs["reduction"] == "sum":
        return wrap(total, pred.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wrap(total / np.sum(w, dtype=pred.dtype), pred.dtype)
