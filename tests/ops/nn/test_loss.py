"""Losses and the FIFO buffer: `nn.cross_entropy`, `nn.cross_entropy_with_logits`,
`nn.nll_loss`, `nn.fifo_buffer`. Result types from TVM's tests, rejected
calls, kernels against PyTorch, hand-computed values and TOPI's index
formula (python/tvm/topi/nn/fifo_buffer.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("nn.cross_entropy", "nn.cross_entropy_with_logits", "nn.nll_loss", "nn.fifo_buffer")


def torch():
    torch_reference()  # skips without PyTorch
    import torch as t

    return t


RESULTS = [
    # tests/python/relay/test_op_grad_level10.py: a scalar of the predictions' dtype
    ("nn.cross_entropy(%a, %b)", [T("(5, 4)"), T("(5, 4)")], T("()")),
    ("nn.cross_entropy_with_logits(%a, %b)", [T("(5, 4)", "float64"), T("(5, 4)", "float64")], T("()", "float64")),
    ("nn.cross_entropy_with_logits(%a, %b)", [T("(5, 4)", "int32"), T("(5, 4)", "int32")], T("()", "int32")),
    # tests/python/relay/test_op_level10.py test_nll_loss
    ("nn.nll_loss(%a, %b, %c, ignore_index=-100)", [T("(10, 5)"), T("(10)", "int32"), T("(5)")], T("()")),
    (
        'nn.nll_loss(%a, %b, %c, reduction="none", ignore_index=-100)',
        [T("(10, 5, 2, 2)"), T("(10, 2, 2)", "int32"), T("(5)")],
        T("(10, 2, 2)"),
    ),
    (
        'nn.nll_loss(%a, %b, %c, reduction="sum", ignore_index=3)',
        [T("(10, 5)", "float64"), T("(10)", "int64"), T("(5)", "float64")],
        T("()", "float64"),
    ),
    # tests/python/topi/test_fifo_buffer.py: the buffer's type
    ("nn.fifo_buffer(%a, %b, axis=1)", [T("(7, 2, 7)"), T("(7, 7, 7)")], T("(7, 7, 7)")),
    ("nn.fifo_buffer(%a, %b)", [T("(2)", "int8"), T("(7)", "int8")], T("(7)", "int8")),
    ("nn.fifo_buffer(%a, %b, axis=-1)", [T("(3, 1)", "bool"), T("(3, 4)", "bool")], T("(3, 4)", "bool")),
]


@pytest.mark.parametrize("call, types, expected", RESULTS, ids=[c[0] for c in RESULTS])
def test_result_types(call: str, types: list[str], expected: str) -> None:
    """CrossEntropyRel, NLLLossRel (the targets' shape with reduction="none", else a scalar) and
    FIFOBufferRel, src/relay/op/nn/nn.cc."""
    assert FAMILY.result_type(call, types) == expected


ERRORS = [
    (
        "nn.cross_entropy(%a, %b)",
        [T("(5, 4)"), T("(5, 3)")],
        "shape-mismatch",
        "`nn.cross_entropy`: the predictions have 4 classes (axis 1) but the targets have 3",
        "%b",
    ),
    (
        "nn.cross_entropy(%a, %b)",
        [T("(5, 4, 1)"), T("(5, 4, 1)")],
        "shape-mismatch",
        "`nn.cross_entropy` takes (batch, classes) tensors, found (5, 4, 1)",
        "%a",
    ),
    (
        "nn.cross_entropy(%a, %b)",
        [T("(5, 4)", "int32"), T("(5, 4)", "int32")],
        "type-mismatch",
        "`nn.cross_entropy` takes a floating-point tensor, found `int32`",
        "%a",
    ),
    (
        "nn.cross_entropy_with_logits(%a, %b)",
        [T("(5, 4)", "bool"), T("(5, 4)", "bool")],
        "type-mismatch",
        "`nn.cross_entropy_with_logits` takes numbers, not bool",
        "%a",
    ),
    (
        "nn.cross_entropy_with_logits(%a, %b)",
        [T("(5, 4)"), T("(5, 4)", "float16")],
        "type-mismatch",
        "`nn.cross_entropy_with_logits` needs operands of one dtype, found `float32` and `float16`",
        "%b",
    ),
    (
        "nn.nll_loss(%a, %b, %c, ignore_index=-1)",
        [T("(10, 5)"), T("(10)", "float32"), T("(5)")],
        "type-mismatch",
        "`nn.nll_loss` takes targets of a signed integer dtype, found `float32`",
        "%b",
    ),
    (
        "nn.nll_loss(%a, %b, %c, ignore_index=-1)",
        [T("(10, 5)", "int32"), T("(10)", "int32"), T("(5)", "int32")],
        "type-mismatch",
        "`nn.nll_loss` takes a floating-point tensor, found `int32`",
        "%a",
    ),
    (
        "nn.nll_loss(%a, %b, %c, ignore_index=-1)",
        [T("(10, 5)"), T("(10)", "int32"), T("(4)")],
        "shape-mismatch",
        "`nn.nll_loss`: the predictions have 5 classes (axis 1) but there are 4 weights",
        "%c",
    ),
    (
        "nn.nll_loss(%a, %b, %c, ignore_index=-1)",
        [T("(10, 5, 3)"), T("(10, 4)", "int32"), T("(5)")],
        "shape-mismatch",
        "`nn.nll_loss`: targets of shape (10, 4) do not match predictions of shape (10, 5, 3)",
        "%b",
    ),
    (
        'nn.nll_loss(%a, %b, %c, reduction="max", ignore_index=-1)',
        [T("(10, 5)"), T("(10)", "int32"), T("(5)")],
        "type-mismatch",
        '`nn.nll_loss` reduction must be "none", "mean" or "sum", found "max"',
        None,
    ),
    (
        "nn.fifo_buffer(%a, %b, axis=1)",
        [T("(7, 7, 7)"), T("(7, 7, 7)")],
        "shape-mismatch",
        "`nn.fifo_buffer`: the data (7 along axis 1) must be shorter than the buffer (7)",
        "%a",
    ),
    (
        "nn.fifo_buffer(%a, %b, axis=1)",
        [T("(6, 2, 7)"), T("(7, 7, 7)")],
        "shape-mismatch",
        "`nn.fifo_buffer`: axis 0 has size 6 in the data but 7 in the buffer",
        "%a",
    ),
    (
        "nn.fifo_buffer(%a, %b)",
        [T("(2, 7)"), T("(7)")],
        "shape-mismatch",
        "`nn.fifo_buffer`: the data has rank 2 but the buffer has rank 1",
        "%a",
    ),
    (
        "nn.fifo_buffer(%a, %b, axis=3)",
        [T("(2, 7)"), T("(4, 7)")],
        "shape-mismatch",
        "axis 3 is out of range for a tensor of rank 2",
        "%a",
    ),
]


@pytest.mark.parametrize("call, types, code, message, at", ERRORS, ids=[e[0] for e in ERRORS])
def test_rejections(call: str, types: list[str], code: str, message: str, at: str | None) -> None:
    """NLLLossRel: float predictions and weights of one dtype, int targets, C weights;
    FIFOBufferRel: equal ranks, the data strictly shorter along axis, equal elsewhere."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message) == (code, message)
    assert d.span.text == (at or call)


def test_nll_loss_needs_ignore_index() -> None:
    """NLLLossAttrs gives ignore_index no default."""
    d = FAMILY.only_error("nn.nll_loss(%a, %b, %c)", [T("(10, 5)"), T("(10)", "int32"), T("(5)")])
    assert (d.code, d.message) == ("missing-attribute", "`nn.nll_loss` needs the attribute `ignore_index`")


# ---------------------------------------------------------------- cross entropy


def test_cross_entropy_against_torch() -> None:
    """compute_cross_entropy(_with_logits), python/tvm/relay/op/nn/_nn.py:
    -sum(log(x) * y) / batch and -sum(x * y) / batch."""
    t = torch()
    g = np.random.default_rng(0)
    x = (g.random((6, 4)) + 0.05).astype(np.float32)
    y = g.random((6, 4)).astype(np.float32)
    xt, yt = t.from_numpy(x).double(), t.from_numpy(y).double()
    same(FAMILY.run("nn.cross_entropy", x, y), np.float32(-(t.log(xt) * yt).sum() / 6), rtol=1e-6)
    same(FAMILY.run("nn.cross_entropy_with_logits", x, y), np.float32(-(xt * yt).sum() / 6), rtol=1e-6)
    # with log-probabilities it is PyTorch's cross entropy with probability targets, averaged over the batch
    logits = g.standard_normal((6, 4))
    targets = g.random((6, 4))
    targets /= targets.sum(axis=1, keepdims=True)
    logp = t.log_softmax(t.from_numpy(logits), dim=1).numpy()
    ref = t.nn.functional.cross_entropy(t.from_numpy(logits), t.from_numpy(targets)).numpy()
    same(FAMILY.run("nn.cross_entropy_with_logits", logp, targets), ref, rtol=1e-12, atol=1e-12)


def test_cross_entropy_with_logits_on_integers_by_hand() -> None:
    """The integer sum divides by the batch truncating toward zero: -(1 + 2 + 4) / 2 is -3."""
    x = np.array([[1, 2], [3, 4]], dtype=np.int32)
    y = np.array([[1, 1], [0, 1]], dtype=np.int32)
    same(FAMILY.run("nn.cross_entropy_with_logits", x, y), np.array(-3, np.int32))
    with pytest.raises(KernelError, match="the batch is empty"):
        FAMILY.run("nn.cross_entropy_with_logits", np.zeros((0, 2), np.int32), np.zeros((0, 2), np.int32))


# ---------------------------------------------------------------- nll loss


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(10, 5), (4, 5, 2, 3)])
def test_nll_loss_against_torch(reduction: str, shape: tuple) -> None:
    """include/tvm/topi/nn.h nll_loss: mean divides by the sum of the targets' weights."""
    t = torch()
    g = np.random.default_rng(1)
    pred = g.standard_normal(shape).astype(np.float32)
    targets = g.integers(0, shape[1], (shape[0], *shape[2:])).astype(np.int32)
    targets.flat[::3] = 2  # some ignored
    weights = g.random(shape[1]).astype(np.float32)
    ref = t.nn.functional.nll_loss(
        t.from_numpy(pred),
        t.from_numpy(targets.astype(np.int64)),
        weight=t.from_numpy(weights),
        ignore_index=2,
        reduction=reduction,
    ).numpy()
    got = FAMILY.run("nn.nll_loss", pred, targets, weights, reduction=reduction, ignore_index=2)
    same(got, ref, rtol=1e-6, atol=1e-6)


def test_nll_loss_by_hand_and_out_of_range_targets() -> None:
    pred = np.array([[0.5, 1.5, 2.5], [-1.0, 4.0, 8.0]], dtype=np.float64)
    weights = np.array([1.0, 2.0, 3.0])
    targets = np.array([1, 0], dtype=np.int64)
    # -(1.5 * 2) and -(-1.0 * 1): mean = (-3 + 1) / (2 + 1)
    same(FAMILY.run("nn.nll_loss", pred, targets, weights, ignore_index=-100), np.array(-2 / 3))
    same(
        FAMILY.run("nn.nll_loss", pred, np.array([5, 2], np.int64), weights, reduction="none", ignore_index=5),
        np.array([0.0, -24.0]),
    )
    with pytest.raises(KernelError, match="target 3 is outside the 3 classes"):
        FAMILY.run("nn.nll_loss", pred, np.array([3, 0], np.int64), weights, ignore_index=-100)


# ---------------------------------------------------------------- fifo buffer


def loop_fifo(data, buffer, axis):
    """fifo_buffer (TOPI): out[i] = buffer[i + L] for i < B - L, else data[i - (B - L)], along axis."""
    out = np.empty_like(buffer)
    b_len, d_len = buffer.shape[axis], data.shape[axis]
    for index in itertools.product(*(range(n) for n in buffer.shape)):
        i = index[axis]
        if i < b_len - d_len:
            out[index] = buffer[(*index[:axis], i + d_len, *index[axis + 1 :])]
        else:
            out[index] = data[(*index[:axis], i - (b_len - d_len), *index[axis + 1 :])]
    return out


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_fifo_buffer_against_loops(axis: int) -> None:
    g = np.random.default_rng(2)
    buffer = g.standard_normal((4, 5, 6)).astype(np.float32)
    shape = list(buffer.shape)
    shape[axis] = 2
    data = g.standard_normal(shape).astype(np.float32)
    same(FAMILY.run("nn.fifo_buffer", data, buffer, axis=axis), loop_fifo(data, buffer, axis % 3))


def test_fifo_buffer_by_hand() -> None:
    buffer = np.array([1, 2, 3, 4, 5], dtype=np.int16)
    same(FAMILY.run("nn.fifo_buffer", np.array([6, 7], np.int16), buffer), np.array([3, 4, 5, 6, 7], np.int16))
    flags = np.array([[True, False, False]])
    same(FAMILY.run("nn.fifo_buffer", np.array([[True]]), flags, axis=1), np.array([[False, False, True]]))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
