"""`nn.matmul`: a batch of matrices times one matrix, either side transposed.

`nn.matmul(a, b, units=None, out_dtype="", transpose_a=False,
transpose_b=False)`, as TVM defines it: `a` is (..., M, K) (its last two
axes swapped when `transpose_a`), `b` is one matrix (K, N), or (N, K) when
`transpose_b`. The result is (..., M, N). With `units`, N is known from the
attribute and `b`'s type follows from it. (`nn.dense` is the case
`transpose_b=True`; `nn.batch_matmul` multiplies batches pairwise.)
"""

from __future__ import annotations


from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np, wrap
from ..registry import Attr, register
from ..relations import Relation, known_rank, relation, shape_text
from ..types import Args, Attrs, Value


@relation("Matmul")
def matmul_rel(r: Relation) -> bool:
    a = r.tensor(0)
    if not known_rank(a.shape):
        return False
    ta, tb = r.attrs["transpose_a"], r.attrs["transpose_b"]
    rank = len(a.shape)
    if rank < 1 or (ta and rank < 2):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.matmul` needs the first operand to have rank at least {2 if ta else 1}, found {shape_text(a.shape)}",
            arg=0,
        )
    if ta:
        k = a.shape[-2]
        out = (*a.shape[:-2], a.shape[-1])
    else:
        k = a.shape[-1]
        out = a.shape[:-1]
    units = r.attrs["units"]
    b = r.tensor(1)
    if not known_rank(b.shape) and units is not None:
        r.refine(1, TensorType((units, k) if tb else (k, units), a.dtype))
        b = r.tensor(1)
    if not known_rank(b.shape):
        return False
    if len(b.shape) != 2:
        r.fail(
            codes.SHAPE_MISMATCH, f"`nn.matmul` needs a second operand of rank 2, found {shape_text(b.shape)}", arg=1
        )
    bk, n = (b.shape[1], b.shape[0]) if tb else b.shape
    if type(k) is int and type(bk) is int and k != bk:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.matmul`: the inner dimensions differ ({k} and {bk})",
            arg=1,
            notes=[f"a is {shape_text(a.shape)} (transpose_a={ta}), b is {shape_text(b.shape)} (transpose_b={tb})"],
        )
    r.unify(k, bk, arg=1)
    if units is not None and type(n) is int and n != units:
        r.fail(codes.SHAPE_MISMATCH, f"`nn.matmul` has units={units}, but the second operand gives {n} columns", arg=1)
    r.unify_dtypes(0, 1)
    r.set_result(TensorType((*out, n), r.attrs["out_dtype"] or a.dtype))
    return True


@register(
    "nn.matmul",
    inputs=2,
    relation=matmul_rel,
    attrs=(
        Attr("units", "opt_int", None),
        Attr("out_dtype", "opt_dtype", ""),
        Attr("transpose_a", "bool", False),
        Attr("transpose_b", "bool", False),
    ),
    doc="Matrix product a @ b, with either operand transposed first.",
)
def matmul(args: Args, attrs: Attrs) -> Value:
    a, b = args
    dtype = np.dtype(attrs["out_dtype"] or a.dtype)
    if attrs["transpose_a"]:
        a = np.swapaxes(a, -1, -2)
    if attrs["transpose_b"]:
        b = b.T
    return wrap(np.matmul(a.astype(dtype, copy=False), b.astype(dtype, copy=False)), dtype)
