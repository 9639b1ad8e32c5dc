"""Sparse tensors given as coordinates (COO): sparse_to_dense, dyn.sparse_to_dense,
sparse_reshape and sparse_fill_empty_rows, as TVM defines them.

`sparse_to_dense(indices, values, default_value, output_shape=[...])` builds
a dense tensor filled with the scalar `default_value`, then writes each
value at its coordinates. `indices` is a scalar (one position on the first
axis), a vector (positions on the first axis) or a matrix with one row of
leading coordinates per value; coordinates that fall outside the output are
ignored, a later value wins over an earlier one at the same place, and when
the coordinates name fewer axes than the output has, the whole slice there
is set. `values` is one value per coordinate row, or a scalar for all of
them. `dyn.sparse_to_dense` takes the output shape as a fourth input, a
vector of integers, so every output size is `?`.

`sparse_reshape(indices, prev_shape, new_shape)` gives the coordinates of
the same elements in a tensor of shape `new_shape` (one entry may be -1:
inferred from the element count, which the other entries must divide) and
that completed shape. When the completed shape equals `prev_shape` the
coordinates are returned as they are.

`sparse_fill_empty_rows(indices, values, dense_shape, default_value)` takes
coordinates sorted by row (their first column) and adds, for every row
0 ... dense_shape[0] - 1 that has none, one entry at column 0 holding
`default_value[0]`, kept in row order. It returns the new coordinates, the
new values and a vector marking the rows that were empty with 1 (else 0):
all three int64, as TVM's operator does (its Python wrapper casts them back
afterwards), with `?` for the sizes that depend on the values.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType, TupleType
from .._checks import ranked, require_int, same_size
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import Relation, is_unknown, relation, shape_text
from ..types import Args, Attrs, Shape, Value

# ---------------------------------------------------------------- sparse_to_dense


def _sparse_to_dense_inputs(r: Relation) -> int | None:
    """Checks indices, values and default_value; the number of axes a
    coordinate row names (None while that is unknown)."""
    require_int(r, 0, "indices")
    r.unify_dtypes(1, 2)
    indices = ranked(r, 0, (0, 1, 2), "indices")
    values = ranked(r, 1, (0, 1), "values")
    default = ranked(r, 2, (0,), "a scalar default value")
    if indices is None or values is None or default is None:
        return None
    rows = 1 if len(indices.shape) == 0 else indices.shape[0]
    if len(values.shape) == 1:
        same_size(
            r,
            rows,
            values.shape[0],
            f"`{r.op}` needs one value per coordinate row: indices {shape_text(indices.shape)} give {rows}, values "
            f"have {values.shape[0]}",
            arg=1,
        )
    if len(indices.shape) < 2:
        return 1
    width = indices.shape[1]
    if width == 0:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs coordinate rows of at least one value, found indices {shape_text(indices.shape)}",
            arg=0,
        )
    return width if type(width) is int else (None if is_unknown(width) else 0)


@relation("SparseToDense")
def sparse_to_dense_rel(r: Relation) -> bool:
    """The shape `output_shape`, in the dtype of the values."""
    width = _sparse_to_dense_inputs(r)
    shape = r.attrs["output_shape"]
    if any(d < 0 for d in shape):
        r.fail(codes.SHAPE_MISMATCH, f"`sparse_to_dense`: output_shape {list(shape)} has a negative size")
    if width is None:
        return False
    if width > len(shape) or not shape:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`sparse_to_dense`: coordinate rows of {width} values do not fit an output of rank {len(shape)}",
            arg=0,
        )
    r.set_result(TensorType(tuple(shape), r.tensor(1).dtype))
    return True


def scatter(indices: Any, values: Any, default: Any, shape: Shape) -> Any:
    """The dense tensor of `shape` holding `default` except where the
    coordinate rows of `indices` put a value (see the module docstring)."""
    out = np.full(shape, default, dtype=values.dtype)
    coords = (indices.reshape(-1, 1) if indices.ndim < 2 else indices).astype(np.int64)
    n, width = coords.shape
    if values.ndim and values.shape[0] != n:
        raise KernelError(codes.RUNTIME_ERROR, f"sparse_to_dense: {n} coordinate rows but {values.shape[0]} values")
    if not 1 <= width <= len(shape):
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"sparse_to_dense: coordinate rows of {width} values do not fit an output of rank {len(shape)}",
        )
    vals = np.broadcast_to(values, (n,))
    bounds = np.asarray(shape[:width], dtype=np.int64)
    inside = np.all((coords >= 0) & (coords < bounds), axis=1)
    coords, vals = coords[inside], vals[inside]
    if coords.shape[0] == 0:
        return out
    # Keep the last value written at each place.
    flat = np.ravel_multi_index(tuple(coords.T), tuple(int(d) for d in bounds))
    _, last_from_end = np.unique(flat[::-1], return_index=True)
    keep = coords.shape[0] - 1 - last_from_end
    out[tuple(coords[keep].T)] = vals[keep].reshape((-1,) + (1,) * (len(shape) - width))
    return out


@register(
    "sparse_to_dense",
    inputs=3,
    relation=sparse_to_dense_rel,
    attrs=(Attr("output_shape", "ints"),),
    doc="A dense tensor of output_shape holding the default value except at the given coordinates.",
)
def sparse_to_dense(args: Args, attrs: Attrs) -> Value:
    indices, values, default = args
    return scatter(indices, values, default, tuple(attrs["output_shape"]))


@relation("DynSparseToDense")
def dyn_sparse_to_dense_rel(r: Relation) -> bool:
    """A tensor of rank len(output_shape), every size `?`, in the dtype of the values."""
    width = _sparse_to_dense_inputs(r)
    require_int(r, 3, "output_shape")
    shape = ranked(r, 3, (1,), "output_shape")
    if shape is None or width is None:
        return False
    rank = shape.shape[0]
    if is_unknown(rank):
        return False
    if type(rank) is not int:
        r.fail(
            codes.SHAPE_MISMATCH,
            "`dyn.sparse_to_dense` needs output_shape of a static length, to know the rank of the result",
            arg=3,
        )
    if width > rank or rank == 0:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`dyn.sparse_to_dense`: coordinate rows of {width} values do not fit an output of rank {rank}",
            arg=0,
        )
    r.set_result(TensorType(tuple(AnyDim() for _ in range(rank)), r.tensor(1).dtype))
    return True


@register(
    "dyn.sparse_to_dense",
    inputs=4,
    relation=dyn_sparse_to_dense_rel,
    doc="`sparse_to_dense` with the output shape given as a tensor.",
)
def dyn_sparse_to_dense(args: Args, attrs: Attrs) -> Value:
    indices, values, default, shape = args
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise KernelError(codes.RUNTIME_ERROR, f"sparse_to_dense: output_shape {list(dims)} has a negative size")
    return scatter(indices, values, default, dims)


# ---------------------------------------------------------------- sparse_reshape


@relation("sparse_reshape")
def sparse_reshape_rel(r: Relation) -> bool:
    """Coordinates (N, len(new_shape)) in the indices' dtype, and the completed shape."""
    for i, what in enumerate(("indices", "prev_shape", "new_shape")):
        require_int(r, i, what)
    indices = ranked(r, 0, (2,), "indices")
    prev = ranked(r, 1, (1,), "prev_shape")
    new = ranked(r, 2, (1,), "new_shape")
    if indices is None or prev is None or new is None:
        return False
    same_size(
        r,
        prev.shape[0],
        indices.shape[1],
        f"`sparse_reshape`: prev_shape has {prev.shape[0]} entries, but the coordinate rows have {indices.shape[1]}",
        arg=1,
    )
    r.set_result(
        TupleType((TensorType((indices.shape[0], new.shape[0]), indices.dtype), TensorType(new.shape, new.dtype)))
    )
    return True


def _completed_shape(prev: Any, new: Any) -> Any:
    total = int(np.prod(prev, dtype=np.int64))
    holes = np.flatnonzero(new == -1)
    if holes.size > 1 or np.any((new < 0) & (new != -1)):
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"sparse_reshape: new_shape {new.tolist()} may hold one -1 and otherwise sizes of 0 or more",
        )
    out = new.copy()
    known = int(np.prod(new[new != -1], dtype=np.int64))
    if holes.size:
        if known == 0 or total % known:
            raise KernelError(
                codes.RUNTIME_ERROR, f"sparse_reshape: cannot infer the -1 of {new.tolist()} for {total} elements"
            )
        out[holes[0]] = total // known
    elif known != total:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"sparse_reshape: shape {prev.tolist()} ({total} elements) cannot become {new.tolist()}",
        )
    return out


def _row_major_strides(shape: Any) -> Any:
    """How far one step along each axis moves in the flat order."""
    strides = np.ones(shape.shape[0], dtype=np.int64)
    for j in range(shape.shape[0] - 2, -1, -1):
        strides[j] = strides[j + 1] * shape[j + 1]
    return strides


@register(
    "sparse_reshape",
    inputs=3,
    relation=sparse_reshape_rel,
    doc="The coordinates of a sparse tensor's elements after a reshape.",
)
def sparse_reshape(args: Args, attrs: Attrs) -> Value:
    indices, prev_shape, new_shape = args
    prev = prev_shape.astype(np.int64)
    new = _completed_shape(prev, new_shape.astype(np.int64))
    if prev.shape[0] != indices.shape[1]:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"sparse_reshape: prev_shape has {prev.shape[0]} entries, the coordinate rows {indices.shape[1]}",
        )
    if prev.shape == new.shape and np.array_equal(prev, new):
        return indices.copy(), new.astype(new_shape.dtype)
    rest = indices.astype(np.int64) @ _row_major_strides(prev)
    strides = _row_major_strides(new)
    moved = np.zeros((indices.shape[0], new.shape[0]), dtype=np.int64)
    for j, step in enumerate(strides):  # one pass per axis of the new shape
        if step == 0:
            if rest.size:
                raise KernelError(codes.RUNTIME_ERROR, f"sparse_reshape: new_shape {new.tolist()} holds no element")
            break
        moved[:, j] = rest // step
        rest = rest % step
    return moved.astype(indices.dtype), new.astype(new_shape.dtype)


# ---------------------------------------------------------------- sparse_fill_empty_rows


@relation("sparse_fill_empty_rows")
def sparse_fill_empty_rows_rel(r: Relation) -> bool:
    """New coordinates (?, ndims), new values (?) and the empty-row marks (?), all int64."""
    require_int(r, 0, "indices")
    require_int(r, 2, "dense_shape")
    indices = ranked(r, 0, (2,), "indices")
    values = ranked(r, 1, (1,), "values")
    ranked(r, 2, (1,), "dense_shape")
    ranked(r, 3, (0, 1), "default_value")
    if indices is None:
        return False
    if indices.shape[1] == 0:
        r.fail(
            codes.SHAPE_MISMATCH,
            "`sparse_fill_empty_rows` needs coordinate rows of at least one value, found indices "
            + shape_text(indices.shape),
            arg=0,
        )
    if values is not None:
        same_size(
            r,
            values.shape[0],
            indices.shape[0],
            f"`sparse_fill_empty_rows` needs one value per coordinate row: {indices.shape[0]} rows, {values.shape[0]} "
            "values",
            arg=1,
        )
    fields = (
        TensorType((AnyDim(), indices.shape[1]), "int64"),
        TensorType((AnyDim(),), "int64"),
        TensorType((AnyDim(),), "int64"),
    )
    r.set_result(TupleType(fields))
    return True


@register(
    "sparse_fill_empty_rows",
    inputs=4,
    relation=sparse_fill_empty_rows_rel,
    doc="Give every row without entries of a sparse matrix one entry holding a default value.",
)
def sparse_fill_empty_rows(args: Args, attrs: Attrs) -> Value:
    indices, values, dense_shape, default_value = args
    if dense_shape.size == 0 or default_value.size == 0:
        raise KernelError(
            codes.RUNTIME_ERROR, "sparse_fill_empty_rows: dense_shape and default_value must not be empty"
        )
    if indices.shape[1] == 0 or values.shape[0] != indices.shape[0]:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"sparse_fill_empty_rows: indices {indices.shape} and values {values.shape} do not match",
        )
    n_rows = int(dense_shape[0])
    default = default_value.reshape(-1)[0]
    coords = indices.astype(np.int64)
    rows = coords[:, 0]
    if np.any(rows < 0) or np.any(rows >= n_rows):
        raise KernelError(codes.RUNTIME_ERROR, f"sparse_fill_empty_rows: a row index is outside 0 ... {n_rows - 1}")
    if np.any(rows[1:] < rows[:-1]):
        raise KernelError(codes.RUNTIME_ERROR, "sparse_fill_empty_rows: the coordinates must be sorted by row")
    empty = np.ones(max(n_rows, 0), dtype=bool)
    empty[rows] = False
    fill_rows = np.flatnonzero(empty)
    filled = np.zeros((fill_rows.shape[0], coords.shape[1]), dtype=np.int64)
    filled[:, 0] = fill_rows
    with np.errstate(invalid="ignore"):
        old_values = values.astype(np.int64)
        fill_value = np.asarray(default).astype(np.int64)
    all_coords = np.concatenate([coords, filled])
    all_values = np.concatenate([old_values, np.full(fill_rows.shape[0], fill_value, dtype=np.int64)])
    order = np.argsort(all_coords[:, 0], kind="stable")
    return all_coords[order], all_values[order], empty.astype(np.int64)
