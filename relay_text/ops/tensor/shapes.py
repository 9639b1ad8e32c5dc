"""`shape_of` and `ndarray_size`: a tensor's shape and element count, as tensors.

`shape_of(x, dtype="int32")` is the vector of x's dimensions, of type
`Tensor[(rank), dtype]`; it is how programs with `?` dimensions read sizes
known only at run time (the `dyn.*` operators take such vectors). As in
TVM's relation (`ShapeOf`, src/relay/op/type_relations.cc), the result for
a scalar is a scalar, not a vector of length 0; its value is 0 here.

`ndarray_size(x, dtype="int32")` is the number of elements, a scalar of
`dtype`. Both convert to `dtype` as `cast` does (a count too large for a
narrow dtype wraps around).
"""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation
from ..types import Args, Attrs, Value

_NUMPY_DTYPES = frozenset(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"]
)


def numpy_dtype(op: str, dtype: str) -> Any:
    """The numpy dtype of `dtype` (bfloat16 through the optional `ml_dtypes`
    package); a KernelError for the dtypes numpy has no counterpart of
    (vector lanes such as `int8x4`, `uint1`, bfloat16 without `ml_dtypes`)."""
    if dtype == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:
            raise KernelError(
                codes.RUNTIME_ERROR,
                f"`{op}`: bfloat16 tensors need the `ml_dtypes` package: pip install 'relay-text[bfloat16]'",
            ) from None
        return np.dtype(ml_dtypes.bfloat16)
    if dtype not in _NUMPY_DTYPES:  # ml_dtypes, once imported, also names uint1, int4, ...
        raise KernelError(codes.RUNTIME_ERROR, f'`{op}`: dtype "{dtype}" is not supported by this evaluator')
    try:
        return np.dtype(dtype)
    except TypeError:
        raise KernelError(codes.RUNTIME_ERROR, f'`{op}`: dtype "{dtype}" is not supported by this evaluator') from None


@relation("ShapeOf", inputs=1)
def shape_of_rel(r: Relation) -> bool:
    x = r.tensor(0)
    if not known_rank(x.shape):
        return False
    rank = len(x.shape)
    r.set_result(TensorType((rank,) if rank else (), r.attrs["dtype"]))
    return True


@register(
    "shape_of",
    inputs=1,
    relation=shape_of_rel,
    attrs=(Attr("dtype", "dtype", "int32"),),
    doc="The shape of a tensor, as a vector (a scalar 0 for a scalar).",
)
def shape_of(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    dims = list(x.shape) if x.ndim else 0
    return np.array(dims, dtype=np.int64).astype(numpy_dtype("shape_of", attrs["dtype"]))


@relation("NdarraySize", inputs=1)
def ndarray_size_rel(r: Relation) -> bool:
    r.tensor(0)
    r.set_result(TensorType((), r.attrs["dtype"]))
    return True


@register(
    "ndarray_size",
    inputs=1,
    relation=ndarray_size_rel,
    attrs=(Attr("dtype", "dtype", "int32"),),
    doc="The number of elements of a tensor, as a scalar.",
)
def ndarray_size(args: Args, attrs: Attrs) -> Value:
    return np.array(math.prod(args[0].shape), dtype=np.int64).astype(numpy_dtype("ndarray_size", attrs["dtype"]))
