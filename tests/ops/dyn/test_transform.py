"""The `dyn.*` operators of relay_text/ops/dyn/transform.py, whose shapes,
axes and bounds are tensors known only when the program runs.

Relations follow src/relay/op/dyn/tensor/transform.cc; the examples are TVM's tests
(tests/python/relay/test_op_level10.py, tests/python/relay/dyn/).
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family(
    "dyn.reshape",
    "dyn.broadcast_to",
    "dyn.tile",
    "dyn.zeros",
    "dyn.ones",
    "dyn.full",
    "dyn.expand_dims",
    "dyn.squeeze",
    "dyn.strided_slice",
)
I64 = "int64"


def torch():
    torch_reference()
    import torch

    return torch


def v(*values: int, dtype: str = I64) -> np.ndarray:
    return np.array(values, dtype=dtype)


def test_dtypes_numpy_lacks_are_errors_when_running() -> None:
    """1-bit integers are a valid dtype, but this evaluator holds no such
    tensors."""
    with pytest.raises(KernelError) as e:
        FAMILY.run("dyn.zeros", v(2), dtype="uint1")
    assert (e.value.code, e.value.message) == (
        "runtime-error",
        '`dyn.zeros`: dtype "uint1" is not supported by this evaluator',
    )


# ---------------------------------------------------------------- dyn.*: relations


@pytest.mark.parametrize(
    "call, types, result",
    [
        # test_dynamic_op_level3.py::test_dyn_reshape: newshape is an int64 vector
        ("dyn.reshape(%a, %b)", [T("(2, 3, 4)"), T("(2)", I64)], T("(?, ?)")),
        ("dyn.reshape(%a, shape_of(%b))", [T("(4, 7)"), T("(2, 7, 2)")], T("(?, ?, ?)")),
        (
            "dyn.reshape(%a, %b, newshape=[], allowzero=True)",
            [T("(?, 3)", "int8"), T("(1)", "int32")],
            T("(?)", "int8"),
        ),
        # test_dyn_tile: reps is a float32 vector
        ("dyn.tile(%a, %b)", [T("(2, 3, 4)"), T("(2)")], T("(?, ?, ?)")),
        ("dyn.tile(%a, %b)", [T("(2, 3)"), T("(3)")], T("(?, ?, ?)")),
        # test_dyn_zeros_ones: (Any,) * rank
        ('dyn.zeros(%a, dtype="int64")', [T("(2)", I64)], T("(?, ?)", I64)),
        ("dyn.ones(%a)", [T("(4)", I64)], T("(?, ?, ?, ?)")),
        # test_dyn_full
        ('dyn.full(%a, %b, dtype="int64")', [T("()", I64), T("(4)", I64)], T("(?, ?, ?, ?)", I64)),
        ("dyn.full(%a, %b)", [T("()", "float16"), T("(2)", I64)], T("(?, ?)", "float16")),
        # test_dynamic_op_level10.py::test_broadcast_to
        ("dyn.broadcast_to(%a, %b, shape=None)", [T("(1, 1)"), T("(3)", I64)], T("(?, ?, ?)")),
        # test_dyn_expand_dims: the axis is an int64 scalar
        (
            "dyn.expand_dims(%a, %b, num_newaxis=3)",
            [T("(2, 2)", "float16"), T("()", I64)],
            T("(?, ?, ?, ?, ?)", "float16"),
        ),
        ("dyn.expand_dims(%a, %b)", [T("(2, 2)"), T("()", "int32")], T("(?, ?, ?)")),
        # test_squeeze
        ("dyn.squeeze(%a, %b)", [T("(1, 2, 1, 2, 1)"), T("(2)", I64)], T("(?, ?, ?)")),
        # test_dynamic_op_level4.py::test_dynamic_strided_slice: unsliced axes keep their sizes
        (
            "dyn.strided_slice(%a, %b, %c, %d)",
            [T("(3, 4, 3)"), T("(1)", "int32"), T("(1)", "int32"), T("(1)", "int32")],
            T("(?, 4, 3)"),
        ),
        (
            'dyn.strided_slice(%a, %b, %c, %d, slice_mode="size")',
            [T("(1, 224, 224, 3)"), T("(4)", "int16"), T("(4)", "int16"), T("(4)", "int16")],
            T("(?, ?, ?, ?)"),
        ),
    ],
)
def test_dynamic_result_types(call: str, types: list, result: str) -> None:
    assert FAMILY.result_type(call, types) == result


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "dyn.reshape(%a, %b)",
            [T("(2, 3)"), T("(?)", I64)],
            "shape-mismatch",
            "`dyn.reshape` needs the length of the new shape before the program runs, found a vector of shape (?)",
            "%b",
        ),
        (
            "dyn.reshape(%a, %b)",
            [T("(2, 3)"), T("(2, 1)", I64)],
            "shape-mismatch",
            "`dyn.reshape` takes the new shape as a vector, found a tensor of shape (2, 1)",
            "%b",
        ),
        (
            "dyn.tile(%a, %b)",
            [T("(2, 3)"), T("()", I64)],
            "shape-mismatch",
            "`dyn.tile` takes reps as a vector, found a tensor of shape ()",
            "%b",
        ),
        (
            "dyn.zeros(%a)",
            [T("(?)", I64)],
            "shape-mismatch",
            "`dyn.zeros` needs the length of the shape before the program runs, found a vector of shape (?)",
            "%a",
        ),
        (
            "dyn.ones(%a)",
            [T("(2, 2)", I64)],
            "shape-mismatch",
            "`dyn.ones` takes the shape as a vector, found a tensor of shape (2, 2)",
            "%a",
        ),
        (
            "dyn.full(%a, %b)",
            [T("(2)"), T("(2)", I64)],
            "shape-mismatch",
            "`dyn.full` takes a scalar fill value, found a tensor of shape (2)",
            "%a",
        ),
        (
            "dyn.broadcast_to(%a, %b)",
            [T("(2, 3, 4)"), T("(2)", I64)],
            "shape-mismatch",
            "`dyn.broadcast_to` cannot broadcast a tensor of rank 3 to a shape of 2 dimensions",
            "%a",
        ),
        (
            "dyn.expand_dims(%a, %b)",
            [T("(2, 2)"), T("(1)", I64)],
            "shape-mismatch",
            "`dyn.expand_dims` takes the axis as a scalar, found a tensor of shape (1)",
            "%b",
        ),
        (
            "dyn.squeeze(%a, %b)",
            [T("(1, 1)"), T("(3)", I64)],
            "shape-mismatch",
            "`dyn.squeeze` cannot remove 3 axes from a tensor of rank 2",
            "%b",
        ),
        (
            "dyn.strided_slice(%a, %b, %c, %d)",
            [T("(3, 4)"), T("(2)", I64), T("(2)", I64), T("(1)", I64)],
            "shape-mismatch",
            "`dyn.strided_slice`: strides has 1 value but begin has 2 values; they need one per sliced axis each",
            "%d",
        ),
        (
            "dyn.strided_slice(%a, %b, %c, %d)",
            [T("(3, 4)"), T("(3)", I64), T("(3)", I64), T("(3)", I64)],
            "shape-mismatch",
            "`dyn.strided_slice`: begin has 3 values, more than the data's rank 2",
            "%b",
        ),
    ],
)
def test_dynamic_rejections(call: str, types: list, code: str, message: str, at: str) -> None:
    """TVM's relations ICHECK a static length of the shape vector ('Dynamic Reshape
    doesn't support Dynamic Rank', 'Parameter shape must have static rank'), a
    scalar fill value and axis, and begin, end and strides of one length."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def test_dynamic_attribute_rejections() -> None:
    d = FAMILY.only_error("dyn.expand_dims(%a, %b, num_newaxis=-1)", [T("(2)"), T("()", I64)])
    assert (d.code, d.message) == ("shape-mismatch", "`dyn.expand_dims`: num_newaxis must not be negative, found -1")
    d = FAMILY.only_error('dyn.strided_slice(%a, %b, %b, %b, slice_mode="step")', [T("(2)"), T("(1)", I64)])
    assert (d.code, d.message) == (
        "type-mismatch",
        '`dyn.strided_slice`: slice_mode must be "end" or "size", found "step"',
    )


# ---------------------------------------------------------------- dyn.*: kernels


@pytest.mark.parametrize(
    "shape, newshape, oshape",
    [
        ((2, 3, 4), (8, 3), (8, 3)),
        ((4, 7), (2, 7, 2), (2, 7, 2)),
        ((2, 3, 4), (4, 0, 2), (4, 3, 2)),
        ((2, 3, 4), (2, 0, 0), (2, 3, 4)),
        ((2, 3, 4), (0, -1), (2, 12)),
        ((2, 3, 4), (-1, 0), (8, 3)),
        ((2, 3, 4), (-3, 4), (6, 4)),
        ((2, 3, 4, 5), (-3, -3), (6, 20)),
        ((2, 3, 4), (0, -3), (2, 12)),
    ],
)
def test_dyn_reshape_against_torch(shape: tuple, newshape: tuple, oshape: tuple) -> None:
    """test_dynamic_op_level3.py::test_dyn_reshape: the special values 0, -1, -3."""
    t = torch()
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    same(FAMILY.run("dyn.reshape", x, v(*newshape)), t.from_numpy(x).reshape(oshape).numpy())


def test_dyn_reshape_errors_when_running() -> None:
    """_reshape_shape_func_input_data (python/tvm/relay/op/dyn/_transform.py):
    -2 and -4 are not valid in a dynamic newshape."""
    x = np.zeros((2, 3, 4), dtype=np.float32)
    for newshape, message in (
        ((-2,), "`dyn.reshape`: -2 is not a valid value in newshape [-2]; only sizes, 0, -1 and -3 are"),
        ((5, -1), "cannot reshape (2, 3, 4) (24 elements) into newshape [5, -1]"),
    ):
        with pytest.raises(KernelError) as e:
            FAMILY.run("dyn.reshape", x, v(*newshape))
        assert (e.value.code, e.value.message) == ("runtime-error", message)
    same(
        FAMILY.run("dyn.reshape", np.zeros((0, 3), dtype=np.int8), v(3, 0), allowzero=True),
        np.zeros((3, 0), dtype=np.int8),
    )


@pytest.mark.parametrize("dshape, reps", [((2, 3, 4), (3, 2, 1)), ((2, 3, 4), (1, 2)), ((2, 3), (3, 2, 1))])
def test_dyn_tile_against_torch(dshape: tuple, reps: tuple) -> None:
    """test_dyn_tile, with reps given as float32 as there."""
    t = torch()
    x = np.random.default_rng(5).uniform(-1, 1, dshape).astype(np.float32)
    same(FAMILY.run("dyn.tile", x, np.array(reps, dtype=np.float32)), t.tile(t.from_numpy(x), reps).numpy())
    with pytest.raises(KernelError) as e:
        FAMILY.run("dyn.tile", x, v(2, 0))
    assert e.value.message == "`dyn.tile`: reps must be positive, found [2, 0]"


def test_dyn_creation_against_torch() -> None:
    """test_dyn_zeros_ones and test_dyn_full."""
    t = torch()
    same(FAMILY.run("dyn.zeros", v(1, 3), dtype="int64"), t.zeros((1, 3), dtype=t.int64).numpy())
    same(FAMILY.run("dyn.ones", v(8, 9, 1, 2)), t.ones((8, 9, 1, 2)).numpy())
    same(
        FAMILY.run("dyn.full", np.array(4, dtype=np.int32), v(1, 3, 4, 4)),
        t.full((1, 3, 4, 4), 4, dtype=t.int32).numpy(),
    )
    same(FAMILY.run("dyn.full", np.array(4.0, dtype=np.float32), v(2, 50)), t.full((2, 50), 4.0).numpy())
    same(
        FAMILY.run("dyn.full", np.array(2.75, dtype=np.float32), v(3), dtype="int8"), np.array([2, 2, 2], dtype=np.int8)
    )
    with pytest.raises(KernelError) as e:
        FAMILY.run("dyn.zeros", v(2, -1))
    assert e.value.message == "`dyn.zeros`: a shape cannot have negative sizes, found [2, -1]"
    with pytest.raises(KernelError):
        FAMILY.run("dyn.ones", np.array([np.nan], dtype=np.float32))


def test_dyn_broadcast_to_against_torch() -> None:
    """test_dynamic_op_level10.py::test_broadcast_to."""
    t = torch()
    for x_shape, out_shape in (((1,), (1, 1, 1)), ((1, 1), (4, 1, 1)), ((4, 3), (3, 4, 3))):
        x = np.random.default_rng(6).standard_normal(x_shape).astype(np.float32)
        same(FAMILY.run("dyn.broadcast_to", x, v(*out_shape)), t.broadcast_to(t.from_numpy(x), out_shape).numpy())
    with pytest.raises(KernelError) as e:
        FAMILY.run("dyn.broadcast_to", np.zeros((4, 3)), v(2, 2))
    assert e.value.message == "`dyn.broadcast_to` cannot broadcast [4, 3] to [2, 2]"


def test_dyn_expand_dims_and_squeeze() -> None:
    """test_dyn_expand_dims (the result shapes listed there) and test_squeeze."""
    t = torch()
    x = np.arange(4, dtype=np.float16).reshape(2, 2)
    for axis, k, oshape in (
        (2, 1, (2, 2, 1)),
        (1, 1, (2, 1, 2)),
        (0, 1, (1, 2, 2)),
        (2, 2, (2, 2, 1, 1)),
        (1, 3, (2, 1, 1, 1, 2)),
        (0, 4, (1, 1, 1, 1, 2, 2)),
        (-1, 1, (2, 2, 1)),
    ):
        same(FAMILY.run("dyn.expand_dims", x, np.array(axis, dtype=np.int64), num_newaxis=k), x.reshape(oshape))
    with pytest.raises(KernelError) as e:
        FAMILY.run("dyn.expand_dims", x, np.array(3, dtype=np.int64))
    assert e.value.message == "`dyn.expand_dims`: axis 3 is out of range for a tensor of rank 2"
    for shape, axes in (((1, 3, 1), (0,)), ((1, 2, 1, 2, 1), (0, 2)), ((1, 2, 1), (-1, 0))):
        y = np.random.default_rng(7).random(shape).astype(np.float32)
        same(FAMILY.run("dyn.squeeze", y, v(*axes)), t.squeeze(t.from_numpy(y), axes).numpy())
    for axes, message in (
        ((1,), "`dyn.squeeze` can only remove axes of size 1, but axis 1 has size 3"),
        ((0, -3), "`dyn.squeeze`: axes [0, -3] name an axis twice"),
        ((3,), "`dyn.squeeze`: axes [3] are out of range for a tensor of rank 3"),
    ):
        with pytest.raises(KernelError) as e:
            FAMILY.run("dyn.squeeze", np.zeros((1, 3, 1)), v(*axes))
        assert e.value.message == message


def _python_slice(x: np.ndarray, begin: list, end: list, strides: list, mode: str) -> np.ndarray:
    """Python's slices along the leading axes, as TOPI's strided_slice_python."""
    index = []
    for i, b in enumerate(begin):
        if mode == "size":
            e = x.shape[i] if end[i] < 0 else b + end[i]
            index.append(slice(b, e))
        else:
            index.append(slice(b, end[i], strides[i]))
    return x[tuple(index)]


@pytest.mark.parametrize(
    "dshape, begin, end, strides, mode",
    [
        ((1, 224, 224, 3), [0, 20, 20, 0], [1, 140, 140, 3], [1, 1, 1, 1], "end"),
        ((3, 4, 3), [1, 1, 0], [4, 4, 3], [2, 1, 1], "end"),
        ((3, 4, 3), [0, 0, 0], [4, -5, 4], [1, -1, 2], "end"),
        ((3, 4, 3), [1, 1, 0], [4, 1000, 3], [1, 1, 1], "end"),
        ((3, 4, 3), [1, -1, 0], [4, -5, 3], [2, -1, 1], "end"),
        ((3, 4, 3), [1, -1, 0], [2, -3, 3], [1, -1, 1], "end"),
        ((20, 10, 5), [20, 10, 4], [0, 0, 1], [-1, -3, -2], "end"),
        ((3, 4, 3), [1, 0, 0], [-1, 2, 3], [1, 1, 1], "size"),
        ((3, 4, 3), [0], [2], [1], "end"),
        ((3, 4, 3), [1], [4], [2], "end"),
        ((3, 4, 3), [1, 0], [4, 2], [2, 1], "end"),
        ((4, 5), [-9], [0], [-1], "end"),  # a negative stride from before the first element: empty
        ((4, 5), [1, -9], [0, -7], [-1, -1], "end"),
    ],
)
def test_dyn_strided_slice_against_python_slices(
    dshape: tuple, begin: list, end: list, strides: list, mode: str
) -> None:
    """test_dynamic_op_level4.py::test_dynamic_strided_slice and its cases."""
    x = np.random.default_rng(8).uniform(size=dshape).astype(np.float32)
    out = FAMILY.run("dyn.strided_slice", x, v(*begin), v(*end), v(*strides), slice_mode=mode)
    same(out, _python_slice(x, begin, end, strides, mode))


def test_dyn_strided_slice_zero_stride_is_an_error() -> None:
    with pytest.raises(KernelError) as e:
        FAMILY.run("dyn.strided_slice", np.zeros((3, 4)), v(0), v(2), v(0))
    assert (e.value.code, e.value.message) == ("runtime-error", "`dyn.strided_slice`: a stride cannot be 0")


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
