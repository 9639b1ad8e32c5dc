"""Older TVM names of operators, read with their old attributes.

Dumps printed by earlier TVM releases call operators that were renamed
since: `image.resize` is `image.resize2d` (TVM 0.8 renamed it and its
`bilinear`/`bicubic` methods to `linear`/`cubic`), `dyn.image.resize` is
`dyn.image.resize2d` with a zero roi (it had no roi input), `scatter` and
`scatter_add` are `scatter_elements` with the `update` and `add`
reductions. Each old name is a unit of its own, with the attributes it had,
whose relation and kernel are those of the current operator given the
translated attributes; the checker says which name to use now.

Old spellings whose meaning cannot be carried over by renaming get a hint
instead (`legacy_hint`): `nn.pad(%x, pad_width=..., pad_value=0f)` (the
pad value became the second argument in TVM 0.8).
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn

from ..ir.ty import IncompleteType, TensorType, Type, TypeCall
from .registry import Attr, get, register
from .relation import AttrValue, Notes, Relation, Unifiable, relation

Translate = Callable[[dict], dict]


class _Translated:
    """A relation call seen with the current operator's name and attributes;
    everything else is the call's own."""

    __slots__ = ("_r", "op", "attrs")

    def __init__(self, r: Relation, op: str, attrs: dict[str, AttrValue]) -> None:
        self._r = r
        self.op = op
        self.attrs = attrs

    @property
    def arity(self) -> int:
        return self._r.arity

    def arg(self, i: int) -> Type:
        return self._r.arg(i)

    def result(self) -> Type:
        return self._r.result()

    def tensor(self, i: int) -> TensorType:
        return self._r.tensor(i)

    def tensor_of(self, t: Type, arg: int | None = None, what: str = "this value") -> TensorType:
        return self._r.tensor_of(t, arg, what)

    def unify(self, a: Unifiable, b: Unifiable, arg: int | None = None, message: str = "") -> None:
        self._r.unify(a, b, arg, message)

    def refine(self, i: int, t: Type) -> None:
        self._r.refine(i, t)

    def set_result(self, t: Type) -> None:
        self._r.set_result(t)

    def unify_dtypes(self, i: int, j: int) -> None:
        self._r.unify_dtypes(i, j)

    def from_metadata(self, i: int) -> bool:
        return self._r.from_metadata(i)

    def fail(self, code: str, message: str, arg: int | None = None, notes: Notes = (), label: str = "") -> NoReturn:
        self._r.fail(code, message, arg, notes, label)

    def fresh_shape(self) -> IncompleteType:
        return self._r.fresh_shape()

    def fresh_dim(self, like: object = None) -> IncompleteType:
        return self._r.fresh_dim(like)

    def fresh_dtype(self) -> IncompleteType:
        return self._r.fresh_dtype()

    def adt(self, name: str) -> TypeCall:
        return self._r.adt(name)


def _current(new: str, translate: Translate, attrs: dict) -> dict:
    unit = get(new)
    assert unit is not None, new
    full, problems = unit.normalize_attrs(translate(attrs).items())
    assert not problems, [p.message for p in problems]
    return full


def renamed(old: str, new: str, inputs: int, attrs: tuple[Attr, ...], translate: Translate) -> None:
    """Register `old` as TVM's former name of `new`."""

    @relation(f"{old} (now {new})")
    def rel(r: Relation) -> bool:
        unit = get(new)
        assert unit is not None
        return unit.relation(_Translated(r, old, _current(new, translate, r.attrs)))

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


_RESIZE_ATTRS = (  # ResizeAttrs before TVM 0.8
    Attr("layout", "str", "NCHW"),
    Attr("method", "str", "bilinear"),
    Attr("coordinate_transformation_mode", "str", "half_pixel"),
    Attr("rounding_method", "str", ""),
    Attr("bicubic_alpha", "float", -0.5),
    Attr("bicubic_exclude", "int", 0),
    Attr("out_dtype", "opt_dtype", ""),
)
renamed("image.resize", "image.resize2d", 1, (Attr("size", "ints"), *_RESIZE_ATTRS), _resize)
# `dyn.image.resize(data, size)` (TVM 0.7): `dyn.image.resize2d(data, size,
# roi)` with the roi [0, 0, 0, 0] it could not be given.
_ROI = TensorType((4,), "float32")


class _NoRoi(_Translated):
    """The relation call of the two-input operator seen as the three-input one."""

    @property
    def arity(self) -> int:
        return 3

    def arg(self, i: int) -> Type:
        return _ROI if i == 2 else self._r.arg(i)

    def tensor(self, i: int) -> TensorType:
        return _ROI if i == 2 else self._r.tensor(i)

    def refine(self, i: int, t: Type) -> None:
        if i != 2:
            self._r.refine(i, t)


@relation("dyn.image.resize (now dyn.image.resize2d)")
def _dyn_resize_rel(r: Relation) -> bool:
    unit = get("dyn.image.resize2d")
    assert unit is not None
    return unit.relation(_NoRoi(r, "dyn.image.resize", _current("dyn.image.resize2d", _resize, r.attrs)))


def _dyn_resize(args: tuple, given: dict) -> Any:
    import numpy as np

    unit = get("dyn.image.resize2d")
    assert unit is not None
    return unit.kernel((args[0], args[1], np.zeros(4, dtype=np.float32)), _current("dyn.image.resize2d", _resize, given))


register(
    "dyn.image.resize",
    inputs=2,
    relation=_dyn_resize_rel,
    attrs=_RESIZE_ATTRS,
    doc="TVM's former name of `dyn.image.resize2d` (without a roi).",
    renamed_to="dyn.image.resize2d",
)(_dyn_resize)

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
