"""Every operator's type relation: the result type, and what it rejects.

Each case is a call with typed inputs `%a`, `%b`, ... and the type the call
must have, or the diagnostic code it must produce.
"""

from __future__ import annotations

import pytest

from relay_text.ops import names
from relay_text.pipeline import check_source
from relay_text.ir.span import Source
from relay_text.text.type_text import type_text

F = "float32"


def T(shape: str, dtype: str = F) -> str:
    return f"Tensor[{shape}, {dtype}]"


# (call, input types, expected result type)
CASES = [
    # elementwise binary, numpy broadcasting
    ("add(%a, %b)", [T("(2, 3)"), T("(3)")], T("(2, 3)")),
    ("add(%a, %b)", [T("(4, 1, 3)"), T("(5, 1)")], T("(4, 5, 3)")),
    ("subtract(%a, %b)", [T("()"), T("(7)")], T("(7)")),
    ("multiply(%a, %b)", [T("(2, 1)"), T("(1, 2)")], T("(2, 2)")),
    ("divide(%a, %b)", [T("(3)", "int32"), T("()", "int32")], T("(3)", "int32")),
    ("floor_divide(%a, %b)", [T("(3)"), T("(3)")], T("(3)")),
    ("mod(%a, %b)", [T("(3)", "int64"), T("(1)", "int64")], T("(3)", "int64")),
    ("floor_mod(%a, %b)", [T("(3)"), T("(3)")], T("(3)")),
    ("power(%a, %b)", [T("(2, 2)"), T("()")], T("(2, 2)")),
    ("maximum(%a, %b)", [T("(2)"), T("(2)")], T("(2)")),
    ("minimum(%a, %b)", [T("(2)"), T("(2)")], T("(2)")),
    # comparisons give bool
    ("equal(%a, %b)", [T("(2, 3)"), T("(3)")], T("(2, 3)", "bool")),
    ("not_equal(%a, %b)", [T("(2)"), T("()")], T("(2)", "bool")),
    ("less(%a, %b)", [T("(2)", "int32"), T("(2)", "int32")], T("(2)", "bool")),
    ("less_equal(%a, %b)", [T("()"), T("()")], T("()", "bool")),
    ("greater(%a, %b)", [T("(1, 4)"), T("(3, 1)")], T("(3, 4)", "bool")),
    ("greater_equal(%a, %b)", [T("(2)"), T("(2)")], T("(2)", "bool")),
    # logic
    ("logical_and(%a, %b)", [T("(2)", "bool"), T("()", "bool")], T("(2)", "bool")),
    ("logical_or(%a, %b)", [T("(2)", "bool"), T("(2)", "bool")], T("(2)", "bool")),
    ("logical_xor(%a, %b)", [T("(2)", "bool"), T("(2)", "bool")], T("(2)", "bool")),
    ("logical_not(%a)", [T("(5)", "bool")], T("(5)", "bool")),
    # unary
    ("negative(%a)", [T("(3)", "int8")], T("(3)", "int8")),
    ("abs(%a)", [T("(3)")], T("(3)")),
    ("sign(%a)", [T("(3)")], T("(3)")),
    ("copy(%a)", [T("(3)")], T("(3)")),
    ("zeros_like(%a)", [T("(3)", "int32")], T("(3)", "int32")),
    ("ones_like(%a)", [T("(3)")], T("(3)")),
    ("exp(%a)", [T("(2, 2)")], T("(2, 2)")),
    ("log(%a)", [T("(2)")], T("(2)")),
    ("log2(%a)", [T("(2)")], T("(2)")),
    ("log10(%a)", [T("(2)")], T("(2)")),
    ("sqrt(%a)", [T("(2)", "float64")], T("(2)", "float64")),
    ("rsqrt(%a)", [T("(2)")], T("(2)")),
    ("tanh(%a)", [T("(2)")], T("(2)")),
    ("sigmoid(%a)", [T("(2)")], T("(2)")),
    ("sin(%a)", [T("(2)")], T("(2)")),
    ("cos(%a)", [T("(2)")], T("(2)")),
    ("tan(%a)", [T("(2)")], T("(2)")),
    ("floor(%a)", [T("(2)")], T("(2)")),
    ("ceil(%a)", [T("(2)")], T("(2)")),
    ("round(%a)", [T("(2)")], T("(2)")),
    ("trunc(%a)", [T("(2)")], T("(2)")),
    # selection, clipping, casts
    ("where(%a, %b, %c)", [T("(2, 1)", "bool"), T("(3)"), T("()")], T("(2, 3)")),
    ("clip(%a, a_min=0, a_max=6)", [T("(4)")], T("(4)")),
    ('cast(%a, dtype="int8")', [T("(4)")], T("(4)", "int8")),
    ("cast_like(%a, %b)", [T("(4)"), T("()", "float16")], T("(4)", "float16")),
    # reductions
    ("sum(%a)", [T("(2, 3)")], T("()")),
    ("sum(%a, axis=[1])", [T("(2, 3)")], T("(2)")),
    ("sum(%a, axis=[-1], keepdims=True)", [T("(2, 3)")], T("(2, 1)")),
    ("sum(%a, axis=[0], exclude=True)", [T("(2, 3, 4)")], T("(2)")),
    ("mean(%a, axis=[-1], keepdims=True)", [T("(1, 50, 768)")], T("(1, 50, 1)")),
    ("max(%a, axis=[0])", [T("(2, 3)")], T("(3)")),
    ("min(%a, axis=[0, 1])", [T("(2, 3)")], T("()")),
    ("prod(%a, axis=1)", [T("(2, 3)")], T("(2)")),
    ("all(%a)", [T("(2, 3)", "bool")], T("()", "bool")),
    ("any(%a, axis=[1])", [T("(2, 3)", "bool")], T("(2)", "bool")),
    ("argmax(%a, axis=[0])", [T("(2, 1)", "float64")], T("(1)", "int32")),
    ("argmin(%a, axis=[1], keepdims=True)", [T("(2, 5)")], T("(2, 1)", "int32")),
    # shapes
    ("reshape(%a, newshape=[3, 4])", [T("(2, 6)")], T("(3, 4)")),
    ("reshape(%a, newshape=[-1, 32])", [T("(1, 50, 32)", "int64")], T("(50, 32)", "int64")),
    ("reshape(%a, newshape=[0, -1])", [T("(2, 3, 4)")], T("(2, 12)")),
    ("reshape(%a, newshape=[-2])", [T("(2, 3, 4)")], T("(2, 3, 4)")),
    ("reshape(%a, newshape=[-3, 4])", [T("(2, 3, 4)")], T("(6, 4)")),
    ("reshape(%a, newshape=[-4, 2, -1, 4])", [T("(6, 4)")], T("(2, 3, 4)")),
    ("reshape(%a, newshape=[0, -2])", [T("(2, 3, 4)")], T("(2, 3, 4)")),
    ("reshape(%a, newshape=[6, 1, 0])", [T("(2, 3, 4)")], T("(6, 1, 4)")),  # a positive size consumes an input axis too
    ("transpose(%a)", [T("(2, 3, 4)")], T("(4, 3, 2)")),
    ("transpose(%a, axes=[0, 2, 1, 3])", [T("(1, 2, 3, 4)")], T("(1, 3, 2, 4)")),
    ("squeeze(%a)", [T("(1, 3, 1)")], T("(3)")),
    ("squeeze(%a, axis=[0])", [T("(1, 3, 1)")], T("(3, 1)")),
    ("expand_dims(%a, axis=1)", [T("(2, 3)")], T("(2, 1, 3)")),
    ("expand_dims(%a, axis=-1, num_newaxis=2)", [T("(2, 3)")], T("(2, 3, 1, 1)")),
    ("concatenate((%a, %b), axis=1)", [T("(1, 64, 55, 55)"), T("(1, 64, 55, 55)")], T("(1, 128, 55, 55)")),
    ("concatenate((%a, %b))", [T("(2, 3)"), T("(4, 3)")], T("(6, 3)")),
    ("stack((%a, %b), axis=0)", [T("(2, 3)"), T("(2, 3)")], T("(2, 2, 3)")),
    ("stack((%a, %b), axis=-1)", [T("(2)"), T("(2)")], T("(2, 2)")),
    (
        "split(%a, indices_or_sections=[768, 1536], axis=2)",
        [T("(50, 32, 2304)")],
        f"({T('(50, 32, 768)')}, {T('(50, 32, 768)')}, {T('(50, 32, 768)')})",
    ),
    ("split(%a, indices_or_sections=2)", [T("(4, 3)")], f"({T('(2, 3)')}, {T('(2, 3)')})"),
    ("take(%a, %b, axis=0)", [T("(50257, 768)"), T("(50, 32)", "int64")], T("(50, 32, 768)")),
    ("take(%a, %b)", [T("(3, 4)"), T("(5)", "int32")], T("(5)")),
    ("broadcast_to(%a, shape=[2, 1])", [T("(2, 1)", "float64")], T("(2, 1)", "float64")),
    ("broadcast_to(%a, shape=[4, 3])", [T("(3)")], T("(4, 3)")),
    ("zeros(shape=[2, 2])", [], T("(2, 2)")),
    ('ones(shape=[3], dtype="int32")', [], T("(3)", "int32")),
    ("full(%a, shape=[2])", [T("()", "int8")], T("(2)", "int8")),
    ('full(%a, shape=[2], dtype="float64")', [T("()")], T("(2)", "float64")),
    ("full_like(%a, %b)", [T("(3, 3)"), T("()")], T("(3, 3)")),
    # nn
    ("nn.relu(%a)", [T("(1, 8)")], T("(1, 8)")),
    ("nn.leaky_relu(%a, alpha=0.1)", [T("(1, 8)")], T("(1, 8)")),
    ("nn.softmax(%a, axis=3)", [T("(50, 12, 32, 32)")], T("(50, 12, 32, 32)")),
    ("nn.log_softmax(%a)", [T("(1, 10)")], T("(1, 10)")),
    ("nn.dropout(%a)", [T("(1, 10)")], f"({T('(1, 10)')}, {T('(1, 10)')})"),
    ("nn.dense(%a, %b)", [T("(1, 768)"), T("(2304, 768)")], T("(1, 2304)")),
    ("nn.dense(%a, %b, units=10)", [T("(4, 2, 5)"), T("(10, 5)")], T("(4, 2, 10)")),
    (
        'nn.batch_matmul(%a, %b, out_dtype="float32", transpose_b=True)',
        [T("(600, 32, 64)"), T("(600, 32, 64)")],
        T("(600, 32, 32)"),
    ),
    ("nn.batch_matmul(%a, %b, transpose_b=False)", [T("(2, 3, 4)"), T("(1, 4, 5)")], T("(2, 3, 5)")),
    ("nn.batch_matmul(%a, %b, transpose_a=True)", [T("(2, 4, 3)"), T("(2, 4, 5)")], T("(2, 3, 5)")),
    ("nn.bias_add(%a, %b)", [T("(1, 64, 8, 8)"), T("(64)")], T("(1, 64, 8, 8)")),
    ("nn.bias_add(%a, %b, axis=-1)", [T("(2, 5)"), T("(5)")], T("(2, 5)")),
    ("nn.batch_flatten(%a)", [T("(1, 1024, 1, 1)")], T("(1, 1024)")),
    (
        "nn.conv2d(%a, %b, padding=[1, 1], channels=64, kernel_size=[3, 3])",
        [T("(1, 3, 224, 224)"), T("(64, 3, 3, 3)")],
        T("(1, 64, 224, 224)"),
    ),
    (
        "nn.conv2d(%a, %b, strides=[2, 2], padding=[0, 0, 0, 0], kernel_size=[3, 3])",
        [T("(1, 3, 224, 224)"), T("(64, 3, 3, 3)")],
        T("(1, 64, 111, 111)"),
    ),
    (
        "nn.conv2d(%a, %b, padding=[1, 1, 1, 1], groups=32, channels=32, kernel_size=[3, 3])",
        [T("(1, 32, 112, 112)"), T("(32, 1, 3, 3)")],
        T("(1, 32, 112, 112)"),
    ),
    ("nn.conv2d(%a, %b, dilation=[2, 2])", [T("(1, 1, 7, 7)"), T("(1, 1, 3, 3)")], T("(1, 1, 3, 3)")),
    (
        'nn.conv2d(%a, %b, data_layout="NHWC", kernel_layout="HWIO")',
        [T("(1, 8, 8, 3)"), T("(3, 3, 3, 16)")],
        T("(1, 6, 6, 16)"),
    ),
    (
        "nn.batch_norm(%a, %b, %c, %d, %e)",
        [T("(1, 3, 4, 4)")] + [T("(3)")] * 4,
        f"({T('(1, 3, 4, 4)')}, {T('(3)')}, {T('(3)')})",
    ),
    (
        "nn.max_pool2d(%a, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])",
        [T("(1, 64, 112, 112)")],
        T("(1, 64, 56, 56)"),
    ),
    ("nn.max_pool2d(%a, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)", [T("(1, 8, 6, 6)")], T("(1, 8, 3, 3)")),
    ("nn.avg_pool2d(%a, pool_size=[13, 13])", [T("(1, 1000, 13, 13)")], T("(1, 1000, 1, 1)")),
    ("nn.global_avg_pool2d(%a)", [T("(1, 1024, 7, 7)")], T("(1, 1024, 1, 1)")),
    ('nn.global_max_pool2d(%a, layout="NHWC")', [T("(1, 7, 7, 16)")], T("(1, 1, 1, 16)")),
]

# (call, input types, diagnostic code)
ERRORS = [
    ("add(%a, %b)", [T("(2, 3)"), T("(4)")], "shape-mismatch"),
    ("add(%a, %b)", [T("(2)"), T("(2)", "int32")], "type-mismatch"),
    ("add(%a, %b)", [T("(2)"), "(float32, float32)"], "type-mismatch"),
    ("less(%a, %b)", [T("(2)"), T("(3)")], "shape-mismatch"),
    ("subtract(%a, %b)", [T("(2)", "bool"), T("(2)", "bool")], "type-mismatch"),
    ("negative(%a)", [T("(2)", "bool")], "type-mismatch"),
    ("nn.relu(%a)", [T("(2)", "bool")], "type-mismatch"),
    ("nn.softmax(%a)", [T("(2)", "int32")], "type-mismatch"),
    ("nn.max_pool2d(%a, pool_size=[0, 2])", [T("(1, 1, 4, 4)")], "type-mismatch"),
    ("nn.conv2d(%a, %b, padding=[-1, 0])", [T("(1, 3, 8, 8)"), T("(4, 3, 3, 3)")], "type-mismatch"),
    ("squeeze(%a, axis=[0, 0])", [T("(1, 3)")], "type-mismatch"),
    ("full(%a, shape=[-1])", [T("()")], "shape-mismatch"),
    ("broadcast_to(%a, shape=[-1])", [T("()")], "shape-mismatch"),
    ("logical_and(%a, %b)", [T("(2)", "int32"), T("(2)", "bool")], "type-mismatch"),
    ("logical_not(%a)", [T("(2)")], "type-mismatch"),
    ("exp(%a)", ["(Tensor[(2), float32], Tensor[(2), float32])"], "type-mismatch"),
    ("where(%a, %b, %c)", [T("(2)", "bool"), T("(2)"), T("(2)", "int32")], "type-mismatch"),
    ("where(%a, %b, %c)", [T("(2)", "bool"), T("(3)"), T("(3)")], "shape-mismatch"),
    ("clip(%a, a_min=5, a_max=1)", [T("(2)")], "type-mismatch"),
    ('cast(%a, dtype="flaot32")', [T("(2)")], "type-mismatch"),
    ("sum(%a, axis=[2])", [T("(2, 3)")], "shape-mismatch"),
    ("sum(%a, axis=[0, 0])", [T("(2, 3)")], "type-mismatch"),
    ("reshape(%a, newshape=[5])", [T("(2, 3)")], "shape-mismatch"),
    ("reshape(%a, newshape=[-1, -1])", [T("(2, 3)")], "shape-mismatch"),
    ("reshape(%a, newshape=[4, -1])", [T("(2, 3)")], "shape-mismatch"),
    ("reshape(%a, newshape=[-5])", [T("(2, 3)")], "shape-mismatch"),
    ("reshape(%a, newshape=[1, 0, -2])", [T("(2, 3, 4)")], "shape-mismatch"),
    ("transpose(%a, axes=[0, 0])", [T("(2, 3)")], "shape-mismatch"),
    ("transpose(%a, axes=[1])", [T("(2, 3)")], "shape-mismatch"),
    ("squeeze(%a, axis=[1])", [T("(2, 3)")], "shape-mismatch"),
    ("expand_dims(%a, axis=4)", [T("(2, 3)")], "shape-mismatch"),
    ("concatenate(%a)", [T("(2, 3)")], "type-mismatch"),
    ("concatenate((%a, %b), axis=1)", [T("(2, 3)"), T("(4, 3)")], "shape-mismatch"),
    ("concatenate((%a, %b))", [T("(2, 3)"), T("(4, 3)", "int32")], "type-mismatch"),
    ("stack((%a, %b))", [T("(2, 3)"), T("(3, 2)")], "shape-mismatch"),
    ("split(%a, indices_or_sections=4)", [T("(6)")], "shape-mismatch"),
    ("split(%a, indices_or_sections=[4, 2])", [T("(6)")], "shape-mismatch"),
    ("take(%a, %b)", [T("(3)"), T("(2)")], "type-mismatch"),
    ('take(%a, %b, mode="nearest")', [T("(3)"), T("(2)", "int32")], "type-mismatch"),
    ("broadcast_to(%a, shape=[4, 2])", [T("(3)")], "shape-mismatch"),
    ("full(%a, shape=[2])", [T("(2)")], "shape-mismatch"),
    ("nn.softmax(%a, axis=2)", [T("(2, 3)")], "shape-mismatch"),
    ("nn.dropout(%a, rate=1.5)", [T("(2)")], "type-mismatch"),
    ("nn.dense(%a, %b)", [T("(1, 768)"), T("(10, 512)")], "shape-mismatch"),
    ("nn.dense(%a, %b, units=5)", [T("(1, 8)"), T("(10, 8)")], "shape-mismatch"),
    ("nn.dense(%a, %b)", [T("()"), T("(10, 8)")], "shape-mismatch"),
    ("nn.batch_matmul(%a, %b)", [T("(2, 3, 4)"), T("(2, 5, 3)")], "shape-mismatch"),
    ("nn.batch_matmul(%a, %b)", [T("(3, 4)"), T("(5, 4)")], "shape-mismatch"),
    ("nn.bias_add(%a, %b)", [T("(1, 64, 8, 8)"), T("(32)")], "type-mismatch"),
    ("nn.batch_flatten(%a)", [T("()")], "shape-mismatch"),
    ("nn.conv2d(%a, %b)", [T("(1, 3, 8, 8)"), T("(4, 5, 3, 3)")], "shape-mismatch"),
    ("nn.conv2d(%a, %b, channels=8)", [T("(1, 3, 8, 8)"), T("(4, 3, 3, 3)")], "shape-mismatch"),
    ("nn.conv2d(%a, %b, kernel_size=[5, 5])", [T("(1, 3, 8, 8)"), T("(4, 3, 3, 3)")], "shape-mismatch"),
    ("nn.conv2d(%a, %b)", [T("(1, 3, 2, 2)"), T("(4, 3, 3, 3)")], "shape-mismatch"),
    ("nn.conv2d(%a, %b)", [T("(3, 8, 8)"), T("(4, 3, 3, 3)")], "shape-mismatch"),
    ('nn.conv2d(%a, %b, data_layout="NCDHW")', [T("(1, 3, 8, 8)"), T("(4, 3, 3, 3)")], "type-mismatch"),
    ("nn.conv2d(%a, %b, padding=[1, 1, 1])", [T("(1, 3, 8, 8)"), T("(4, 3, 3, 3)")], "type-mismatch"),
    ("nn.batch_norm(%a, %b, %c, %d, %e)", [T("(1, 3, 4, 4)"), T("(4)"), T("(3)"), T("(3)"), T("(3)")], "type-mismatch"),
    ("nn.max_pool2d(%a, pool_size=[5, 5])", [T("(1, 1, 3, 3)")], "shape-mismatch"),
    ("nn.avg_pool2d(%a, pool_size=[2, 2])", [T("(1, 3)")], "shape-mismatch"),
    ("nn.global_avg_pool2d(%a)", [T("(1, 3)")], "shape-mismatch"),
    ("nn.max_pool2d(%a)", [T("(1, 1, 3, 3)")], "missing-attribute"),
    ("zeros(shape=[-1])", [], "shape-mismatch"),
]


def _program(call: str, types: list[str]) -> str:
    params = ", ".join(f"%{'abcde'[i]} : {t}" for i, t in enumerate(types))
    return f"def @main({params}) {{\n  {call}\n}}\n"


@pytest.mark.parametrize("call, types, expected", CASES, ids=[c[0] for c in CASES])
def test_relation_result(call: str, types: list[str], expected: str) -> None:
    result = check_source(Source("t.rly", _program(call, types)))
    assert [str(d) for d in result.diagnostics] == []
    main = result.result.global_type("main")
    assert type_text(main.ret_type) == expected


@pytest.mark.parametrize("call, types, code", ERRORS, ids=[f"{c[0]} {c[1]}" for c in ERRORS])
def test_relation_error(call: str, types: list[str], code: str) -> None:
    result = check_source(Source("t.rly", _program(call, types)))
    codes = [d.code for d in result.diagnostics]
    assert codes == [code], [str(d) for d in result.diagnostics]
    d = result.diagnostics[0]
    _, line, col, _, _ = d.location()
    assert line == 2 and col >= 3  # on the call or one of its arguments


def test_every_operator_has_a_relation_case() -> None:
    from tests.ops.test_model_ops import RESULTS

    from tests.ops.test_coverage import family_operators

    covered = {call.split("(")[0] for call, _, _ in CASES + RESULTS} | family_operators()
    assert sorted(set(names()) - covered) == []
