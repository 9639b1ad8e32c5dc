"""Older TVM names of operators, read with their old attributes.

Dumps printed by earlier TVM releases call operators that were renamed
since: `image.resize` is `image.resize2d` (TVM 0.8 renamed it and its
`bilinear`/`bicubic` methods to `linear`/`cubic`), `dyn.image.resize` is
`dyn.image.resize2d` with a zero roi (it had no roi input), `scatter` and
`scatter_add` are `scatter_elements` with the `update` and `add`
reductions. Each old name is a unit of its own, with the attributes it had,
whose relation and kernel are those of the current operator given the
translated attributes; the checker says which name to use now.

Old forms of a current name are read too (`legacy_form`): `nn.pad(%x,
pad_width=..., pad_value=0f)` (the pad value became the second argument in
TVM 0.8), and in `v0.0.4` text the attribute defaults of TVM 0.6 where 0.8
changed them (`nn.batch_matmul` without attributes transposed its second
argument).
"""

from __future__ import annotations

from typing import Any, NoReturn
from collections.abc import Callable, Iterable

from ...ir.ty import IncompleteType, TensorType, Type, TypeCall
from ..registry import Attr, OpDef, get, register
from ..relation import Notes, Relation, Unifiable, relation, relation_name
from ..types import Args, Attrs, Kernel, Value

Translate = Callable[[Attrs], Attrs]


class _Translated:
    """A relation call seen with the current operator's name and attributes;
    everything else is the call's own."""

    __slots__ = ("_r", "attrs", "op")

    def __init__(self, r: Relation, op: str, attrs: Attrs) -> None:
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


def _current(new: str, translate: Translate, attrs: Attrs) -> Attrs:
    unit = get(new)
    assert unit is not None, new
    full, problems = unit.normalize_attrs(translate(attrs).items())
    assert not problems, [p.message for p in problems]
    return full


def _translating(old: str, new: str, translate: Translate, label: str = "") -> tuple[Any, Kernel]:
    """The relation and kernel of `old`: those of `new` given the translated attributes."""

    @relation(f"{old} (now {new}{label})")
    def rel(r: Relation) -> bool:
        unit = get(new)
        assert unit is not None
        return unit.relation(_Translated(r, old, _current(new, translate, r.attrs)))

    def kernel(args: Args, given: Attrs) -> Value:
        unit = get(new)
        assert unit is not None
        return unit.kernel(args, _current(new, translate, given))

    return rel, kernel


def renamed(old: str, new: str, inputs: int, attrs: tuple[Attr, ...], translate: Translate) -> None:
    """Register `old` as TVM's former name of `new`."""
    rel, kernel = _translating(old, new, translate)
    register(old, inputs=inputs, relation=rel, attrs=attrs, doc=f"TVM's former name of `{new}`.", renamed_to=new)(
        kernel
    )


_METHODS = {"bilinear": "linear", "bicubic": "cubic", "nearest_neighbor": "nearest_neighbor"}


def _resize(a: Attrs) -> Attrs:
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


def _dyn_resize(args: Args, given: Attrs) -> Value:
    import numpy as np

    unit = get("dyn.image.resize2d")
    assert unit is not None
    return unit.kernel(
        (args[0], args[1], np.zeros(4, dtype=np.float32)), _current("dyn.image.resize2d", _resize, given)
    )


register(
    "dyn.image.resize",
    inputs=2,
    relation=_dyn_resize_rel,
    attrs=_RESIZE_ATTRS,
    doc="TVM's former name of `dyn.image.resize2d` (without a roi).",
    renamed_to="dyn.image.resize2d",
)(_dyn_resize)

renamed(
    "scatter", "scatter_elements", 3, (Attr("axis", "int", 0),), lambda a: {"axis": a["axis"], "reduction": "update"}
)
renamed(
    "scatter_add", "scatter_elements", 3, (Attr("axis", "int", 0),), lambda a: {"axis": a["axis"], "reduction": "add"}
)


# ---------------------------------------------------------------- older forms of current names


class _PadValue(_Translated):
    """`nn.pad(%x, pad_width=..., pad_value=v)` seen as `nn.pad(%x, v, ...)`:
    the value is a scalar of the data's dtype."""

    @property
    def arity(self) -> int:
        return 2

    def _value(self) -> TensorType:
        return TensorType((), self._r.tensor(0).dtype)

    def arg(self, i: int) -> Type:
        return self._value() if i == 1 else self._r.arg(i)

    def tensor(self, i: int) -> TensorType:
        return self._value() if i == 1 else self._r.tensor(i)

    def refine(self, i: int, t: Type) -> None:
        if i != 1:
            self._r.refine(i, t)


_OLD_PAD_ATTRS = (Attr("pad_width", "int_pairs"), Attr("pad_value", "float", 0.0), Attr("pad_mode", "str", "constant"))


def _old_pad_attrs(a: Attrs) -> Attrs:
    return {"pad_width": a["pad_width"], "pad_mode": a["pad_mode"]}


@relation("nn.pad (TVM 0.7 and before: the pad value an attribute)")
def _old_pad_rel(r: Relation) -> bool:
    unit = get("nn.pad")
    assert unit is not None
    return unit.relation(_PadValue(r, "nn.pad", _current("nn.pad", _old_pad_attrs, r.attrs)))


def _old_pad(args: Args, given: Attrs) -> Value:
    import numpy as np

    unit = get("nn.pad")
    assert unit is not None
    x = args[0]
    return unit.kernel((x, np.asarray(given["pad_value"]).astype(x.dtype)), _current("nn.pad", _old_pad_attrs, given))


def _with_defaults(name: str, defaults: dict[str, Any]) -> OpDef:
    """The operator `name` with other defaults for some attributes."""
    import dataclasses

    unit = get(name)
    assert unit is not None
    attrs = tuple(dataclasses.replace(a, default=defaults[a.name]) if a.name in defaults else a for a in unit.attrs)
    return dataclasses.replace(unit, attrs=attrs, schema={a.name: a for a in attrs})


# TVM 0.6 (`v0.0.4` text) defaults that TVM 0.8 changed (docs/tvm-format.md
# lists them): text that omits the attribute meant the old value.
V004_DEFAULTS: dict[str, dict[str, Any]] = {
    "nn.batch_matmul": {"transpose_b": True},  # 0.6 had no attributes: y is (batch, N, K)
    "topk": {"k": 1},
}
_FORMS: dict[tuple[str, str], OpDef] = {}

# `image.resize` of TVM 0.6: `align_corners` (true by default) where 0.7 had
# `coordinate_transformation_mode`; without it the corners are aligned.
_V004_RESIZE_ATTRS = (
    Attr("size", "ints"),
    Attr("layout", "str", "NCHW"),
    Attr("method", "str", "bilinear"),
    Attr("align_corners", "bool", True),
    Attr("out_dtype", "opt_dtype", ""),
)


def _v004_resize(a: Attrs) -> Attrs:
    return {
        "size": a["size"],
        "layout": a["layout"],
        "method": _METHODS.get(a["method"], a["method"]),
        "coordinate_transformation_mode": "align_corners" if a["align_corners"] else "asymmetric",
        "rounding_method": "",
        "out_dtype": a["out_dtype"],
    }


def _v004_resize_form() -> OpDef:
    rel, kernel = _translating("image.resize", "image.resize2d", _v004_resize, ", TVM 0.6 attributes")
    attrs = _V004_RESIZE_ATTRS
    return OpDef(
        "image.resize",
        1,
        attrs,
        rel,
        kernel,
        "`image.resize` of TVM 0.6.",
        relation_name(rel),
        {a.name: a for a in attrs},
        None,
        "image.resize2d",
    )


def legacy_form(name: str, arity: int, keys: Iterable[str], version: str | None) -> tuple[OpDef, str] | None:
    """The definition that reads a call of a current operator name written
    in an older TVM form, and a warning to give ("" for none): `nn.pad` with
    its pad value as an attribute (before 0.8); in `v0.0.4` text (TVM 0.6),
    the attribute defaults of that release (`V004_DEFAULTS`)."""
    if name == "nn.pad" and arity == 1:
        found = _FORMS.get(("nn.pad", "attr"))
        if found is None:
            found = _FORMS[("nn.pad", "attr")] = OpDef(
                "nn.pad",
                1,
                _OLD_PAD_ATTRS,
                _old_pad_rel,
                _old_pad,
                "`nn.pad` of TVM 0.7 and before, its pad value an attribute.",
                relation_name(_old_pad_rel),
                {a.name: a for a in _OLD_PAD_ATTRS},
            )
        return found, "pad_value"
    if version == "0.0.4" and name == "image.resize":
        found = _FORMS.get((name, version))
        if found is None:
            found = _FORMS[(name, version)] = _v004_resize_form()
        return found, ""
    if version == "0.0.4" and name in V004_DEFAULTS:
        found = _FORMS.get((name, version))
        if found is None:
            found = _FORMS[(name, version)] = _with_defaults(name, V004_DEFAULTS[name])
        return found, ""
    return None


# Names TVM registers that no program text can use here, and why.
UNSUPPORTED = {
    "parser.MetaRef": "TVM's parser uses it internally for a `meta[...]` reference; write the reference itself",
    "torch_op": (
        "TVM runs it with its libtorch extension, from a serialized TorchScript function held in the call's attributes"
    ),
}
