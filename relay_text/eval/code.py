"""Generated Python code as data: blocks of lines, each tied to its IR node.

A `Block` is a run of lines at one indentation, possibly holding nested
blocks; `render` turns a forest of blocks into source lines (with an
explicit stack, so nesting costs no recursion) and, for each line, the IR
node it evaluates, which is how a runtime error finds its place in the
program. The helpers the generated code calls to fail (`OVERFLOW`,
`MATCHFAIL`) and the exceptions they raise live here too.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Iterable

import numpy as np

from ..diagnostics import codes
from ..ir.expr import Expr
from ..ir.ty import AnyDim, TensorType, TupleType


class MatchFailure(Exception):
    """No clause of a match accepted the value (only possible under `match?`
    or in a program that was not checked)."""

    def __init__(self, site: int, value: Any) -> None:
        super().__init__(site)
        self.site = site
        self.value = value


class DepthExceeded(Exception):
    """More nested calls than `--max-depth` allows; `tail`: the call that
    went too deep is a self tail call, run as the next iteration of its
    function's loop (the frame it would have entered is the one raising)."""

    def __init__(self, tail: bool = False) -> None:
        super().__init__()
        self.tail = tail


def overflow(tail: bool = False) -> None:
    raise DepthExceeded(tail)


def match_fail(site: int, value: Any) -> None:
    raise MatchFailure(site, value)


def check_shape(value: Any, spec: Any, what: str) -> None:
    """Raise a runtime error when `value` does not have the sizes `spec`
    (from `shape_obligation`) requires."""
    from ..ops.registry import KernelError

    kind, inner = spec
    if kind == "tuple":
        for v, s in zip(value, inner, strict=False):
            if s is not None:
                check_shape(v, s, what)
        return
    shape = np.shape(value)
    if len(shape) != len(inner) or any(d is not None and d != n for d, n in zip(inner, shape, strict=False)):
        want = "(" + ", ".join("?" if d is None else str(d) for d in inner) + ")"
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"{what} has shape ({', '.join(map(str, shape))}), but its declared type needs {want}",
        )


def as_tensor_argument(value: Any) -> Any:
    """A numpy scalar as a 0-d array; anything else unchanged."""
    return np.asarray(value) if isinstance(value, np.generic) else value


# ---------------------------------------------------------------- output


class Block:
    """Lines of code at one indentation; items are (text, node) or Blocks."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Any] = []

    def line(self, text: str, node: Expr | None = None) -> None:
        self.items.append((text, node))

    def nest(self, block: Block) -> None:
        self.items.append(block)


def render(blocks: Iterable[Block]) -> tuple[list[str], list[Expr | None]]:
    """Source lines and, for each line, the node it evaluates."""
    lines: list[str] = []
    nodes: list[Expr | None] = []
    for top in blocks:
        stack: list[tuple[list[Any], int, int]] = [(top.items, 0, 0)]
        while stack:
            items, index, depth = stack.pop()
            if index >= len(items):
                continue
            stack.append((items, index + 1, depth))
            item = items[index]
            if isinstance(item, Block):
                stack.append((item.items, 0, depth + 1))
                continue
            text, node = item
            lines.append("    " * depth + text)
            nodes.append(node)
    return lines, nodes


_LOCAL = re.compile(r"\b[tv][0-9]+\b")
_ASSIGNED = re.compile(r"^([tv][0-9]+) = |; ([tv][0-9]+) = ")
_DEF = re.compile(r"^def ([tv][0-9]+)\(([^)]*)\)")


def free_names(block: Block) -> set[str]:
    """Local names a block reads but never binds (names are unique per
    program, so this is exact)."""
    used: set[str] = set()
    bound: set[str] = set()
    stack = [block]
    while stack:
        b = stack.pop()
        for item in b.items:
            if isinstance(item, Block):
                stack.append(item)
                continue
            text = item[0]
            used.update(_LOCAL.findall(text))
            for m in _ASSIGNED.finditer(text):
                bound.add(m.group(1) or m.group(2))
            head = _DEF.match(text)
            if head:
                bound.add(head.group(1))
                bound.update(_LOCAL.findall(head.group(2)))
    return used - bound


def shape_obligation(found: Any, declared: Any) -> Any:
    """What to check at run time where a value of type `found` meets the
    declared type `declared`: for a tensor, its sizes (None where any size
    will do); for a tuple, a tuple of such checks; None when the checker has
    already proved the shapes equal (no `?` meets a size)."""
    if isinstance(found, TensorType) and isinstance(declared, TensorType):
        if (
            type(found.shape) is not tuple
            or type(declared.shape) is not tuple
            or len(found.shape) != len(declared.shape)
        ):
            return None
        if not any(isinstance(f, AnyDim) and type(d) is int for f, d in zip(found.shape, declared.shape, strict=False)):
            return None
        return ("tensor", tuple(d if type(d) is int else None for d in declared.shape))
    if isinstance(found, TupleType) and isinstance(declared, TupleType) and len(found.fields) == len(declared.fields):
        fields = tuple(shape_obligation(f, d) for f, d in zip(found.fields, declared.fields, strict=False))
        return ("tuple", fields) if any(x is not None for x in fields) else None
    return None
