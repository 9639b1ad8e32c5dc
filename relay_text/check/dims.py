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

Products of unknowns (`h * h`, `a * b`) are not linear; such an equation is
read as a polynomial. Without unknowns it holds when the two polynomials are
equal (`n * m` equals `m * n`). With one unknown, its whole-number roots
decide it: none (`h * h == 5`) fails, exactly one (`h * h == 9`) solves it,
and a root in terms of shape variables is found among the parts of the
equation (`h * h == n * n` gives `n`). Anything else waits; when solving is
otherwise stuck, `match_structure` may pair the unknowns of two sides
written alike (`a * b == m * n`).
"""

from __future__ import annotations

from typing import Any

from ..ir.ty import AnyDim, DimBinOp
from .types import Hole, find, resolve

Linear = tuple[dict[Any, int], int]  # ({atom: coefficient}, constant)

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


def _atom_key(atom: Any) -> tuple[Any, ...]:
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
        return _solve_polynomial(a, b)
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


# ---------------------------------------------------------------- polynomials

Poly = dict[
    tuple[Any, ...], int
]  # {monomial: coefficient}; a monomial is a sorted tuple of atoms (repeated for powers)


def polynomial(dim: Any) -> Poly | None:
    """The polynomial of a (resolved) dimension, or None when it has `?`."""
    if type(dim) is Hole:
        dim = find(dim)
    if type(dim) is int:
        return {(): dim} if dim else {}
    if isinstance(dim, AnyDim):
        return None
    if type(dim) is DimBinOp:
        left, right = polynomial(dim.lhs), polynomial(dim.rhs)
        if left is None or right is None:
            return None
        if dim.op == "+":
            return _poly_add(left, right, 1)
        if dim.op == "-":
            return _poly_add(left, right, -1)
        if dim.op == "*":
            out: Poly = {}
            for ma, ca in left.items():
                for mb, cb in right.items():
                    m = tuple(sorted(ma + mb, key=_atom_key))
                    out[m] = out.get(m, 0) + ca * cb
            return {m: c for m, c in out.items() if c}
        return None
    return {(dim,): 1}


def _poly_add(a: Poly, b: Poly, sign: int) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
        if not out[m]:
            del out[m]
    return out


def _substitute(p: Poly, hole: Hole, value: Poly) -> Poly:
    out: Poly = {}
    for m, c in p.items():
        term: Poly = {(): c}
        for atom in m:
            factor = value if atom is hole else {(atom,): 1}
            product: Poly = {}
            for ma, ca in term.items():
                for mb, cb in factor.items():
                    key = tuple(sorted(ma + mb, key=_atom_key))
                    product[key] = product.get(key, 0) + ca * cb
            term = {k: v for k, v in product.items() if v}
        out = _poly_add(out, term, 1)
    return out


def _solve_polynomial(a: Any, b: Any) -> tuple[str, Hole | None, Any]:
    pa, pb = polynomial(a), polynomial(b)
    if pa is None or pb is None:
        return (WAIT, None, None) if _has_hole(a) or _has_hole(b) else (FAILED, None, None)
    diff = _poly_add(pa, pb, -1)
    if not diff:
        return SOLVED, None, None
    unknowns = {id(x): x for m in diff for x in m if type(x) is Hole}
    if not unknowns:
        return FAILED, None, None
    if len(unknowns) > 1:
        return WAIT, None, None
    hole = next(iter(unknowns.values()))
    if all(all(x is hole for x in m) for m in diff):
        roots = _whole_roots({len(m): c for m, c in diff.items()})
        if not roots:
            return FAILED, None, None
        return (SOLVED, hole, roots[0]) if len(roots) == 1 else (WAIT, None, None)
    # Coefficients in shape variables: try the parts of the equation as roots.
    found: list[Any] = []
    for cand in _parts(a) + _parts(b):
        if _has_hole(cand) or any(cand == f for f in found):
            continue
        value = polynomial(cand)
        if value is not None and not _substitute(diff, hole, value):
            found.append(cand)
    return (SOLVED, hole, found[0]) if len(found) == 1 else (WAIT, None, None)


def _whole_roots(coeffs: dict[int, int]) -> list[int]:
    """The whole numbers (>= 0) at which `sum(c * x**k)` is 0."""
    low = min(coeffs)
    roots = [0] if low > 0 else []
    c0 = abs(coeffs[low])  # after dividing by x**low, a root divides the constant
    d = 1
    while d * d <= c0:
        if c0 % d == 0:
            for r in {d, c0 // d}:
                if sum(c * r**k for k, c in coeffs.items()) == 0:
                    roots.append(r)
        d += 1
    return sorted(set(roots))


def _parts(d: Any) -> list[Any]:
    """`d` and its sub-expressions."""
    out, stack = [], [d]
    while stack:
        x = stack.pop()
        if type(x) is Hole:
            x = find(x)
        out.append(x)
        if type(x) is DimBinOp:
            stack.extend((x.lhs, x.rhs))
    return out


def match_structure(a: Any, b: Any) -> list[tuple[Hole, Any]]:
    """Pairs (unknown, dimension) that make two dimensions written alike
    (`a * b` and `m * n`) equal part by part, or [] when they are not alike.
    A guess, used only when nothing else decides the equation."""
    pairs: list[tuple[Hole, Any]] = []
    stack = [(resolve(a), resolve(b))]
    while stack:
        x, y = stack.pop()
        if type(x) is Hole or type(y) is Hole:
            hole, other = (x, y) if type(x) is Hole else (y, x)
            if _has_hole(other) and other is not hole:
                return []
            if any(h is hole and o != other for h, o in pairs):
                return []
            if other is not hole:
                pairs.append((hole, other))
            continue
        if type(x) is DimBinOp and type(y) is DimBinOp and x.op == y.op:
            stack.extend(((x.lhs, y.lhs), (x.rhs, y.rhs)))
            continue
        if x != y:
            return []
    return pairs
