"""Every corpus model through the pipelines TVM users ran: `InferType,
SimplifyInference,FoldConstant,FuseOps`, and `ToANormalForm` then back
through `ToGraphNormalForm`. Each result checks, is in the formatter's
normal form and runs to the same values (within float rounding where
batch norms are spelled out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.programs import check_model, corpus_params

pytestmark = needs_corpus

BUILD = "InferType,SimplifyInference,FoldConstant,FuseOps"


@pytest.mark.parametrize("path", corpus_params())
def test_the_build_pipeline(path: Path) -> None:
    check_model(path, BUILD, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("path", corpus_params())
def test_to_a_normal_form_and_back(path: Path) -> None:
    check_model(path, "ToANormalForm,ToGraphNormalForm")
