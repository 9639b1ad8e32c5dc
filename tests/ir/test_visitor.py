"""The traversal base: each node once, children first, no recursion."""

from __future__ import annotations

import pytest

from relay_text.ir import Call, Constant, ExprFunctor, ExprMutator, ExprVisitor, Op, Tuple, Var, post_order
from tests.helpers import body


def test_post_order_visits_shared_nodes_once() -> None:
    f = body("fn (%a) { %1 = add(%a, %a); %2 = multiply(%1, %1); (%2, %1) }")
    order = post_order(f.body)
    assert len(order) == len({id(n) for n in order})
    names = [n.op.name for n in order if isinstance(n, Call)]
    assert names == ["add", "multiply"]
    assert order[-1] is f.body


def test_missing_method_is_loud() -> None:
    class OnlyCalls(ExprFunctor[int]):
        def visit_call(self, node: Call) -> int:
            return 1

    with pytest.raises(NotImplementedError, match=r"OnlyCalls does not handle (Op|Constant)"):
        OnlyCalls().visit(body("add(1, 2)"))


def test_mutator_keeps_unchanged_nodes_and_sharing() -> None:
    f = body("fn (%a) { %1 = add(%a, 1); multiply(%1, %1) }")
    assert ExprMutator().visit(f) is f

    class OneToTwo(ExprMutator):
        def visit_constant(self, node: Constant):
            return Constant(2, node.dtype, node.shape, None, node.span) if node.value == 1 else node

    g = OneToTwo().visit(f)
    assert g is not f
    mul = g.body
    assert mul.args[0] is mul.args[1]  # still shared
    assert mul.args[0].args[1].value == 2


def test_fold_computes_from_children() -> None:
    class Size(ExprFunctor[int]):
        def visit_var(self, node: Var) -> int:
            return 1

        visit_constant = visit_op = visit_global_var = visit_constructor = visit_var

        def visit_call(self, node: Call) -> int:
            return 1 + self.memo[node.op] + sum(self.memo[a] for a in node.args)

        def visit_tuple(self, node: Tuple) -> int:
            return 1 + sum(self.memo[f] for f in node.fields)

    assert Size().visit(body("(add(1, 2), 3)")) == 6


def test_deep_call_chain() -> None:
    expr = Var("x")
    for _ in range(100_000):
        expr = Call(Op("negative"), (expr,))
    count = 0

    class Count(ExprVisitor):
        def visit_call(self, node: Call) -> None:
            nonlocal count
            count += 1

    Count().visit(expr)
    assert count == 100_000
