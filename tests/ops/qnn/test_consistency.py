"""The QNN relations and kernels agree on calls shaped like quantized programs.

tests/ops/test_consistency.py draws input types from float32, int32, bool,
int64 and float64, which a QNN call almost never accepts (it wants int8 or
uint8 data and float32 / int32 scalar parameters). Here calls are generated
(seeded) with such types, and many wrong ones: the checker must never raise
on them, and on every call it accepts the kernel returns exactly the type the
relation states or raises a KernelError.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from relay_text.ir.expr import Call
from relay_text.ir.span import Source
from relay_text.ir.ty import AnyDim
from relay_text.ops import KernelError, all_ops
from relay_text.pipeline import check_source

DATA_DTYPES = ["int8", "uint8", "int8", "uint8", "int16", "uint16", "int32", "float32"]
# how many leading inputs are tensors of data (the rest are parameters)
DATA_INPUTS = {
    "qnn.add": 2,
    "qnn.subtract": 2,
    "qnn.mul": 2,
    "qnn.conv2d": 2,
    "qnn.conv2d_transpose": 2,
    "qnn.dense": 2,
    "qnn.contrib_dense_pack": 2,
    "qnn.batch_matmul": 2,
}
ATTRS = {
    "out_dtype": ['"int8"', '"uint8"', '"int16"', '"int32"', '"int64"', '"float32"', '"float16"', '""'],
    "axis": ["-1", "0", "1", "2", "-2", "3"],
    "lhs_axis": ["-1", "0", "1", "-2"],
    "rhs_axis": ["-1", "0", "1", "-2"],
    "rounding": ['"UPWARD"', '"TONEAREST"', '"None"', '"x"'],
    "compute_dtype": ['"int64"', '"float32"', '"float64"', '"None"'],
    "units": ["None", "2", "3", "4"],
    "kind": ["0", "1", "2"],
    "pool_size": ["[1, 1]", "[2, 2]", "[3]", "[2, 1]"],
    "strides": ["[1, 1]", "[2, 2]", "[1]", "[2, 1]"],
    "dilation": ["[1, 1]", "[2, 2]"],
    "padding": ["[0, 0]", "[1, 1]", "[1]", "[0, 1, 1, 0]"],
    "output_padding": ["[0, 0]", "[1, 1]"],
    "groups": ["1", "2", "3"],
    "channels": ["None", "2", "4"],
    "kernel_size": ["None", "[1, 1]", "[2, 2]", "[3, 3]"],
    "data_layout": ['"NCHW"', '"NHWC"'],
    "kernel_layout": ['"OIHW"', '"HWIO"', '"IOHW"'],
    "layout": ['"NCHW"', '"NHWC"'],
    "ceil_mode": ["True", "False"],
    "count_include_pad": ["True", "False"],
    "transpose_a": ["True", "False"],
    "transpose_b": ["True", "False"],
    "alpha": ["0.25", "0.5", "0.9", "0"],
    "weight_layout": ['"NC"'],
    "out_layout": ['""', '"NCHW"', '"NHWC"'],
    "sign": ["True", "False"],
}
REQUIRED = {"out_dtype", "units", "kind", "pool_size"}
# the data dtypes and ranks each operator takes (drawn 9 times in 10; anything otherwise)
FLOAT_OPS = {
    "qnn.quantize",
    "qnn.simulated_quantize",
    "qnn.simulated_dequantize",
    "relay.op.annotation.simulated_quantize",
}
OUT_DTYPES = {
    "qnn.quantize": ("int8", "uint8", "int16", "uint16", "int32"),
    "qnn.requantize": ("int8", "uint8", "int16", "int32"),
    "qnn.dequantize": ("float32", "float16"),
    "qnn.simulated_dequantize": ("float32",),
    "qnn.conv2d": ("int16", "int32", "int64"),
    "qnn.conv2d_transpose": ("int16", "int32", "int64"),
    "qnn.dense": ("int32", "int64"),
    "qnn.batch_matmul": ("int32",),
    "qnn.contrib_dense_pack": ("int32", "int64"),
}
ZP_FIRST = {"qnn.conv2d", "qnn.conv2d_transpose", "qnn.dense", "qnn.contrib_dense_pack", "qnn.batch_matmul"}
RANKS = {
    "qnn.conv2d": (4, 4),
    "qnn.conv2d_transpose": (4, 4),
    "qnn.dense": (2, 2),
    "qnn.contrib_dense_pack": (2, 4),
    "qnn.batch_matmul": (3, 3),
    "qnn.avg_pool2d": (4,),
}


def _shape(rng: random.Random, rank: int | None = None, dims: tuple[int, ...] = (1, 2, 3, 4)) -> str:
    rank = rng.choice([0, 1, 2, 3, 4, 4]) if rank is None else rank
    return "(" + ", ".join(str(rng.choice(dims)) for _ in range(rank)) + ")"


def _data_type(rng: random.Random, op_name: str, i: int) -> str:
    if rng.random() < 0.1:
        return f"Tensor[{_shape(rng)}, {rng.choice(DATA_DTYPES)}]"
    dtype = "float32" if op_name in FLOAT_OPS else rng.choice(["int8", "uint8"])
    ranks = RANKS.get(op_name)
    if ranks is None:
        return f"Tensor[{_shape(rng)}, {dtype}]"
    return f"Tensor[{_shape(rng, ranks[min(i, len(ranks) - 1)], (1, 2) if len(ranks) > 1 else (2, 3, 4))}, {dtype}]"


def _param(rng: random.Random, dtype: str) -> str:
    r = rng.random()
    if r < 0.85:
        return f"Tensor[(), {dtype}]"
    if r < 0.95:
        return f"Tensor[({rng.choice([1, 2, 3, 4])}), {dtype}]"
    return f"Tensor[(), {rng.choice(['float32', 'int32', 'int8'])}]"


def _program(rng: random.Random, op) -> tuple[str, list[str]]:
    n_data = DATA_INPUTS.get(op.name, 1)
    types = []
    for i in range(op.inputs):
        if i == 1 and op.name in ("qnn.add", "qnn.subtract", "qnn.mul") and rng.random() < 0.7:
            types.append(types[0])  # operands of one dtype and shape
        elif i < n_data:
            types.append(_data_type(rng, op.name, i))
        else:
            if op.name in ZP_FIRST:
                dtype = "int32" if i - n_data < 2 else "float32"
            else:
                dtype = "float32" if (i - n_data) % 2 == 0 else "int32"
            types.append(_param(rng, rng.choice(["float32", "int32"]) if rng.random() < 0.1 else dtype))
    if op.name.startswith("qnn.simulated"):
        types[1:] = ["Tensor[(), int32]", _param(rng, "float32"), _param(rng, "int32")]
    if op.name == "relay.op.annotation.simulated_quantize":
        types[1:] = [_param(rng, "float32") for _ in types[1:]]
    args = [f"%p{i}" for i in range(op.inputs)]
    if op.name == "qnn.concatenate":
        args[0], args[1], args[2] = "(%p0, %p0)", "(%p1, %p1)", "(%p2, %p2)"
    attrs = []
    for a in op.attrs:
        if a.name in REQUIRED or rng.random() < 0.5:
            pool = ATTRS.get(a.name, ["0"])
            if a.name == "out_dtype" and op.name in OUT_DTYPES and rng.random() < 0.75:
                pool = [f'"{d}"' for d in OUT_DTYPES[op.name]]
            attrs.append(f"{a.name}={rng.choice(pool)}")
    decl = ", ".join(f"%p{i} : {t}" for i, t in enumerate(types))
    return f"def @main({decl}) {{\n  {op.name}({', '.join(args + attrs)})\n}}\n", types


def _value(t, rng: np.random.Generator):
    shape = tuple(int(d) if not isinstance(d, AnyDim) else 2 for d in t.shape)
    if t.dtype.startswith(("int", "uint")):
        info = np.iinfo(t.dtype)
        lo, hi = max(int(info.min), -300), min(int(info.max), 300)
        return np.asarray(rng.integers(lo, hi, shape, endpoint=True).astype(t.dtype))
    return np.asarray((rng.standard_normal(shape) * 4 + 0.5).astype(t.dtype))


def _has_type(v, t) -> bool:
    if not (isinstance(v, np.ndarray) and v.ndim == len(t.shape) and str(v.dtype) == t.dtype):
        return False
    return all(isinstance(d, AnyDim) or v.shape[i] == d for i, d in enumerate(t.shape))


@pytest.mark.parametrize("seed", range(3))
def test_qnn_kernels_return_the_types_their_relations_state(seed: int) -> None:
    rng = random.Random(seed)
    values = np.random.default_rng(seed)
    ops = [op for op in all_ops() if op.name.startswith("qnn.") or op.name.startswith("relay.op.annotation.")]
    accepted = 0
    for _ in range(700):
        op = rng.choice(ops)
        text, _ = _program(rng, op)
        checked = check_source(Source("gen.rly", text))  # must not raise, whatever the input
        if checked.errors:
            continue
        main = checked.result.global_type("main")
        call = next(iter(checked.module.functions.values())).body
        assert isinstance(call, Call)
        attrs, problems = op.normalize_attrs(call.attrs)
        assert not problems
        inputs = [_value(t, values) for t in main.arg_types]
        if op.name == "qnn.concatenate":
            inputs[:3] = [(inputs[0], inputs[0]), (inputs[1], inputs[1]), (inputs[2], inputs[2])]
        accepted += 1
        with np.errstate(all="ignore"):
            try:
                out = op.kernel(tuple(inputs), attrs)
            except KernelError:
                continue
        assert _has_type(out, main.ret_type), (text, getattr(out, "shape", None), getattr(out, "dtype", None))
    assert accepted >= 200
