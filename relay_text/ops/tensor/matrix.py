"""Diagonal bands of the last two axes: `trilu`, `matrix_set_diag`.

Both work on the innermost matrices of their data, whose last two axes are
rows and columns; element (i, j) lies on diagonal `j - i` (0: the main
diagonal, positive above it, negative below). Both keep the data's type.

`trilu(data, k, upper=True)` keeps the elements on or above diagonal `k`
(`upper`) or on or below it, and sets the others to zero. `k` is a scalar
tensor of any dtype, converted to int32.

`matrix_set_diag(data, diagonal, k1=0, k2=0, super_diag_right_align=True,
sub_diag_right_align=False)` replaces the diagonals k1 ... k2 with values
taken from `diagonal` (TensorFlow's MatrixSetDiag). With one diagonal
(k1 == k2) its shape is the batch axes followed by the diagonal's length;
with several, the batch axes, then one row per diagonal, from k2 down to
k1, then the length L of the longest, where shorter diagonals are padded
on the left (right-aligned) or on the right (left-aligned) as the two
alignment attributes say for diagonals above and below the main one.
With R rows and C columns, L = min(R + min(k2, 0), C - max(k1, 0)).
TVM's relation states these sizes but does not enforce them; here a
diagonal of another shape is a `shape-mismatch`.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from ._indexing import assume, expect_shape, require_rank, settled
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Dims, Value

# ---------------------------------------------------------------- trilu


def _matrices(r: Relation, i: int = 0) -> Dims | None:
    x = r.tensor(i)
    if not known_rank(x.shape):
        return None
    if len(x.shape) < 2:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs data of rank 2 or more (rows and columns last), found {shape_text(x.shape)}",
            arg=i,
        )
    return x.shape


def _trilu_default(r: Relation) -> bool:
    """k from a constant without metadata: an int32 scalar (relay.trilu's own constant)."""
    return assume(r, 1, TensorType((), "int32"))


@relation("trilu", inputs=2, default=_trilu_default)
def trilu_rel(r: Relation) -> bool:
    require_rank(r, 1, (0,), "k")
    if _matrices(r) is None:
        return False
    r.set_result(r.tensor(0))
    return settled(r, 1)


@register(
    "trilu",
    inputs=2,
    relation=trilu_rel,
    attrs=(Attr("upper", "bool", True),),
    doc="Keep the elements on and above (upper) or on and below diagonal k of each matrix; zero the rest.",
)
def trilu(args: Args, attrs: Attrs) -> Value:
    x, k = args
    k = int(np.asarray(k).astype(np.int32))
    rows = np.arange(x.shape[-2])[:, None]
    cols = np.arange(x.shape[-1])[None, :]
    keep = rows <= cols - k if attrs["upper"] else rows >= cols - k
    return np.where(keep, x, np.zeros((), dtype=x.dtype))


# ---------------------------------------------------------------- matrix_set_diag


@relation("MatrixSetDiag", inputs=2)
def matrix_set_diag_rel(r: Relation) -> bool:
    k1, k2 = r.attrs["k1"], r.attrs["k2"]
    if k1 > k2:
        r.fail(codes.TYPE_MISMATCH, f"`matrix_set_diag` needs k1 <= k2, found k1={k1} and k2={k2}")
    x, diag = r.tensor(0), r.tensor(1)
    r.unify(
        x.dtype,
        diag.dtype,
        arg=1,
        message=(
            "`matrix_set_diag` needs a diagonal of the data's dtype: the data is `{expected}`, the diagonal `{found}`"
        ),
    )
    shape = _matrices(r)
    if shape is None:
        return False
    rows, cols = shape[-2], shape[-1]
    if type(rows) is int and k1 <= -rows:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`matrix_set_diag`: diagonal k1={k1} lies outside matrices of {rows} rows",
            arg=0,
            notes=[f"the lowest diagonal of a matrix with {rows} rows is {1 - rows}"],
        )
    if type(cols) is int and k2 >= cols:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`matrix_set_diag`: diagonal k2={k2} lies outside matrices of {cols} columns",
            arg=0,
            notes=[f"the highest diagonal of a matrix with {cols} columns is {cols - 1}"],
        )
    if type(rows) is int and type(cols) is int:
        longest: Any = min(rows + min(k2, 0), cols - max(k1, 0))
    else:
        longest = AnyDim()
    band = () if k1 == k2 else (k2 - k1 + 1,)
    expect_shape(r, 1, tuple(shape[:-2]) + band + (longest,), "a diagonal")
    r.set_result(x)
    return True


@register(
    "matrix_set_diag",
    inputs=2,
    relation=matrix_set_diag_rel,
    attrs=(
        Attr("k1", "int", 0),
        Attr("k2", "int", 0),
        Attr("super_diag_right_align", "bool", True),
        Attr("sub_diag_right_align", "bool", False),
    ),
    doc="Replace the diagonals k1 ... k2 of each matrix with the given values.",
)
def matrix_set_diag(args: Args, attrs: Attrs) -> Value:
    x, diag = args
    k1, k2 = attrs["k1"], attrs["k2"]
    n_rows, n_cols = x.shape[-2], x.shape[-1]
    i = np.arange(n_rows)[:, None]
    j = np.arange(n_cols)[None, :]
    d = j - i
    band = (d >= k1) & (d <= k2)
    longest = diag.shape[-1]
    if k1 == k2:
        pos = np.broadcast_to(i if k1 >= 0 else j, d.shape)
        row = None
    else:
        above = longest - np.minimum(n_cols - d, n_rows) if attrs["super_diag_right_align"] else 0
        below = longest - np.minimum(n_cols, n_rows + d) if attrs["sub_diag_right_align"] else 0
        pos = np.where(d >= 0, i, j) + np.where(d >= 0, above, below)
        row = k2 - d
    if band.any():
        hi = int(pos[band].max())
        if hi >= longest or int(pos[band].min()) < 0:
            raise KernelError(
                codes.RUNTIME_ERROR,
                f"matrix_set_diag: the diagonals need {hi + 1} values each, the diagonal tensor has {longest}",
            )
    pos = np.where(band, pos, 0)
    picked = diag[..., pos] if row is None else diag[..., np.where(band, row, 0), pos]
    return np.where(band, picked, x)
