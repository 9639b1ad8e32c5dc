"""Round trips between `relay export` (Relay -> ONNX) and `relay import`
(ONNX -> Relay), and the comparisons the tests make of their values."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Any
from collections.abc import Sequence

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra: pip install -e '.[onnx]'")
ort = pytest.importorskip("onnxruntime", reason="the onnxruntime extra: pip install -e '.[onnxruntime]'")

import relay_text  # noqa: E402
from relay_text.eval.entry import RunRequest  # noqa: E402
from relay_text.export import ExportRequest, export_source  # noqa: E402
from relay_text.frontends.onnx import from_onnx  # noqa: E402
from relay_text.ir.span import Source  # noqa: E402
from relay_text.pipeline import run_source  # noqa: E402

# Relay -> ONNX -> Relay runs on the same engine twice: the values may differ
# only where the two programs spell an operator differently (a batch norm
# written out, a matrix product transposed), a few float32 roundings.
RELAY_RTOL, RELAY_ATOL = 1e-5, 1e-6
# ONNX -> Relay -> ONNX runs on onnxruntime twice, the same way.
ONNX_RTOL, ONNX_ATOL = 1e-5, 1e-6


@dataclass
class RelayTrip:
    """A program, its export and the import of that export."""

    params: list[str]  # the original entry's parameters
    args: tuple  # their (seeded random) values
    expected: Any  # the original's value on `args`
    model: Any  # the exported ONNX model
    text: str  # the imported program
    weights: dict[str, np.ndarray]  # the imported program's weights (initializers)
    got: Any = None  # the imported program's value


def random_run(
    text: str, name: str, seed: int = 0, random_consts: bool = False, entry: str | None = None
) -> tuple[list[str], tuple, Any]:
    """The entry's parameter names, the random arguments `relay run
    --random-args --seed SEED` gives them, and the value it prints."""
    seen: dict[str, Any] = {}

    def capture(module: Any, entry_: Any, args: tuple, constants: Any, result: Any) -> Any:
        seen["params"] = [p.name for p in entry_.params]
        seen["args"] = args
        return 0

    source = Source(name, text)
    ran = run_source(
        source, RunRequest(entry=entry, random_args=True, random_consts=random_consts, seed=seed, engine=capture)
    )
    assert ran.ok, [str(d) for d in ran.diagnostics]
    ran = run_source(source, RunRequest(entry=entry, random_args=True, random_consts=random_consts, seed=seed))
    assert ran.ok, [str(d) for d in ran.diagnostics]
    return seen["params"], seen["args"], ran.value


def export_model(text: str, name: str = "t.rly", args: dict[str, np.ndarray] | None = None, **options: Any) -> Any:
    """`relay export` (with `--args` holding `args`); the model passes the full ONNX check."""
    with tempfile.TemporaryDirectory() as tmp:
        args_file = None
        if args:
            args_file = os.path.join(tmp, "args.npz")
            np.savez(args_file, **args)
        exported = export_source(Source(name, text), ExportRequest(args_file=args_file, **options))
    errors = [str(d) for d in exported.diagnostics if d.is_error]
    assert errors == [] and exported.model is not None, errors
    onnx.checker.check_model(exported.model, full_check=True)
    return exported.model


def imported_text(model: Any, embed: bool = False) -> tuple[str, dict[str, np.ndarray]]:
    """`relay import`: the text (which must check and be what fmt writes) and its weights."""
    imported = from_onnx(onnx.load_from_string(model.SerializeToString()), name="exported.onnx")
    text = imported.text(embed=embed)
    checked = relay_text.check(text)
    assert checked.ok, [str(d) for d in checked.diagnostics]
    assert relay_text.format(text) == text
    return text, imported.weights(embed=embed)


def export_then_import(
    text: str,
    name: str,
    seed: int = 0,
    random_consts: bool = False,
    bind: Sequence[str] = (),
    embed: bool = False,
    **options: Any,
) -> RelayTrip:
    """Run the program on random arguments, export it (the parameters in
    `bind` become initializers), import the model and run the imported
    program on the same arguments."""
    params, args, expected = random_run(text, name, seed, random_consts, options.get("entry"))
    by_name = dict(zip(params, args, strict=False))
    bound = {p: np.asarray(by_name[p]) for p in bind}
    model = export_model(text, name, args=bound, random_consts=random_consts, seed=seed, **options)
    back, weights = imported_text(model, embed)
    inputs = [p for p in params if p not in bound]
    assert [i.name for i in model.graph.input] == inputs
    values = [leaf for p in inputs for leaf in _leaves(by_name[p])]
    main = relay_text.parse(back).functions
    names = [p.name for gv, f in main.items() if gv.name == "main" for p in f.params]
    assert names[len(values) :] == list(weights), (names, list(weights))
    got = relay_text.run(back, *values, *weights.values())
    trip = RelayTrip(params, args, expected, model, back, weights, got)
    return trip


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def leaves_difference(expected: Any, actual: Any, rtol: float, atol: float) -> float:
    """`max_difference` of the tensors of two results in order: ONNX outputs
    are a flat list, so a nested tuple comes back flattened."""
    return max_difference(tuple(_leaves(expected)), tuple(_leaves(actual)), rtol, atol)


# 16-bit floats: onnxruntime's fused kernels and the exported compositions
# round at different steps, an ulp (1e-3) apart.
HALF_TOLERANCE = 1e-3


def max_difference(expected: Any, actual: Any, rtol: float, atol: float) -> float:
    """The largest absolute difference of two results, after asserting that
    their structure, dtypes and shapes are the same, that integers and
    booleans are equal and that floats agree within rtol/atol (NaN where NaN)."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), (type(actual), expected)
        return max([max_difference(e, a, rtol, atol) for e, a in zip(expected, actual, strict=False)], default=0.0)
    e, a = np.asarray(expected), np.asarray(actual)
    assert (a.dtype, a.shape) == (e.dtype, e.shape)
    if e.dtype.name in ("float16", "bfloat16"):
        e, a = e.astype(np.float32), a.astype(np.float32)
        rtol, atol = max(rtol, HALF_TOLERANCE), max(atol, HALF_TOLERANCE)
    if e.dtype.kind not in "fc":
        np.testing.assert_array_equal(a, e)
        return 0.0
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    finite = np.isfinite(e) & np.isfinite(a)
    return float(np.max(np.abs(a[finite].astype(np.float64) - e[finite]), initial=0.0))


def onnxruntime_run(model: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    assert len(names) == len(inputs), (names, len(inputs))
    return session.run(None, dict(zip(names, inputs, strict=False)))


@dataclass
class OnnxTrip:
    text: str  # the imported program
    model: Any  # its export
    expected: list[Any]  # onnxruntime on the original
    got: list[Any]  # onnxruntime on the export


def import_then_export(
    model: Any,
    inputs: Sequence[np.ndarray],
    embed: bool = False,
    known: Sequence[str] = (),
    fix_shapes: bool = True,
    **options: Any,
) -> OnnxTrip:
    """Import the model (with `fix_shapes`, its inputs' shapes fixed to those of `inputs`; the
    inputs named in `known` made constants, as the ONNX backend does with
    small integer inputs), export the program (its weights as initializers,
    through `--args`, or embedded as constants) and run both models on
    onnxruntime: the export on the inputs it kept."""
    from relay_text.frontends.onnx import Options

    graph_inputs = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    assert len(graph_inputs) == len(inputs), (graph_inputs, len(inputs))
    by_name = dict(zip(graph_inputs, (np.asarray(i) for i in inputs), strict=False))
    opts = Options()
    opts.input_shapes = {k: tuple(v.shape) for k, v in by_name.items()} if fix_shapes else {}
    opts.known_inputs = {k: by_name[k] for k in known}
    imported = from_onnx(onnx.load_from_string(model.SerializeToString()), name="model.onnx", options=opts)
    text = imported.text(embed=embed)
    checked = relay_text.check(text)
    assert checked.ok, [str(d) for d in checked.diagnostics]
    back = export_model(text, "imported.rly", args=imported.weights(embed=embed), **options)
    kept = [by_name[imported.source_names[v]] for v in imported.inputs]
    return OnnxTrip(text, back, onnxruntime_run(model, inputs), onnxruntime_run(back, kept))


def case_inputs(case: Any) -> list[Any]:
    """A node case's first inputs as arrays (sequences stay lists)."""
    from relay_text.onnx_backend import _array

    return [v if isinstance(v, list) else np.asarray(_array(v)) for v in case.data_sets[0][0]]


def node_case_trip(case: Any) -> OnnxTrip:
    """`import_then_export` of one of onnx's node test cases on its first
    data set. Where the importer refuses the model as it is (it needs an
    input's value: an axis, a shape, scales, a dropout ratio of 0), the
    small inputs are made constants, as the ONNX backend does
    (`relay_text.onnx_backend.SPECIALISED_SIZE`)."""
    from relay_text.frontends.onnx import ImportFailure
    from relay_text.onnx_backend import SPECIALISED_SIZE

    inputs = case_inputs(case)
    try:
        return import_then_export(case.model, inputs)
    except ImportFailure:
        pass
    names = [i.name for i in case.model.graph.input if i.name not in {t.name for t in case.model.graph.initializer}]
    known = [n for n, a in zip(names, inputs, strict=False) if a.dtype.kind in "iufb" and a.size <= SPECIALISED_SIZE]
    return import_then_export(case.model, inputs, known=known)
