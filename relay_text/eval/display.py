"""Results as a reader wants them first: a tensor's statistics.

`relay run --summary` prints each tensor that is not a scalar as one line,

    Tensor[(1, 1000), float32]  min=-3.2051 max=3.8419 mean=0.012331 std=0.99812 nan=0 inf=0

(shape and dtype, then the least and greatest element, the mean and the
standard deviation, and for floats how many elements are NaN and how many
infinite). The statistics are over the finite elements; when some are not,
`finite=N` says how many are. On a terminal this is also the default for
tensors of more than `SUMMARY_THRESHOLD` elements (where numpy's layout
would show a few corners of the tensor among lines of `...`), unless
`--full` asks for every element or `--no-summary` for numpy's layout.
Piped or redirected output keeps numpy's layout unless `--summary` is
given, so that scripts see the same text on every machine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .show import SUMMARY_THRESHOLD, tensor_header, tensor_layout, value_text


def _number(x: Any, integer: bool) -> str:
    if integer:
        return str(int(x))
    return f"{float(x):.5g}"


def tensor_summary(value: np.ndarray) -> str:
    """One line: the tensor's type, then its statistics."""
    arr = np.asarray(value)
    head = tensor_header(arr)
    if arr.size == 0:
        return f"{head}  (no elements)"
    kind = arr.dtype.kind
    if kind == "b":
        true = int(np.count_nonzero(arr))
        return f"{head}  true={true:,} false={arr.size - true:,}"
    if kind in "iu":
        mean = arr.mean(dtype=np.float64)
        std = arr.std(dtype=np.float64)
        return (
            f"{head}  min={int(arr.min())} max={int(arr.max())} mean={_number(mean, False)} std={_number(std, False)}"
        )
    if kind not in "fc" and arr.dtype.name != "bfloat16":
        return head
    wide = arr.astype(np.float64) if arr.dtype.itemsize < 8 or arr.dtype.name == "bfloat16" else arr
    finite = np.isfinite(wide)
    count = int(np.count_nonzero(finite))
    nan = int(np.count_nonzero(np.isnan(wide)))
    inf = arr.size - count - nan
    tail = f"nan={nan:,} inf={inf:,}"
    if count == 0:
        return f"{head}  no finite elements: {tail}"
    data = wide if count == arr.size else wide[finite]
    stats = (
        f"min={_number(data.min(), False)} max={_number(data.max(), False)} "
        f"mean={_number(data.mean(), False)} std={_number(data.std(), False)}"
    )
    if count != arr.size:
        stats += f" finite={count:,}"
    return f"{head}  {stats} {tail}"


def summary_rule(summary: bool | None, full: bool, terminal: bool) -> int | None:
    """The element count above which a tensor prints as its summary (None:
    never): every tensor with `--summary`, none with `--no-summary`; by
    default, on a terminal and without `--full`, those above
    SUMMARY_THRESHOLD."""
    if summary is True:
        return 0
    if summary is False or full or not terminal:
        return None
    return SUMMARY_THRESHOLD + 1


def result_text(value: Any, full: bool = False, summary: bool | None = None, terminal: bool = False) -> tuple[str, int]:
    """The text `relay run` prints for a result (see the module's doc), and
    how many tensors it summarised only because they are large (not asked
    for with `--summary`)."""
    above = summary_rule(summary, full, terminal)
    if above is None:
        return value_text(value, full=full), 0
    summarised = [0]

    def tensor_text(arr: np.ndarray, pad: str) -> str:
        if arr.size < above:
            return tensor_layout(arr, full, pad)
        summarised[0] += 1
        return tensor_summary(arr)

    text = value_text(value, full=full, tensor_text=tensor_text)
    return text, 0 if summary else summarised[0]
