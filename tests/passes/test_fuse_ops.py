"""FuseOps and DefuseOps: TVM's pairs (tests/python/relay/test_pass_fuse_ops.py
and test_pass_defuse_ops.py, transcribed), every sample and corpus model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from tests.passes.helpers import assert_pass_pair, assert_same_values, optimized
from tests.passes.programs import check_model, check_samples, corpus_params

T = "Tensor[(10, 20), float32]"


def test_fuse_simple() -> None:
    """test_fuse_simple: add, exp and squeeze in one function."""
    before = f"def @main(%x : {T}) {{\n  squeeze(exp(add(%x, 1f)))\n}}\n"
    expected = f"""def @main(%x : {T}) {{
  %0 = fn (%p0 : {T}, Primitive=1) -> {T} {{ squeeze(exp(add(%p0, 1f))) }};
  %0(%x)
}}
"""
    out = assert_pass_pair(before, expected, "FuseOps")
    assert_same_values(before, out)


D = "Tensor[(1, 16, 64, 64), float32]"
W3 = "Tensor[(16, 16, 3, 3), float32]"
W1 = "Tensor[(16, 16, 1, 1), float32]"


def test_conv2d_fuse() -> None:
    """test_conv2d_fuse: a convolution takes in its elementwise successors up
    to the next dominator; the second path's add joins the 1x1 convolution."""
    before = f"""def @main(%x : {D}, %w1 : {W3}, %w2 : {W1}, %w3 : {W3}) {{
  %0 = add(%x, 1f);
  %1 = nn.conv2d(%0, %w1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %2 = add(1f, %1);
  %3 = add(%1, %2);
  %4 = nn.conv2d(%3, %w2, padding=[0, 0, 0, 0], channels=16, kernel_size=[1, 1]);
  %5 = nn.conv2d(%3, %w3, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  add(%4, %5)
}}
"""
    expected = f"""def @main(%x : {D}, %w1 : {W3}, %w2 : {W1}, %w3 : {W3}) {{
  %0 = fn (%p0 : {D}, Primitive=1) -> {D} {{ add(%p0, 1f) }};
  %1 = fn (%p0 : {D}, %p1 : {W3}, Primitive=1) -> {D} {{
    %2 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
    add(%2, add(1f, %2))
  }};
  %3 = %1(%0(%x), %w1);
  %4 = fn (%p0 : {D}, %p1 : {W3}, Primitive=1) -> {D} {{
    nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3])
  }};
  %5 = fn (%p0 : {D}, %p1 : {W1}, %p2 : {D}, Primitive=1) -> {D} {{
    add(nn.conv2d(%p0, %p1, padding=[0, 0, 0, 0], channels=16, kernel_size=[1, 1]), %p2)
  }};
  %5(%3, %w2, %4(%3, %w3))
}}
"""
    out = assert_pass_pair(before, expected, "FuseOps")
    assert_same_values(before, out)


H = "Tensor[(1, 16, 32, 32), float32]"
C = "Tensor[(1, 32, 64, 64), float32]"


def test_concatenate() -> None:
    """test_concatenate: upsampling, the concatenation and the add fuse; the
    pool stays alone."""
    before = f"""def @main(%x : {D}) {{
  %0 = nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]);
  %1 = nn.upsampling(%0, scale_h=2f, scale_w=2f);
  add(concatenate((%1, %x), axis=1), 1f)
}}
"""
    expected = f"""def @main(%x : {D}) {{
  %0 = fn (%p0 : {D}, Primitive=1) -> {H} {{
    nn.max_pool2d(%p0, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])
  }};
  %1 = fn (%p0 : {H}, %p1 : {D}, Primitive=1) -> {C} {{
    add(concatenate((nn.upsampling(%p0, scale_h=2f, scale_w=2f), %p1), axis=1), 1f)
  }};
  %1(%0(%x), %x)
}}
"""
    out = assert_pass_pair(before, expected, "FuseOps")
    assert_same_values(before, out)


def test_tuple_root() -> None:
    """test_tuple_root: a tuple at the end stays outside the groups."""
    before = f"""def @main(%x : {D}) {{
  %0 = nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]);
  (nn.upsampling(%0, scale_h=2f, scale_w=2f), %x)
}}
"""
    expected = f"""def @main(%x : {D}) {{
  %0 = fn (%p0 : {D}, Primitive=1) -> {H} {{
    nn.max_pool2d(%p0, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])
  }};
  %1 = fn (%p0 : {H}, Primitive=1) -> {D} {{ nn.upsampling(%p0, scale_h=2f, scale_w=2f) }};
  (%1(%0(%x)), %x)
}}
"""
    assert_pass_pair(before, expected, "FuseOps")


def test_stop_fusion() -> None:
    """test_stop_fusion: `annotation.stop_fusion` ends a group and goes."""
    before = f"def @main(%x : {T}) {{\n  exp(annotation.stop_fusion(add(%x, 1f)))\n}}\n"
    expected = f"""def @main(%x : {T}) {{
  %0 = fn (%p0 : {T}, Primitive=1) -> {T} {{ add(%p0, 1f) }};
  %1 = fn (%p0 : {T}, Primitive=1) -> {T} {{ exp(%p0) }};
  %1(%0(%x))
}}
"""
    assert_pass_pair(before, expected, "FuseOps")


def test_fuse_tuple_get_elemwise() -> None:
    """test_fuse_tuple_get_elemwise: the split and the elementwise steps on
    its parts fuse; the dense layer stays alone."""
    before = """def @main(%X : Tensor[(1, 10), float32], %W : Tensor[(30, 10), float32]) {
  %0 = split(nn.dense(%X, %W), indices_or_sections=3, axis=1);
  add(sigmoid(%0.0), multiply(tanh(%0.1), exp(%0.2)))
}
"""
    expected = """def @main(%X : Tensor[(1, 10), float32], %W : Tensor[(30, 10), float32]) {
  %0 = fn (%p0 : Tensor[(1, 10), float32], %p1 : Tensor[(30, 10), float32], Primitive=1) -> Tensor[(1, 30), float32] {
    nn.dense(%p0, %p1)
  };
  %1 = fn (%p0 : Tensor[(1, 30), float32], Primitive=1) -> Tensor[(1, 10), float32] {
    %2 = split(%p0, indices_or_sections=3, axis=1);
    add(sigmoid(%2.0), multiply(tanh(%2.1), exp(%2.2)))
  };
  %1(%0(%X, %W))
}
"""
    out = assert_pass_pair(before, expected, "FuseOps")
    assert_same_values(before, out)


def test_fuse_max() -> None:
    """test_fuse_max: 20 exps with max_depth=10 make two functions of 10."""
    chain = "%x"
    for _ in range(20):
        chain = f"exp({chain})"
    ten = "%p0"
    for _ in range(10):
        ten = f"exp({ten})"
    before = f"def @main(%x : {T}) {{\n  {chain}\n}}\n"
    expected = f"""def @main(%x : {T}) {{
  %0 = fn (%p0 : {T}, Primitive=1) -> {T} {{ {ten} }};
  %1 = fn (%p0 : {T}, Primitive=1) -> {T} {{ {ten} }};
  %1(%0(%x))
}}
"""
    assert_pass_pair(before, expected, "FuseOps{max_depth=10}")


def test_fuse_opt_level_0_gives_each_call_its_function() -> None:
    """Without fusion every node is its own group, a literal too (an argument)."""
    before = f"def @main(%x : {T}) {{\n  exp(add(%x, 1f))\n}}\n"
    expected = f"""def @main(%x : {T}) {{
  %0 = fn (%p0 : {T}, %p1 : float32, Primitive=1) -> {T} {{ add(%p0, %p1) }};
  %1 = fn (%p0 : {T}, Primitive=1) -> {T} {{ exp(%p0) }};
  %1(%0(%x, 1f))
}}
"""
    assert_pass_pair(before, expected, "FuseOps{fuse_opt_level=0}")


def test_reshape_only_functions_are_marked() -> None:
    before = "def @main(%x : Tensor[(2, 3), float32]) {\n  expand_dims(reshape(%x, newshape=[3, 2]), axis=0)\n}\n"
    out = optimized(before, "FuseOps")
    assert "Primitive=1, ReshapeOnly=1" in out.replace("\n", " ").replace("  ", " ")


def test_defuse_undoes_fuse() -> None:
    """test_pass_defuse_ops.py::test_defuse_simple: FuseOps then DefuseOps
    gives the program back."""
    before = f"def @main(%x : {T}) {{\n  squeeze(exp(add(%x, 1f)))\n}}\n"
    out = assert_pass_pair(before, before, "FuseOps,DefuseOps")
    assert_same_values(before, out)


@pytest.mark.parametrize("passes", ["FuseOps", "FuseOps,DefuseOps"])
def test_every_sample(passes: str) -> None:
    check_samples(passes)


@needs_corpus
@pytest.mark.parametrize("path", corpus_params())
def test_every_model(path: Path) -> None:
    check_model(path, "FuseOps")
