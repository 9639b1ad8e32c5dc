"""Every node class of the IR (relay_text/ir/schema.py's FIELDS) goes through
every stage: read, checked, printed and read back to the same program
(alpha-equality), and run to its value; and every fold over the IR that
has no defaults (a direct `ExprFunctor`: the checker, the printer, the ONNX
lowering, ...) has a method for it.

A node class added to the IR without the stages learning it fails here at
once, naming the class, rather than when a user first writes it."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest

import relay_text
from relay_text.ir.alpha import alpha_equal_module
from relay_text.ir.schema import FIELDS
from relay_text.ir.visitor import ExprFunctor, ExprMutator, ExprVisitor

# One program per node class (by name), using it, with the value @main returns.
PROGRAMS: dict[str, tuple[str, int]] = {
    "Var": ("def @main(%a: int32) -> int32 { add(%a, 1) }", 0),
    "Let": ("def @main() -> int32 { let %x = 3; add(%x, %x) }", 6),
    "GlobalVar": ("def @f(%a: int32) -> int32 { %a }\ndef @main() -> int32 { @f(4) }", 4),
    "Constant": ("def @main() -> int32 { 7 }", 7),
    "Op": ("def @main() -> int32 { multiply(2, 3) }", 6),
    "Call": ("def @main() -> int32 { subtract(9, 2) }", 7),
    "Constructor": ("def @main() -> int32 { match (Cons(1, Nil)) { Cons(%h, _) => %h, Nil => 0 } }", 1),
    "Match": ("def @main() -> int32 { match (Nil) { Cons(%h, _) => %h, Nil => 5 } }", 5),
    "Tuple": ("def @main() -> int32 { let %t = (1, 2); %t.0 }", 1),
    "TupleGetItem": ("def @main() -> int32 { (1, 2).1 }", 2),
    "Function": ("def @main() -> int32 { let %f = fn (%y: int32) -> int32 { add(%y, 1) }; %f(1) }", 2),
    "If": ("def @main() -> int32 { if (less(1, 2)) { 10 } else { 20 } }", 10),
    "RefCreate": ("def @main() -> int32 { ref_read(ref(8)) }", 8),
    "RefRead": ("def @main() -> int32 { let %r = ref(1); ref_read(%r) }", 1),
    "RefWrite": ("def @main() -> int32 { let %r = ref(1); let %u = ref_write(%r, 5); ref_read(%r) }", 5),
}
ARGS = {"Var": (np.int32(-1),)}


def _node_classes(module: relay_text.Module) -> set[str]:
    """The names of the node classes in the module's functions."""
    seen: set[str] = set()

    def record(self: ExprVisitor, node: object) -> None:
        seen.add(type(node).__name__)

    collect = type("Collect", (ExprVisitor,), {"visit_" + _snake(t.__name__): record for t in FIELDS})
    for fn in module.functions.values():
        collect().visit(fn)
    return seen


def _snake(name: str) -> str:
    return "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(name))


def test_every_node_class_has_a_program() -> None:
    """Catches a node class added to FIELDS with no program here: e.g. an
    `Assert` node (`assert(%c); %x`) added to ir/expr.py and ir/schema.py
    fails here until a program using it is added below it, which then goes
    through every stage."""
    assert sorted(PROGRAMS) == sorted(t.__name__ for t in FIELDS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_node_goes_through_every_stage(name: str) -> None:
    text, value = PROGRAMS[name]
    module = relay_text.parse(text)
    assert name in _node_classes(module), f"the program of {name} does not use it"
    checked = relay_text.check(text)
    assert checked.errors == 0, checked
    printed = relay_text.format(text)
    assert alpha_equal_module(relay_text.parse(printed), module), printed
    assert int(relay_text.run(text, *ARGS.get(name, ()), entry="main")) == value


def _functors() -> list[type]:
    for info in pkgutil.walk_packages(relay_text.__path__, "relay_text."):
        importlib.import_module(info.name)

    def below(cls: type) -> list[type]:
        return [s for sub in cls.__subclasses__() for s in (sub, *below(sub))]

    folds = {
        c
        for c in below(ExprFunctor)
        if c.__module__.startswith("relay_text.") and not issubclass(c, (ExprVisitor, ExprMutator))
    }
    return sorted(folds, key=lambda c: c.__module__ + c.__qualname__)


def test_every_fold_without_defaults_handles_every_node_class() -> None:
    """Catches a fold that would raise `NotImplementedError` on a node class:
    e.g. deleting `visit_ref_write` from the checker (check/infer.py) makes
    `ref_write(%r, 5)` an internal error; this test names `Checker` and
    `RefWrite` without a program having to reach it."""
    functors = _functors()
    assert len(functors) >= 4, functors  # the checker, the printer, the ONNX lowering, ...
    missing = {
        f"{c.__module__}.{c.__qualname__}": sorted(t.__name__ for t in FIELDS if t not in c._methods) for c in functors
    }
    assert {k: v for k, v in missing.items() if v} == {}
