"""Runtime values of Relay programs.

    tensor        a numpy array with its exact dtype; a scalar is a 0-d array
                  or a numpy scalar (`numpy.int32(3)`), which behaves like one
    tuple         a Python tuple of values (`()` is unit)
    closure       a Python function (calling it runs the Relay function)
    constructor   `Data`: the constructor that built it and its fields
    reference     `Ref`: a mutable cell (`ref`, `ref_read`, `ref_write`)

Values are immutable except for a `Ref`'s content; constants shared by the
compiled program are read-only arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.expr import Constructor


class Data:
    """A value built by an ADT constructor: `Cons(1, Nil())`."""

    __slots__ = ("con", "fields")

    def __init__(self, con: Constructor, fields: tuple[Any, ...] = ()) -> None:
        self.con = con
        self.fields = tuple(fields)

    @property
    def name(self) -> str:
        """The constructor's name, e.g. `Cons`."""
        return self.con.name

    def __repr__(self) -> str:
        from .show import value_text

        return value_text(self)


class Ref:
    """A mutable cell created by `ref(v)`."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        from .show import value_text

        return value_text(self)


def is_tensor(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic))


def to_python(value: Any) -> Any:
    """Plain Python data: scalars become int/float/bool, arrays nested lists,
    tuples stay tuples, `Data` becomes `(name, [fields])` and a list built
    from `Cons`/`Nil` a Python list. Closures and references are returned as
    they are. Works iteratively, so a list of a million elements is fine."""
    from .show import is_list_node

    results: dict[int, Any] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        v, expanded = stack.pop()
        key = id(v)
        if key in results and not expanded:
            continue
        if is_tensor(v):
            results[key] = v.tolist() if isinstance(v, np.ndarray) else v.item()
            continue
        if isinstance(v, tuple):
            if expanded:
                results[key] = tuple(results[id(f)] for f in v)
            else:
                stack.append((v, True))
                stack.extend((f, False) for f in v)
            continue
        if isinstance(v, Data):
            if is_list_node(v):
                cells = []
                node = v
                while node.con.name == "Cons":
                    cells.append(node.fields[0])
                    node = node.fields[1]
                if expanded:
                    results[key] = [results[id(c)] for c in cells]
                else:
                    stack.append((v, True))
                    stack.extend((c, False) for c in cells)
                continue
            if expanded:
                results[key] = (v.con.name, [results[id(f)] for f in v.fields])
            else:
                stack.append((v, True))
                stack.extend((f, False) for f in v.fields)
            continue
        results[key] = v
    return results[id(value)]


__all__ = ["Data", "Ref", "is_tensor", "to_python"]
