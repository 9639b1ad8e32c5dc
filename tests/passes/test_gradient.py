"""gradient: both modes against finite differences, on every sample it
applies to and on ResNet-50's last block (transcribed from the corpus
dump, its weights made parameters); TVM's structural cases
(tests/python/relay/test_pass_gradient.py)."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.eval.entry import RunRequest
from tests.passes.helpers import assert_well_formed, attempt, optimized, run
from tests.passes.programs import sample_paths

MODES = ["gradient", "gradient{mode=first_order}"]


def _directional_check(before: str, after: str, seed: int = 0, eps: float = 1e-3, rtol: float = 2e-2) -> None:
    """The gradients `after` computes, projected on a random direction,
    against a central difference of the sum of `before`'s result."""
    first = run(before, RunRequest(random_args=True, seed=seed))  # values drawn by how `before` uses them
    args = first.outcome.args
    params = [p.name for p in first.outcome.entry.params]
    value, grads = run(after, RunRequest(values=tuple(args[p] for p in params))).value
    np.testing.assert_allclose(np.asarray(value, np.float64), np.asarray(first.value, np.float64), rtol=1e-5, atol=1e-6)
    rng = np.random.default_rng(seed + 1)
    directions = {p: rng.standard_normal(np.shape(args[p])).astype(np.asarray(args[p]).dtype) for p in params}
    projected = sum(
        float(np.sum(np.asarray(g, np.float64) * directions[p])) for p, g in zip(params, grads, strict=False)
    )

    def total(sign: float) -> float:
        shifted = tuple(
            (np.asarray(args[p]) + sign * eps * directions[p]).astype(np.asarray(args[p]).dtype) for p in params
        )
        return float(np.sum(np.asarray(run(before, RunRequest(values=shifted)).value, np.float64)))

    numeric = (total(1.0) - total(-1.0)) / (2 * eps)
    assert abs(numeric - projected) <= rtol * max(1.0, abs(numeric)), (numeric, projected)


PROGRAM = """def @main(%x : Tensor[(3, 4), float64], %w : Tensor[(5, 4), float64], %b : Tensor[(5), float64]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.bias_add(%0, %b);
  %2 = tanh(%1);
  %3 = nn.softmax(%2);
  %4 = multiply(%3, sigmoid(%1));
  add(divide(%4, exp(%2)), sum(%1, axis=[1], keepdims=True))
}
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_dense_network_against_finite_differences(mode: str) -> None:
    out = optimized(PROGRAM, mode)
    assert_well_formed(out)
    _directional_check(PROGRAM, out, eps=1e-5, rtol=1e-6)


def test_higher_order_handles_if() -> None:
    before = """def @main(%x : Tensor[(3), float64], %c : bool) {
  if (%c) { multiply(%x, %x) } else { negative(exp(%x)) }
}
"""
    out = optimized(before, "gradient")
    assert_well_formed(out)
    for flag in (True, False):
        ran = run(out, RunRequest(values=(np.array([1.0, 2.0, -1.0]), np.bool_(flag))))
        x = np.array([1.0, 2.0, -1.0])
        expected = 2 * x if flag else -np.exp(x)
        np.testing.assert_allclose(ran.value[1][0], expected)


def test_first_order_refuses_control_flow() -> None:
    result = attempt(
        "def @main(%x : Tensor[(3), float32], %c : bool) {\n  if (%c) { %x } else { negative(%x) }\n}\n",
        "gradient{mode=first_order}",
    )
    assert not result.ok
    assert result.diagnostics[-1].code == "pass-failed" and "mode=higher_order" in result.diagnostics[-1].message


def test_an_operator_without_a_derivative_is_named() -> None:
    result = attempt("def @main(%x : Tensor[(3), float32]) {\n  argsort(%x)\n}\n", "gradient")
    assert not result.ok
    diag = result.diagnostics[-1]
    assert diag.code == "pass-failed" and "`argsort` has no derivative" in diag.message
    assert diag.span is not None and diag.span.start == diag.span.source.text.index("argsort")


def test_the_entry_is_chosen_with_entry() -> None:
    text = "def @f(%x : Tensor[(2), float32]) {\n  multiply(%x, %x)\n}\n\ndef @main() {\n  1\n}\n"
    out = optimized(text, "gradient", entry="@f")
    assert "def @f(%x : Tensor[(2), float32]) -> (Tensor[(2), float32], (Tensor[(2), float32],))" in out
    missing = attempt(text, "gradient", entry="@g")
    assert not missing.ok and "`@g`" in missing.diagnostics[-1].message


def _differentiable_samples() -> list:
    found = []
    for path in sample_paths():
        text = path.read_text()
        result = attempt(text, "gradient", name=str(path))
        if result.ok and _float_parameters(text):
            found.append(pytest.param(path, id=path.stem))
    return found


def _float_parameters(text: str) -> bool:
    """Whether @main takes at least one tensor and only float tensors (a
    finite difference needs values that can move by a small step)."""
    from relay_text.ir.span import Source
    from relay_text.ir.ty import TensorType
    from relay_text.pipeline import check_source

    checked = check_source(Source("x", text))
    gv = checked.module.global_var("main") if checked.module is not None else None
    if gv is None:
        return False
    params = checked.module.functions[gv].params
    types = [checked.result.types.get(p) for p in params]
    return bool(params) and all(isinstance(t, TensorType) and str(t.dtype).startswith("float") for t in types)


@pytest.mark.parametrize("mode", MODES)
def test_every_differentiable_sample(mode: str) -> None:
    """A sample whose @main takes tensors and applies differentiable
    operators (the others are refused with `pass-failed`)."""
    paths = [p.values[0] for p in _differentiable_samples()]
    assert paths, "no sample is differentiable"
    for path in paths:
        text = path.read_text()
        out = optimized(text, mode, name=str(path))
        assert_well_formed(out)
        _directional_check(text, out)


def _resnet_block(dtype: str) -> str:
    """The last bottleneck block of the corpus ResNet-50 (pre-activation:
    batch norm and relu before each convolution), its pooling and its
    classifier, the weights and statistics as parameters."""

    def t(*shape: int) -> str:
        return f"Tensor[({', '.join(map(str, shape))}), {dtype}]"

    bn = ", ".join
    params = [f"%x : {t(1, 2048, 7, 7)}"]
    for name, channels in (("a", 2048), ("b", 512), ("c", 512), ("d", 2048)):
        params += [
            f"%{name}_gamma : {t(channels)}",
            f"%{name}_beta : {t(channels)}",
            f"%{name}_mean : {t(channels)}",
            f"%{name}_var : {t(channels)}",
        ]
    params += [
        f"%w1 : {t(512, 2048, 1, 1)}",
        f"%w2 : {t(512, 512, 3, 3)}",
        f"%w3 : {t(2048, 512, 1, 1)}",
        f"%fc : {t(1000, 2048)}",
        f"%fc_b : {t(1000)}",
    ]

    def norm(x: str, n: str) -> str:
        return f"nn.batch_norm({x}, %{n}_gamma, %{n}_beta, %{n}_mean, %{n}_var).0"

    del bn
    return f"""def @main({", ".join(params)}) {{
  %0 = nn.relu({norm("%x", "a")});
  %1 = nn.conv2d(%0, %w1, padding=[0, 0, 0, 0], channels=512, kernel_size=[1, 1]);
  %2 = nn.relu({norm("%1", "b")});
  %3 = nn.conv2d(%2, %w2, padding=[1, 1, 1, 1], channels=512, kernel_size=[3, 3]);
  %4 = nn.relu({norm("%3", "c")});
  %5 = nn.conv2d(%4, %w3, padding=[0, 0, 0, 0], channels=2048, kernel_size=[1, 1]);
  %6 = add(%5, %x);
  %7 = nn.relu({norm("%6", "d")});
  %8 = reshape(nn.global_avg_pool2d(%7), newshape=[0, -1]);
  add(nn.dense(%8, %fc, units=1000), %fc_b)
}}
"""


@pytest.mark.parametrize("mode", MODES)
def test_resnet50s_last_block_against_finite_differences(mode: str) -> None:
    """Batch norms are spelled out first (TVM has no derivative for
    `nn.batch_norm`): `SimplifyInference,gradient`. float64, for an exact
    central difference."""
    before = _resnet_block("float64")
    out = optimized(before, f"SimplifyInference,{mode}")
    assert_well_formed(out)
    _directional_check(before, out, eps=1e-7, rtol=1e-6)


def test_tvm_first_order_structure() -> None:
    """test_pass_gradient.py::test_add (first order): `x + x` gives
    `(x + x, (1 + 1,))` in value."""
    before = "def @main(%x : Tensor[(10, 4), float32]) {\n  add(%x, %x)\n}\n"
    for mode in MODES:
        out = optimized(before, mode)
        ran = run(out, RunRequest(values=(np.ones((10, 4), np.float32),)))
        np.testing.assert_array_equal(ran.value[0], np.full((10, 4), 2, np.float32))
        np.testing.assert_array_equal(ran.value[1][0], np.full((10, 4), 2, np.float32))
