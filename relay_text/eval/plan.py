"""Where each expression of a function is evaluated.

A function body is cut into *regions*: the body itself, each branch of an
`if`, each clause of a `match`, and the body of every nested `fn`. A region
runs as a straight sequence of steps, so its code is flat however deep the
expression is; a node whose value is needed by several regions is evaluated
once, in the innermost region that encloses all of its uses.

That is the documents' meaning of a graph binding (`%1 = e`): substituting
`e` wherever `%1` appears, but evaluating it once. A node used inside both
branches of an `if` is evaluated before the `if`; a node used by one branch
only, inside that branch; a node used by a closure and by its surroundings,
once, before the closure is created.

`plan_function` computes, for every compound node, its region (`place`)
and, for every control node (`if`, `match`, `fn`), the nodes of its own
region that its inner regions use and that must therefore be evaluated
before it (`hoisted`). Everything is computed with loops over a
topological order: no recursion, whatever the nesting.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.expr import (
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    Match,
    Op,
    Var,
)
from ..ir.schema import region_edges
from ..ir.visitor import post_order

# Nodes that compute nothing: they are names for values that exist already.
LEAVES = (Var, GlobalVar, Constant, Op, Constructor)


class Region:
    """A straight-line piece of code: a function body, a branch or a clause."""

    __slots__ = ("children", "depth", "index", "owner", "parent", "root")

    def __init__(self, parent: Region | None, owner: Expr, root: Expr, index: int = 0) -> None:
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.owner = owner  # the Function, If or Match that opens it
        self.root = root  # the expression whose value the region computes
        self.index = index  # which branch / clause of the owner
        self.children: list[Region] = []
        if parent is not None:
            parent.children.append(self)

    def __repr__(self) -> str:
        return f"Region({type(self.owner).__name__}#{self.index}, depth={self.depth})"


def common_region(a: Region, b: Region) -> Region:
    """The innermost region enclosing both."""
    while a.depth > b.depth:
        a = a.parent  # type: ignore[assignment]  # a is deeper than b, so not the root
    while b.depth > a.depth:
        b = b.parent  # type: ignore[assignment]  # b is deeper than a, so not the root
    while a is not b:
        a, b = a.parent, b.parent  # type: ignore[assignment]  # distinct regions of one depth are not the root
    return a


@dataclass
class Plan:
    """The regions of one top-level function and where each node goes."""

    top: Region
    place: dict[Expr, Region] = field(default_factory=dict)
    # control node -> regions it opens (if: then, else; match: clauses; fn: body)
    opens: dict[Expr, list[Region]] = field(default_factory=dict)
    # control node -> nodes of its region that its inner regions use
    hoisted: dict[Expr, list[Expr]] = field(default_factory=dict)
    regions: list[Region] = field(default_factory=list)  # parents before children


def plan_function(fn: Function) -> Plan:
    """Place every compound node reachable from `fn`'s body."""
    top = Region(None, fn, fn.body)
    plan = Plan(top)
    plan.opens[fn] = [top]
    plan.regions.append(top)
    place = plan.place
    if not isinstance(fn.body, LEAVES):
        place[fn.body] = top
    order = post_order(fn.body)
    order.reverse()  # parents before children
    uses: list[tuple[Region, Expr]] = []  # (region of the use, used compound node)

    def use(child: Expr, region: Region) -> None:
        if isinstance(child, LEAVES):
            return
        uses.append((region, child))
        current = place.get(child)
        place[child] = region if current is None else common_region(current, region)

    for node in order:
        if isinstance(node, LEAVES):
            continue
        region = place[node]
        inline, opened = region_edges(node)
        for child in inline:
            use(child, region)
        if opened or type(node) is Match:  # (a match without clauses opens none: it fails when run)
            subs = [Region(region, node, root, i) for i, root in enumerate(opened)]
            plan.opens[node] = subs
            plan.regions.extend(subs)
            for sub, root in zip(subs, opened, strict=False):
                use(root, sub)

    # A node placed above the region that uses it is evaluated before the
    # control node (in the node's own region) that leads to that use.
    hoisted = plan.hoisted
    seen: set[tuple[int, int]] = set()
    for region, child in uses:
        home = place[child]
        if home is region:
            continue
        inner = region
        while inner.parent is not home:
            inner = inner.parent  # type: ignore[assignment]  # region lies inside home, so a parent is found first
        anchor = inner.owner
        key = (id(anchor), id(child))
        if key not in seen:
            seen.add(key)
            hoisted.setdefault(anchor, []).append(child)
    return plan
