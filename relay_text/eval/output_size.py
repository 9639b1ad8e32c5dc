"""How much text `relay run` would print for a result, estimated before
any of it is produced, and the `--max-output` limit on it.

The estimate counts what the printer writes: every use of a shared part
(a tuple held twice is written twice), each tensor's elements at a width
its dtype needs (exact for integers and booleans; measured on a sample for
floats), and, for the text output without `--full`, only the
elements numpy's summary shows (3 at each end of every long axis) and no
more than the text's own cut.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..diagnostics import Diagnostic, codes
from ..limits import byte_text
from .numbers import float_text
from .show import (
    JSON_PARTS_LIMIT,
    LIST_LIMIT,
    LIST_SHOWN,
    SUMMARY_THRESHOLD,
    TEXT_LIMIT,
    _children,
    is_list_node,
    list_length,
    scalar_text,
)
from .values import Data, Ref

EDGE_ITEMS = 3  # numpy's default: elements shown at each end of a summarized axis
PART_JSON = 32  # `{"constructor": "", "fields": []}` around a constructor value's fields
SCALAR_JSON = 40  # `{"tensor": , "dtype": "float32", "shape": []}` around a scalar
LEAF_TEXT = 64  # a closure's signature, or anything else printed by name
CUT_PARTS = 4096  # parts value_text writes between two checks of its cut
CAP = 1 << 60  # estimates stop growing here (a part shared at every level doubles them)

SAMPLE = 256  # float elements printed to learn a tensor's width


def element_width(arr: np.ndarray, json: bool = False) -> int:
    """Characters one element of `arr` takes in print, with its separator:
    exact for booleans and integers; for floats, measured on a sample of
    elements spread over the tensor (with a margin, as the text pads every
    element to the widest)."""
    kind = arr.dtype.kind
    if kind == "b":
        return 7  # `False, `
    if arr.size == 0:
        return 2
    if kind in "iu":
        lo, hi = int(arr.min()), int(arr.max())
        return max(len(str(lo)), len(str(hi))) + 2
    picks = np.unique(np.linspace(0, arr.size - 1, min(arr.size, SAMPLE)).astype(np.int64))
    sample = np.asarray(arr.flat[picks])
    if json:
        return 2 + -(-sum(len(float_text(x)) for x in sample) // len(sample))
    text = np.array2string(sample, threshold=sys.maxsize, max_line_width=100)
    return 2 + -(-len(text) * 5 // (4 * len(sample)))


def shown_elements(shape: tuple[int, ...], full: bool) -> int:
    """Elements printed of a tensor of `shape` (all, or numpy's summary)."""
    n = 1
    for d in shape:
        n *= int(d)
    if full or n <= SUMMARY_THRESHOLD:
        return n
    shown = 1
    for d in shape:
        shown *= min(int(d), 2 * EDGE_ITEMS + 1)  # the `...` takes about one element's place
    return shown


def _part_text(v: Any, json: bool) -> int:
    """Characters a tuple, constructor value or reference adds around its
    fields (and their separators)."""
    name = len(v.con.name) if type(v) is Data else 0
    if json:
        return PART_JSON + name
    return 5 if type(v) is Ref else 2 + name


def _tensor_text(value: Any, full: bool, json: bool) -> int:
    arr = np.asarray(value)
    shown = shown_elements(arr.shape, full or json)
    rows = shown_elements(arr.shape[:-1], full or json)  # each indented, and closed by up to one bracket an axis
    return 64 + shown * element_width(arr, json) + (arr.ndim + 2) * rows


def _first_elements(value: Data, count: int) -> tuple[Any, ...]:
    out: list[Any] = []
    node: Any = value
    while len(out) < count:
        out.append(node.fields[0])
        node = node.fields[1]
    return tuple(out)


def estimate(value: Any, output_format: str, full: bool, cap: int) -> tuple[int, int]:
    """About how many characters `relay run` prints for `value` in
    `output_format` ("text" or "json"), counting stopping past `cap`; and
    how many tuples, constructor values and references it writes out
    (stopping past JSON_PARTS_LIMIT). One visit of each distinct part."""
    json = output_format == "json"
    sizes: dict[int, int] = {}
    written: dict[int, int] = {}
    largest_tensor = 0
    stack: list[tuple[Any, bool]] = [(value, False)]
    pop, push = stack.pop, stack.append
    elide = not json and not full

    def children(v: Any) -> tuple[Any, ...]:
        """The parts of `v` the output shows: the text without `--full`
        shows only the first elements of a long List (value_text)."""
        if (
            elide
            and type(v) is Data
            and is_list_node(v)
            and v.con.name == "Cons"
            and list_length(v, LIST_LIMIT) > LIST_LIMIT
        ):
            return _first_elements(v, LIST_SHOWN)
        return _children(v)

    while stack:
        v, ready = pop()
        if ready:
            kids = children(v)
            size = _part_text(v, json) + 2 * len(kids)
            if type(v) is Data and len(kids) != len(v.fields):  # a long List cut short
                size = LIST_SHOWN * size + 40
            parts = 1
            for k in kids:
                size += sizes[id(k)]
                parts += written.get(id(k), 0)
            sizes[id(v)] = min(cap + 1, size)
            written[id(v)] = min(JSON_PARTS_LIMIT + 1, parts)
            continue
        key = id(v)
        if key in sizes:
            continue
        t = type(v)
        if t is tuple or t is Data or t is Ref:
            sizes[key] = 0  # being counted
            push((v, True))
            for k in children(v):
                if id(k) not in sizes:
                    push((k, False))
        elif isinstance(v, np.generic) or (t is np.ndarray and v.ndim == 0):
            sizes[key] = len(scalar_text(v)) + (SCALAR_JSON if json else 0)
        elif t is np.ndarray:
            sizes[key] = min(cap + 1, _tensor_text(v, full, json))
            largest_tensor = max(largest_tensor, sizes[key])
        else:
            sizes[key] = LEAF_TEXT
    total = sizes.get(id(value), 0)
    if not json and not full:
        # value_text stops after its cut, checked every CUT_PARTS parts.
        cut = max(TEXT_LIMIT, 64 * len(written))
        total = min(total, cut + CUT_PARTS * max(largest_tensor, LEAF_TEXT))
    return total, written.get(id(value), 0)


def output_limit_diagnostic(value: Any, output_format: str, full: bool, limit: int, span: Any) -> Diagnostic | None:
    """The `resource-limit` error for a result whose text passes `limit`
    bytes (None if it fits, or for what the JSON writer refuses itself)."""
    if output_format not in ("text", "json"):
        return None
    size, parts = estimate(value, output_format, full, CAP)
    if output_format == "json" and parts > JSON_PARTS_LIMIT:
        return None
    if size <= limit:
        return None
    what = "JSON" if output_format == "json" else "text"
    amount = f"more than {byte_text(CAP)}" if size > CAP else f"about {byte_text(size)}"
    diag = Diagnostic(
        codes.RESOURCE_LIMIT,
        f"the result would print {amount} of {what}, more than the output limit of {byte_text(limit)} (--max-output)",
        span,
        label="this result is too large to print",
    )
    diag.with_help("raise the limit with `--max-output SIZE` (or `max-output` in [tool.relay])")
    if output_format == "json" or full:
        diag.with_help("`--output-format npz --output FILE` writes the result's tensors in binary")
    return diag
