"""`--max-memory` counts a kernel's temporaries, not only its result: a
convolution's im2col matrix (many times its result) is built a block of
output rows at a time, each block within what the limit leaves
(docs/limits.md, "Memory"). Before, a 3-D convolution under `--max-memory 4G` still
reached twice that."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from relay_text import limits
from tests.conftest import ROOT

# The im2col matrix of each is about 600 MB (conv2d) and 900 MB (conv3d);
# the inputs 64 MB and 33 MB, the results 8 MB and 8 MB.
CONV2D = """\
def @main(%x: Tensor[(1, 64, 512, 512), float32], %w: Tensor[(8, 64, 3, 3), float32]) {
  sum(nn.conv2d(%x, %w, padding=[1, 1, 1, 1]))
}
"""
CONV3D = """\
def @main(%x: Tensor[(1, 32, 64, 64, 64), float32], %w: Tensor[(8, 32, 3, 3, 3), float32]) {
  sum(nn.conv3d(%x, %w, padding=[1, 1, 1, 1, 1, 1]))
}
"""
# The windows of all pixels of this one are 270 MB, its result 4.4 MB.
CONV_TRANSPOSE = """\
def @main(%x: Tensor[(1, 16, 256, 256), float32], %w: Tensor[(16, 16, 8, 8), float32]) {
  sum(nn.conv2d_transpose(%x, %w, channels=16, kernel_size=[8, 8]))
}
"""
# The sampled windows of this deformable convolution are 256 MB (25 MB per
# output row), its inputs 2.6 MB, its result 80 kB.
DEFORMABLE = """\
def @main(%x: Tensor[(1, 64, 16, 2048), float32], %off: Tensor[(1, 98, 10, 2042), float32],
          %w: Tensor[(1, 64, 7, 7), float32]) {
  sum(nn.deformable_conv2d(%x, %off, %w, kernel_size=[7, 7], channels=1))
}
"""
# One output row of this one needs 208 MiB of sampled windows (and of this
# winograd convolution, 108 MiB of im2col): more than a 150 MiB limit leaves
# beside the interpreter and the inputs.
DEFORMABLE_ROW = """\
def @main(%x: Tensor[(1, 256, 8, 4096), float32], %off: Tensor[(1, 98, 2, 4090), float32],
          %w: Tensor[(1, 256, 7, 7), float32]) {
  sum(nn.deformable_conv2d(%x, %off, %w, kernel_size=[7, 7], channels=1))
}
"""
WINOGRAD_ROW = """\
def @main(%x: Tensor[(1, 384, 3, 8192), float32], %u: Tensor[(4, 4, 1, 384), float32]) {
  sum(nn.contrib_conv2d_winograd_without_weight_transform(%x, %u, tile_size=2, channels=1, kernel_size=[3, 3]))
}
"""

# Runs the command in a child and prints its exit status, outputs and peak
# resident memory (of that child alone).
_MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps([done.returncode, done.stdout, done.stderr, peak]))
"""


def measured(*args: str) -> tuple[int, str, str, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "RELAY_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-m", "relay_text", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    code, stdout, stderr, peak = json.loads(out.stdout)
    return code, stdout, stderr, peak


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="peak memory from getrusage in bytes (Linux reports KiB)"
)
@pytest.mark.parametrize(
    "text, limit",
    [
        pytest.param(CONV2D, 400, marks=pytest.mark.slow),
        pytest.param(CONV3D, 400, marks=pytest.mark.slow),
        (CONV_TRANSPOSE, 200),
        pytest.param(DEFORMABLE, 150, marks=pytest.mark.slow),
    ],
    ids=["conv2d", "conv3d", "conv2d_transpose", "deformable_conv2d"],
)
def test_a_convolution_whose_temporaries_pass_the_limit_runs_within_it(tmp_path: Path, text: str, limit: int) -> None:
    prog = tmp_path / "conv.rly"
    prog.write_text(text)
    code, stdout, stderr, peak = measured("run", "--random-args", "--max-memory", f"{limit}M", str(prog))
    assert (code, stderr) == (0, "")
    assert np.isfinite(float(stdout))
    assert peak < limit * 2**20, f"peak {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize(
    "text, what, need",
    [
        (DEFORMABLE_ROW, "the temporaries of a deformable convolution", "208 MiB"),
        (WINOGRAD_ROW, "the temporaries of a convolution", "108 MiB"),
    ],
    ids=["deformable_conv2d", "winograd_conv2d"],
)
def test_a_convolution_whose_smallest_block_passes_the_limit_stops_with_the_memory_diagnostic(
    tmp_path: Path, text: str, what: str, need: str
) -> None:
    """Before, the deformable convolution sampled every window at once and
    ran to an 860 MiB peak under `--max-memory 150M`."""
    prog = tmp_path / "conv.rly"
    prog.write_text(text)
    code, stdout, stderr, peak = measured("run", "--random-args", "--max-memory", "150M", str(prog))
    assert (code, stdout) == (1, "")
    first = stderr.splitlines()[0]
    assert first.startswith(
        f"error[resource-limit]: {what} need {need} at least, more than the memory limit of 150 MiB"
    )
    assert first.endswith("the run holds (--max-memory)")
    assert "too large" in stderr
    # (the random inputs are made in float64 before their cast, above the limit for a moment)
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_deformable_blocks_give_the_result_of_one_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 1, 2 and all output rows, with groups, deformable groups, a
    stride and an out_dtype wider than the data."""
    from relay_text.ops.nn.deformable import deformable_conv2d

    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)
    off = (rng.standard_normal((2, 2 * 2 * 3 * 2, 3, 4)) * 2).astype(np.float32)
    w = rng.standard_normal((6, 2, 2, 3)).astype(np.float32)
    attrs = {
        "strides": (2, 1),
        "padding": (1, 0, 0, 1),
        "dilation": (1, 1),
        "deformable_groups": 2,
        "groups": 2,
        "data_layout": "NCHW",
        "kernel_layout": "OIHW",
        "out_layout": "",
        "out_dtype": "float64",
    }
    results = []
    for scratch in (1, 2 * 2 * 4 * 6 * 4 * 8, 1 << 30):
        monkeypatch.setattr(limits, "SCRATCH_BYTES", scratch)
        results.append(deformable_conv2d((x, off, w), attrs))
    assert results[0].shape == (2, 6, 3, 4) and results[0].dtype == np.float64
    for other in results[1:]:
        np.testing.assert_array_equal(results[0], other)


def test_blocks_of_the_same_result_whatever_their_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The blocked kernels give what one block gives (row blocks of 1, 3
    and all rows)."""
    from relay_text.ops.nn._conv_nd import conv_nd, conv_transpose_nd

    rng = np.random.default_rng(0)
    x2, w2 = rng.standard_normal((2, 4, 9, 7)).astype(np.float32), rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    x3, w3 = (
        rng.standard_normal((1, 3, 5, 6, 4)).astype(np.float32),
        rng.standard_normal((4, 3, 2, 3, 2)).astype(np.float32),
    )
    xt, wt = rng.standard_normal((2, 4, 5, 3)).astype(np.float32), rng.standard_normal((4, 3, 3, 2)).astype(np.float32)
    results = []
    for scratch in (1, 3 * 4 * 6 * 7 * 4, 1 << 30):
        monkeypatch.setattr(limits, "SCRATCH_BYTES", scratch)
        results.append(
            (
                conv_nd(x2, w2, (2, 1), (1, 0), (1, 1), (1, 2), 2, np.float32),
                conv_nd(x3, w3, (1, 2, 1), (1, 0, 1), (0, 1, 1), (1, 1, 2), 1, np.float32),
                conv_transpose_nd(xt, wt, (2, 3), (1, 0), (0, 1), (1, 0), (1, 1), 2, np.float32),
            )
        )
    for other in results[1:]:
        for a, b in zip(results[0], other, strict=False):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_a_kernel_whose_smallest_block_does_not_fit_is_a_resource_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "resident", lambda: 900 * 2**20)
    old = limits.set_max_memory(2**30)
    try:
        assert limits.scratch_rows(1000, 2**20, "the temporaries of a convolution") == 32
        with pytest.raises(limits.LimitExceeded) as caught:
            limits.scratch_rows(1000, 200 * 2**20, "the temporaries of a convolution")
    finally:
        limits.set_max_memory(old)
    assert caught.value.message == (
        "the temporaries of a convolution need 200 MiB at least, more than the memory limit of 1 GiB "
        "leaves beside the 900 MiB the run holds (--max-memory)"
    )
