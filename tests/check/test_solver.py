"""The relation solver: the queue, trigger lists, the fixpoint, backward inference."""

from __future__ import annotations

from relay_text.check.constraint import Constraint, Site
from relay_text.check.solver import Solver
from relay_text.check.types import Hole, find, resolve
from relay_text.ir.ty import Kind, TensorType, TupleType
from relay_text.ops import get

F32 = "float32"


def _same(r) -> bool:
    """Identity over any type: the result is the input (done at once, like TVM's)."""
    r.unify(r.c.out, r.c.args[0])
    return True


class _Harness:
    def __init__(self) -> None:
        self.errors: list = []
        self.solver = Solver(lambda c, exc: self.errors.append(exc))

    def relate(self, fn, args: list, out=None, attrs: dict | None = None, name: str = "rel") -> object:
        out = Hole() if out is None else out
        self.solver.add(Constraint(fn, name, list(args), out, attrs or {}, Site(None, None, name), 0))
        return out

    def op(self, name: str, args: list, out=None, **attrs) -> object:
        opdef = get(name)
        assert opdef is not None
        full, problems = opdef.normalize_attrs(attrs.items())
        assert not problems
        return self.relate(opdef.relation, args, out, full, name)


def test_backward_solving_after_child_update() -> None:
    """seed 003: the test case that first failed.

    Tuples holding unknowns pass through identity relations that are done at
    once; the unknowns are only later unified with concrete tensors, and the
    relations' results must see it.
    """
    h = _Harness()
    tensor1 = TensorType((10, 20), F32)
    tensor2 = TensorType((10, 1, 1), F32)
    t1, t2, t3 = Hole(), Hole(), Hole()
    tup1 = TupleType((t1, t2))
    tup2 = TupleType((t1, t3))
    t4 = h.relate(_same, [tup1])
    t5 = h.relate(_same, [tup2])
    h.relate(_same, [t4], out=t5)
    h.solver.solve()
    assert resolve(t5) in (resolve(tup1), resolve(tup2))
    h.relate(_same, [t1], out=tensor1)
    h.relate(_same, [t2], out=tensor2)
    h.solver.solve()
    assert resolve(t3) == tensor2
    assert resolve(t5) == TupleType((tensor1, tensor2))
    assert not h.errors


def test_relation_waits_then_reruns_when_a_nested_unknown_is_refined() -> None:
    """A relation over ?d; ?d becomes (?c1, ?c2); refining ?c1, ?c2 must re-run it."""
    h = _Harness()
    d = Hole()
    out = h.op("concatenate", [d], axis=0)
    assert isinstance(find(out), Hole)
    c1, c2 = Hole(), Hole()
    h.solver.unifier.unify(d, TupleType((c1, c2)))
    h.solver.solve()
    h.solver.unifier.unify(c1, TensorType((2, 3), F32))
    h.solver.solve()
    assert isinstance(find(out), Hole)  # the second field is still unknown
    h.solver.unifier.unify(c2, TensorType((4, 3), F32))
    h.solver.solve()
    assert resolve(out) == TensorType((6, 3), F32)
    assert h.solver.blocked() == []


def test_relations_run_to_a_fixpoint_in_any_order() -> None:
    h = _Harness()
    x, b = Hole(), Hole()
    y = h.op("nn.relu", [x])
    z = h.op("add", [y, b])
    assert [c.name for c in h.solver.blocked()] == ["add"]  # shapes unknown
    h.solver.unifier.unify(b, TensorType((2, 1), F32))
    h.solver.solve()
    assert h.solver.blocked()
    h.solver.unifier.unify(x, TensorType((3,), F32))
    h.solver.solve()
    assert resolve(z) == TensorType((2, 3), F32)
    assert h.solver.blocked() == []


def test_dense_weight_is_inferred_from_units() -> None:
    """Backward inference: an argument is determined by the data and an attribute."""
    h = _Harness()
    w = Hole()
    out = h.op("nn.dense", [TensorType((1, 768), F32), w], units=2304)
    assert resolve(w) == TensorType((2304, 768), F32)
    assert resolve(out) == TensorType((1, 2304), F32)


def test_conv2d_weight_is_inferred_from_channels_and_kernel_size() -> None:
    h = _Harness()
    w = Hole()
    out = h.op(
        "nn.conv2d",
        [TensorType((1, 3, 224, 224), F32), w],
        strides=(2, 2),
        padding=(3, 3, 3, 3),
        channels=64,
        kernel_size=(7, 7),
    )
    assert resolve(w) == TensorType((64, 3, 7, 7), F32)
    assert resolve(out) == TensorType((1, 64, 112, 112), F32)


def test_batch_norm_vectors_follow_the_channel_axis() -> None:
    h = _Harness()
    vs = [Hole() for _ in range(4)]
    out = h.op("nn.batch_norm", [TensorType((1, 3, 8, 8), F32), *vs])
    vec = TensorType((3,), F32)
    assert [resolve(v) for v in vs] == [vec] * 4
    assert resolve(out) == TupleType((TensorType((1, 3, 8, 8), F32), vec, vec))


def test_result_known_first_determines_the_input_of_identity() -> None:
    h = _Harness()
    x = Hole()
    h.op("nn.relu", [x], out=TensorType((5,), F32))
    assert resolve(x) == TensorType((5,), F32)


def test_failing_relation_reports_and_poisons_its_result() -> None:
    h = _Harness()
    out = h.op("add", [TensorType((2,), F32), TensorType((3,), F32)])
    assert len(h.errors) == 1 and h.errors[0].code == "shape-mismatch"
    from relay_text.check.types import ERROR

    assert find(out) is ERROR


def test_stuck_relations_remain_blocked() -> None:
    h = _Harness()
    h.op("add", [Hole(), Hole()])
    blocked = h.solver.blocked()
    assert len(blocked) == 1 and blocked[0].name == "add"


def test_a_dimension_equation_with_two_unknowns_waits_for_one_of_them() -> None:
    from relay_text.ir.ty import DimBinOp

    h = _Harness()
    a, b = Hole(Kind.SHAPE_VAR), Hole(Kind.SHAPE_VAR)
    h.solver.unifier.unify(TensorType((DimBinOp("+", a, b),), F32), TensorType((10,), F32))
    h.solver.solve()
    assert find(a) is a
    h.solver.unifier.unify(a, 4)
    h.solver.solve()
    assert find(b) == 6


def test_default_pass_makes_a_metadata_constant_a_vector_along_the_last_axis() -> None:
    from relay_text.check.infer import Origin

    h = _Harness()
    meta = Hole(Kind.TYPE, 0, Origin("meta", None, "meta", None, 6))
    out = h.op("add", [TensorType((1, 1000), F32), meta])
    assert not isinstance(resolve(meta).shape, tuple)
    h.solver.default_pass()
    assert resolve(meta) == TensorType((1000,), F32)  # a bias: it broadcasts to the other operand
    assert resolve(out) == TensorType((1, 1000), F32)


def test_default_pass_leaves_ordinary_unknowns_alone() -> None:
    h = _Harness()
    x = Hole()
    h.op("add", [TensorType((4,), F32), x])
    h.solver.default_pass()
    assert not isinstance(resolve(x).shape, tuple)
