"""`relay viz`: a module drawn as its dataflow graph.

    graph = viz.graph_of(module, result)        # model.Graph (result: the checker's CheckResult)
    viz.to_html(graph)                           # the interactive viewer, one offline file
    viz.to_svg(graph, entry="@main")             # a static picture
    viz.to_dot(graph)                            # Graphviz's language, laid out by any DOT tool

The stages: `extract` (IR to graph), `layout` (layers and orders),
`coords` (positions and edge routes), and the writers `html`, `svg`, `dot`.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable, Iterator

if TYPE_CHECKING:
    from ..ir.module import Module
    from .model import Graph

GROUP_KINDS_TO_FOLD = ("fn", "if", "match")


class VizError(Exception):
    """A request the graph cannot meet (an unknown `--entry`)."""


@contextmanager
def quiet_gc() -> Iterator[None]:
    """Pause the cyclic collector: the graph and its layout are many small
    objects without cycles, and collection passes over a large checked IR
    cost more than building them (measured: half the time at 25,000 nodes)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def graph_of(module: Module, result: Any) -> Graph:
    """The graph of every function of `module`, typed by `result` (a CheckResult), opening at `@main`."""
    from .extract import module_graph

    types = result.types.get if result is not None else (lambda node: None)
    with quiet_gc():
        graph = module_graph(module, types, result.global_types if result is not None else None)
    graph.entry = default_entry(graph)
    return graph


def default_entry(graph: Graph) -> int:
    """`@main`, else the trailing expression, else the first function (-1: none)."""
    tops = graph.functions()
    for g in tops:
        if g.name == "@main":
            return g.id
    for g in tops:
        if not g.name:
            return g.id
    return tops[0].id if tops else -1


def find_entry(graph: Graph, name: str) -> int:
    """The top-level group of global `name` (`@f` or `f`); VizError names the choices."""
    found = graph.function(name)
    if found is not None:
        return found.id
    from ..text.suggest import close_names, or_list

    names = [g.name for g in graph.functions() if g.name]
    want = name if name.startswith("@") else "@" + name
    guesses = close_names(want, names)
    if guesses:
        hint = f"; did you mean {or_list([f'`{g}`' for g in guesses])}?"
    elif names:
        hint = "; it defines " + ", ".join(f"`{n}`" for n in names[:12]) + (", ..." if len(names) > 12 else "")
    else:
        hint = "; it defines no global functions"
    raise VizError(f"`{want}` is not a function of this file{hint}")


def folded(graph: Graph, kinds: Iterable[str]) -> set[int]:
    """The groups of the given kinds (`fn`, `if`, `match`), to draw folded."""
    want = set(kinds)
    return {g.id for g in graph.groups if g.parent >= 0 and g.kind in want}


def to_html(graph: Graph, *, collapsed: Iterable[int] = (), orthogonal: bool = True) -> str:
    from .html import write_html
    from .layout import layered

    with quiet_gc():
        return write_html(layered(graph), set(collapsed), orthogonal)


def to_svg(graph: Graph, *, entry: int | None = None, collapsed: Iterable[int] = (), orthogonal: bool = True) -> str:
    """The picture of every function, or of the function `entry` (a top-level group id) alone."""
    from .coords import place
    from .layout import layered
    from .svg import write_svg

    folded_ids = set(collapsed)
    with quiet_gc():
        if entry is not None:
            graph, renumbered = only(graph, entry)
            folded_ids = {renumbered[g] for g in folded_ids if g in renumbered}
        return write_svg(graph, place(layered(graph), folded_ids, orthogonal))


def to_dot(graph: Graph, *, entry: int | None = None) -> str:
    from .dot import write_dot

    return write_dot(graph, None if entry is None else {entry})


def only(graph: Graph, top: int) -> tuple[Graph, dict[int, int]]:
    """The part of `graph` in top-level group `top`, renumbered, and the new id of each group kept."""
    from dataclasses import replace

    from .model import Graph as G
    from .model import group_id, group_ref, is_group

    keep = []
    for g in graph.groups:
        t = g.id
        while graph.groups[t].parent >= 0:
            t = graph.groups[t].parent
        if t == top:
            keep.append(g.id)
    gmap = {old: new for new, old in enumerate(keep)}
    nodes = [n for n in graph.nodes if n.group in gmap]
    nmap = {n.id: i for i, n in enumerate(nodes)}

    def ref(r: int) -> int | None:
        if is_group(r):
            g = gmap.get(group_id(r))
            return None if g is None else group_ref(g)
        return nmap.get(r)

    out = G(source_name=graph.source_name, lines=graph.lines)
    out.groups = [replace(graph.groups[g], id=gmap[g], parent=gmap.get(graph.groups[g].parent, -1)) for g in keep]
    out.nodes = [replace(n, id=nmap[n.id], group=gmap[n.group]) for n in nodes]
    for e in graph.edges:
        src, dst = ref(e.src), ref(e.dst)
        if src is not None and dst is not None:
            out.edges.append(replace(e, src=src, dst=dst))
    out.entry = 0 if out.groups else -1
    return out, gmap


def module_html(module: Module, height: int = 600) -> str:
    """The viewer of a module in an `<iframe>`, for a notebook (`Module._repr_html_`)."""
    graph = _checked_graph(module)
    return iframe(to_html(graph), height)


def module_svg(module: Module) -> str:
    return to_svg(_checked_graph(module))


def iframe(page: str, height: int = 600) -> str:
    """A page inline in other HTML (a notebook's output): its own document, its script and style apart."""
    from html import escape

    return (
        f'<iframe srcdoc="{escape(page, quote=True)}" style="width: 100%; height: {int(height)}px; '
        'border: 1px solid #d5dce3; border-radius: 4px;" sandbox="allow-scripts"></iframe>'
    )


def _checked_graph(module: Module) -> Graph:
    from ..check import check_module
    from ..std import prelude

    std = prelude()
    result = check_module(module, std.module)
    return graph_of(module, result)
