"""Relations and kernels agree: on every call the checker accepts, the kernel
returns exactly the type the relation states, or a KernelError.

Calls are generated (seeded) from every operator with random input types
and attribute values, many of them invalid: the checker must never crash on
them either.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from relay_text.ir.expr import Call
from relay_text.ir.span import Source
from relay_text.ir.ty import AnyDim, TupleType, TypeCall
from relay_text.ops import KernelError, all_ops
from relay_text.pipeline import check_source

DTYPES = ["float32", "int32", "bool", "int64", "float64"]
ATTR_VALUES = [
    "1",
    "-1",
    "0",
    "2",
    "3",
    "-2",
    "2.5",
    "True",
    "None",
    "[]",
    "[0]",
    "[-1]",
    "[1, 2]",
    "[-1, 2]",
    "[1, 0]",
    "[2, 1, 0]",
    "[3, 3]",
    "[0, 0]",
    "[1, 1, 1, 1]",
    "[-3]",
    "[-4, 2, -1]",
    '"float32"',
    '"int8"',
    '"clip"',
    '"wrap"',
    '"NCHW"',
    '"NHWC"',
    '"HWIO"',
    '"x"',
]


def _program(rng: random.Random, op) -> str:
    def shape() -> str:
        return "(" + ", ".join(str(rng.choice([1, 2, 3, 4, 5, 8])) for _ in range(rng.randint(0, 4))) + ")"

    params = [f"Tensor[{shape()}, {rng.choice(DTYPES)}]" for _ in range(op.inputs)]
    args = [f"%p{i}" for i in range(op.inputs)]
    if op.name in ("concatenate", "stack"):
        args = ["(%p0, %p0)"]
    attrs = [f"{a.name}={rng.choice(ATTR_VALUES)}" for a in op.attrs if rng.random() < 0.5]
    decl = ", ".join(f"%p{i} : {t}" for i, t in enumerate(params))
    return f"def @main({decl}) {{\n  {op.name}({', '.join(args + attrs)})\n}}\n"


def _value(t, rng: np.random.Generator):
    if isinstance(t, TupleType):
        return tuple(_value(f, rng) for f in t.fields)
    if t.dtype == "bool":
        return rng.integers(0, 2, t.shape).astype(bool).reshape(t.shape)
    if t.dtype.startswith("int"):
        return np.asarray(rng.integers(1, 4, t.shape).astype(t.dtype))
    return np.asarray(rng.standard_normal(t.shape).astype(t.dtype))


def _has_type(v, t) -> bool:
    if isinstance(t, TypeCall):
        return True  # a value of a data type (`Storage`): opaque to this test
    if isinstance(t, TupleType):
        return (
            isinstance(v, tuple)
            and len(v) == len(t.fields)
            and all(_has_type(a, b) for a, b in zip(v, t.fields, strict=False))
        )
    if not (isinstance(v, np.ndarray) and v.ndim == len(t.shape) and str(v.dtype) == t.dtype):
        return False
    # `?` (a dimension known only at run time) takes any size
    return all(isinstance(d, AnyDim) or v.shape[i] == d for i, d in enumerate(t.shape))


@pytest.mark.parametrize("seed", range(4))
def test_kernels_return_the_type_relations_state(seed: int) -> None:
    rng = random.Random(seed)
    values = np.random.default_rng(seed)
    ops = all_ops()
    accepted = 0
    tries = max(600, 6 * len(ops))
    for _ in range(tries):
        op = rng.choice(ops)
        text = _program(rng, op)
        checked = check_source(Source("gen.rly", text))  # must not raise, whatever the input
        if checked.errors:
            continue
        main = checked.result.global_type("main")
        call = next(iter(checked.module.functions.values())).body
        assert isinstance(call, Call)
        attrs, problems = op.normalize_attrs(call.attrs)
        assert not problems
        inputs = [_value(t, values) for t in main.arg_types]
        if op.name in ("concatenate", "stack"):
            inputs = [(inputs[0], inputs[0])]
        accepted += 1
        with np.errstate(all="ignore"):
            try:
                out = op.kernel(tuple(inputs), attrs)
            except KernelError:
                continue
        assert _has_type(out, main.ret_type), (text, getattr(out, "shape", None), getattr(out, "dtype", None))
    assert accepted >= tries // 10  # enough calls got through to the kernels
