"""Older TVM names of operators, read with their old attributes.

Dumps printed by earlier TVM releases call operators that were renamed
since: `image.resize` is `image.resize2d` (TVM 0.8 renamed it and its
`bilinear`/`bicubic` methods to `linear`/`cubic`), `scatter` and
`scatter_add` are `scatter_elements` with the `update` and `add`
reductions. Each old name is a unit of its own, with the attributes it had,
whose relation and kernel are those of the current operator given the
translated attributes; the checker says which name to use now.

Old spellings whose meaning cannot be carried over by renaming get a hint
instead (`legacy_hint`): `nn.pad(%x, pad_width=..., pad_value=0f)` (the
pad value became the second argument in TVM 0.8).
"""

from __future__ import annotations

from typing import Any, Callable

from .registry import Attr, get, register
from .relations import RelationCall

Translate = Callable[[dict], dict]


class _Translated:
    """A relation call seen with the current operator's name and attributes."""

    def __init__(self, r: RelationCall, op: str, attrs: dict) -> None:
        self._r = r
        self.op = op
        self.attrs = attrs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._r, name)


def _current(new: str, translate: Translate, attrs: dict) -> dict:
    unit = get(new)
    assert unit is not None, new
    full, problems = unit.normalize_attrs(translate(attrs).items())
    assert not problems, [p.message for p in problems]
    return full


def renamed(old: str, new: str, inputs: int, attrs: tuple[Attr, ...], translate: Translate) -> None:
    """Register `old` as TVM's former name of `new`."""

    def rel(r: RelationCall) -> bool:
        unit = get(new)
        assert unit is not None
        return unit.relation(_Translated(r, old, _current(new, translate, r.attrs)))  # type: ignore[arg-type]  # a RelationCall by delegation

    rel.relation_name = f"{old} (now {new})"  # type: ignore[attr-defined]  # the relation's display name

    def kernel(args: tuple, given: dict) -> Any:
        unit = get(new)
        assert unit is not None
        return unit.kernel(args, _current(new, translate, given))

    register(old, inputs=inputs, relation=rel, attrs=attrs, doc=f"TVM's former name of `{new}`.", renamed_to=new)(kernel)


_METHODS = {"bilinear": "linear", "bicubic": "cubic", "nearest_neighbor": "nearest_neighbor"}


def _resize(a: dict) -> dict:
    out = {k: v for k, v in a.items() if k not in ("bicubic_alpha", "bicubic_exclude")}
    out["method"] = _METHODS.get(a["method"], a["method"])
    out["cubic_alpha"] = a["bicubic_alpha"]
    out["cubic_exclude"] = a["bicubic_exclude"]
    return out


renamed(
    "image.resize",
    "image.resize2d",
    1,
    (
        Attr("size", "ints"),
        Attr("layout", "str", "NCHW"),
        Attr("method", "str", "bilinear"),
        Attr("coordinate_transformation_mode", "str", "half_pixel"),
        Attr("rounding_method", "str", ""),
        Attr("bicubic_alpha", "float", -0.5),
        Attr("bicubic_exclude", "int", 0),
        Attr("out_dtype", "opt_dtype", ""),
    ),
    _resize,
)
renamed("scatter", "scatter_elements", 3, (Attr("axis", "int", 0),), lambda a: {"axis": a["axis"], "reduction": "update"})
renamed("scatter_add", "scatter_elements", 3, (Attr("axis", "int", 0),), lambda a: {"axis": a["axis"], "reduction": "add"})


def legacy_hint(op: str, positional: int, keys: set[str]) -> str | None:
    """How to write a call in an older TVM spelling today, if it is one."""
    if op == "nn.pad" and positional == 1 and "pad_value" in keys:
        return "since TVM 0.8 the pad value is the second argument of `nn.pad`: `nn.pad(%x, 0f, pad_width=[...])`"
    return None


# Names TVM registers that no program text can use here, and why.
UNSUPPORTED = {
    "parser.MetaRef": "TVM's parser uses it internally for a `meta[...]` reference; write the reference itself",
    "torch_op": "TVM runs it with its libtorch extension, from a serialized TorchScript function held in the call's attributes",
}
