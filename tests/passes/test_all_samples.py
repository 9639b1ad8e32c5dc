"""Every pass on every sample (the default run uses the core samples of
tests/passes/programs.py): each gives a well-formed program computing the
same values, within float rounding where the pass reorders arithmetic."""

from __future__ import annotations

import pytest

from tests.passes.programs import check_samples

PIPELINES = {
    "InferType": (0.0, 0.0),
    "FoldConstant": (0.0, 0.0),
    "SimplifyInference": (1e-5, 1e-6),
    "DeadCodeElimination{inline_once=true}": (0.0, 0.0),
    "EliminateCommonSubexpr": (0.0, 0.0),
    "ToANormalForm,ToGraphNormalForm": (0.0, 0.0),
    "ToBasicBlockNormalForm": (0.0, 0.0),
    "Inline": (0.0, 0.0),
    "FuseOps,DefuseOps": (0.0, 0.0),
    "DynamicToStatic": (0.0, 0.0),
    "SimplifyExpr": (1e-5, 1e-5),
    "LambdaLift": (0.0, 0.0),
    "ToMixedPrecision{keep_orig_output_dtype=true}": (5e-2, 5e-2),
    "FoldScaleAxis": (1e-5, 1e-5),
    "FoldAffine,FoldConstant,DenseWeightLayout": (1e-5, 1e-5),
}


@pytest.mark.slow
@pytest.mark.parametrize("passes", sorted(PIPELINES))
def test_every_pass_on_every_sample(passes: str) -> None:
    rtol, atol = PIPELINES[passes]
    check_samples(passes, rtol=rtol, atol=atol, every=True)
