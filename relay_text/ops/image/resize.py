"""Resizing along one or three axes, and to a size known only at run time:
`image.resize1d`, `image.resize3d` and `dyn.image.resize2d`.

They share `image.resize2d`'s rules (see `relay_text.ops.image.image`): every
output index maps to a source coordinate by `coordinate_transformation_mode`
and is interpolated by `method` ("nearest_neighbor", "linear", "cubic"),
one axis at a time, with indices clamped to the border. Here the mode may
also be "tf_crop_and_resize": the axis's region of interest `[start, end]`
(fractions of the image, from `roi`) maps output index `o` of `S` to
`start * (L - 1) + o * (end - start) * (L - 1) / (S - 1)` (the middle of
the region when `S` is 1), and an output pixel whose coordinate falls
outside `[0, L - 1]` on any axis takes `extrapolation_value`.

`roi` lists every start, then every end: `[start_w, end_w]` for resize1d,
`[start_d, start_h, start_w, end_d, end_h, end_w]` for resize3d, and the
4-element tensor `[start_h, start_w, end_h, end_w]` for dyn.image.resize2d.
(TOPI's 3-D compute reads the roi pairs in reverse axis order, skips the
depth test for extrapolation and mixes the width taps into the depth
weights of `cubic_exclude`; this module does what the attributes document.)

Attributes are TVM's (include/tvm/relay/attrs/image.h): the default
`rounding_method` is "round"; "" picks "round" for align_corners and
"floor" otherwise. The result has the input's layout and `out_dtype`
(default: the input's dtype); integer results truncate toward zero.

`dyn.image.resize2d(data, size, roi)` takes the output height and width as a
2-element integer tensor, so they are `?` to the type checker; it keeps the
(unused) `size` and `roi` attributes of TVM's Resize2DAttrs.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np, wrap
from .image import METHODS, MODES, ROUNDING, resize_spatial
from ..registry import Attr, KernelError, register
from ..relations import RankedTensor, Relation, has_rank, known_rank, relation, shape_text, static
from ..types import Args, Attrs, Shape, Value

ALL_MODES = (*MODES, "tf_crop_and_resize")


def _attrs(layout: str, roi: int | None) -> tuple[Attr, ...]:
    """Resize{1D,2D,3D}Attrs; `roi` is the length of the default roi, None for
    the dynamic operator (size and roi are then inputs, the attributes unused)."""
    return (
        Attr("size", "ints") if roi else Attr("size", "ints", ()),
        Attr("roi", "floats", (0.0,) * roi if roi else ()),
        Attr("layout", "str", layout),
        Attr("method", "str", "linear"),
        Attr("coordinate_transformation_mode", "str", "half_pixel"),
        Attr("rounding_method", "str", "round"),
        Attr("cubic_alpha", "float", -0.5),
        Attr("cubic_exclude", "int", 0),
        Attr("extrapolation_value", "float", 0.0),
        Attr("out_dtype", "opt_dtype", ""),
    )


def check_options(r: Relation, letters: str) -> str:
    """The layout (an order of `letters`) after checking the choice attributes."""
    layout: str = r.attrs["layout"]
    if sorted(layout) != sorted(letters):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: layout "{layout}" is not supported',
            notes=[f'use an order of the letters {letters}, e.g. "{letters}"'],
        )
    for name, allowed in (
        ("method", METHODS),
        ("coordinate_transformation_mode", ALL_MODES),
        ("rounding_method", ROUNDING),
    ):
        value = r.attrs[name]
        if value not in allowed:
            shown = ", ".join(f'"{a}"' for a in allowed if a)
            r.fail(codes.TYPE_MISMATCH, f'`{r.op}` {name} "{value}" is not supported', notes=[f"use one of {shown}"])
    return layout


def _data(r: Relation, letters: str) -> RankedTensor | None:
    data = r.tensor(0)
    if not has_rank(data):
        return None
    if len(data.shape) != len(letters):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs {len(letters)}-D data ({r.attrs['layout']}), found {shape_text(data.shape)}",
            arg=0,
        )
    return data


def _static_resize_rel(r: Relation, letters: str) -> bool:
    layout = check_options(r, letters)
    spatial = letters[2:]
    size, roi = r.attrs["size"], r.attrs["roi"]
    if len(size) != len(spatial) or any(v <= 0 for v in size):
        count = f"{len(spatial)} positive value" + ("s" if len(spatial) > 1 else "")
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` size takes {count} ({', '.join(spatial)}), found {list(size)}")
    if len(roi) != 2 * len(spatial):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` roi takes {2 * len(spatial)} values (every start, then every end), found {len(roi)}",
        )
    data = _data(r, letters)
    if data is None:
        return False
    dims = dict(zip(layout, data.shape, strict=False))
    dims.update(zip(spatial, size, strict=False))
    r.set_result(TensorType(tuple(dims[x] for x in layout), r.attrs["out_dtype"] or data.dtype))
    return True


@relation("Resize1D")
def resize1d_rel(r: Relation) -> bool:
    return _static_resize_rel(r, "NCW")


@relation("Resize3d")
def resize3d_rel(r: Relation) -> bool:
    return _static_resize_rel(r, "NCDHW")


def _vector(r: Relation, i: int, length: int, what: str, kinds: str) -> None:
    t = r.tensor(i)
    if known_rank(t.shape):
        n = static(t.shape[0]) if len(t.shape) == 1 else None
        if len(t.shape) != 1 or (n is not None and n != length):
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}` takes {what} as a vector of {length} values, found {shape_text(t.shape)}",
                arg=i,
            )
    if isinstance(t.dtype, str) and t.dtype.rstrip("0123456789") not in kinds.split():
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes {what} as {kinds.replace(' ', ' or ')} values, not `{t.dtype}`",
            arg=i,
            label=f"this is `{t.dtype}`",
        )


@relation("DynResize2D")
def dyn_resize2d_rel(r: Relation) -> bool:
    layout = check_options(r, "NCHW")
    _vector(r, 1, 2, "the size (height, width)", "int uint")
    _vector(r, 2, 4, "the roi", "float")
    data = _data(r, "NCHW")
    if data is None:
        return False
    dims = dict(zip(layout, data.shape, strict=False))
    dims["H"] = dims["W"] = AnyDim()
    r.set_result(TensorType(tuple(dims[x] for x in layout), r.attrs["out_dtype"] or data.dtype))
    return True


# ---------------------------------------------------------------- kernels


def resize(x: Any, layout: str, sizes: Shape, roi: tuple[float, ...], attrs: Attrs) -> Any:
    """Resize `x` (in `layout`, spatial letters after N and C in canonical
    order) to `sizes` with the call's interpolation attributes."""
    canonical = "NC" + "".join(c for c in "DHW" if c in layout)
    dtype = np.dtype(attrs["out_dtype"] or x.dtype)
    t = np.transpose(x, [layout.index(c) for c in canonical])
    k = len(sizes)
    rois = tuple((roi[i], roi[i + k]) for i in range(k))
    out = resize_spatial(
        t,
        tuple(sizes),
        attrs["method"],
        attrs["coordinate_transformation_mode"],
        attrs["rounding_method"],
        attrs["cubic_alpha"],
        bool(attrs["cubic_exclude"]),
        dtype,
        rois,
        attrs["extrapolation_value"],
    )
    return wrap(np.transpose(out, [canonical.index(c) for c in layout]), dtype)


@register(
    "image.resize1d",
    inputs=1,
    relation=resize1d_rel,
    attrs=_attrs("NCW", 2),
    doc="Resize the width to `size` (nearest, linear or cubic interpolation).",
)
def resize1d(args: Args, attrs: Attrs) -> Value:
    return resize(args[0], attrs["layout"], attrs["size"], attrs["roi"], attrs)


@register(
    "image.resize3d",
    inputs=1,
    relation=resize3d_rel,
    attrs=_attrs("NCDHW", 6),
    doc="Resize the depth, height and width to `size` (nearest, linear or cubic interpolation).",
)
def resize3d(args: Args, attrs: Attrs) -> Value:
    return resize(args[0], attrs["layout"], attrs["size"], attrs["roi"], attrs)


@register(
    "dyn.image.resize2d",
    inputs=3,
    relation=dyn_resize2d_rel,
    attrs=_attrs("NCHW", None),
    doc="Resize the height and width to the sizes held by a tensor (nearest, linear or cubic).",
)
def dyn_resize2d(args: Args, attrs: Attrs) -> Value:
    x, size, roi = args
    sizes = tuple(int(v) for v in np.asarray(size).reshape(-1))
    if len(sizes) != 2 or min(sizes) <= 0:
        raise KernelError(codes.RUNTIME_ERROR, f"`dyn.image.resize2d` needs 2 positive sizes, found {list(sizes)}")
    box = tuple(float(v) for v in np.asarray(roi, dtype=np.float64).reshape(-1))
    if len(box) != 4:
        raise KernelError(codes.RUNTIME_ERROR, f"`dyn.image.resize2d` needs a roi of 4 values, found {len(box)}")
    return resize(x, attrs["layout"], sizes, box, attrs)
