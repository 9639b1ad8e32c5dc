"""One description of every expression node: its children and their roles.

Each node class lists its child fields once, in evaluation (and text)
order, with the role each plays:

* `binder`  - a variable the node binds (a `let`'s variable, parameters);
* `operand` - evaluated where the node is, as part of its computation;
* `value`   - the value a `let` binds;
* `tail`    - the result of a scope: a `let`'s body, a function's body, a
              branch of `if`, a clause of `match`.

A child that opens a scope of its own (a function body, a branch, a clause)
says which (`fn`, `then`, `else`, `clause`). Every table the stages need is
derived from these declarations once, here:

* `children(node)` - all children, binders included (the traversal in
  `visitor`, and the child indices `Positions` records);
* `edges(node)` - the non-binder children with role, scope and scope index
  (the printer's sharing plan);
* `text_order(node)` - (child index, child) in the order their text appears
  (comments; an infix call writes its operator between its operands);
* `region_edges(node)` - the children evaluated where the node is, and the
  roots of the scopes it opens (the evaluator's plan).

A node class added to the IR gets one entry in `FIELDS` and every stage
sees its children.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias
from collections.abc import Callable

from .expr import (
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass

BINDER = "binder"
OPERAND = "operand"
VALUE = "value"
TAIL = "tail"


@dataclass(frozen=True, slots=True)
class Field:
    """One child field of a node class.

    `many`: the field holds a tuple of children; `via`: each item of the
    tuple holds its child in this attribute (a match clause's `body`);
    `scope`: the child opens a scope of this kind."""

    name: str
    role: str
    many: bool = False
    via: str | None = None
    scope: str | None = None


FIELDS: dict[type, tuple[Field, ...]] = {
    Var: (),
    GlobalVar: (),
    Constant: (),
    Op: (),
    Constructor: (),
    Tuple: (Field("fields", OPERAND, many=True),),
    TupleGetItem: (Field("tuple_value", OPERAND),),
    Let: (Field("var", BINDER), Field("value", VALUE), Field("body", TAIL)),
    Function: (Field("params", BINDER, many=True), Field("body", TAIL, scope="fn")),
    Call: (Field("op", OPERAND), Field("args", OPERAND, many=True)),
    If: (Field("cond", OPERAND), Field("then_branch", TAIL, scope="then"), Field("else_branch", TAIL, scope="else")),
    Match: (Field("data", OPERAND), Field("clauses", TAIL, many=True, via="body", scope="clause")),
    RefCreate: (Field("value", OPERAND),),
    RefRead: (Field("ref", OPERAND),),
    RefWrite: (Field("ref", OPERAND), Field("value", OPERAND)),
}

# (child, role, scope kind or None, scope index). The items stay Any: readers
# dispatch on type(child) kept in a local, which mypy does not narrow through.
Edge: TypeAlias = tuple[Any, ...]


def _compile(fields: tuple[Field, ...]) -> tuple[Callable[[Any], list[tuple[Expr, Field, int]]], bool]:
    """A function listing (child, field, index within the field) for a node, and
    whether the class has no children at all."""
    if not fields:
        return (lambda node: []), True

    def items(node: Any) -> list[tuple[Expr, Field, int]]:
        out: list[tuple[Expr, Field, int]] = []
        for f in fields:
            value = getattr(node, f.name)
            if f.many:
                for i, item in enumerate(value):
                    out.append((getattr(item, f.via) if f.via else item, f, i))
            else:
                out.append((value, f, 0))
        return out

    return items, False


_ITEMS: dict[type, Callable[[Any], list[tuple[Expr, Field, int]]]] = {}
_LEAF: set[type] = set()
for _cls, _fields in FIELDS.items():
    _ITEMS[_cls], _leaf = _compile(_fields)
    if _leaf:
        _LEAF.add(_cls)

_NONE: tuple[Expr, ...] = ()


def _children_of(cls: type) -> Callable[[Any], tuple[Expr, ...]]:
    if cls in _LEAF:
        return lambda node: _NONE
    items = _ITEMS[cls]
    return lambda node: tuple(child for child, _, _ in items(node))


# type -> children(node): every child, binders included, in evaluation order
CHILDREN: dict[type, Callable[[Any], tuple[Expr, ...]]] = {cls: _children_of(cls) for cls in FIELDS}


def children(node: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of a node (binders included)."""
    return CHILDREN[type(node)](node)


def edges(node: Expr) -> list[Edge]:
    """(child, role, scope kind or None, scope index) for the non-binder
    children, in text order."""
    return [
        (child, f.role, f.scope, i if f.scope == "clause" else 0)
        for child, f, i in _ITEMS[type(node)](node)
        if f.role != BINDER
    ]


def text_order(node: Expr) -> list[tuple[int, Expr]]:
    """(index in `children`, child) of the non-binder children, in the order
    their text appears: `a + b` writes its operator between its operands."""
    if type(node) is Call and node.infix is not None and len(node.args) == 2:
        return [(1, node.args[0]), (0, node.op), (2, node.args[1])]
    return [(i, child) for i, (child, f, _) in enumerate(_ITEMS[type(node)](node)) if f.role != BINDER]


def region_edges(node: Expr) -> tuple[list[Expr], list[Expr]]:
    """A node's children evaluated where the node is, and the roots of the
    scopes it opens (in order)."""
    inline: list[Expr] = []
    opened: list[Expr] = []
    for child, f, _ in _ITEMS[type(node)](node):
        if f.role == BINDER:
            continue
        (opened if f.scope is not None else inline).append(child)
    return inline, opened


def binders(node: Expr) -> list[Var]:
    """The variables a node binds directly (pattern variables aside)."""
    return [child for child, f, _ in _ITEMS[type(node)](node) if f.role == BINDER]  # type: ignore[misc]  # a binder field always holds a Var
