"""`auto_scheduler_layout_transform`, `meta_schedule_layout_transform`: result
types, rejections, kernels against element-by-element loops.

Rules: src/relay/op/tensor/transform.cc (AutoSchedulerLayoutTransformRel,
MetaScheduleLayoutTransformRel); semantics: include/tvm/topi/transform.h
(parse_auto_scheduler_layout, auto_scheduler_layout_transform,
meta_schedule_layout_transform) and src/tir/ir/index_map.cc (MapShape).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from relay_text.ops import KernelError
from tests.ops.family import Family, T, same

FAMILY = Family("auto_scheduler_layout_transform", "meta_schedule_layout_transform")


# ---------------------------------------------------------------- auto_scheduler_layout_transform


def _auto(src: str, dst: str) -> str:
    return f'auto_scheduler_layout_transform(%a, src_layout="{src}", dst_layout="{dst}")'


@pytest.mark.parametrize(
    "shape, src, dst, expected",
    [
        ("(1, 32, 4, 4)", "1N32C4H4W", "1N2C4H4W16C", "(1, 2, 4, 4, 16)"),
        ("(64, 3, 3, 32)", "64n3h3w32c", "4c3h16n3w8c4n", "(4, 3, 16, 3, 8, 4)"),
        ("(?, 8)", "4N8C", "8C4N", "(8, 4)"),
    ],
)
def test_auto_scheduler_layout_transform_type(shape: str, src: str, dst: str, expected: str) -> None:
    """The sizes written in dst_layout (AutoSchedulerLayoutTransformRel with
    parse_auto_scheduler_layout: names are runs of letters, so digits end
    them; the first layouts are those of the attribute's description in
    include/tvm/relay/attrs/transform.h, with one C)."""
    assert FAMILY.result_type(_auto(src, dst), [T(shape, "int8")]) == T(expected, "int8")


@pytest.mark.parametrize(
    "src, dst, code, message, at",
    [
        (
            "1N32C4H4W",
            "1N2C4H4W32C",
            "shape-mismatch",
            (
                "`auto_scheduler_layout_transform`: the axes `C` of dst_layout cover 64 positions, but axis 1 "
                "of the data has 32"
            ),
            "%a",
        ),
        (
            "1N32C4H",
            "1N32C4H",
            "shape-mismatch",
            '`auto_scheduler_layout_transform`: the data has rank 4, but src_layout "1N32C4H" names 3 axes',
            "%a",
        ),
        (
            "N32C4H4W",
            "1N32C4H4W",
            "type-mismatch",
            '`auto_scheduler_layout_transform`: "N32C4H4W" is not a layout of size-name pairs such as "1N32C112H112W"',
            None,
        ),
        (
            "1N32C4H4W",
            "1N32C4H4W2",
            "type-mismatch",
            (
                '`auto_scheduler_layout_transform`: "1N32C4H4W2" is not a layout of size-name pairs such as '
                '"1N32C112H112W"'
            ),
            None,
        ),
    ],
)
def test_auto_scheduler_layout_transform_rejected(src: str, dst: str, code: str, message: str, at) -> None:
    """The kernel indexes the data with one coordinate per name of src_layout and
    reads no further than the split sizes reach (topi's
    auto_scheduler_layout_transform); layouts are size-name pairs."""
    call = _auto(src, dst)
    d = FAMILY.only_error(call, [T("(1, 32, 4, 4)")])
    assert (d.code, d.message, d.span.text) == (code, message, at or call)


def _auto_loops(data: np.ndarray, src_names: list, dst_sizes: list, dst_names: list) -> np.ndarray:
    """topi::auto_scheduler_layout_transform, one element at a time."""
    out = np.zeros(dst_sizes, data.dtype)
    for pos in itertools.product(*map(range, dst_sizes)):
        coords = []
        for name in src_names:
            c = 0
            for size, other, p in zip(dst_sizes, dst_names, pos, strict=False):
                if other == name:
                    c = c * size + p
            coords.append(c)
        out[pos] = data[tuple(coords)]
    return out


@pytest.mark.parametrize(
    "shape, src, dst, src_names, dst_sizes, dst_names",
    [
        ((1, 32, 2, 2), "1N32C2H2W", "1N2C2H2W16C", ["N", "C", "H", "W"], [1, 2, 2, 2, 16], ["N", "C", "H", "W", "C"]),
        ((6, 4), "6ab4cd", "2cd3ab2cd2ab", ["ab", "cd"], [2, 3, 2, 2], ["cd", "ab", "cd", "ab"]),
        ((3, 4), "3a4b", "2c3a2b", ["a", "b"], [2, 3, 2], ["c", "a", "b"]),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_auto_scheduler_layout_transform_kernel_against_loops(
    shape, src, dst, src_names, dst_sizes, dst_names, dtype
) -> None:
    """Splits outer-first, names the source lacks repeat the data (the third case),
    a split covering part of an axis reads its start (b: 2 of 4)."""
    data = (np.random.default_rng(101).standard_normal(shape) * 9).astype(dtype)
    out = FAMILY.run("auto_scheduler_layout_transform", data, src_layout=src, dst_layout=dst)
    same(out, _auto_loops(data, src_names, dst_sizes, dst_names))


def test_auto_scheduler_layout_transform_is_a_blocking() -> None:
    """NCHW to N(C/16)HW16c by names: a reshape and a transpose."""
    data = np.arange(1 * 32 * 2 * 2, dtype=np.float32).reshape(1, 32, 2, 2)
    out = FAMILY.run("auto_scheduler_layout_transform", data, src_layout="1N32C2H2W", dst_layout="1N2C2H2W16C")
    same(out, data.reshape(1, 2, 16, 2, 2).transpose(0, 1, 3, 4, 2))


# ---------------------------------------------------------------- meta_schedule_layout_transform


def _meta(index_map: str) -> str:
    return f'meta_schedule_layout_transform(%a, index_map="{index_map}")'


@pytest.mark.parametrize(
    "shape, index_map, expected",
    [
        ("(32, 64)", "lambda i, j: (i // 4, j // 16, i % 4, j % 16)", "(8, 4, 4, 16)"),
        ("(3, 5)", "T.index_map(lambda i, j: (j, i))", "(5, 3)"),
        ("(3, 4)", "lambda i, j: (i * 4 + j,)", "(12)"),
        ("(2, 3, 4)", "lambda n, c, w: (c, n * 4 + w)", "(3, 8)"),
        ("(3, ?)", "lambda i, j: (j, i)", "(?, 3)"),
    ],
)
def test_meta_schedule_layout_transform_type(shape: str, index_map: str, expected: str) -> None:
    """Each output coordinate's range over the data (IndexMapNode::MapShape; the
    first map is the example of topi's meta_schedule_layout_transform)."""
    assert FAMILY.result_type(_meta(index_map), [T(shape, "uint8")]) == T(expected, "uint8")


def test_meta_schedule_layout_transform_with_a_metadata_map() -> None:
    """A map in the metadata is not read: the result's shape is left open."""
    assert (
        FAMILY.result_type("meta_schedule_layout_transform(%a, index_map=meta[IndexMap][0])", [T("(32, 64)")])
        == "Tensor[a, float32]"
    )
    with pytest.raises(KernelError) as err:
        FAMILY.run("meta_schedule_layout_transform", np.zeros((2, 2), np.float32), index_map=_metaref())
    assert err.value.message.startswith(
        "meta_schedule_layout_transform: the index map meta[IndexMap][0] is a TIR object"
    )


def _metaref():
    from relay_text.ir.expr import MetaRef

    return MetaRef("IndexMap", 0)


@pytest.mark.parametrize(
    "index_map, code, message, at",
    [
        (
            "lambda i, j: (i - 1, j)",
            "shape-mismatch",
            (
                "`meta_schedule_layout_transform`: output coordinate 0 ranges from -1, not from 0 on data of "
                "shape (32, 64)"
            ),
            "%a",
        ),
        (
            "lambda i: (i, 0)",
            "shape-mismatch",
            "`meta_schedule_layout_transform`: the index map takes 1 coordinates, but the data has rank 2",
            "%a",
        ),
        (
            "lambda i, j: (i // j, 0)",
            "type-mismatch",
            (
                'attribute `index_map` takes an index map: `meta[IndexMap][0]`, or a string such as "lambda i, '
                'j: (i // 4, j % 4)"'
            ),
            "index_map",
        ),
    ],
)
def test_meta_schedule_layout_transform_rejected(index_map: str, code: str, message: str, at: str) -> None:
    """MapShape requires each output range to start at 0 and as many coordinates
    as the data has axes; maps divide by positive constants."""
    d = FAMILY.only_error(_meta(index_map), [T("(32, 64)")])
    assert (d.code, d.message, d.span.text) == (code, message, at)


@pytest.mark.parametrize(
    "shape, index_map, fn",
    [
        ((32, 64), "lambda i, j: (i // 4, j // 16, i % 4, j % 16)", lambda i, j: (i // 4, j // 16, i % 4, j % 16)),
        ((3, 5), "lambda i, j: (j, i)", lambda i, j: (j, i)),
        ((2, 3, 4), "lambda n, c, w: (c, n * 4 + w)", lambda n, c, w: (c, n * 4 + w)),
        ((6,), "lambda i: (i % 3, i // 3)", lambda i: (i % 3, i // 3)),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_meta_schedule_layout_transform_kernel_against_loops(shape, index_map, fn, dtype) -> None:
    """Element (i, ...) of the data lands at map(i, ...): the inverse map that
    topi's kernel reads through."""
    data = (np.random.default_rng(103).standard_normal(shape) * 9).astype(dtype)
    out = FAMILY.run("meta_schedule_layout_transform", data, index_map=index_map)
    expected = np.zeros(out.shape, dtype)
    for pos in itertools.product(*map(range, shape)):
        expected[fn(*pos)] = data[pos]
    same(out, expected)


def test_meta_schedule_layout_transform_needs_a_bijection() -> None:
    """topi inverts the map; one that folds two elements onto one position has no inverse."""
    with pytest.raises(KernelError) as err:
        FAMILY.run("meta_schedule_layout_transform", np.zeros((4, 3), np.float32), index_map="lambda i, j: (i % 2, j)")
    assert (
        err.value.message
        == "meta_schedule_layout_transform: the index map does not move the 12 elements one to one onto (2, 3)"
    )


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
