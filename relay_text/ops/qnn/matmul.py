"""Quantized matrix products: `qnn.dense`, `qnn.contrib_dense_pack` and
`qnn.batch_matmul`.

Each takes `(data, weight, input_zero_point, weight_zero_point,
input_scale, weight_scale)` and computes the product of `data -
input_zero_point` and `weight - weight_zero_point`, exact and then wrapped
to `out_dtype` (which TVM's attributes leave empty by default; it must be
given). The scales only type-check: the result is in the scale
`input_scale * weight_scale` with zero point 0.

* `qnn.dense(..., units, out_dtype)`: data (..., K) int8, uint8, int16 or
  uint16; weight (units, K) int8 or uint8; out_dtype int32 or int64; the
  result is (..., units). `units` has no default in TVM (it may be None).
  The input zero point and scale are scalars; the weight zero point and
  scale are scalars or one value per unit (TVM's lowering,
  src/relay/qnn/op/dense.cc, subtracts a vector zero point per unit).
* `qnn.contrib_dense_pack(..., units, out_dtype, weight_layout="NC")`: data
  (M, K) and a packed weight (N_O, K_O, N_I, K_I) holding `w[n, k]` at
  `[n // N_I, k // K_I, n % N_I, k % K_I]` (layout `NC{N_I}n{K_I}c`); the
  result is (M, N_O * N_I). As TVM's only implementation (Hexagon,
  python/tvm/topi/hexagon/qnn/nn.py) does it, int8 or uint8 operands are
  shifted by their scalar zero points in their own dtype (wrapping) and the
  products summed in int32.
* `qnn.batch_matmul(x, y, x_zero_point, y_zero_point, x_scale, y_scale,
  out_dtype, transpose_a=False, transpose_b=False)`: int8 or uint8 x (B, M,
  K) and y (B, K, N), or (B, N, K) with transpose_b (TVM's frontends always
  set it; its lowering supports only that); batch sizes equal or 1; four
  scalar parameters; the result is int32 (B, M, N).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np
from ._common import (
    channel_param,
    known_tensor,
    names,
    params_default,
    require_dtype,
    scalar_param,
)
from ..registry import Attr, register
from ..relations import RankedTensor, Relation, is_unknown, relation, shape_text, static
from ..types import Args, Attrs, Value

_PARAMS = params_default({2: "int32", 3: "int32", 4: "float32", 5: "float32"})


def _out_dtype(r: Relation, allowed: tuple[str, ...]) -> str:
    out: str = r.attrs["out_dtype"]
    if out not in allowed:
        shown = f"`{out}`" if out else "no out_dtype"
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` produces {names(allowed)}, given {shown}",
            notes=[f'name the accumulator type: `out_dtype="{allowed[0]}"`'],
        )
    return out


def _rank(r: Relation, i: int, t: RankedTensor, rank: int, what: str) -> None:
    if len(t.shape) != rank:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs {what} of rank {rank}, found {shape_text(t.shape)}", arg=i)


def _exact_product(x: Any, zx: Any, w: Any, zw: Any) -> tuple[Any, Any]:
    return x.astype(np.int64) - np.int64(np.asarray(zx)), w.astype(np.int64) - np.asarray(zw, dtype=np.int64)


# ---------------------------------------------------------------- dense


def _dense_default(r: Relation) -> bool:
    """The parameters' constants become scalars; a weight constant without metadata
    takes MatmulRel's shape (units, K) in the data's dtype."""
    done = _PARAMS(r)
    data, units = known_tensor(r, 0), r.attrs["units"]
    if data is not None and data.shape and units is not None and is_unknown(r.arg(1)) and r.from_metadata(1):
        r.refine(1, TensorType((units, data.shape[-1]), data.dtype))
        done = True
    return done


@relation("QDense", default=_dense_default)
def qnn_dense_rel(r: Relation) -> bool:
    """data (..., K), weight (units, K) -> (..., units) in out_dtype."""
    data, weight = known_tensor(r, 0), known_tensor(r, 1)
    if data is None or weight is None:
        return False
    require_dtype(r, 0, data, ("int8", "uint8", "int16", "uint16"), "data")
    require_dtype(r, 1, weight, ("int8", "uint8"), "weights")
    out = _out_dtype(r, ("int32", "int64"))
    if not data.shape:
        r.fail(codes.SHAPE_MISMATCH, "`qnn.dense` needs data of rank at least 1, found a scalar", arg=0)
    _rank(r, 1, weight, 2, "a weight (units, in)")
    units = r.attrs["units"]
    rows = units if units is not None else weight.shape[0]
    done = scalar_param(r, 2, "input zero point")
    done = scalar_param(r, 4, "input scale") and done
    done = channel_param(r, 3, "weight zero point", rows, "units") and done
    done = channel_param(r, 5, "weight scale", rows, "units") and done
    if not done:
        return False
    k, wk = data.shape[-1], weight.shape[1]
    if static(k) is not None and static(wk) is not None and k != wk:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`qnn.dense`: the data has {k} input features but the weight expects {wk}",
            arg=1,
            notes=[
                f"the data is {shape_text(data.shape)} (features last), the weight {shape_text(weight.shape)} (units, "
                "features)"
            ],
        )
    n = weight.shape[0]
    if units is not None and static(n) is not None and n != units:
        r.fail(codes.SHAPE_MISMATCH, f"`qnn.dense` has units={units}, but the weight has {n} rows", arg=1)
    r.set_result(TensorType((*data.shape[:-1], rows), out))
    return True


@register(
    "qnn.dense",
    inputs=6,
    relation=qnn_dense_rel,
    attrs=(Attr("units", "opt_int"), Attr("out_dtype", "opt_dtype", "")),
    doc="(data - input_zero_point) @ (weight - weight_zero_point).T, accumulated in out_dtype.",
)
def qnn_dense(args: Args, attrs: Attrs) -> Value:
    data, weight, z_in, z_w = args[:4]
    zw = np.asarray(z_w)
    x, w = _exact_product(data, z_in, weight, zw.reshape(-1, 1) if zw.ndim else zw)
    return np.matmul(x, w.T).astype(attrs["out_dtype"])


# ---------------------------------------------------------------- contrib_dense_pack


@relation("QnnDensePack", default=_PARAMS)
def qnn_dense_pack_rel(r: Relation) -> bool:
    """data (M, K), packed weight (N_O, K_O, N_I, K_I) -> (M, N_O * N_I) in out_dtype."""
    data, weight = known_tensor(r, 0), known_tensor(r, 1)
    if data is None or weight is None:
        return False
    require_dtype(r, 0, data, ("int8", "uint8"), "data")
    require_dtype(r, 1, weight, ("int8", "uint8"), "weights")
    _rank(r, 0, data, 2, "data")
    _rank(r, 1, weight, 4, "a packed weight (N_O, K_O, N_I, K_I)")
    out: str = r.attrs["out_dtype"]
    if not out:
        r.fail(
            codes.TYPE_MISMATCH,
            "`qnn.contrib_dense_pack` needs an out_dtype",
            notes=['name the accumulator type: `out_dtype="int32"`'],
        )
    done = scalar_param(r, 2, "input zero point")
    done = scalar_param(r, 3, "weight zero point") and done
    r.tensor(4)
    r.tensor(5)
    if not done:
        return False
    k, ko, ki = data.shape[1], weight.shape[1], weight.shape[3]
    if all(static(v) is not None for v in (k, ko, ki)) and k > ko * ki:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`qnn.contrib_dense_pack`: the data has {k} input features, the packed weight only {ko} x {ki}",
            arg=1,
        )
    no, ni = weight.shape[0], weight.shape[2]
    cols = no * ni if static(no) is not None and static(ni) is not None else AnyDim()
    r.set_result(TensorType((data.shape[0], cols), out))
    return True


@register(
    "qnn.contrib_dense_pack",
    inputs=6,
    relation=qnn_dense_pack_rel,
    attrs=(Attr("units", "opt_int"), Attr("out_dtype", "opt_dtype", ""), Attr("weight_layout", "str", "NC")),
    doc="qnn.dense with the weight packed in blocks (N_O, K_O, N_I, K_I).",
)
def qnn_contrib_dense_pack(args: Args, attrs: Attrs) -> Value:
    data, weight, z_in, z_w = args[:4]
    no, ko, ni, ki = weight.shape
    k = data.shape[1]
    w = weight.transpose(0, 2, 1, 3).reshape(no * ni, ko * ki)[:, :k]
    x = (data.astype(np.int64) - np.int64(np.asarray(z_in))).astype(data.dtype)
    w = (w.astype(np.int64) - np.int64(np.asarray(z_w))).astype(weight.dtype)
    acc = np.matmul(x.astype(np.int64), w.astype(np.int64).T).astype(np.int32)
    return acc.astype(attrs["out_dtype"])


# ---------------------------------------------------------------- batch_matmul


@relation("QBatchMatmul", default=_PARAMS)
def qnn_batch_matmul_rel(r: Relation) -> bool:
    """x (B, M, K), y (B, K, N) or (B, N, K) with transpose_b -> (B, M, N) int32."""
    x, y = known_tensor(r, 0), known_tensor(r, 1)
    if x is None or y is None:
        return False
    require_dtype(r, 0, x, ("int8", "uint8"), "x")
    require_dtype(r, 1, y, ("int8", "uint8"), "y")
    out = _out_dtype(r, ("int32",))
    _rank(r, 0, x, 3, "x (batch, rows, columns)")
    _rank(r, 1, y, 3, "y (batch, rows, columns)")
    done = True
    for i, what in ((2, "x zero point"), (3, "y zero point"), (4, "x scale"), (5, "y scale")):
        done = scalar_param(r, i, what) and done
    if not done:
        return False
    ta, tb = r.attrs["transpose_a"], r.attrs["transpose_b"]
    bx, m, kx = (x.shape[0], x.shape[2], x.shape[1]) if ta else x.shape
    by, ky, n = (y.shape[0], y.shape[2], y.shape[1]) if tb else y.shape
    if static(kx) is not None and static(ky) is not None and kx != ky:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`qnn.batch_matmul`: the inner dimensions differ ({kx} and {ky})",
            arg=1,
            notes=[f"x is {shape_text(x.shape)} (transpose_a={ta}), y is {shape_text(y.shape)} (transpose_b={tb})"],
        )
    if static(bx) is not None and static(by) is not None and bx != by and 1 not in (bx, by):
        r.fail(codes.SHAPE_MISMATCH, f"`qnn.batch_matmul`: batch sizes {bx} and {by} differ", arg=1)
    if isinstance(bx, AnyDim) or isinstance(by, AnyDim):
        batch: Any = AnyDim()
    else:
        batch = by if static(bx) == 1 else bx
    r.set_result(TensorType((batch, m, n), out))
    return True


@register(
    "qnn.batch_matmul",
    inputs=6,
    relation=qnn_batch_matmul_rel,
    attrs=(Attr("out_dtype", "opt_dtype", ""), Attr("transpose_a", "bool", False), Attr("transpose_b", "bool", False)),
    doc="Batched product of quantized matrices, with their zero points, in int32.",
)
def qnn_batch_matmul(args: Args, attrs: Attrs) -> Value:
    x, y, zx, zy = args[:4]
    a, b = _exact_product(x, zx, y, zy)
    if attrs["transpose_a"]:
        a = np.swapaxes(a, 1, 2)
    if attrs["transpose_b"]:
        b = np.swapaxes(b, 1, 2)
    return np.matmul(a, b).astype(attrs["out_dtype"])
