"""Exporting programs and comparing onnxruntime with the numpy engine."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra: pip install -e '.[onnx]'")
ort = pytest.importorskip("onnxruntime", reason="the onnxruntime extra: pip install -e '.[onnxruntime]'")

from relay_text.eval.entry import RunRequest  # noqa: E402
from relay_text.export import ExportRequest, export_source  # noqa: E402
from relay_text.export.engine import onnxruntime_engine  # noqa: E402
from relay_text.ir.span import Source  # noqa: E402
from relay_text.pipeline import run_source  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def export(text: str, name: str = "t.rly", **options: Any) -> Any:
    """The checked ONNX model of a program (full check); fails on any diagnostic."""
    exported = export_source(Source(name, text), ExportRequest(**options))
    errors = [str(d) for d in exported.diagnostics if d.is_error]
    assert errors == [], errors
    assert exported.model is not None
    onnx.checker.check_model(exported.model, full_check=True)
    return exported.model


def export_errors(text: str, **options: Any) -> list[Any]:
    exported = export_source(Source("t.rly", text), ExportRequest(**options))
    assert exported.model is None
    return [d for d in exported.diagnostics if d.is_error]


def both(
    text: str,
    name: str = "t.rly",
    seed: int = 0,
    random_consts: bool = False,
    entry: str | None = None,
    opset: int | None = None,
    functions: bool = False,
) -> tuple[Any, Any]:
    """(numpy engine's value, onnxruntime engine's value) on the same random arguments."""
    source = Source(name, text)
    results = []
    for engine in (None, onnxruntime_engine(opset=opset, functions=functions)):
        request = RunRequest(entry=entry, random_args=True, random_consts=random_consts, seed=seed, engine=engine)
        ran = run_source(source, request)
        assert ran.ok, [str(d) for d in ran.diagnostics]
        results.append(ran.value)
    return results[0], results[1]


def max_difference(expected: Any, actual: Any) -> float:
    """Largest absolute difference; asserts structure, dtypes and shapes agree and values are within tolerance."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        return max([max_difference(e, a) for e, a in zip(expected, actual, strict=False)], default=0.0)
    e, a = np.asarray(expected), np.asarray(actual)
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    assert a.shape == e.shape, (a.shape, e.shape)
    if e.dtype.kind in "fc":
        np.testing.assert_allclose(a, e, rtol=RTOL, atol=ATOL, equal_nan=True)
        both_finite = np.isfinite(e) & np.isfinite(a)
        return float(np.max(np.abs(a[both_finite].astype(np.float64) - e[both_finite]), initial=0.0))
    np.testing.assert_array_equal(a, e)
    return 0.0


def agree(text: str, **options: Any) -> float:
    """Export (checked), run on both engines, compare; the largest difference."""
    export(text, **{k: v for k, v in options.items() if k in ("entry", "random_consts", "opset", "seed", "functions")})
    expected, actual = both(text, **options)
    return max_difference(expected, actual)
