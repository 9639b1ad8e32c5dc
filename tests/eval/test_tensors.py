"""Tensor semantics while running: broadcasting, integer division, overflow,
comparisons, dtypes; and the scalar fast paths agree with the kernels."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relay_text.ops import registry

from .helpers import run, show


def test_integer_division_truncates_toward_zero() -> None:
    assert show("def @main() { (-7 / 2, 7 / -2, -7 / -2, 7 / 2) }") == "(-3, -3, 3, 3)"
    value = run("def @main() { Constant(-7, (2), int32) / Constant(2, (2), int32) }")
    assert value.tolist() == [-3, -3]


def test_integer_overflow_wraps() -> None:
    assert show("def @main() { (2147483647 + 1, -2147483648 - 1, 127i8 + 1i8) }") == "(-2147483648, 2147483647, -128i8)"
    value = run("def @main() { Constant(2147483647, (2), int32) + Constant(1, (2), int32) }")
    assert value.dtype == np.int32 and value.tolist() == [-(2**31)] * 2


def test_comparisons_give_bool() -> None:
    assert show("def @main() { (1 < 2, 2.5 == 2.5, 3 != 3) }") == "(True, True, False)"
    value = run("def @main() { Constant(1, (2, 2), float32) < Constant(2, (2, 2), float32) }")
    assert value.dtype == np.bool_ and value.all()


def test_float32_stays_float32() -> None:
    value = run("def @main() { (1.5 * 2.0, 1.0 / 3.0, Constant(1, (3), float32) * 0.5) }")
    assert [v.dtype.name for v in value] == ["float32", "float32", "float32"]
    assert float(value[1]) == float(np.float32(1) / np.float32(3))


def test_broadcasting_follows_numpy() -> None:
    value = run("def @main() { Constant(1, (3, 1), int32) + Constant(2, (1, 4), int32) }")
    assert value.shape == (3, 4) and (value == 3).all()


def test_scalar_and_tensor_results_mix() -> None:
    # `sum` gives a 0-d array; the fast path and the kernels take it alike.
    value = run("def @main() { let %s = sum(Constant(2, (3), int32)); (%s + 1, %s * Constant(1, (2), int32)) }")
    assert int(value[0]) == 7 and value[1].tolist() == [6, 6]


# ---------------------------------------------------------------- fast paths

SCALARS = {
    "int32": st.integers(-(2**31), 2**31 - 1),
    "int64": st.integers(-(2**63), 2**63 - 1),
    "int8": st.integers(-128, 127),
    "uint8": st.integers(0, 255),
    "float32": st.floats(width=32, allow_nan=True, allow_infinity=True),
    "float64": st.floats(allow_nan=True, allow_infinity=True),
    "bool": st.booleans(),
}
FAST = sorted(op.name for op in registry.all_ops() if op.scalar is not None)


def _same(a: object, b: object) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != () or b.shape != ():
        return False
    if a.dtype.kind == "f" and np.isnan(a) and np.isnan(b):
        return True
    return bool(a == b)


def _outcome(fn: object, *args: object) -> object:
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)  # type: ignore[operator]
    except registry.KernelError as exc:
        return ("KernelError", exc.code)


def test_fast_paths_exist_for_scalar_arithmetic() -> None:
    assert {"add", "subtract", "multiply", "divide", "less", "equal", "logical_and", "negative"} <= set(FAST)


@pytest.mark.parametrize("name", FAST)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fast_path_agrees_with_the_kernel(name: str, data: st.DataObject) -> None:
    op = registry.get(name)
    assert op is not None and op.scalar is not None
    logical = name.startswith("logical_")
    dtypes = ["bool"] if logical else [d for d in SCALARS if d != "bool"]
    dtype = data.draw(st.sampled_from(dtypes))
    args = [np.dtype(dtype).type(data.draw(SCALARS[dtype])) for _ in range(op.inputs)]
    attrs = op.normalize_attrs([])[0]
    expected = _outcome(lambda *a: op.kernel(tuple(np.asarray(x) for x in a), attrs)[()], *args)
    got = _outcome(op.scalar, *args)
    if isinstance(expected, tuple):
        assert got == expected
    else:
        assert _same(got, expected), (args, got, expected)
