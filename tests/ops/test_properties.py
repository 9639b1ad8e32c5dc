"""Every operator has its properties (relay_text/ops/properties.py), with
TVM's values where TVM has the fact, and the evaluator reads them."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import registry
from relay_text.ops.properties import PROPERTIES, Pattern, Properties


def test_every_registered_operator_has_properties() -> None:
    """Example of what this catches: registering `@register("nn.new_op", ...)`
    without adding `"nn.new_op": P(...)` to the table fails here, naming it."""
    missing = [op.name for op in registry.all_ops() if op.properties is None]
    assert missing == []


def test_every_row_names_a_registered_operator() -> None:
    """Example: a row for a misspelled name (`"nn.conv_2d"`) fails here."""
    assert sorted(set(PROPERTIES) - set(registry.names())) == []


def test_a_registered_unit_carries_its_row() -> None:
    for op in registry.all_ops():
        assert op.properties is PROPERTIES[op.name]


def test_an_older_name_has_the_properties_of_the_current_one() -> None:
    for op in registry.all_ops():
        if op.renamed_to:
            assert op.properties == PROPERTIES[op.renamed_to], op.name


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("exp", Pattern.ELEMWISE),  # RELAY_REGISTER_UNARY_OP
        ("add", Pattern.BROADCAST),  # RELAY_REGISTER_BINARY_OP
        ("less", Pattern.BROADCAST),  # RELAY_REGISTER_CMP_OP
        ("reshape", Pattern.INJECTIVE),
        ("transpose", Pattern.INJECTIVE),
        ("sum", Pattern.COMM_REDUCE),
        ("argmax", Pattern.COMM_REDUCE),
        ("nn.conv2d", Pattern.OUT_ELEMWISE_FUSABLE),
        ("nn.dense", Pattern.OUT_ELEMWISE_FUSABLE),
        ("nn.batch_norm", Pattern.OUT_ELEMWISE_FUSABLE),
        ("nn.bias_add", Pattern.BROADCAST),
        ("expand_dims", Pattern.BROADCAST),
        ("one_hot", Pattern.OUT_ELEMWISE_FUSABLE),
        ("zeros", Pattern.ELEMWISE),  # registered from Python in TVM
        ("layout_transform", Pattern.INJECTIVE),  # likewise
        ("sort", Pattern.OPAQUE),
        ("shape_of", Pattern.OPAQUE),
        ("nn.layer_norm", Pattern.OPAQUE),  # TVM gives it none: opaque
        ("image.resize", Pattern.INJECTIVE),  # the older name of image.resize2d
    ],
)
def test_patterns_are_tvms(name: str, pattern: Pattern) -> None:
    """TVM 21095b98: `TOpPattern` in src/relay/op/ and python/tvm/relay/op/_*.py."""
    assert registry.properties(name).pattern is pattern


def test_stateful_operators_are_tvms() -> None:
    """`TOpIsStateful` is true for exactly these in TVM 21095b98."""
    assert sorted(n for n, p in PROPERTIES.items() if p.stateful) == ["memory.kill", "nn.dropout", "vm.invoke_tvm_op"]


def test_non_computational_and_lowering_operators() -> None:
    conv = registry.properties("qnn.conv2d")
    assert (conv.computational, conv.lowers) == (False, True)
    assert conv.foldable(fold_qnn=True) and not conv.foldable()
    transposed = registry.properties("qnn.conv2d_transpose")  # no lowering in TVM
    assert not transposed.foldable(fold_qnn=True)
    for name in ("memory.alloc_storage", "memory.alloc_tensor", "on_device", "vm.shape_of", "call_lowered"):
        assert not registry.properties(name).foldable(fold_qnn=True), name
    assert not registry.properties("nn.dropout").foldable(fold_qnn=True)
    assert registry.properties("add").foldable()


def test_shape_dependent_operators() -> None:
    """`TShapeDataDependent` (register_shape_func(name, True, ...))."""
    for name in ("arange", "argwhere", "dyn.reshape", "dyn.full", "dyn.strided_slice", "stft"):
        assert registry.properties(name).shape_dependent, name
    for name in ("reshape", "add", "unique", "strided_slice"):
        assert not registry.properties(name).shape_dependent, name


def test_an_unknown_name_gets_the_most_cautious_properties() -> None:
    unknown = registry.properties("no.such_operator")
    assert unknown == Properties(Pattern.OPAQUE, stateful=True, computational=False)
    assert not unknown.foldable(fold_qnn=True) and not unknown.inplace and not unknown.keeps_low_precision


def _inputs(op: registry.OpDef) -> tuple | None:
    rng = np.random.default_rng(0)
    if op.inputs == 1:
        return (rng.standard_normal((4, 6)).astype(np.float32),)
    if op.inputs == 2 and op.properties is not None and op.properties.pattern is Pattern.BROADCAST:
        return (rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((6,)).astype(np.float32))
    return None


@pytest.mark.parametrize("name", sorted(n for n, p in PROPERTIES.items() if p.inplace))
def test_an_inplace_operator_returns_memory_of_its_own(name: str) -> None:
    """The in-place planner writes into such a result: the kernel must never
    hand back (a view of) an argument."""
    op = registry.get(name)
    assert op is not None
    x = np.ones((1, 2, 4, 4), np.float32)
    shaped = {
        "nn.conv2d": (x, np.ones((3, 2, 1, 1), np.float32)),
        "nn.dense": (np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)),
        "nn.batch_matmul": (np.ones((1, 2, 3), np.float32), np.ones((1, 3, 4), np.float32)),
        "nn.bias_add": (x, np.ones((2,), np.float32)),
        "concatenate": ((np.ones((2, 2), np.float32),),),
        "nn.max_pool2d": (x,),
        "nn.avg_pool2d": (x,),
    }
    args = shaped.get(name) or _inputs(op)
    assert args is not None, name
    given = {"nn.max_pool2d": (("pool_size", (2, 2)),), "nn.avg_pool2d": (("pool_size", (2, 2)),)}.get(name, ())
    attrs, errors = op.normalize_attrs(given)
    assert errors == []
    out = op.kernel(args, attrs)
    assert isinstance(out, np.ndarray)
    for a in _arrays(args):
        assert not np.shares_memory(out, a), name


def _arrays(args: tuple) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for a in args:
        out.extend(_arrays(a) if type(a) is tuple else [a])
    return out


@pytest.mark.parametrize("name", ["reshape", "transpose", "cast", "take", "nn.pad", "where", "concatenate", "shape_of"])
def test_operators_that_keep_float16_as_it_is(name: str) -> None:
    assert registry.properties(name).keeps_low_precision


@pytest.mark.parametrize("name", ["add", "exp", "nn.conv2d", "nn.dense", "sum", "nn.softmax"])
def test_arithmetic_runs_in_float32_on_float16(name: str) -> None:
    assert not registry.properties(name).keeps_low_precision


def test_the_evaluator_reads_the_properties_not_name_lists() -> None:
    """The lists `EFFECT_PREFIXES`, `KEEP_LOW_PRECISION` and `FRESH` are gone:
    the optimiser, the float16 rule and the in-place planner ask the registry."""
    from relay_text.eval import inplace, ops, optimize

    for module, name in ((optimize, "EFFECT_PREFIXES"), (ops, "KEEP_LOW_PRECISION"), (inplace, "FRESH")):
        assert not hasattr(module, name)
    assert optimize.is_pure("add") and not optimize.is_pure("memory.alloc_storage")
    assert ops.keeps_low_precision("reshape") and not ops.keeps_low_precision("add")
    assert inplace.fresh("nn.conv2d") and not inplace.fresh("reshape")
