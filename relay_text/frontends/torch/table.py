"""The ATen converter table: operator overload name to converter.

    @aten("conv2d.default", "convolution.default")
    def conv(cx, a): ...        # a: the node's arguments by name

Names are those `torch.export` prints (`aten.conv2d.default`), without the
`aten.` prefix when registered; `getitem` is Python's `operator.getitem`
on a node with several results.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

_TABLE: dict[str, Callable[..., Any]] = {}


def aten(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for name in names:
            key = name if "." not in name else f"aten.{name}"
            if key in _TABLE:
                raise ValueError(f"{key} registered twice")
            _TABLE[key] = fn
        return fn

    return decorate


def _load() -> None:
    from . import ops_elementwise, ops_nn, ops_rnn, ops_shape  # noqa: F401


def lookup(name: str) -> Callable[..., Any] | None:
    _load()
    return _TABLE.get(name)


def names() -> list[str]:
    _load()
    return sorted(_TABLE)
