"""The globals' call graph: which must be inferred together, and in what order.

A global with a complete signature (every parameter and the result
annotated, without `_`) has a known type and needs no inference before its
callers; the others are grouped into strongly connected components and
checked callees first, so that definition order does not matter.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import Function, GlobalVar
from ..ir.ty import IncompleteType
from ..ir.visitor import children
from .types import walk


def fully_annotated(func: Function) -> bool:
    """Whether every parameter and the result are annotated (without `_`)."""
    if func.ret_type is None:
        return False
    for p in func.params:
        if p.type_annotation is None:
            return False
    for t in [func.ret_type] + [p.type_annotation for p in func.params]:
        for x in walk(t):
            if isinstance(x, IncompleteType):
                return False
    return True


def global_refs(func: Function, functions: dict[GlobalVar, Function]) -> list[GlobalVar]:
    """The globals of `functions` that `func` refers to (each shared node looked at once)."""
    out: list[GlobalVar] = []
    seen: set[int] = set()
    stack: list[Any] = [func]  # expressions and their parts, any node class
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is GlobalVar:
            if node in functions and node not in out:
                out.append(node)
            continue
        stack.extend(children(node))
    return out


def sccs(nodes: list[Any], edges: Callable[[Any], list[Any]]) -> list[list[Any]]:
    """Strongly connected components (Tarjan, iterative), callees before callers."""
    if len(nodes) == 1:
        return [list(nodes)]  # one definition: its own group, whatever it calls
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on_stack: set[Any] = set()
    stack: list[Any] = []
    out: list[list[Any]] = []
    counter = 0
    allowed = set(nodes)
    succ_cache: dict[Any, list[Any]] = {}
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
                succ_cache[node] = [s for s in edges(node) if s in allowed]
            succs = succ_cache[node]
            if i < len(succs):
                work.append((node, i + 1))
                s = succs[i]
                if s not in index:
                    work.append((s, 0))
                elif s in on_stack:
                    low[node] = min(low[node], index[s])
                continue
            for s in succs:
                if s in on_stack:
                    low[node] = min(low[node], low[s])
            if low[node] == index[node]:
                group = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    group.append(w)
                    if w is node:
                        break
                out.append(group)
    return out
