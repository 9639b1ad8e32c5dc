"""ONNX's node conformance cases, built in memory by the onnx wheel
(`onnx.backend.test.case.node.collect_testcases`), run through
`relay_text.onnx_backend` and compared as ONNX's own runner compares them.

`outcome(case)` is "pass", "random" (a case that draws random numbers,
checked for shape, dtype and range: see `random_outcome`), "unsupported"
(the backend refused the model with located diagnostics) or "fail: ..."
(a wrong value, or any other exception). The cases that must pass are those of an operator TVM's ONNX
importer converted (`TVM_OPERATORS`, the keys of its converter table at
21095b98) whose tensors all have a Relay dtype (no strings, float8, int4
or int2); `KNOWN` lists the exceptions, each with its reason.
"""

from __future__ import annotations

import functools
import os
import pickle
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np

TVM_OPERATORS = frozenset(
    [
        "Identity",
        "Optional",
        "OptionalHasElement",
        "OptionalGetElement",
        "Affine",
        "BitShift",
        "BitwiseAnd",
        "BitwiseNot",
        "BitwiseOr",
        "BitwiseXor",
        "ThresholdedRelu",
        "ScaledTanh",
        "ParametricSoftplus",
        "Constant",
        "ConstantOfShape",
        "FC",
        "Scale",
        "MeanVarianceNormalization",
        "Upsample",
        "SpatialBN",
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Neg",
        "Abs",
        "Reciprocal",
        "Floor",
        "Ceil",
        "Round",
        "IsInf",
        "IsNaN",
        "Sqrt",
        "Relu",
        "Celu",
        "LeakyRelu",
        "Selu",
        "Elu",
        "Gelu",
        "FastGelu",
        "BiasGelu",
        "Mish",
        "LayerNormalization",
        "EmbedLayerNormalization",
        "SkipLayerNormalization",
        "Attention",
        "QAttention",
        "Exp",
        "Greater",
        "GreaterOrEqual",
        "Less",
        "LessOrEqual",
        "Log",
        "Acos",
        "Acosh",
        "Asin",
        "Asinh",
        "Atan",
        "Atanh",
        "Cos",
        "Cosh",
        "Sin",
        "Sinh",
        "Tan",
        "Tanh",
        "Pow",
        "PRelu",
        "Sigmoid",
        "HardSigmoid",
        "HardSwish",
        "Max",
        "Min",
        "Sum",
        "Mean",
        "Clip",
        "Softplus",
        "Softmax",
        "LogSoftmax",
        "OneHot",
        "Hardmax",
        "Shrink",
        "Softsign",
        "Gemm",
        "MatMul",
        "MatMulInteger",
        "MatMulInteger16",
        "Mod",
        "Xor",
        "AveragePool",
        "LpPool",
        "GlobalLpPool",
        "MaxPool",
        "MaxUnpool",
        "Conv",
        "ConvTranspose",
        "GlobalAveragePool",
        "GlobalMaxPool",
        "BatchNormalization",
        "InstanceNormalization",
        "Dropout",
        "Flatten",
        "LRN",
        "RNN",
        "LSTM",
        "GRU",
        "MaxRoiPool",
        "RoiAlign",
        "NonMaxSuppression",
        "ReduceMax",
        "ReduceMin",
        "ReduceSum",
        "ReduceMean",
        "ReduceProd",
        "ReduceLogSumExp",
        "ReduceLogSum",
        "ReduceSumSquare",
        "ReduceL1",
        "ReduceL2",
        "ArgMax",
        "ArgMin",
        "TopK",
        "Cast",
        "CastLike",
        "Reshape",
        "Expand",
        "Concat",
        "Split",
        "Slice",
        "Transpose",
        "DepthToSpace",
        "SpaceToDepth",
        "Gather",
        "GatherElements",
        "GatherND",
        "Compress",
        "Size",
        "Scatter",
        "ScatterElements",
        "ScatterND",
        "EyeLike",
        "Squeeze",
        "Unsqueeze",
        "Pad",
        "Shape",
        "Sign",
        "Equal",
        "Not",
        "And",
        "Tile",
        "Erf",
        "Where",
        "Or",
        "Resize",
        "NonZero",
        "Range",
        "CumSum",
        "Unique",
        "Einsum",
        "Trilu",
        "GridSample",
        "Loop",
        "If",
        "ATen",
        "QuantizeLinear",
        "DequantizeLinear",
        "DynamicQuantizeLinear",
        "ReverseSequence",
        "QGemm",
        "QLinearConv",
        "QLinearConcat",
        "QLinearAdd",
        "QLinearMatMul",
        "QLinearMul",
        "QLinearSigmoid",
        "QLinearSoftmax",
        "ConvInteger",
        "QLinearAveragePool",
        "QLinearGlobalAveragePool",
        "QLinearLeakyRelu",
        "Bernoulli",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
        "Multinomial",
        "NegativeLogLikelihoodLoss",
        "SoftmaxCrossEntropyLoss",
        "Adagrad",
        "Adam",
        "Momentum",
        "Scan",
        "LinearRegressor",
        "DFT",
        "SequenceConstruct",
        "SequenceEmpty",
        "SequenceErase",
        "SequenceInsert",
        "SequenceLength",
        "ConcatFromSequence",
        "SplitToSequence",
        "SequenceAt",
    ]
)

# ONNX element types that are Relay dtypes (node.DTYPES): the rest (string,
# float8 and its variants, int4, uint4, int2, uint2, float4) are not.
RELAY_TYPES = frozenset({1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16})


# Cases of the must-pass set that do not pass, and why (none with onnx 1.23).
KNOWN: dict[str, str] = {}

# Operators that draw random numbers: a case with one of them cannot match
# the reference's numbers (numpy's generator), so it is checked for what
# any correct implementation gives (see `random_outcome`).
RANDOM_OPERATORS = frozenset(
    {"Bernoulli", "RandomUniform", "RandomUniformLike", "RandomNormal", "RandomNormalLike", "Multinomial"}
)
# The cases that do so, with onnx 1.23 (test_conformance checks the list).
RANDOM_CASES = (
    "test_bernoulli",
    "test_bernoulli_double",
    "test_bernoulli_double_expanded",
    "test_bernoulli_expanded",
    "test_bernoulli_seed",
    "test_bernoulli_seed_expanded",
)
RANDOM_MEANING = "random: checked for shape, dtype and range"
# Cases of the must-pass set the importer refuses, with the reason it gives.
DROPOUT = "`Dropout` in training mode (random) is not supported"
ANTIALIAS = "`antialias` = 1 is not supported"
UNIQUE = "`Unique` along an axis of a tensor of more than one dimension is not supported"
KNOWN_UNSUPPORTED: dict[str, str] = {
    "test_training_dropout": DROPOUT,
    "test_training_dropout_default": DROPOUT,
    "test_training_dropout_default_mask": DROPOUT,
    "test_training_dropout_mask": DROPOUT,
    "test_resize_downsample_scales_cubic_antialias": ANTIALIAS,
    "test_resize_downsample_scales_linear_antialias": ANTIALIAS,
    "test_resize_downsample_sizes_cubic_antialias": ANTIALIAS,
    "test_resize_downsample_sizes_linear_antialias": ANTIALIAS,
    "test_resize_downsample_scales_nearest": (
        "a scale of 0.6000000238418579 makes 2 * 0.6000000238418579 = 1.2, not a whole number of pixels: ONNX then "
        "maps coordinates by the scale, which Relay's resize does not"
    ),
    "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside": (
        "`exclude_outside` with a scale that does not give a whole number of pixels is not supported"
    ),
    "test_unique_sorted_with_axis": UNIQUE,
    "test_unique_sorted_with_axis_3d": UNIQUE,
    "test_unique_sorted_with_negative_axis": UNIQUE,
    "test_dft_irfft": "`onesided` with `inverse` is not supported",
    "test_dft_irfft_opset19": "`onesided` with `inverse` is not supported",
    "test_loop13_seq": "a loop-carried value changes type from () to (Tensor[(?), float32],)",
    "test_loop16_seq_none": (
        "a loop-carried value changes type from (Tensor[(), float32],) to (Tensor[(), float32], Tensor[(?), float32])"
    ),
    "test_maxpool_with_argmax_2d_precomputed_pads": (
        "the second output of `MaxPool` (the indices of the maxima) is not supported"
    ),
    "test_maxpool_with_argmax_2d_precomputed_strides": "`storage_order` = 1 (column-major indices) is not supported",
    "test_roialign_mode_max": "attribute `mode` = 'max' is not supported (supported: 'avg')",
}


_CACHE_DIR: list[Path] = []


def use_cache(directory: Path) -> None:
    """Keep the collected cases in `directory` (pytest's cache): building
    them takes the wheel some 6 s, reading them back a fraction of that."""
    _CACHE_DIR[:] = [directory]


@functools.lru_cache(maxsize=1)
def cases() -> dict[str, Any]:
    """Every node case, by name (collected once per process)."""
    import onnx

    stored = _CACHE_DIR[0] / f"node-cases-{onnx.__version__}-{np.__version__}.pickle" if _CACHE_DIR else None
    if stored is not None and stored.exists():
        try:
            with open(stored, "rb") as handle:
                return pickle.load(handle)
        except Exception:
            pass
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = {c.name: c for c in collect_testcases()}
    if stored is not None:
        tmp = stored.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as handle:
            pickle.dump(found, handle)
        os.replace(tmp, stored)
    return found


@functools.lru_cache(maxsize=1)
def operators() -> dict[str, str]:
    """Each case's operator: the node of a one-node case, else (an
    `_expanded` case, the operator's function body) its one-node twin's."""
    out: dict[str, str] = {}
    single = {
        name: c.model.graph.node[0].op_type
        for name, c in cases().items()
        if len(c.model.graph.node) == 1 and "_expanded" not in name
    }
    for name, c in cases().items():
        base = re.sub(r"_expanded(_ver\d+)?$", "", name)
        out[name] = single.get(base) or single.get(name) or c.model.graph.node[0].op_type
    return out


def element_types(case: Any) -> set[int]:
    types = set()
    for vi in list(case.model.graph.input) + list(case.model.graph.output):
        t = vi.type
        while t.WhichOneof("value") in ("sequence_type", "optional_type"):
            t = t.sequence_type.elem_type if t.HasField("sequence_type") else t.optional_type.elem_type
        if t.HasField("tensor_type"):
            types.add(t.tensor_type.elem_type)
    return types


def must_pass(name: str) -> bool:
    return operators()[name] in TVM_OPERATORS and element_types(cases()[name]) <= RELAY_TYPES


def is_random(case: Any) -> bool:
    """Whether the case's graph draws random numbers."""
    return any(node.op_type in RANDOM_OPERATORS for node in case.model.graph.node)


def _expected(outputs: Any) -> list[Any]:
    import onnx

    return [onnx.numpy_helper.to_array(o) if isinstance(o, onnx.TensorProto) else o for o in outputs]


class Refused(Exception):
    """An engine declined the model (relay-text: `import-unsupported`
    diagnostics; onnxruntime: no session, or an operator not implemented)."""


class _Relay:
    name = "relay-text"

    def __init__(self, model: Any) -> None:
        import relay_text.onnx_backend as backend

        try:
            self.rep = backend.prepare(model)
        except backend.Unsupported as exc:
            self._refused(exc)

    def run(self, inputs: Any) -> list[Any]:
        import relay_text.onnx_backend as backend

        try:
            return list(self.rep.run(inputs))
        except backend.Unsupported as exc:
            self._refused(exc)
            raise  # unreachable

    @staticmethod
    def _refused(exc: Any) -> None:
        assert exc.diagnostics and all(d.code == "import-unsupported" for d in exc.diagnostics), exc.diagnostics
        raise Refused(str(exc)) from None


class _OnnxRuntime:
    """The same cases through onnxruntime, the peer (one thread)."""

    name = "onnxruntime"

    def __init__(self, model: Any) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 4
        try:
            self.session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise Refused(f"{type(exc).__name__}: {exc}") from None
        init = {t.name for t in model.graph.initializer}
        self.names = [vi.name for vi in model.graph.input if vi.name not in init]

    def run(self, inputs: Any) -> list[Any]:
        values = [inputs[n] for n in self.names] if isinstance(inputs, dict) else list(inputs)
        feed = {n: _value(v) for n, v in zip(self.names, values, strict=False) if v is not None}
        try:
            return self.session.run(None, feed)
        except Exception as exc:
            # an operator it lacks, or a dtype its Python binding cannot take
            # or give back (bfloat16, float8, int4, int2 arrays)
            if any(
                m in str(exc)
                for m in ("NOT_IMPLEMENTED", "can't be converted to MLDataType", "No corresponding Numpy type")
            ):
                raise Refused(str(exc)) from None
            raise


def _value(v: Any) -> Any:
    """A case's input as an array (a TensorProto converted), lists stay lists."""
    import onnx

    if isinstance(v, list):
        return [_value(x) for x in v]
    if isinstance(v, onnx.TensorProto):
        return onnx.numpy_helper.to_array(v)
    return np.asarray(v)


ENGINES = {"relay-text": _Relay, "onnxruntime": _OnnxRuntime}


def random_outcome(case: Any, engine: str = "relay-text") -> str:
    """A random case (all of them are Bernoulli draws, one node or ONNX's
    function body: RandomUniformLike, Greater, Cast): its outputs on the
    case's inputs must have the expected shape and dtype and hold only 0
    and 1; on probabilities of all 0 and all 1, where the draw is certain,
    they must equal the values of ONNX's reference implementation
    (`onnx.reference`) exactly. "random", "unsupported", or "fail: ..."
    saying what differs."""
    from onnx.reference import ReferenceEvaluator

    ops = {node.op_type for node in case.model.graph.node}
    if not ops <= {"Bernoulli", "RandomUniformLike", "Greater", "Cast"}:
        return f"fail: no check is defined for random operators {sorted(ops & RANDOM_OPERATORS)}"
    try:
        rep = ENGINES[engine](case.model)
        for inputs, outputs in case.data_sets:
            for want, got in zip(_expected(outputs), rep.run(inputs), strict=False):
                if got.shape != want.shape or got.dtype != want.dtype:
                    return f"fail: a {got.dtype} {got.shape} result, expected {want.dtype} {want.shape}"
                if not np.isin(got, (0, 1)).all():
                    return f"fail: values other than 0 and 1: {sorted(set(got.ravel().tolist()) - {0, 1})[:5]}"
            names = [i.name for i in case.model.graph.input]
            for p in (0, 1):
                certain = [np.full_like(np.asarray(x), p) for x in inputs]
                want_all = ReferenceEvaluator(case.model).run(None, dict(zip(names, certain, strict=False)))
                for want, got in zip(want_all, rep.run(certain), strict=False):
                    if got.dtype != want.dtype or not np.array_equal(got, want):
                        return (
                            f"fail: with probabilities all {p}, {got.tolist()} ({got.dtype}), expected "
                            f"{want.tolist()} ({want.dtype})"
                        )
    except Refused:
        return "unsupported"
    except Exception as exc:
        return f"fail: {type(exc).__name__}: {exc}"
    return "random"


def outcome(case: Any, engine: str = "relay-text") -> str:
    """The case's outcome on `engine` ("relay-text" or "onnxruntime")."""
    from onnx.backend.test.runner import Runner

    if is_random(case):
        return random_outcome(case, engine)
    try:
        rep = ENGINES[engine](case.model)
        for inputs, outputs in case.data_sets:
            expected = _expected(outputs)
            got = rep.run(inputs)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                Runner.assert_similar_outputs(expected, got, rtol=case.rtol, atol=case.atol)
    except Refused:
        return "unsupported"
    except Exception as exc:
        return f"fail: {type(exc).__name__}: {exc}"
    return "pass"


# The operators of TVM_OPERATORS that have a must-pass case (with onnx 1.23):
# one test each in the default run (test_conformance checks the list).
COVERED = [
    "Abs",
    "Acos",
    "Acosh",
    "Adagrad",
    "Adam",
    "Add",
    "And",
    "ArgMax",
    "ArgMin",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Attention",
    "AveragePool",
    "BatchNormalization",
    "BitShift",
    "BitwiseAnd",
    "BitwiseNot",
    "BitwiseOr",
    "BitwiseXor",
    "Cast",
    "CastLike",
    "Ceil",
    "Celu",
    "Clip",
    "Compress",
    "Concat",
    "Constant",
    "ConstantOfShape",
    "Conv",
    "ConvInteger",
    "ConvTranspose",
    "Cos",
    "Cosh",
    "CumSum",
    "DFT",
    "DepthToSpace",
    "DequantizeLinear",
    "Div",
    "Dropout",
    "DynamicQuantizeLinear",
    "Einsum",
    "Elu",
    "Equal",
    "Erf",
    "Exp",
    "Expand",
    "EyeLike",
    "Flatten",
    "Floor",
    "GRU",
    "Gather",
    "GatherElements",
    "GatherND",
    "Gelu",
    "Gemm",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Greater",
    "GreaterOrEqual",
    "GridSample",
    "HardSigmoid",
    "HardSwish",
    "Hardmax",
    "Identity",
    "If",
    "InstanceNormalization",
    "IsInf",
    "IsNaN",
    "LRN",
    "LSTM",
    "LayerNormalization",
    "LeakyRelu",
    "Less",
    "LessOrEqual",
    "Log",
    "LogSoftmax",
    "Loop",
    "LpPool",
    "MatMul",
    "MatMulInteger",
    "Max",
    "MaxPool",
    "MaxUnpool",
    "Mean",
    "MeanVarianceNormalization",
    "Min",
    "Mish",
    "Mod",
    "Momentum",
    "Mul",
    "Neg",
    "NegativeLogLikelihoodLoss",
    "NonMaxSuppression",
    "NonZero",
    "Not",
    "OneHot",
    "OptionalGetElement",
    "OptionalHasElement",
    "Or",
    "PRelu",
    "Pad",
    "Pow",
    "QLinearConv",
    "QLinearMatMul",
    "QuantizeLinear",
    "RNN",
    "Range",
    "Reciprocal",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
    "Relu",
    "Reshape",
    "Resize",
    "ReverseSequence",
    "RoiAlign",
    "Round",
    "Scan",
    "Scatter",
    "ScatterElements",
    "ScatterND",
    "Selu",
    "SequenceInsert",
    "Shape",
    "Shrink",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Size",
    "Slice",
    "Softmax",
    "SoftmaxCrossEntropyLoss",
    "Softplus",
    "Softsign",
    "SpaceToDepth",
    "Split",
    "SplitToSequence",
    "Sqrt",
    "Squeeze",
    "Sub",
    "Sum",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Tile",
    "TopK",
    "Transpose",
    "Trilu",
    "Unique",
    "Unsqueeze",
    "Upsample",
    "Where",
    "Xor",
]


def covered() -> list[str]:
    """The operators that have a must-pass case in the installed wheel."""
    return sorted(
        {
            operators()[n]
            for n in cases()
            if must_pass(n) and n not in KNOWN and n not in KNOWN_UNSUPPORTED and n not in RANDOM_CASES
        }
    )


def refusal(case: Any) -> str:
    """The message of the first diagnostic the backend refuses a case with."""
    import relay_text.onnx_backend as backend

    try:
        backend.prepare(case.model).run(case.data_sets[0][0])
    except backend.Unsupported as exc:
        return exc.diagnostics[0].message
    return ""


def representative() -> list[str]:
    """One case per operator: its first one-node case (the full set runs with --slow)."""
    seen: dict[str, str] = {}
    for name in sorted(cases()):
        op = operators()[name]
        if (
            op not in seen
            and "_expanded" not in name
            and must_pass(name)
            and name not in KNOWN
            and name not in KNOWN_UNSUPPORTED
            and name not in RANDOM_CASES
        ):
            seen[op] = name
    return sorted(seen.values())


def as_array(x: Any) -> Any:
    return np.asarray(x)
