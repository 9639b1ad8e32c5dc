"""Generator methods in `pre_order`: acting between children without recursion."""

from __future__ import annotations

from relay_text.ir.expr import Constant, Let, Var
from relay_text.ir.visitor import Delegate, ExprFunctor


class _Depth(ExprFunctor[int]):
    """Counts let binders; records the order in which values and bodies finish."""

    pre_order = frozenset({Let})

    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    def visit_let(self, node: Let):
        value = yield node.value
        self.events.append(f"value {node.var.name}={value}")
        body = yield node.body
        self.events.append(f"body {node.var.name}")
        return body + 1

    def visit_var(self, node: Var) -> int:
        return 0

    def visit_constant(self, node: Constant) -> int:
        return int(node.value)


def test_generator_receives_child_results_in_order() -> None:
    x, y = Var("x"), Var("y")
    expr = Let(x, Constant(7, "int32"), Let(y, Constant(8, "int32"), y))
    v = _Depth()
    assert v.visit(expr) == 2
    assert v.events == ["value x=7", "value y=8", "body y", "body x"]


def test_generator_methods_handle_100000_nested_lets_without_recursion() -> None:
    body = Var("last")
    expr = body
    for i in range(100_000):
        expr = Let(Var(f"v{i}"), Constant(1, "int32"), expr)
    assert _Depth().visit(expr) == 100_000


def test_memoised_child_is_sent_back_immediately() -> None:
    shared = Constant(3, "int32")
    expr = Let(Var("a"), shared, Let(Var("b"), shared, Var("c")))
    v = _Depth()
    assert v.visit(expr) == 2
    assert v.events[:2] == ["value a=3", "value b=3"]


class _Inliner(ExprFunctor[int]):
    """Sums constants; a `let` whose value is the variable `inline` hands its
    body to a fresh functor (its own memo), as an exporter inlines a body."""

    pre_order = frozenset({Let})

    def __init__(self, depth: int = 0) -> None:
        super().__init__()
        self.depth = depth

    def visit_let(self, node: Let):
        value = yield node.value
        if node.var.name.startswith("inline"):
            inner = _Inliner(self.depth + 1)
            body = yield Delegate(inner, node.body)
            return value + body
        return value + (yield node.body)

    def visit_var(self, node: Var) -> int:
        return 0

    def visit_constant(self, node: Constant) -> int:
        return int(node.value)


def test_a_delegated_child_is_visited_by_the_other_functor() -> None:
    shared = Constant(5, "int32")
    expr = Let(Var("inline0"), Constant(1, "int32"), Let(Var("b"), shared, shared))
    outer = _Inliner()
    assert outer.visit(expr) == 11
    assert shared not in outer.memo  # the body's nodes went to the other functor's memo


def test_20000_delegations_cost_no_recursion() -> None:
    """Twenty times Python's recursion limit, each level a functor of its own."""
    expr = Var("last")
    for i in range(20_000):
        expr = Let(Var(f"inline{i}"), Constant(2, "int32"), expr)
    assert _Inliner().visit(expr) == 40_000


def test_a_delegate_already_visited_is_sent_back_immediately() -> None:
    body = Constant(4, "int32")
    other = _Inliner()
    assert other.visit(body) == 4

    class _Once(ExprFunctor[int]):
        pre_order = frozenset({Let})

        def visit_let(self, node: Let):
            return (yield Delegate(other, node.body)) + 1

    assert _Once().visit(Let(Var("x"), Constant(0, "int32"), body)) == 5
