"""`one_hot`, `dyn.one_hot`, `unravel_index`, `invert_permutation`: result
types, rejections, kernels against PyTorch and hand-computed values.

Rules: src/relay/op/tensor/transform.cc (OneHotRel, UnRavelIndexRel,
invert_permutation's Identity), src/relay/op/dyn/tensor/transform.cc
(dyn.one_hot); semantics: include/tvm/topi/transform.h (one_hot,
unravel_index), python/tvm/topi/transform.py (invert_permutation).
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ir.span import Source
from relay_text.ops import KernelError
from relay_text.pipeline import check_source
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("one_hot", "dyn.one_hot", "unravel_index", "invert_permutation")

I32 = "int32"


@pytest.fixture
def torch():
    torch_reference()
    import torch as module

    return module


# ---------------------------------------------------------------- one_hot


@pytest.mark.parametrize(
    "shape, depth, on, off, axis, dtype, expected",
    [
        ("(3)", 3, "1", "0", -1, "int32", "(3, 3)"),
        ("(3)", 3, "1f", "0f", -1, "float32", "(3, 3)"),
        ("(2, 2)", 5, "2", "-2", 0, "int32", "(5, 2, 2)"),
        ("(2, 2)", 5, "0.5f", "-0.5f", 1, "float32", "(2, 5, 2)"),
        ("(3, 2, 4, 5)", 6, "1", "0", 1, "int32", "(3, 6, 2, 4, 5)"),
        ("(3, 2, 4, 5)", 6, "1f", "0f", 0, "float32", "(6, 3, 2, 4, 5)"),
    ],
)
def test_one_hot_type(shape: str, depth: int, on: str, off: str, axis: int, dtype: str, expected: str) -> None:
    """depth inserted at axis (-1: last), dtype from the attribute (OneHotRel;
    the cases of test_op_level10.py::test_one_hot)."""
    call = f'one_hot(%a, {on}, {off}, depth={depth}, axis={axis}, dtype="{dtype}")'
    assert FAMILY.result_type(call, [T(shape, I32)]) == T(expected, dtype)


def test_one_hot_dtype_defaults_to_the_on_value() -> None:
    """TVM's dtype attribute has no default (NullValue); here the on value's dtype stands in."""
    assert FAMILY.result_type("one_hot(%a, 1i64, 0i64, depth=2)", [T("(3)", I32)]) == T("(3, 2)", "int64")


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "one_hot(%a, 1f, 0f, depth=3, axis=-2)",
            [T("(2, 4)", I32)],
            "shape-mismatch",
            "`one_hot`: axis -2 is out of range for indices of rank 2",
            "%a",
        ),
        (
            "one_hot(%a, %b, 0f, depth=3)",
            [T("(2, 4)", I32), T("(2)")],
            "shape-mismatch",
            "`one_hot` takes on_value as a scalar, found a tensor of shape (2)",
            "%b",
        ),
        (
            "one_hot(%a, 1f, 0f, depth=0)",
            [T("(2, 4)", I32)],
            "type-mismatch",
            "`one_hot` depth must be positive, found 0",
            "one_hot(%a, 1f, 0f, depth=0)",
        ),
    ],
)
def test_one_hot_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """OneHotRel: depth > 0; the axis is -1 or a position in the result (TOPI's
    one_hot maps only -1 to the last axis); on and off values are scalars
    (TOPI reads them as `inputs[1]()`)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot_kernel_against_torch(torch, axis: int) -> None:
    rng = np.random.default_rng(29)
    indices = rng.integers(0, 5, (3, 4))
    hot = torch.nn.functional.one_hot(torch.from_numpy(indices), 5).numpy()
    expected = np.moveaxis(np.where(hot == 1, 2.5, -1.0).astype(np.float32), -1, axis if axis != -1 else -1)
    out = FAMILY.run(
        "one_hot",
        indices.astype(np.int32),
        np.array(2.5, np.float32),
        np.array(-1, np.float32),
        depth=5,
        axis=axis,
        dtype="float32",
    )
    same(out, expected)


def test_one_hot_out_of_range_and_conversion() -> None:
    """Indices outside [0, depth) give off values; on/off values are cast to dtype
    (1.5 to int32 is 1; TOPI's cast)."""
    out = FAMILY.run(
        "one_hot",
        np.array([0, 2, -1, 5]),
        np.array(1.5, np.float32),
        np.array(0, np.float32),
        depth=3,
        axis=0,
        dtype="int32",
    )
    same(out, np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]], np.int32))
    out = FAMILY.run("one_hot", np.array([[1], [0]], np.int64), np.array(True), np.array(False), depth=2, dtype="bool")
    same(out, np.array([[[False, True]], [[True, False]]]))


# ---------------------------------------------------------------- dyn.one_hot


def test_dyn_one_hot_type() -> None:
    """The new axis has size `?` (src/relay/op/dyn/tensor/transform.cc, OneHotRel)."""
    call = 'dyn.one_hot(%a, 1f, 0f, %b, axis=1, dtype="float32")'
    assert FAMILY.result_type(call, [T("(2, 4)", I32), T("()", I32)]) == T("(2, ?, 4)")
    assert FAMILY.result_type("dyn.one_hot(%a, 1, 0, %b)", [T("(3)", I32), T("()", "int64")]) == T("(3, ?)", I32)


def test_dyn_one_hot_rejected() -> None:
    d = FAMILY.only_error("dyn.one_hot(%a, 1f, 0f, %b)", [T("(2, 4)", I32), T("(1)", I32)])
    assert (d.code, d.message, d.span.text) == (
        "shape-mismatch",
        "`dyn.one_hot` takes depth as a scalar, found a tensor of shape (1)",
        "%b",
    )


def test_dyn_one_hot_kernel() -> None:
    out = FAMILY.run(
        "dyn.one_hot",
        np.array([0, 2], np.int32),
        np.array(5, np.int32),
        np.array(-5, np.int32),
        np.array(3, np.int64),
        axis=0,
        dtype="int8",
    )
    same(out, np.array([[5, -5], [-5, -5], [-5, 5]], np.int8))
    with pytest.raises(KernelError) as err:
        FAMILY.run("dyn.one_hot", np.array([0]), np.array(1.0), np.array(0.0), np.array(-1))
    assert err.value.message == "dyn.one_hot: depth -1 is negative"


# ---------------------------------------------------------------- unravel_index


@pytest.mark.parametrize(
    "types, expected",
    [
        ([T("(4)", I32), T("(2)", I32)], T("(2, 4)", I32)),
        ([T("(1)", "int64"), T("(4)", "int64")], T("(4, 1)", "int64")),
        ([T("()", "int64"), T("(4)", "int64")], T("(4)", "int64")),
        ([T("(3)", "uint8"), T("(4)", "int64")], T("(4, 3)", "uint8")),
    ],
)
def test_unravel_index_type(types: list[str], expected: str) -> None:
    """(len shape, len indices), or (len shape) for a scalar index, in the indices'
    dtype (UnRavelIndexRel; cases of test_op_level3.py::test_unravel_index)."""
    assert FAMILY.result_type("unravel_index(%a, %b)", types) == expected


@pytest.mark.parametrize(
    "types, code, message, at",
    [
        (
            [T("(3)", "float32"), T("(2)", I32)],
            "type-mismatch",
            "`unravel_index` takes indices of integers, found `float32`",
            "%a",
        ),
        (
            [T("(3, 2)", I32), T("(2)", I32)],
            "shape-mismatch",
            "`unravel_index` takes indices as a scalar or a vector, found a tensor of shape (3, 2)",
            "%a",
        ),
        (
            [T("(3)", I32), T("()", I32)],
            "shape-mismatch",
            "`unravel_index` takes the shape as a vector, found a tensor of shape ()",
            "%b",
        ),
    ],
)
def test_unravel_index_rejected(types: list[str], code: str, message: str, at: str) -> None:
    """UnRavelIndexRel: integer indices and shape; the output reads only the
    first axis of each, so they are vectors (indices may be a scalar)."""
    d = FAMILY.only_error("unravel_index(%a, %b)", types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


@pytest.mark.parametrize(
    "indices, shape",
    [
        ([0, 1, 2, 3], [2, 2]),
        ([144], [5, 5, 5, 2]),
        (144, [5, 5, 5, 2]),
        ([100, 13, 5], [5, 5, 5, 2]),
        ([22, 41, 37], [7, 6]),
    ],
)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_unravel_index_kernel_against_torch(torch, indices, shape, dtype: str) -> None:
    x, s = np.array(indices, dtype), np.array(shape, dtype)
    expected = np.stack(
        [c.numpy() for c in torch.unravel_index(torch.from_numpy(x.astype(np.int64)), tuple(shape))]
    ).astype(dtype)
    same(FAMILY.run("unravel_index", x, s), expected)


def test_unravel_index_relation_in_a_where_clause() -> None:
    """UnRavelIndexRel, named by a `where` clause, types a function of two inputs."""
    text = (
        "def @f(%a: Tensor[(3), int32], %b: Tensor[(2), int32]) -> Tensor[(2, 3), int32] where UnRavelIndexRel {\n"
        "  unravel_index(%a, %b)\n}\n"
    )
    assert [str(d) for d in check_source(Source("t.rly", text)).diagnostics] == []


def test_unravel_index_wraps_past_the_end() -> None:
    """TOPI takes every coordinate modulo its size: 5 in (2, 2) is (0, 1)
    (test_op_level3.py::test_unravel_index notes TVM gives a result where numpy raises)."""
    same(
        FAMILY.run("unravel_index", np.array([0, 5], np.int32), np.array([2, 2], np.int32)),
        np.array([[0, 0], [0, 1]], np.int32),
    )
    with pytest.raises(KernelError) as err:
        FAMILY.run("unravel_index", np.array([3], np.int32), np.array([2, 0], np.int32))
    assert (err.value.code, err.value.message) == ("division-by-zero", "unravel_index: the shape [2, 0] has a size 0")


# ---------------------------------------------------------------- invert_permutation


def test_invert_permutation_type() -> None:
    """Identity (invert_permutation is registered with IdentityRel)."""
    assert FAMILY.result_type("invert_permutation(%a)", [T("(5)", I32)]) == T("(5)", I32)
    assert FAMILY.result_type("invert_permutation(%a)", [T("(?)", "int64")]) == T("(?)", "int64")


@pytest.mark.parametrize(
    "types, code, message",
    [
        ([T("(5)")], "type-mismatch", "`invert_permutation` takes a permutation of integers, found `float32`"),
        (
            [T("(2, 2)", I32)],
            "shape-mismatch",
            "`invert_permutation` takes a permutation as a vector, found a tensor of shape (2, 2)",
        ),
    ],
)
def test_invert_permutation_rejected(types: list[str], code: str, message: str) -> None:
    """TOPI's invert_permutation (python/tvm/topi/transform.py) indexes with the
    values of a vector: integers, rank 1."""
    d = FAMILY.only_error("invert_permutation(%a)", types)
    assert (d.code, d.message, d.span.text) == (code, message, "%a")


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_invert_permutation_kernel_against_torch(torch, dtype: str) -> None:
    p = np.random.default_rng(31).permutation(9).astype(dtype)
    expected = torch.argsort(torch.from_numpy(p.astype(np.int64))).numpy().astype(dtype)
    same(FAMILY.run("invert_permutation", p), expected)
    same(FAMILY.run("invert_permutation", np.array([3, 4, 0, 2, 1], dtype)), np.array([2, 4, 3, 0, 1], dtype))


def test_invert_permutation_of_a_non_permutation() -> None:
    with pytest.raises(KernelError) as err:
        FAMILY.run("invert_permutation", np.array([0, 0, 2], np.int32))
    assert err.value.message == "invert_permutation: the vector is not a permutation of 0 ... 2"


def test_one_hot_values_from_constants_without_metadata() -> None:
    """On and off values (and dyn.one_hot's depth) are scalars; without metadata they
    take the dtype attribute (depth: int32)."""
    on_off = "meta[relay.Constant][0], meta[relay.Constant][1]"
    assert FAMILY.result_type(f'one_hot(%a, {on_off}, depth=3, dtype="int8")', [T("(2)", I32)]) == T("(2, 3)", "int8")
    call = f'dyn.one_hot(%a, {on_off}, meta[relay.Constant][2], dtype="int8")'
    assert FAMILY.result_type(call, [T("(2)", I32)]) == T("(2, ?)", "int8")


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
