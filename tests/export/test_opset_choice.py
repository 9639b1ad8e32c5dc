"""Without `--opset`, the export writes the default opset or the oldest one
the program's calls need, attributes included: a dilated average pool
needs opset 19 (AveragePool's `dilations`)."""

from __future__ import annotations

from .helpers import agree, export, export_errors

DILATED = "def @main(%a: Tensor[(1, 2, 7, 7), float32]) {{ nn.{op}(%a, pool_size=[2, 2], dilation=[{d}, 2]) }}"


def test_a_dilated_average_pool_raises_the_opset() -> None:
    text = DILATED.format(op="avg_pool2d", d=2)
    assert export(text).opset_import[0].version == 19
    assert agree(text) < 1e-6


def test_pools_that_need_no_newer_opset_keep_the_default() -> None:
    assert export(DILATED.format(op="max_pool2d", d=2)).opset_import[0].version == 18
    assert export(DILATED.format(op="avg_pool2d", d=1).replace(", 2]", ", 1]")).opset_import[0].version == 18


def test_an_older_opset_asked_for_is_refused_at_the_call() -> None:
    (error,) = export_errors(DILATED.format(op="avg_pool2d", d=2), opset=18)
    assert error.message == "`nn.avg_pool2d` cannot be exported here: a dilated average pool needs opset 19"
    assert error.span is not None and error.span.text.startswith("nn.avg_pool2d(")
