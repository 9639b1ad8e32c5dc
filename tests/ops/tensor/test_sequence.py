"""`reverse`, `reverse_sequence`, `sequence_mask`: result types, rejections,
kernels against PyTorch, TVM's test values and loops.

Rules: src/relay/op/tensor/transform.cc (ReverseRel, ReverseSequenceRel,
SequenceMaskRel); semantics: include/tvm/topi/transform.h
(reverse_sequence, which also computes reverse, and sequence_mask).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("reverse", "reverse_sequence", "sequence_mask")

I32 = "int32"


@pytest.fixture
def torch():
    torch_reference()
    import torch as module

    return module


# ---------------------------------------------------------------- reverse


@pytest.mark.parametrize("shape, axis", [("(2, 3, 4)", 1), ("(4, 7)", 0), ("(2, 5, 6)", -1)])
def test_reverse_type(shape: str, axis: int) -> None:
    """The data's type (ReverseRel; shapes of test_op_level3.py::test_reverse)."""
    assert FAMILY.result_type(f"reverse(%a, axis={axis})", [T(shape, "int8")]) == T(shape, "int8")


@pytest.mark.parametrize(
    "call, message, at",
    [
        ("reverse(%a, axis=2)", "axis 2 is out of range for a tensor of rank 2", "%a"),
        ("reverse(%a)", "`reverse` needs the attribute `axis`, e.g. `reverse(%x, axis=0)`", "reverse(%a)"),
    ],
)
def test_reverse_rejected(call: str, message: str, at: str) -> None:
    """ReverseRel: -ndim <= axis < ndim; the attribute's default (None) has no value."""
    d = FAMILY.only_error(call, [T("(2, 4)")])
    assert (d.message, d.span.text) == (message, at)
    assert d.code == ("shape-mismatch" if "range" in message else "type-mismatch")


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_reverse_kernel_against_torch(torch, dtype: str, axis: int) -> None:
    data = (np.random.default_rng(37).standard_normal((2, 5, 6)) * 9).astype(dtype)
    same(FAMILY.run("reverse", data, axis=axis), torch.flip(torch.from_numpy(data), [axis]).numpy())


# ---------------------------------------------------------------- reverse_sequence


def test_reverse_sequence_type() -> None:
    """The data's type (ReverseSequenceRel; test_op_level3.py::test_reverse_sequence)."""
    assert FAMILY.result_type(
        "reverse_sequence(%a, %b, seq_axis=0, batch_axis=1)", [T("(4, 4)", I32), T("(4)", I32)]
    ) == T("(4, 4)", I32)
    assert FAMILY.result_type(
        "reverse_sequence(%a, %b, seq_axis=1, batch_axis=2)", [T("(2, 3, 3, 3)"), T("(3)", "int64")]
    ) == T("(2, 3, 3, 3)")


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "reverse_sequence(%a, %b, seq_axis=0, batch_axis=1)",
            [T("(4, 4)"), T("(5)", I32)],
            "shape-mismatch",
            "`reverse_sequence` needs one length per batch position: the batch axis 1 has size 4, seq_lengths has 5",
            "%b",
        ),
        (
            "reverse_sequence(%a, %b)",
            [T("(4, 4)"), T("(4)", "uint8")],
            "type-mismatch",
            "`reverse_sequence` takes seq_lengths of signed integers, found `uint8`",
            "%b",
        ),
        (
            "reverse_sequence(%a, %b)",
            [T("(4, 4)"), T("(4, 1)", I32)],
            "shape-mismatch",
            "`reverse_sequence` takes seq_lengths as a vector, found a tensor of shape (4, 1)",
            "%b",
        ),
        (
            "reverse_sequence(%a, %b, seq_axis=2)",
            [T("(4, 4)"), T("(4)", I32)],
            "shape-mismatch",
            "seq_axis 2 is out of range for a tensor of rank 2",
            "%a",
        ),
    ],
)
def test_reverse_sequence_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """ReverseSequenceRel: one signed-integer length per batch position (its
    message in test_op_level3.py: 'seq_lengths size should match with
    dimension of batch axis'), axes in range."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


SQUARE = np.arange(16).reshape(4, 4)


@pytest.mark.parametrize(
    "data, lengths, batch_axis, seq_axis, expected",
    [
        (SQUARE, [1, 2, 3, 4], 1, 0, [[0, 5, 10, 15], [4, 1, 6, 11], [8, 9, 2, 7], [12, 13, 14, 3]]),
        (SQUARE, [1, 2, 3, 4], -1, 0, [[0, 5, 10, 15], [4, 1, 6, 11], [8, 9, 2, 7], [12, 13, 14, 3]]),
        (SQUARE, [1, 2, 3, 4], 0, 1, [[0, 1, 2, 3], [5, 4, 6, 7], [10, 9, 8, 11], [15, 14, 13, 12]]),
        (SQUARE, [-1, 0, 1, 5], 0, 1, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [15, 14, 13, 12]]),
    ],
)
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_reverse_sequence_kernel_matches_test_op_level3(
    data, lengths, batch_axis, seq_axis, expected, dtype: str
) -> None:
    """The values of test_op_level3.py::test_reverse_sequence, lengths of 1 or
    less and past the axis included."""
    out = FAMILY.run(
        "reverse_sequence", data.astype(dtype), np.array(lengths, np.int32), seq_axis=seq_axis, batch_axis=batch_axis
    )
    same(out, np.array(expected, dtype))


def test_reverse_sequence_kernel_against_loops() -> None:
    rng = np.random.default_rng(41)
    data = rng.standard_normal((2, 5, 3, 4)).astype(np.float32)
    lengths = rng.integers(-1, 7, 3).astype(np.int64)
    expected = data.copy()
    for b, n in enumerate(lengths):
        n = min(int(n), 5)
        if n > 1:
            expected[:, :n, b, :] = data[:, :n, b, :][:, ::-1]
    same(FAMILY.run("reverse_sequence", data, lengths, seq_axis=1, batch_axis=2), expected)


# ---------------------------------------------------------------- sequence_mask


@pytest.mark.parametrize(
    "shape, axis, dtype, itype",
    [((5, 10), 1, "float32", "int32"), ((2, 3, 5, 3), 0, "float32", "int64"), ((5, 8, 3), 1, "float64", "float32")],
)
def test_sequence_mask_type(shape: tuple, axis: int, dtype: str, itype: str) -> None:
    """The data's type (SequenceMaskRel; cases of test_op_level10.py::test_sequence_mask)."""
    types = [T(str(shape), dtype), T(f"({shape[1 - axis]})", itype)]
    assert FAMILY.result_type(f"sequence_mask(%a, %b, axis={axis})", types) == T(str(shape), dtype)


def test_sequence_mask_infers_valid_length() -> None:
    """SequenceMaskRel assigns valid_length the shape (batch,) keeping its dtype."""
    assert FAMILY.param_type("sequence_mask(%a, %b, axis=1)", [T("(4, 2, 3)"), "Tensor[_, int32]"], 1) == T("(4)", I32)


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            "sequence_mask(%a, %b, axis=2)",
            [T("(4, 3, 2)"), T("(3)", I32)],
            "type-mismatch",
            "`sequence_mask` axis must be 0 or 1, found 2",
            "sequence_mask(%a, %b, axis=2)",
        ),
        (
            "sequence_mask(%a, %b)",
            [T("(4, 3)"), T("(4)", I32)],
            "shape-mismatch",
            (
                "`sequence_mask` needs one valid length per batch position: axis 1 of the data has size 3, "
                "valid_length has 4"
            ),
            "%b",
        ),
        (
            "sequence_mask(%a, %b)",
            [T("(4)"), T("(4)", I32)],
            "shape-mismatch",
            "`sequence_mask` needs data of rank 2 or more, found (4)",
            "%a",
        ),
    ],
)
def test_sequence_mask_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """SequenceMaskRel: axis 0 or 1, valid_length of shape (data.shape[1 - axis],)."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


def _sequence_mask_loops(data, lengths, mask_value, axis):
    out = data.copy()
    for pos in itertools.product(*map(range, data.shape)):
        if pos[axis] >= lengths[pos[1 - axis]]:
            out[pos] = mask_value
    return out


@pytest.mark.parametrize(
    "shape, mask_value, axis, dtype, itype",
    [
        ((5, 10), 0.0, 1, "float32", "int32"),
        ((2, 3, 5, 3), 0.0, 0, "float32", "int64"),
        ((5, 8, 3), 0.1, 1, "float64", "float32"),
        ((4, 3), -7.9, 0, "int32", "int32"),
        ((3, 4), 2.0, 1, "bool", "int64"),
    ],
)
def test_sequence_mask_kernel_against_loops(shape, mask_value, axis, dtype, itype) -> None:
    """The masked value is cast to the data's dtype (-7.9 to int32 is -7)."""
    rng = np.random.default_rng(43)
    data = (rng.standard_normal(shape) * 9).astype(dtype)
    lengths = rng.integers(0, shape[axis], shape[1 - axis]).astype(itype)
    expected = _sequence_mask_loops(data, lengths, np.array(mask_value).astype(dtype), axis)
    same(FAMILY.run("sequence_mask", data, lengths, mask_value=mask_value, axis=axis), expected)


def test_sequence_mask_matches_the_documented_example() -> None:
    """The example in sequence_mask's description (transform.cc): lengths [2, 3], mask 0.1."""
    x = np.arange(1, 19, dtype=np.float32).reshape(3, 2, 3)
    expected = x.copy()
    expected[2, 0] = 0.1
    same(FAMILY.run("sequence_mask", x, np.array([2, 3], np.int32), mask_value=0.1), expected)


def test_lengths_from_constants_without_metadata() -> None:
    """Their shape follows from the data; their dtype is taken to be int32."""
    assert FAMILY.result_type("reverse_sequence(%a, meta[relay.Constant][0])", [T("(4, 3)")]) == T("(4, 3)")
    assert FAMILY.result_type("sequence_mask(%a, meta[relay.Constant][0], axis=1)", [T("(4, 3)")]) == T("(4, 3)")


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
