"""The registry: lookup, attribute schemas, the lazy numpy import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from relay_text.ops import all_ops, get, names
from relay_text.ops.registry import REQUIRED, Attr, AttrError


def test_lookup() -> None:
    conv = get("nn.conv2d")
    assert conv is not None and conv.name == "nn.conv2d" and conv.inputs == 2
    assert get("no_such_op") is None
    assert names() == sorted(names())
    assert [op.name for op in all_ops()] == names()


def test_every_operator_is_one_complete_unit() -> None:
    """Catches an operator registered without a piece of its unit: e.g.
    `@register("nn.hardswish", inputs=1, relation=None, ...)` (no type
    relation: the checker could not type a call), a kernel that is not
    callable, no one-line `doc` for `relay explain` and hover, or an
    attribute schema out of step with its attribute list."""
    for op in all_ops():
        assert op.doc and op.doc.endswith("."), op.name
        assert callable(op.relation) and callable(op.kernel), op.name
        assert {a.name for a in op.attrs} == set(op.schema), op.name


def test_defaults_follow_tvm() -> None:
    conv = get("nn.conv2d")
    attrs, problems = conv.normalize_attrs([])
    assert not problems
    assert attrs == {
        "strides": (1, 1),
        "padding": (0, 0),
        "dilation": (1, 1),
        "groups": 1,
        "channels": None,
        "kernel_size": None,
        "data_layout": "NCHW",
        "kernel_layout": "OIHW",
        "out_layout": "",
        "out_dtype": "",
    }
    assert get("nn.batch_norm").normalize_attrs([])[0] == {"axis": 1, "epsilon": 1e-5, "center": True, "scale": True}
    assert (
        get("nn.batch_matmul").normalize_attrs([])[0]["transpose_b"] is False
    )  # BatchMatmulAttrs: false in C++ (True is only the Python wrapper default)
    assert get("take").normalize_attrs([])[0]["mode"] == "clip"
    assert get("nn.softmax").normalize_attrs([])[0]["axis"] == -1


def test_normal_forms() -> None:
    s = get("sum")
    attrs, problems = s.normalize_attrs([("axis", 1), ("keepdims", 1)])
    assert not problems and attrs["axis"] == (1,) and attrs["keepdims"] is True
    attrs, _ = get("split").normalize_attrs([("indices_or_sections", 3)])
    assert attrs["indices_or_sections"] == 3
    attrs, _ = get("split").normalize_attrs([("indices_or_sections", [1, 2])])
    assert attrs["indices_or_sections"] == (1, 2)
    attrs, _ = get("nn.dense").normalize_attrs([("units", None)])
    assert attrs["units"] is None


def test_problems_are_reported_per_key() -> None:
    _attrs, problems = get("sum").normalize_attrs([("axes", (1,)), ("keepdims", "yes")])
    assert [(p.key, p.message) for p in problems] == [
        ("axes", "`sum` has no attribute `axes`"),
        ("keepdims", "attribute `keepdims` takes True or False"),
    ]
    _, problems = get("reshape").normalize_attrs([])
    assert [(p.key, p.message) for p in problems] == [("", "`reshape` needs the attribute `newshape`")]
    _, problems = get("cast").normalize_attrs([("dtype", "flaot32")])
    assert [p.message for p in problems] == ['`"flaot32"` is not a dtype']
    # an integer beyond the largest float64 where a float is expected
    _, problems = get("nn.dropout").normalize_attrs([("rate", 10**400)])
    assert [(p.key, p.message) for p in problems] == [("rate", "attribute `rate` is too large for a float")]
    _, problems = get("image.resize2d").normalize_attrs([("size", (2, 2)), ("roi", (0, 10**400))])
    assert [(p.key, p.message) for p in problems] == [("roi", "attribute `roi` is too large for a float")]


@pytest.mark.parametrize(
    "kind, good, bad",
    [
        ("int", [3, -1], [True, 1.5, "3", None]),
        ("float", [1, 2.5], [True, "x", 10**400]),
        ("floats", [(1, 2.5), 3], [(10**400,), "x"]),
        ("bool", [True, False, 0, 1], [2, "True"]),
        ("str", ["NCHW"], [1]),
        ("dtype", ["float32", "int8x4"], ["flaot32", "float8", 3]),
        ("ints", [(1, 2), 3, ()], [(1.5,), "x", None]),
        ("opt_ints", [None, (1,)], ["x"]),
        ("opt_int", [None, 4], [(1,)]),
        ("opt_dtype", ["", "bool", None], ["boolean"]),
    ],
)
def test_attribute_kinds(kind: str, good: list, bad: list) -> None:
    attr = Attr("k", kind)
    for value in good:
        attr.convert(value)
    for value in bad:
        with pytest.raises(AttrError):
            attr.convert(value)
    assert Attr("k", kind).default is REQUIRED


def test_checking_a_file_does_not_import_numpy(tmp_path) -> None:
    src = tmp_path / "m.rly"
    src.write_text(
        "def @main(%x : Tensor[(2, 3), float32]) { nn.relu(nn.dense(%x, meta[relay.Constant][0], units=4)) }\n"
    )
    code = (
        "import sys\n"
        "from relay_text.pipeline import check_source\n"
        "from relay_text.ir.span import Source\n"
        f"r = check_source(Source('m', open({str(src)!r}).read()))\n"
        "assert not r.errors, [str(d) for d in r.diagnostics]\n"
        "assert 'numpy' not in sys.modules, 'numpy was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
