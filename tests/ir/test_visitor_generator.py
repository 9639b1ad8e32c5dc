"""Generator methods in `pre_order`: acting between children without recursion."""

from __future__ import annotations

from relay_text.ir.expr import Constant, Let, Var
from relay_text.ir.visitor import ExprFunctor


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
