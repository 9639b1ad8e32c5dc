"""The converter table: ONNX operator type (and domain) to converter, by opset.

A converter is registered for the opsets it handles, from the version of
the operator's definition it was written for:

    @converter("Softmax", since=13)
    def softmax(ctx, node):
        ...

`since` is the first opset of that version of the operator (ONNX's
`since_version`); a converter handles every later opset until the next
registration of the same operator starts (`until` closes the range
explicitly, for a version whose successor changed the semantics and is
not handled). A model whose opset is below the first registration, or in
a range nothing covers, gets an `unsupported` diagnostic naming the
operator, the opset and the versions that are handled.

Operators of other domains (`com.microsoft`, `ai.onnx.ml`) are registered
with `domain=`; their opset is the model's import of that domain.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from ...ir.expr import Expr

if TYPE_CHECKING:
    from .graph import Ctx, OptionalNone
    from .node import Node

# What a converter gives for its node: the value of its only output, or the
# values of its outputs in order (None for an output it does not compute).
# An ONNX optional that holds nothing is an OptionalNone.
Converted: TypeAlias = "Expr | OptionalNone | Sequence[Expr | None]"
Converter: TypeAlias = "Callable[[Ctx, Node], Converted]"

DEFAULT_DOMAIN = ""
_ALIASES = {"ai.onnx": ""}


@dataclass(frozen=True)
class Entry:
    op_type: str
    domain: str
    since: int
    until: int | None  # last opset handled, inclusive; None: every later one
    fn: Converter
    family: str


_TABLE: dict[tuple[str, str], list[Entry]] = {}
# Operators refused on purpose, with the reason (reported as such).
REFUSED: dict[tuple[str, str], str] = {}


def canonical_domain(domain: str) -> str:
    return _ALIASES.get(domain, domain)


def converter(
    op_type: str, since: int = 1, until: int | None = None, domain: str = DEFAULT_DOMAIN
) -> Callable[[Converter], Converter]:
    """Register `fn` for opsets `since`..`until` (see the module docstring)."""

    def decorate(fn: Converter) -> Converter:
        entries = _TABLE.setdefault((domain, op_type), [])
        entries.append(Entry(op_type, domain, since, until, fn, fn.__module__.rsplit(".", 1)[-1]))
        entries.sort(key=lambda e: e.since)
        return fn

    return decorate


def refuse(op_type: str, reason: str, domain: str = DEFAULT_DOMAIN) -> None:
    REFUSED[(domain, op_type)] = reason


def _load() -> None:
    from . import (  # noqa: F401 - the families register their converters
        ops_activation,
        ops_attention,
        ops_control,
        ops_elementwise,
        ops_extra,
        ops_image,
        ops_index,
        ops_linalg,
        ops_misc,
        ops_nn,
        ops_norm,
        ops_quant,
        ops_reduce,
        ops_rnn,
        ops_sequence,
        ops_shape,
        refused,
    )


def lookup(op_type: str, domain: str, opset: int) -> Entry | None:
    _load()
    entries = _TABLE.get((canonical_domain(domain), op_type))
    if not entries:
        return None
    found = None
    for i, e in enumerate(entries):
        if e.since > opset:
            break
        end = e.until
        if end is None and i + 1 < len(entries):
            end = entries[i + 1].since - 1
        if end is None or opset <= end:
            found = e
    return found


def known(op_type: str, domain: str) -> list[Entry]:
    _load()
    return list(_TABLE.get((canonical_domain(domain), op_type), []))


def ranges(op_type: str, domain: str) -> list[tuple[int, int | None]]:
    """The opset ranges handled: [(first, last or None)], merged."""
    out: list[tuple[int, int | None]] = []
    entries = known(op_type, domain)
    for i, e in enumerate(entries):
        end = e.until
        if end is None and i + 1 < len(entries):
            end = entries[i + 1].since - 1
        if out and out[-1][1] is not None and out[-1][1] + 1 == e.since:
            out[-1] = (out[-1][0], end)
        else:
            out.append((e.since, end))
    return out


def range_text(rs: list[tuple[int, int | None]]) -> str:
    return ", ".join(f"{a}+" if b is None else (str(a) if a == b else f"{a}-{b}") for a, b in rs)


def all_entries() -> dict[tuple[str, str], list[Entry]]:
    _load()
    return {k: list(v) for k, v in sorted(_TABLE.items())}
