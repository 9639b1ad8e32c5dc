"""`einsum`: result types for the equations of TVM's own tests, rejections,
the kernel against PyTorch.

Rules: src/relay/op/tensor/math.cc (EinsumRel), src/topi/einsum.cc
(EinsumEquation::FromString, EinsumBuilder::InferShape); cases from
tests/python/topi/test_topi_einsum.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.family import Family, T, same
from tests.reference import torch_reference

FAMILY = Family("einsum")


@pytest.fixture
def torch():
    torch_reference()
    import torch as module

    return module


CASES = [
    ("ii", [(5, 5)], "()"),
    ("ii->i", [(5, 5)], "(5)"),
    ("ij->i", [(5, 5)], "(5)"),
    ("...j->...", [(5, 5)], "(5)"),
    ("...j, j", [(5, 5), (5,)], "(5)"),
    ("..., ...", [(), (2, 3)], "(2, 3)"),
    ("ijk, jil->kl", [(3, 4, 5), (4, 3, 2)], "(5, 2)"),
    ("ij, ij -> i", [(1, 4), (2, 4)], "(2)"),
    ("...ij, ...jk -> ...ik", [(1, 4), (4, 2)], "(1, 2)"),
    ("...ij, ...ik -> ...jk", [(1, 1, 1, 4), (1, 1, 1, 3)], "(1, 1, 4, 3)"),
    ("...ik, ...jk, ...hk -> i...jh", [(3, 4, 4), (1, 5, 3, 8, 4), (2, 5, 3, 6, 4)], "(4, 2, 5, 3, 8, 6)"),
    ("ij,jk->ik", [(2, 3), (3, 4)], "(2, 4)"),
    ("ij,jk,km->im", [(2, 3), (3, 4), (4, 5)], "(2, 5)"),
    ("ba", [(2, 3)], "(3, 2)"),
    ("Ab,bA", [(2, 3), (3, 2)], "()"),
]


def _call(equation: str, n: int) -> str:
    fields = ", ".join(f"%{chr(ord('a') + i)}" for i in range(n)) + ("," if n == 1 else "")
    return f'einsum(({fields}), equation="{equation}")'


@pytest.mark.parametrize("equation, shapes, expected", CASES, ids=[c[0] for c in CASES])
def test_einsum_type(equation: str, shapes: list, expected: str) -> None:
    """InferEinsumShape: implicit mode keeps `...` and the letters used once, sorted;
    sizes 1 broadcast (the equations of test_topi_einsum.py)."""
    types = [T(str(s).replace(",)", ")"), "int32") for s in shapes]
    assert FAMILY.result_type(_call(equation, len(shapes)), types) == T(expected, "int32")


def test_einsum_with_unknown_sizes() -> None:
    """test_einsum_symblic_shape: a size known only at run time stays `?`."""
    assert FAMILY.result_type(_call("ij,jk->ik", 2), [T("(2, ?)"), T("(?, 4)")]) == T("(2, 4)")
    assert FAMILY.result_type(_call("ij,jk->ki", 2), [T("(?, 3)"), T("(3, ?)")]) == T("(?, ?)")


@pytest.mark.parametrize(
    "call, types, code, message, at",
    [
        (
            _call("ij,jk->ik", 2),
            [T("(2, 3)"), T("(4, 4)")],
            "shape-mismatch",
            '`einsum` "ij,jk->ik": `j` has size 3 in operand 0 and 4 in operand 1; they must be equal or one of them 1',
            "(%a, %b)",
        ),
        (
            _call("ijk,jk", 2),
            [T("(2, 3)"), T("(3, 4)")],
            "shape-mismatch",
            '`einsum` "ijk,jk": operand 0 has rank 2, but its subscript `ijk` names 3 axes',
            "(%a, %b)",
        ),
        (
            _call("ij,jk", 1),
            [T("(2, 3)")],
            "shape-mismatch",
            '`einsum` "ij,jk": it has 2 operand subscripts for 1 tensors',
            "(%a,)",
        ),
        (
            _call("ij,jk->il", 2),
            [T("(2, 3)"), T("(3, 4)")],
            "type-mismatch",
            '`einsum`: the equation "ij,jk->il" is not valid: the result names `l`, which no operand has',
            _call("ij,jk->il", 2),
        ),
        (
            _call("i1,jk", 2),
            [T("(2, 3)"), T("(3, 4)")],
            "type-mismatch",
            '`einsum`: the equation "i1,jk" is not valid: `1` is not a letter',
            _call("i1,jk", 2),
        ),
        (
            _call("i->i->i", 1),
            [T("(2)")],
            "type-mismatch",
            '`einsum`: the equation "i->i->i" is not valid: `->` may appear only once',
            _call("i->i->i", 1),
        ),
        (
            _call("...i...", 1),
            [T("(2)")],
            "type-mismatch",
            '`einsum`: the equation "...i..." is not valid: `...` may appear only once in a subscript',
            _call("...i...", 1),
        ),
        (
            _call("ij,jk", 2),
            [T("(2, 3)"), T("(3, 4)", "float16")],
            "type-mismatch",
            "`einsum` needs tensors of one dtype: field 0 is `float32`, field 1 is `float16`",
            "(%a, %b)",
        ),
        (
            'einsum(%a, equation="ii")',
            [T("(2, 2)")],
            "type-mismatch",
            '`einsum` takes a tuple of tensors, e.g. `einsum((%a, %b), equation="ij,jk->ik")`',
            "%a",
        ),
    ],
)
def test_einsum_rejected(call: str, types: list[str], code: str, message: str, at: str) -> None:
    """EinsumEquation::FromString's checks (one arrow, one ellipsis per subscript,
    letters only), EinsumRel's single dtype, and InferShape's operand count,
    ranks and broadcast sizes."""
    d = FAMILY.only_error(call, types)
    assert (d.code, d.message, d.span.text) == (code, message, at)


@pytest.mark.parametrize("equation, shapes, expected", CASES, ids=[c[0] for c in CASES])
def test_einsum_kernel_against_torch(torch, equation: str, shapes: list, expected: str) -> None:
    rng = np.random.default_rng(89)
    operands = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    want = torch.einsum(equation, *[torch.from_numpy(x).double() for x in operands]).numpy().astype(np.float32)
    same(FAMILY.run("einsum", tuple(operands), equation=equation), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_einsum_integers_keep_their_dtype(torch, dtype: str) -> None:
    rng = np.random.default_rng(97)
    a, b = rng.integers(-9, 9, (3, 4)).astype(dtype), rng.integers(-9, 9, (4, 5)).astype(dtype)
    same(
        FAMILY.run("einsum", (a, b), equation="ij,jk->ik"),
        torch.einsum("ij,jk->ik", torch.from_numpy(a), torch.from_numpy(b)).numpy(),
    )


def test_einsum_of_bools_is_or_of_and() -> None:
    a = np.array([[True, False], [False, False]])
    b = np.array([[False, True], [True, True]])
    same(FAMILY.run("einsum", (a, b), equation="ij,jk->ik"), np.array([[False, True], [False, False]]))


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
