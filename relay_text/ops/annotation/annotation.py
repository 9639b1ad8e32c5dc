"""Operators that annotate a value without changing it.

TVM's passes mark parts of a program with calls that stand for the value
they are given: where it lives (`on_device`, `device_copy` between two
devices), which external compiler takes it (`annotation.compiler_begin`,
`annotation.compiler_end`), where fusion stops (`annotation.stop_fusion`),
checkpoints for automatic differentiation (`annotation.checkpoint`), bit
packing regions, dtype hints (`annotation.cast_hint`), function ids of
partial evaluation (`annotation.with_funcid`) and `debug` hooks.

All of them have TVM's `Identity` relation over any type (a tensor, a tuple,
a function...): the result has the type of the argument. On one CPU every
device is the same memory, so each evaluates to its argument; a copy between
devices is the value itself (values are never mutated). Their attributes are
kept as written; device attributes are usually references into the metadata
section (`virtual_device=meta[VirtualDevice][0]`) and are accepted in any form.
"""

from __future__ import annotations


from ..registry import Attr, attr_kind, register
from ..relations import Relation, relation
from ..types import Args, Attrs, Value

ANY = attr_kind("any", "any value (a number, string, list or `meta[...]` reference)", lambda value: value)


@relation("Identity", inputs=1)
def same_type(r: Relation) -> bool:
    """The result has the type of the one input, whatever it is."""
    r.set_result(r.arg(0))
    return True


def _identity(args: Args, attrs: Attrs) -> Value:
    return args[0]


def _annotation(name: str, doc: str, *attrs: Attr) -> None:
    register(name, inputs=1, relation=same_type, attrs=attrs, doc=doc)(_identity)


_annotation(
    "on_device",
    "Its argument, placed on a (virtual) device; on one CPU, the argument itself.",
    Attr("virtual_device", ANY, None),
    Attr("constrain_result", "bool", False),
    Attr("constrain_body", "bool", True),
)
_annotation(
    "device_copy",
    "Its argument, copied from one (virtual) device to another; on one CPU, the argument itself.",
    Attr("src_virtual_device", ANY, None),
    Attr("dst_virtual_device", ANY, None),
)
_annotation("annotation.stop_fusion", "Its argument; fusion passes stop here.")
_annotation("annotation.checkpoint", "Its argument; gradient passes recompute rather than keep what it covers.")
_annotation("annotation.bitpack_start", "Its argument; opens a region of bit-packed computation.")
_annotation("annotation.bitpack_end", "Its argument; closes a region of bit-packed computation.")
_annotation(
    "annotation.cast_hint", "Its argument, with a hint of the dtype it is meant to have.", Attr("dtype", "dtype")
)
_annotation(
    "annotation.compiler_begin", "Its argument; opens a region for an external compiler.", Attr("compiler", "str", "")
)
_annotation(
    "annotation.compiler_end", "Its argument; closes a region for an external compiler.", Attr("compiler", "str", "")
)
_annotation(
    "annotation.with_funcid",
    "Its argument, a function, tagged with an id by partial evaluation.",
    Attr("funcid", "int", 0),
)
_annotation("debug", "Its argument; TVM calls a debugging hook on it.", Attr("debug_func", ANY, None))
