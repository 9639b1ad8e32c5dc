"""Arithmetic on dimensions: linear forms, and solving one equation between two dims.

A dimension is an int, `?`, a shape variable (a `TypeVar` of kind
ShapeVar, rigid), an unknown (a `Hole`) or `+`, `-`, `*` of those. A
*linear* dimension is `c0 + c1*v1 + ... + cn*vn` with integer coefficients;
`n + 1`, `2 * n` and `n + m - 1` are linear, `n * m` is not.

`solve(a, b)` decides `a == b`:

* both sides without unknowns: equal as linear forms (so `n + 1` equals
  `1 + n`), or, when not linear, syntactically equal;
* exactly one unknown `h` with coefficient `c`: `h` is solved when the rest
  divides by `c` (`2 * h == 10` gives 5; `h + 1 == n` gives `n - 1`);
* otherwise the equation must wait until more is known.
"""

from __future__ import annotations

from typing import Any

from ..ir.ty import AnyDim, DimBinOp
from .types import Hole, find, resolve

Linear = tuple[dict, int]  # ({atom: coefficient}, constant)

SOLVED, FAILED, WAIT = "solved", "failed", "wait"


def linear(dim: Any) -> Linear | None:
    """The linear form of a (resolved) dimension, or None if it is not linear."""
    if type(dim) is Hole:
        dim = find(dim)
    if type(dim) is int:
        return {}, dim
    if isinstance(dim, AnyDim):
        return None
    if type(dim) is DimBinOp:
        left = linear(dim.lhs)
        right = linear(dim.rhs)
        if left is None or right is None:
            return None
        if dim.op == "+":
            return _add(left, right, 1)
        if dim.op == "-":
            return _add(left, right, -1)
        if dim.op == "*":
            if not left[0]:
                return _scale(right, left[1])
            if not right[0]:
                return _scale(left, right[1])
            return None
        return None
    return {dim: 1}, 0  # a shape variable or an unsolved hole


def _add(a: Linear, b: Linear, sign: int) -> Linear:
    coeffs = dict(a[0])
    for atom, c in b[0].items():
        coeffs[atom] = coeffs.get(atom, 0) + sign * c
        if coeffs[atom] == 0:
            del coeffs[atom]
    return coeffs, a[1] + sign * b[1]


def _scale(a: Linear, k: int) -> Linear:
    if k == 0:
        return {}, 0
    return {atom: c * k for atom, c in a[0].items()}, a[1] * k


def build(form: Linear) -> Any:
    """A dimension expression for a linear form (`2 * n + 1`)."""
    coeffs, const = form
    expr: Any = None
    for atom, c in sorted(coeffs.items(), key=lambda item: _atom_key(item[0])):
        term: Any = atom if abs(c) == 1 else DimBinOp("*", abs(c), atom)
        if expr is None:
            expr = term if c > 0 else DimBinOp("-", 0, term)
        else:
            expr = DimBinOp("+" if c > 0 else "-", expr, term)
    if expr is None:
        return const
    if const > 0:
        return DimBinOp("+", expr, const)
    if const < 0:
        return DimBinOp("-", expr, -const)
    return expr


def _atom_key(atom: Any) -> tuple:
    return (0, getattr(atom, "name", ""), getattr(atom, "uid", 0)) if not isinstance(atom, Hole) else (1, "", atom.uid)


def solve(a: Any, b: Any) -> tuple[str, Hole | None, Any]:
    """Decide `a == b`: (SOLVED, hole or None, value), (FAILED, None, None) or (WAIT, None, None).

    SOLVED with a hole means the caller must bind the hole to the value.
    """
    a, b = resolve(a), resolve(b)
    if isinstance(a, AnyDim) or isinstance(b, AnyDim):
        return SOLVED, None, None
    la, lb = linear(a), linear(b)
    if la is None or lb is None:
        if a == b:
            return SOLVED, None, None
        if _has_hole(a) or _has_hole(b):
            return WAIT, None, None
        return FAILED, None, None
    coeffs, const = _add(la, lb, -1)
    unknowns = [atom for atom in coeffs if type(atom) is Hole]
    if not unknowns:
        return (SOLVED, None, None) if not coeffs and const == 0 else (FAILED, None, None)
    if len(unknowns) > 1:
        return WAIT, None, None
    hole = unknowns[0]
    c = coeffs.pop(hole)
    # c*h + rest == 0  =>  h == -rest / c
    if const % c or any(v % c for v in coeffs.values()):
        return FAILED, None, None
    value = build(({atom: -v // c for atom, v in coeffs.items()}, -const // c))
    if type(value) is int and value < 0:
        return FAILED, None, None
    return SOLVED, hole, value


def _has_hole(d: Any) -> bool:
    if type(d) is Hole:
        return True
    if type(d) is DimBinOp:
        return _has_hole(d.lhs) or _has_hole(d.rhs)
    return False
