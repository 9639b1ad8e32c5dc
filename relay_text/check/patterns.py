"""Exhaustiveness and redundancy of `match`, by usefulness (Maranget 2007).

Luc Maranget, "Warnings for pattern matching", JFP 17(3), 2007. A pattern
vector `q` is *useful* with respect to a matrix of clauses `P` when some
value matched by `q` is matched by no row of `P`:

* a clause is unreachable when its pattern is not useful with respect to
  the clauses above it;
* a match is exhaustive when the wildcard is not useful with respect to all
  its clauses; otherwise the witness-producing variant of the algorithm
  names a value that no clause matches, e.g. `Cons(_, Nil())`.

Patterns are reduced to a head and sub-patterns: a constructor (one of the
finite set its data type defines) or a tuple of n fields (a type with a
single constructor); variables and `_` are wildcards. Tensors have no
constructors here, so only a wildcard covers them.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from ..ir.expr import Constructor
from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import
    from ..record import dataclass

# A simplified pattern: None (wildcard) or (head, (sub-patterns...)).
# A head is a Constructor, or an int n for an n-tuple.
Pat = tuple[Any, tuple[Any, ...]] | None


def simplify(p: Any) -> Pat:
    if isinstance(p, (PatternWildcard, PatternVar)):
        return None
    if isinstance(p, PatternConstructor):
        if p.constructor.belong_to is None:
            return None  # an unknown constructor, reported already: do not pile on
        n = len(p.constructor.inputs)
        subs = [simplify(s) for s in p.patterns[:n]]
        subs += [None] * (n - len(subs))  # a wrong arity is reported elsewhere
        return (p.constructor, tuple(subs))
    if isinstance(p, PatternTuple):
        return (len(p.patterns), tuple(simplify(s) for s in p.patterns))
    return None


def _arity(head: Any) -> int:
    return head if isinstance(head, int) else len(head.inputs)


def _same(a: Any, b: Any) -> bool:
    return a == b if isinstance(a, int) else a is b


@dataclass
class Signatures:
    """The constructors of the data type a constructor belongs to."""

    siblings: Callable[[Constructor], list[Constructor] | None]

    def all_heads(self, head: Any) -> list[Any] | None:
        """Every head of the type `head` belongs to; None if not finite/known."""
        if isinstance(head, int):
            return [head]
        return self.siblings(head)


def _wildcards(n: int) -> list[Pat]:
    """`n` patterns that match anything."""
    return [None] * n


def _specialize(rows: list[list[Pat]], head: Any) -> list[list[Pat]]:
    n = _arity(head)
    out = []
    for row in rows:
        first = row[0]
        if first is None:
            out.append(_wildcards(n) + row[1:])
        elif _same(first[0], head):
            out.append(list(first[1]) + row[1:])
    return out


def _split(rows: list[list[Pat]]) -> tuple[dict[Any, list[list[Pat]]], list[list[Pat]]]:
    """The rows by their first head (head -> rows, in order) and the rows
    whose first pattern is a wildcard: one pass, so that specializing by
    every head costs the rows once, not once per head. (A head is an int or
    a Constructor, which compares by identity: either is its own key.)"""
    groups: dict[Any, list[list[Pat]]] = {}
    wild: list[list[Pat]] = []
    for row in rows:
        first = row[0]
        if first is None:
            wild.append(row)
        else:
            group = groups.get(first[0])
            if group is None:
                groups[first[0]] = [row]
            else:
                group.append(row)
    return groups, wild


def _specialized(groups: dict[Any, list[list[Pat]]], wild: list[list[Pat]], head: Any) -> list[list[Pat]]:
    """`_specialize(rows, head)` from `_split(rows)`. Row order does not
    change usefulness or the witness found, so the head's own rows come
    before the wildcard rows."""
    n = _arity(head)
    out = [list(row[0][1]) + row[1:] for row in groups.get(head, ())]  # type: ignore[index]  # grouped rows start with a constructor, never a wildcard
    out.extend([None] * n + row[1:] for row in wild)
    return out


def _default(rows: list[list[Pat]]) -> list[list[Pat]]:
    return [row[1:] for row in rows if row[0] is None]


def _heads(rows: list[list[Pat]]) -> list[Any]:
    # dict keys: the heads in order of first appearance, each once.
    return list(dict.fromkeys(row[0][0] for row in rows if row[0] is not None))


def _complete(heads: list[Any], sigs: Signatures) -> list[Any] | None:
    """All heads of the type if `heads` covers them, else None."""
    if not heads:
        return None
    every = sigs.all_heads(heads[0])
    if every is None:
        return None
    present = set(heads)
    if all(h in present for h in every):
        return every
    return None


def useful(rows: list[list[Pat]], q: list[Pat], sigs: Signatures) -> bool:
    """Is some value matched by `q` matched by no row?"""
    if not q:
        return not rows
    first = q[0]
    if first is not None:
        head, subs = first
        return useful(_specialize(rows, head), list(subs) + q[1:], sigs)
    heads = _heads(rows)
    every = _complete(heads, sigs)
    if every is not None:
        groups, wild = _split(rows)
        return any(useful(_specialized(groups, wild, h), _wildcards(_arity(h)) + q[1:], sigs) for h in every)
    return useful(_default(rows), q[1:], sigs)


def missing(rows: list[list[Pat]], n: int, sigs: Signatures) -> list[Pat] | None:
    """A vector of n patterns matched by no row, or None if the rows cover everything."""
    if n == 0:
        return None if rows else []
    heads = _heads(rows)
    every = _complete(heads, sigs)
    if every is not None:
        groups, wild = _split(rows)
        for h in every:
            k = _arity(h)
            sub = missing(_specialized(groups, wild, h), k + n - 1, sigs)
            if sub is not None:
                return [(h, tuple(sub[:k])), *sub[k:]]
        return None
    sub = missing(_default(rows), n - 1, sigs)
    if sub is None:
        return None
    if not heads:
        return [None, *sub]
    every_known = sigs.all_heads(heads[0])
    present = set(heads)
    for h in every_known or ():
        if h not in present:
            return [(h, (None,) * _arity(h)), *sub]
    return [None, *sub]


def pattern_text(p: Pat, dialect: str = "docs") -> str:
    """A simplified pattern as program text: `Cons(_, Nil())` (`Nil` in TVM's dialect)."""
    if p is None:
        return "_"
    head, subs = p
    inner = ", ".join(pattern_text(s, dialect) for s in subs)
    if isinstance(head, int):
        return f"({inner},)" if head == 1 else f"({inner})"
    name: str = head.name
    if not subs and dialect == "tvm":
        return name
    return f"{name}({inner})"


@dataclass
class MatchReport:
    """What the clauses of one `match` leave out, and which of them can never match."""

    missing: str | None  # a value no clause matches, as pattern text
    unreachable: list[tuple[int, int | None]]  # (clause index, index of a clause that covers it alone)


_UNSEARCHED = object()


def _first_cover(rows: list[list[Pat]], candidates: Any, row: list[Pat], sigs: Signatures) -> int | None:
    """The first of the candidate rows (indices, in order) that covers `row` alone."""
    j: int
    for j in candidates:
        if not useful([rows[j]], row, sigs):
            return j
    return None


def analyse(patterns: list[Any], sigs: Signatures, dialect: str = "docs") -> MatchReport:
    """Exhaustiveness and redundancy of a match with these clause patterns.

    A clause is tested against the clauses above it that can match the same
    values: those with its head or a wildcard (all of them for a wildcard
    clause), found through an index by head, so that a match of n clauses
    over n constructors costs n steps, not n^2."""
    rows: list[list[Pat]] = []
    by_head: dict[Any, list[int]] = {}  # head -> indices of the rows with that head
    wild: list[int] = []  # indices of the rows that are a wildcard
    unreachable = []
    wildcard_cover: Any = _UNSEARCHED
    for i, p in enumerate(patterns):
        first = simplify(p)
        row = [first]
        if wild:
            # A one-column wildcard row above covers everything.
            reachable = False
        elif first is None:
            reachable = useful(rows, row, sigs)
        else:
            above = [rows[j] for j in by_head.get(first[0], ())]
            reachable = useful(above, row, sigs)
        if not reachable:
            if first is None:
                # The first wildcard clause covers every later one; a clause
                # above it that does is found once.
                if wildcard_cover is _UNSEARCHED:
                    wildcard_cover = _first_cover(rows, range(wild[0] if wild else len(rows)), row, sigs)
                cover = wildcard_cover if wildcard_cover is not None or not wild else wild[0]
            else:
                cover = _first_cover(rows, heapq.merge(wild, by_head.get(first[0], ())), row, sigs)
            unreachable.append((i, cover))
        if first is None:
            wild.append(i)
        else:
            by_head.setdefault(first[0], []).append(i)
        rows.append(row)
    witness = missing(rows, 1, sigs)
    return MatchReport(pattern_text(witness[0], dialect) if witness is not None else None, unreachable)
