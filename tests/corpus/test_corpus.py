"""The real corpus (../shared/corpus): every file checks with a complete type
for every expression, formats and reformats to the same program, and runs on
seeded random arguments and constants to finite values of its declared
types; ResNet-50, MobileNet and the LSTM give the same values when every
operator runs on PyTorch instead (relative tolerance 1e-4).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from relay_text.eval.entry import RunRequest
from relay_text.formatter import format_source
from relay_text.ir.expr import Call, Function, Op
from relay_text.ir.span import Source
from relay_text.ir.ty import FuncType, IncompleteType, TensorType, TupleType, TypeCall
from relay_text.ir.visitor import post_order
from relay_text.pipeline import check_source, run_source
from relay_text.text.type_text import type_text
from tests.conftest import CORPUS, corpus_files, model_params, needs_corpus
from tests.reference import torch_reference

# TVM's standard library files define functions and have no entry point:
# tests/corpus/test_tvm_std.py runs programs that use them.
pytestmark = needs_corpus

FILES = [p for p in corpus_files() if not p.stem.startswith("tvm-std-")]
IDS = [p.stem for p in FILES]

# The entry signature of each file, as inferred (weights abbreviated by count).
SIGNATURES = {
    "apache-tvm-issue13031-broadcast-argmax": (
        "fn(Tensor[(2, 1), float64]) -> (Tensor[(2, 1), float64], Tensor[(1), int32])"
    ),
    "apache-tvm-menangerie-gpt2": "fn(Tensor[(1, 50, 32), int64]) -> (Tensor[(1, 50, 32, 768), float32], "
    + ", ".join(["Tensor[(2, 50, 12, 32, 64), float32]"] * 12)
    + ")",
    "apache-tvm-menangerie-resnet50": "fn(Tensor[(1, 3, 224, 224), float32]) -> Tensor[(1, 1000), float32]",
    "calyx-squeezenet-anf": "fn(<53 tensors>) -> Tensor[(1, 1000), float32]",
    "glenside-lstm-for-pldi": "fn(<10 tensors>) -> (Tensor[(350, 33278), float32], ((), ()))",
    "glenside-mobilenet": "fn(<138 tensors>) -> Tensor[(1, 1000), float32]",
    "masahi-torchscript-to-tvm-loop-readme": "fn(Tensor[(10, 20), float32]) -> Tensor[(10, 20), float32]",
}

# Constants without a metadata section, typed from their uses.
META_TYPES = {
    "apache-tvm-menangerie-resnet50": {
        0: "Tensor[(3), float32]",  # batch norm of the input image: its channel axis
        4: "Tensor[(64, 3, 7, 7), float32]",  # conv weight from channels and kernel_size
        257: "Tensor[(1000, 2048), float32]",  # dense weight from units
    },
    "apache-tvm-menangerie-gpt2": {
        0: "Tensor[(?, 768), float32]",  # the embedding table: its row count is not determined
        4: "Tensor[(2304, 768), float32]",
        5: "Tensor[(2304), float32]",  # a bias
    },
}


def entry_type(result: Any) -> FuncType:
    module = result.module
    if module.expr is not None:
        return result.result.expr_type
    return result.result.global_type("main")


def short_signature(ty: FuncType) -> str:
    if len(ty.arg_types) > 3:
        return f"fn(<{len(ty.arg_types)} tensors>) -> {type_text(ty.ret_type)}"
    return type_text(ty)


def incomplete(ty: Any) -> bool:
    stack = [ty]
    while stack:
        t = stack.pop()
        if isinstance(t, IncompleteType) or t is None:
            return True
        if isinstance(t, TensorType):
            if not isinstance(t.dtype, str) or not isinstance(t.shape, tuple):
                return True
            stack.extend(d for d in t.shape if not isinstance(d, int))
        elif isinstance(t, TupleType):
            stack.extend(t.fields)
        elif isinstance(t, FuncType):
            stack.extend(t.arg_types)
            stack.append(t.ret_type)
        elif isinstance(t, TypeCall):
            stack.extend(t.args)
    return False


@pytest.fixture(scope="module")
def checked() -> dict[str, Any]:
    return {p.stem: check_source(Source(str(p), p.read_text())) for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_checks_with_a_type_for_every_expression(path: Path, checked: dict[str, Any]) -> None:
    # (strings, not objects, in the asserts: the reprs of whole models are huge)
    result = checked[path.stem]
    problems = [str(d) for d in result.diagnostics]
    assert problems == []
    signature = short_signature(entry_type(result))
    assert signature == SIGNATURES[path.stem]
    module = result.module
    roots = list(module.functions.values()) + ([module.expr] if module.expr is not None else [])
    count = 0
    for root in roots:
        for node in post_order(root):
            if isinstance(node, Function) or type(node).__name__ in ("Op", "GlobalVar"):
                continue
            ty = result.result.type_of(node)
            if incomplete(ty):
                pytest.fail(f"{type(node).__name__} at {getattr(node, 'span', None)} has no complete type")
            count += 1
    assert count > 0
    for index, written in META_TYPES.get(path.stem, {}).items():
        inferred = type_text(result.result.meta_types[index])
        assert inferred == written


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_formats_to_the_same_program(path: Path, checked: dict[str, Any]) -> None:
    """`relay fmt` verifies its output parses to an alpha-equivalent program and
    is stable; on top of that, the output checks to the same types."""
    formatted = format_source(Source(str(path), path.read_text()))
    problems = [str(d) for d in formatted.diagnostics]
    assert problems == [] and formatted.text is not None
    again = format_source(Source("again.rly", formatted.text)).text
    assert again == formatted.text
    result = check_source(Source("formatted.rly", formatted.text))
    problems = [str(d) for d in result.diagnostics]
    assert problems == []
    before, after = type_text(entry_type(checked[path.stem])), type_text(entry_type(result))
    assert after == before


def leaves(value: Any, ty: Any, where: str = "result") -> list[tuple[str, Any, Any]]:
    """(position, array, declared type) for every tensor in a value."""
    out = []
    stack = [(value, ty, where)]
    while stack:
        v, t, w = stack.pop()
        if isinstance(t, TupleType):
            assert isinstance(v, tuple) and len(v) == len(t.fields), w
            stack.extend((f, ft, f"{w}.{i}") for i, (f, ft) in enumerate(zip(v, t.fields, strict=False)))
        else:
            out.append((w, v, t))
    return out


def run(path: Path, resolver: Any = None) -> Any:
    request = RunRequest(random_args=True, random_consts=True, seed=0)
    ran = run_source(Source(str(path), path.read_text()), request, resolver=resolver)
    problems = [str(d) for d in ran.diagnostics]
    assert problems == []
    return ran.value


@pytest.mark.parametrize("path", model_params(FILES), ids=IDS)
def test_runs_to_finite_values_of_the_declared_type(path: Path, checked: dict[str, Any]) -> None:
    value = run(path)
    declared = entry_type(checked[path.stem]).ret_type
    for where, array, ty in leaves(value, declared):
        array = np.asarray(array)
        assert (where, str(array.dtype), array.shape) == (where, ty.dtype, ty.shape)
        if array.dtype.kind == "f":
            finite = bool(np.isfinite(array).all())
            assert finite, where


def test_runs_are_reproducible() -> None:
    path = CORPUS / "apache-tvm-menangerie-resnet50.rly"
    np.testing.assert_array_equal(run(path), run(path))


@pytest.mark.parametrize(
    "name",
    ["apache-tvm-menangerie-resnet50", "glenside-mobilenet", "glenside-lstm-for-pldi"],
)
def test_matches_pytorch(name: str, checked: dict[str, Any]) -> None:
    ref = torch_reference()
    path = CORPUS / f"{name}.rly"
    ours = run(path)
    resolver = ref.TorchResolver()
    theirs = run(path, resolver)
    used = {
        node.op.name
        for function in checked[name].module.functions.values()
        for node in post_order(function)
        if isinstance(node, Call) and isinstance(node.op, Op)
    }
    ran_on_torch = sorted(resolver.used)
    assert ran_on_torch == sorted(used), "every operator of the model ran on PyTorch"
    declared = entry_type(checked[name]).ret_type
    for (where, a, _), (_, b, _) in zip(leaves(ours, declared), leaves(theirs, declared), strict=False):
        a, b = np.asarray(a), np.asarray(b)
        assert (str(a.dtype), a.shape) == (str(b.dtype), b.shape), where
        scale = float(np.max(np.abs(b))) if b.size else 0.0
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4 * scale, err_msg=where)
