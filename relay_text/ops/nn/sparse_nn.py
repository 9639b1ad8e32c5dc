"""Products and sums with compressed sparse matrices: nn.sparse_dense,
nn.internal.sparse_dense_padded, nn.sparse_add, nn.sparse_transpose and
nn.sparse_conv2d, as TVM defines them.

A sparse matrix comes as three tensors. In CSR form, `data` holds the stored
values, `indices` the column of each, and `indptr` (one entry more than the
matrix has rows) marks where each row's entries start: row r holds entries
indptr[r] ... indptr[r + 1] - 1. In BSR form every entry is a block: `data`
has shape (blocks, bs_r, bs_c), `indices` the block column of each block,
and `indptr` runs over rows of blocks, so the matrix has
(len(indptr) - 1) * bs_r rows and block j covers columns j * bs_c ... j * bs_c + bs_c - 1.
Entries that land on the same place add up.

* `nn.sparse_dense(x, data, indices, indptr)` is x times the transpose of the
  sparse matrix W: x is (M, K), W is (N, K), the result (M, N). With
  `sparse_lhs=True` the first input is a dense (N, K) matrix D and the sparse
  matrix S (rows, K) comes first: the result is S times D's transpose,
  (rows, N). `nn.internal.sparse_dense_padded` is the same product (with the
  sparse matrix's rows padded by zero entries, which changes nothing), only
  with the sparse matrix on the right.
* `nn.sparse_add(x, data, indices, indptr)` adds a CSR matrix to a dense
  matrix of the same shape (M, N) (indptr has M + 1 entries).
* `nn.sparse_transpose(data, indices, indptr)` transposes a square CSR
  matrix, giving the three tensors of the transpose: within a row of the
  result, the entries are in the order of their original rows.
* `nn.sparse_conv2d(x, data, indices, indptr, layout="NHWC",
  kernel_size=[1, 1])` is a convolution with a sparse weight (BSR; `data`
  of rank 2 means blocks of one column). With a 1x1 kernel it applies the
  sparse (C_out, C_in) matrix at every pixel; with a 3x3 kernel (stride 1,
  padding 1) the weight has C_in * 9 columns, ordered (row, column, channel)
  of the window for NHWC and (channel, row, column) for NCHW (where blocks
  must be one column wide).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType, TupleType
from .._checks import dim_plus, dim_times, ranked, require_int, require_number, same_size
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import Relation, relation, shape_text
from ..types import Args, Attrs, Value

# ---------------------------------------------------------------- reading compressed matrices


def entries(indptr: Any, stored: int) -> tuple[Any, Any]:
    """(position in data, row) of every entry a CSR/BSR matrix holds, row by row."""
    ptr = indptr.astype(np.int64)
    if ptr.shape[0] == 0:
        raise KernelError(codes.RUNTIME_ERROR, "a sparse matrix's indptr cannot be empty")
    counts = np.diff(ptr)
    if np.any(counts < 0) or ptr[0] < 0 or ptr[-1] > stored:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"indptr {ptr.tolist()[:8]}{'...' if ptr.shape[0] > 8 else ''} must rise from 0 or more to at most "
            f"{stored}",
        )
    rows = np.repeat(np.arange(counts.shape[0]), counts)
    offsets = np.arange(rows.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    return ptr[rows] + offsets, rows


def csr_columns(data: Any, indices: Any, indptr: Any, columns: int) -> tuple[Any, Any, Any]:
    """(position in data, row, column) of every entry of a CSR matrix with `columns` columns."""
    if indices.shape[0] != data.shape[0]:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"a sparse matrix with {data.shape[0]} stored entries needs as many indices, found {indices.shape[0]}",
        )
    at, rows = entries(indptr, data.shape[0])
    cols = indices.astype(np.int64)[at]
    if np.any(cols < 0) or np.any(cols >= columns):
        raise KernelError(codes.RUNTIME_ERROR, f"a sparse matrix's column index is outside its {columns} columns")
    return at, rows, cols


def dense_of(data: Any, indices: Any, indptr: Any, columns: int) -> Any:
    """The dense matrix of a CSR (data of rank 1) or BSR (rank 2 or 3) matrix with `columns` columns."""
    block = data if data.ndim != 1 else data.reshape(-1, 1, 1)
    block = block if block.ndim == 3 else block.reshape((*block.shape, 1))
    stored, bs_r, bs_c = block.shape
    if indices.shape[0] != stored:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"a sparse matrix with {stored} stored entries needs as many indices, found {indices.shape[0]}",
        )
    at, rows = entries(indptr, stored)
    if bs_c == 0:  # blocks without columns hold nothing
        return np.zeros(((indptr.shape[0] - 1) * bs_r, columns), dtype=data.dtype)
    cols = indices.astype(np.int64)[at]
    if np.any(cols < 0) or np.any((cols + 1) * bs_c > columns):
        raise KernelError(codes.RUNTIME_ERROR, f"a sparse matrix's column index is outside its {columns} columns")
    n_blocks = max(-(-columns // bs_c), 1)
    out = np.zeros((indptr.shape[0] - 1, n_blocks, bs_r, bs_c), dtype=data.dtype)
    np.add.at(out, (rows, cols), block[at])
    return out.transpose(0, 2, 1, 3).reshape((indptr.shape[0] - 1) * bs_r, n_blocks * bs_c)[:, :columns]


def _matmul_t(a: Any, b: Any, dtype: Any) -> Any:
    """a times b's transpose, in `dtype` (integers wrap)."""
    with np.errstate(over="ignore"):
        return np.matmul(a, b.T).astype(dtype, copy=False)


# ---------------------------------------------------------------- relations' checks


def _sparse_parts(r: Relation, first: int, data_ranks: tuple[int, ...]) -> tuple[Any, Any] | None:
    """Checks the (data, indices, indptr) inputs from `first` on; the data's
    type and the number of rows of the sparse matrix (None while unknown)."""
    require_number(r, first, "the sparse data")
    require_int(r, first + 1, "indices")
    require_int(r, first + 2, "indptr")
    data = ranked(r, first, data_ranks, "sparse data")
    indices = ranked(r, first + 1, (1,), "indices")
    indptr = ranked(r, first + 2, (1,), "indptr")
    if data is None or indices is None or indptr is None:
        return None
    same_size(
        r,
        indices.shape[0],
        data.shape[0],
        f"`{r.op}`: the sparse data has {data.shape[0]} entries but indices has {indices.shape[0]}",
        arg=first + 1,
    )
    if indptr.shape[0] == 0:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs an indptr of one entry or more, found shape {shape_text(indptr.shape)}",
            arg=first + 2,
        )
    rows = dim_plus(indptr.shape[0], -1)
    if rows is None:
        return None
    if len(data.shape) > 1:
        rows = dim_times(rows, data.shape[1])
    return data, rows


# ---------------------------------------------------------------- sparse_dense


def _sparse_dense(r: Relation, padded: bool) -> bool:
    lhs = r.attrs["sparse_lhs"]
    if padded and lhs:
        r.fail(
            codes.TYPE_MISMATCH,
            "`nn.internal.sparse_dense_padded` supports only a sparse right-hand side (sparse_lhs=False)",
        )
    r.unify_dtypes(0, 1)
    dense = ranked(r, 0, (2,), "a dense matrix")
    parts = _sparse_parts(r, 1, (1, 3))
    if dense is None or parts is None:
        return False
    _, rows = parts
    shape = (rows, dense.shape[0]) if lhs else (dense.shape[0], rows)
    r.set_result(TensorType(shape, dense.dtype))
    return True


@relation("SparseDense")
def sparse_dense_rel(r: Relation) -> bool:
    """(M, rows of W) for x times W's transpose; (rows of S, N) with sparse_lhs."""
    return _sparse_dense(r, padded=False)


@relation("SparseDense")
def sparse_dense_padded_rel(r: Relation) -> bool:
    """As `SparseDense`, with the sparse matrix on the right only."""
    return _sparse_dense(r, padded=True)


def _product(args: Args, sparse_lhs: bool) -> Value:
    dense, data, indices, indptr = args
    matrix = dense_of(data, indices, indptr, dense.shape[1])
    return _matmul_t(matrix, dense, dense.dtype) if sparse_lhs else _matmul_t(dense, matrix, dense.dtype)


@register(
    "nn.sparse_dense",
    inputs=4,
    relation=sparse_dense_rel,
    attrs=(Attr("sparse_lhs", "bool", False),),
    doc="A dense matrix times the transpose of a CSR/BSR matrix (or, with sparse_lhs, the other way round).",
)
def sparse_dense(args: Args, attrs: Attrs) -> Value:
    return _product(args, attrs["sparse_lhs"])


@register(
    "nn.internal.sparse_dense_padded",
    inputs=4,
    relation=sparse_dense_padded_rel,
    attrs=(Attr("sparse_lhs", "bool", False),),
    doc="`nn.sparse_dense` on a sparse matrix whose rows are padded with zero entries (GPU form).",
)
def sparse_dense_padded(args: Args, attrs: Attrs) -> Value:
    return _product(args, False)


# ---------------------------------------------------------------- sparse_add


@relation("SparseAdd")
def sparse_add_rel(r: Relation) -> bool:
    """The dense matrix's type."""
    r.unify_dtypes(0, 1)
    dense = ranked(r, 0, (2,), "a dense matrix")
    parts = _sparse_parts(r, 1, (1,))
    if dense is None or parts is None:
        return False
    _, rows = parts
    same_size(
        r,
        rows,
        dense.shape[0],
        f"`nn.sparse_add`: the dense matrix has {dense.shape[0]} rows, the sparse one {rows} (indptr has one entry "
        "more than rows)",
        arg=3,
    )
    r.set_result(dense)
    return True


@register("nn.sparse_add", inputs=4, relation=sparse_add_rel, doc="A dense matrix plus a CSR matrix of the same shape.")
def sparse_add(args: Args, attrs: Attrs) -> Value:
    dense, data, indices, indptr = args
    if indptr.shape[0] != dense.shape[0] + 1:
        raise KernelError(
            codes.RUNTIME_ERROR, f"nn.sparse_add: indptr has {indptr.shape[0]} entries for {dense.shape[0]} rows"
        )
    at, rows, cols = csr_columns(data, indices, indptr, dense.shape[1])
    out = dense.copy()
    with np.errstate(over="ignore"):
        np.add.at(out, (rows, cols), data[at])
    return out


# ---------------------------------------------------------------- sparse_transpose


@relation("SparseTranspose")
def sparse_transpose_rel(r: Relation) -> bool:
    """The three inputs' types, as a tuple."""
    parts = _sparse_parts(r, 0, (1,))
    if parts is None:
        return False
    r.set_result(TupleType((r.tensor(0), r.tensor(1), r.tensor(2))))
    return True


@register(
    "nn.sparse_transpose", inputs=3, relation=sparse_transpose_rel, doc="The transpose of a square CSR matrix, as CSR."
)
def sparse_transpose(args: Args, attrs: Attrs) -> Value:
    data, indices, indptr = args
    n = indptr.shape[0] - 1
    at, rows, cols = csr_columns(data, indices, indptr, n)
    order = np.argsort(cols, kind="stable")
    out_data = np.zeros_like(data)
    out_indices = np.zeros_like(indices)
    out_data[: order.shape[0]] = data[at[order]]
    out_indices[: order.shape[0]] = rows[order]
    out_indptr = np.empty_like(indptr)
    per_column = np.bincount(cols, minlength=n)
    out_indptr[:n] = np.cumsum(per_column) - per_column
    out_indptr[n] = data.shape[0]
    return out_data, out_indices, out_indptr


# ---------------------------------------------------------------- sparse_conv2d


@relation("SparseConv2d")
def sparse_conv2d_rel(r: Relation) -> bool:
    """(N, H, W, C_out) or (N, C_out, H, W), C_out the sparse weight's rows."""
    layout = r.attrs["layout"]
    if layout not in ("NHWC", "NCHW"):
        r.fail(codes.TYPE_MISMATCH, f'`nn.sparse_conv2d` layout must be "NHWC" or "NCHW", found "{layout}"')
    size = r.attrs["kernel_size"]
    if not (1 <= len(size) <= 2 and len(set(size)) == 1 and size[0] in (1, 3)):
        r.fail(codes.TYPE_MISMATCH, f"`nn.sparse_conv2d` kernel_size must be [1, 1] or [3, 3], found {list(size)}")
    r.unify_dtypes(0, 1)
    data = ranked(r, 0, (4,), f"data ({layout})")
    parts = _sparse_parts(r, 1, (2, 3))
    if data is None or parts is None:
        return False
    weight, channels = parts
    if size[0] == 3 and len(weight.shape) == 2:
        r.fail(codes.SHAPE_MISMATCH, "`nn.sparse_conv2d` with a 3x3 kernel needs BSR data of rank 3", arg=1)
    if size[0] == 3 and layout == "NCHW" and type(weight.shape[2]) is int and weight.shape[2] != 1:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.sparse_conv2d` with a 3x3 kernel in NCHW needs blocks one column wide, found {weight.shape[2]}",
            arg=1,
        )
    n, a, b, c = data.shape
    shape = (n, a, b, channels) if layout == "NHWC" else (n, channels, b, c)
    r.set_result(TensorType(shape, data.dtype))
    return True


def _windows_3x3(x: Any, channels_last: bool) -> Any:
    """Every pixel's 3x3 neighbourhood (zero outside the image), as the
    columns of the im2col matrix: (N, H, W, 9 * C)."""
    if channels_last:
        n, h, w, c = x.shape
        padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        taps = [padded[:, i : i + h, j : j + w, :] for i in range(3) for j in range(3)]
        return np.stack(taps, axis=3).reshape(n, h, w, 9 * c)  # (row, column, channel)
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    taps = [padded[:, :, i : i + h, j : j + w] for i in range(3) for j in range(3)]
    return np.stack(taps, axis=2).transpose(0, 3, 4, 1, 2).reshape(n, h, w, 9 * c)  # (channel, row, column)


@register(
    "nn.sparse_conv2d",
    inputs=4,
    relation=sparse_conv2d_rel,
    attrs=(Attr("layout", "str", "NHWC"), Attr("kernel_size", "ints", (1, 1))),
    doc="A 1x1 or 3x3 convolution with a BSR weight.",
)
def sparse_conv2d(args: Args, attrs: Attrs) -> Value:
    x, data, indices, indptr = args
    nhwc = attrs["layout"] == "NHWC"
    pixels = x if nhwc else x.transpose(0, 2, 3, 1)
    if attrs["kernel_size"][0] == 3:
        pixels = _windows_3x3(x, nhwc)
    weight = dense_of(data, indices, indptr, pixels.shape[-1])
    out = _matmul_t(pixels, weight, x.dtype)
    return out if nhwc else np.ascontiguousarray(out.transpose(0, 3, 1, 2))
