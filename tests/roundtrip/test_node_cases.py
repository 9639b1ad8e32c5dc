"""ONNX's node test cases (built in memory by the onnx wheel) through
`relay import` then `relay export`: onnxruntime runs the export to the
values it gives for the original model (rtol 1e-5 / atol 1e-6; 1e-3 for
16-bit floats; integers and booleans equal). By default a sample of
operators' cases; with --slow every case of every operator TVM's importer
converted (the import tests' must-pass set).

Cases whose inputs are sequences or strings, or whose original model
onnxruntime cannot run, are left out. Where onnxruntime's value for the
original differs from ONNX's reference output (`ORT_DIFFERS`), the export
is compared with the reference, as the import tests compare."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.frontends.onnx import conformance as C

from .helpers import ONNX_ATOL, ONNX_RTOL, case_inputs, leaves_difference, node_case_trip, onnxruntime_run

# onnxruntime's own value for the original is not ONNX's reference output;
# the export's is.
ORT_DIFFERS = {
    "test_attention_4d_with_past_and_present_qk_matmul_bias_3d_mask_causal": (
        "its Attention writes -3.4e38 where the reference masks with -inf"
    ),
    "test_attention_4d_with_past_and_present_qk_matmul_bias_4d_mask_causal": (
        "its Attention writes -3.4e38 where the reference masks with -inf"
    ),
    "test_dft": "its DFT leaves float32 rounding noise of 1e-4 where the value is 0",
    "test_dft_axis": "its DFT leaves float32 rounding noise of 1e-4 where the value is 0",
    "test_dft_axis_opset19": "its DFT leaves float32 rounding noise of 1e-4 where the value is 0",
    "test_dft_opset19": "its DFT leaves float32 rounding noise of 1e-4 where the value is 0",
    "test_dft_rfft": "its DFT leaves float32 rounding noise of 1e-4 where the value is 0",
    "test_dft_rfft_opset19": "its DFT leaves float32 rounding noise of 1e-4 where the value is 0",
    "test_maxunpool_export_with_output_shape": (
        "its MaxUnpool places the values elsewhere when output_shape pads the result"
    ),
    "test_resize_downsample_scales_linear_align_corners": (
        "its align_corners downscale maps coordinates by the scale, not by the sizes"
    ),
    "test_resize_downsample_scales_cubic_align_corners": (
        "its align_corners downscale maps coordinates by the scale, not by the sizes"
    ),
}

# Inverse DFTs whose exact values include zeros: onnxruntime's value for the
# original leaves float32 noise of 2e-5 there, the reference 2e-7, the
# export 1e-14. Compared with the reference, the absolute tolerance scaled by
# the output's largest magnitude (the noise of a sum of that size).
NOISE_AT_ZERO = {
    "test_dft_inverse": "values up to 54, exact zeros among them",
    "test_dft_inverse_opset19": "values up to 54, exact zeros among them",
}

# Cases that do not round-trip, with the reason the exporter or importer gives.
SIGNED_SHIFT = "ONNX's BitShift takes unsigned integers"
NMS = "`vision.all_class_non_max_suppression` cannot be exported: not converted yet"
INTEGER_MATMUL = "ONNX's convolutions and matrix products take floating-point tensors"
GRID_3D = "grid_sample is exported for 4-D NCHW data"
KNOWN: dict[str, str] = {
    **{f"test_bitshift_{d}_{t}": SIGNED_SHIFT for d in ("left", "right") for t in ("int8", "int16", "int32", "int64")},
    **{
        f"test_bitshift_{d}_{t}_{k}": SIGNED_SHIFT
        for d in ("left", "right")
        for t in ("int8", "int32")
        for k in ("negative_shift", "shift_ge_width")
    },
    **{f"test_bitshift_left_{t}_overflow": SIGNED_SHIFT for t in ("int8", "int32")},
    **{f"test_bitshift_right_{t}_negative_input": SIGNED_SHIFT for t in ("int8", "int32")},
    **{
        f"test_nonmaxsuppression_{k}": NMS
        for k in (
            "center_point_box_format",
            "flipped_coordinates",
            "identical_boxes",
            "iou_threshold_boundary",
            "limit_output_size",
            "single_box",
            "suppress_by_IOU",
            "suppress_by_IOU_and_scores",
            "two_batches",
            "two_classes",
        )
    },
    "test_matmulinteger": INTEGER_MATMUL,
    **{
        f"test_qlinearmatmul_{r}_{t}_{f}": INTEGER_MATMUL
        for r in ("2D", "3D")
        for t in ("int8", "uint8")
        for f in ("float16", "float32")
    },
    **{f"test_gridsample_volumetric_{m}_align_corners_{a}": GRID_3D for m in ("bilinear", "nearest") for a in (0, 1)},
}

# By default: cases of operators of every family.
SAMPLE = [
    "test_add_bcast", "test_argmax_keepdims_example", "test_averagepool_2d_pads", "test_batchnorm_epsilon",
    "test_cast_FLOAT_to_FLOAT16", "test_clip_example", "test_concat_2d_axis_negative_1",
    "test_conv_with_strides_and_asymmetric_padding", "test_convtranspose_pads", "test_cumsum_1d_reverse",
    "test_einsum_batch_matmul", "test_expand_dim_changed", "test_gather_elements_1", "test_gathernd_example_int32",
    "test_gemm_all_attributes", "test_gru_seq_length", "test_hardmax_axis_1", "test_instancenorm_example",
    "test_layer_normalization_4d_axis1", "test_lrn", "test_lstm_with_peepholes", "test_matmul_4d",
    "test_maxpool_2d_ceil", "test_mod_mixed_sign_float32", "test_onehot_with_axis", "test_pow_types_int64_int64",
    "test_range_float_type_positive_delta", "test_reduce_log_sum_exp_keepdims_example",
    "test_resize_upsample_sizes_cubic", "test_rnn_seq_length", "test_scatter_elements_with_reduction_max",
    "test_slice_negative_axes", "test_softmax_axis_0", "test_split_variable_parts_2d_opset18", "test_tile",
    "test_top_k_negative_axis", "test_transpose_all_permutations_3", "test_tril", "test_where_long_example", "test_dft",
    "test_attention_3d_causal_expanded", "test_isinf_float16", "test_reshape_allowzero_reordered",
    "test_reduce_max_bool_inputs", "test_mod_float_edge_cases_fmod_0_float32", "test_averagepool_2d_dilations",
    "test_loop11", "test_if_seq",
]  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def _cached_cases(request: pytest.FixtureRequest) -> None:
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        C.use_cache(cache.mkdir("onnx-node-cases"))


def left_out(case: Any) -> str | None:
    """Why a case is not tried, or None."""
    if not case.data_sets:
        return "no data"
    inputs = case_inputs(case)
    if not all(isinstance(i, np.ndarray) and i.dtype.kind not in "OSU" for i in inputs):
        return "inputs that are sequences or strings"
    try:
        onnxruntime_run(case.model, inputs)
    except Exception as exc:
        return f"onnxruntime cannot run the original ({type(exc).__name__})"
    return None


def round_trip(name: str) -> float:
    """The largest difference of the export from onnxruntime's (or, for
    ORT_DIFFERS and NOISE_AT_ZERO, the reference's) values; fails on any
    difference beyond tolerance."""
    case = C.cases()[name]
    trip = node_case_trip(case)
    if name in NOISE_AT_ZERO:
        reference = [np.asarray(o) for o in case.data_sets[0][1]]
        for want, got in zip(reference, trip.got, strict=True):
            np.testing.assert_allclose(got, want, rtol=case.rtol, atol=case.atol * max(1.0, float(np.abs(want).max())))
        return 0.0
    if name in ORT_DIFFERS:
        from onnx.backend.test.runner import Runner

        reference = [np.asarray(o) for o in case.data_sets[0][1]]
        Runner.assert_similar_outputs(reference, trip.got, rtol=case.rtol, atol=case.atol)
        return 0.0
    return leaves_difference(trip.expected, trip.got, ONNX_RTOL, ONNX_ATOL)


def outcome(name: str) -> str:
    """ "pass", "left out: ...", or "fail: <message>"."""
    why = left_out(C.cases()[name])
    if why is not None:
        return f"left out: {why}"
    try:
        round_trip(name)
    except AssertionError as exc:
        return f"fail: {exc}"
    except Exception as exc:
        return f"fail: {type(exc).__name__}: {exc}"
    return "pass"


@pytest.mark.parametrize("name", SAMPLE)
def test_a_node_case_round_trips(name: str) -> None:
    assert left_out(C.cases()[name]) is None
    round_trip(name)


@pytest.mark.slow
@pytest.mark.parametrize("op", C.COVERED)
def test_every_case_of_each_operator_round_trips(op: str) -> None:
    names = [
        n
        for n, o in C.operators().items()
        if o == op and C.must_pass(n) and n not in C.KNOWN and n not in C.KNOWN_UNSUPPORTED and n not in KNOWN
    ]
    wrong = {name: got[:300] for name in names if (got := outcome(name)) != "pass" and not got.startswith("left out: ")}
    assert wrong == {}


@pytest.mark.slow
def test_the_known_failures_still_fail_for_their_reason() -> None:
    for name, reason in KNOWN.items():
        got = outcome(name)
        assert got.startswith("fail: ") and reason in got, (name, got[:300])
