"""Upsampling in three dimensions, and upsampling by scales known only at run
time: `nn.upsampling3d`, `dyn.nn.upsampling`, `dyn.nn.upsampling3d`.

`nn.upsampling3d(data, scale_d, scale_h, scale_w, layout="NCDHW",
method="nearest_neighbor", coordinate_transformation_mode="half_pixel")`
resizes the depth, height and width of 5-D data to `round(D * scale_d)`,
`round(H * scale_h)`, `round(W * scale_w)`, with the source coordinates of
`image.resize2d` (see `relay_text.ops.image.image`: `half_pixel`,
`align_corners`, `asymmetric`, ...). `method` is "nearest_neighbor" (the
pixel at the rounded coordinate: rounded to nearest with align_corners,
else down) or "trilinear" (blending the two neighbours on each axis).
It runs on the 2-D resize's machinery (`image.resize_spatial`: one
interpolation matrix per axis); integer results truncate toward zero. The
scales have no default.

`dyn.nn.upsampling(data, scale_h, scale_w, layout, method, align_corners)`
and `dyn.nn.upsampling3d(data, scale_d, scale_h, scale_w, layout, method,
coordinate_transformation_mode)` take the scales as scalar tensors instead
of attributes: the resized axes have the size `?` until the kernel reads
the scales (a scale that leaves an axis empty is then an error). They
keep TVM's attribute schemas, whose scale attributes they ignore.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType
from .._np import np, wrap
from ..image.image import (
    MODES,
    UPSAMPLING_METHODS,
    _check_layout,
    _choice,
    _scaled,
    resize_spatial,
    upsampling,
)
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation, require_numeric, shape_text
from ..types import Args, Attrs, Shape, Value

METHODS_3D = {"nearest_neighbor": "nearest_neighbor", "trilinear": "linear"}
SPATIAL = "DHW"


def _layout_3d(r: Relation) -> str:
    layout: str = r.attrs["layout"]
    if sorted(layout) != sorted("NCDHW"):
        r.fail(
            codes.TYPE_MISMATCH,
            f'`{r.op}`: layout "{layout}" is not supported',
            notes=['use an order of the letters NCDHW, e.g. "NDHWC"'],
        )
    _choice(r, "method", tuple(METHODS_3D))
    _choice(r, "coordinate_transformation_mode", MODES)
    return layout


def _data(r: Relation, layout: str) -> Any:
    data = r.tensor(0)
    if not known_rank(data.shape):
        return None
    if len(data.shape) != len(layout):
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs {len(layout)}-D data ({layout}), found {shape_text(data.shape)}",
            arg=0,
        )
    return data


@relation("UpSampling3D")
def upsampling3d_rel(r: Relation) -> bool:
    """(N, C, D, H, W) -> (N, C, round(D * scale_d), round(H * scale_h), round(W * scale_w))."""
    layout = _layout_3d(r)
    for name in ("scale_d", "scale_h", "scale_w"):
        if r.attrs[name] <= 0:
            r.fail(codes.TYPE_MISMATCH, f"`nn.upsampling3d` {name} must be positive, found {r.attrs[name]}")
    data = _data(r, layout)
    if data is None:
        return False
    dims = {x: data.shape[layout.index(x)] for x in layout}
    for a in SPATIAL:
        dims[a] = _scaled(dims[a], r.attrs[f"scale_{a.lower()}"])
        if dims[a] == 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.upsampling3d`: scale_{a.lower()}={r.attrs[f'scale_{a.lower()}']:g} leaves axis {a} empty",
                arg=0,
            )
    r.set_result(TensorType(tuple(dims[x] for x in layout), data.dtype))
    return True


def resize_3d(x: Any, layout: str, sizes: Shape, method: str, mode: str) -> Any:
    """Resize the D, H, W axes of `x` (in `layout`) to `sizes`, in x's dtype,
    by `image.resize2d`'s per-axis interpolation matrices."""
    ncdhw = np.transpose(x, [layout.index(c) for c in "NCDHW"])
    out = resize_spatial(ncdhw, sizes, method, mode, "", -0.5, False, x.dtype)
    return wrap(np.transpose(out, ["NCDHW".index(c) for c in layout]), x.dtype)


_ATTRS_3D = (
    Attr("layout", "str", "NCDHW"),
    Attr("method", "str", "nearest_neighbor"),
    Attr("coordinate_transformation_mode", "str", "half_pixel"),
)


@register(
    "nn.upsampling3d",
    inputs=1,
    relation=upsampling3d_rel,
    attrs=(Attr("scale_d", "float"), Attr("scale_h", "float"), Attr("scale_w", "float"), *_ATTRS_3D),
    doc="Scale the depth, height and width by scale_d, scale_h and scale_w (nearest or trilinear).",
)
def upsampling3d(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    layout = attrs["layout"]
    sizes = tuple(_scaled(x.shape[layout.index(a)], attrs[f"scale_{a.lower()}"]) for a in SPATIAL)
    return resize_3d(x, layout, sizes, METHODS_3D[attrs["method"]], attrs["coordinate_transformation_mode"])


# ---------------------------------------------------------------- scales as tensors


def _scalar_scales(r: Relation, count: int) -> bool:
    """Inputs 1..count are scalar numbers; True once all their shapes are known."""
    known = True
    for i in range(1, count + 1):
        require_numeric(r, i)
        t = r.tensor(i)
        if not known_rank(t.shape):
            known = False
        elif t.shape != ():
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`{r.op}` takes a scalar scale, found a tensor of shape {shape_text(t.shape)}",
                arg=i,
            )
    return known


@relation("DynamicUpSampling")
def dyn_upsampling_rel(r: Relation) -> bool:
    """(N, C, H, W), scale_h, scale_w -> (N, C, ?, ?)."""
    layout = _check_layout(r)
    _choice(r, "method", tuple(UPSAMPLING_METHODS))
    scales = _scalar_scales(r, 2)
    data = _data(r, layout)
    if data is None:
        return False
    r.set_result(TensorType(tuple(AnyDim() if x in "HW" else data.shape[i] for i, x in enumerate(layout)), data.dtype))
    return scales


@relation("DynamicUpSampling3D")
def dyn_upsampling3d_rel(r: Relation) -> bool:
    """(N, C, D, H, W), scale_d, scale_h, scale_w -> (N, C, ?, ?, ?)."""
    layout = _layout_3d(r)
    scales = _scalar_scales(r, 3)
    data = _data(r, layout)
    if data is None:
        return False
    r.set_result(
        TensorType(tuple(AnyDim() if x in SPATIAL else data.shape[i] for i, x in enumerate(layout)), data.dtype)
    )
    return scales


def _sizes(op: str, x: Any, layout: str, axes: str, scales: tuple[float, ...]) -> Shape:
    sizes = []
    for a, s in zip(axes, scales, strict=False):
        n = x.shape[layout.index(a)]
        scale = float(s)
        if not np.isfinite(scale):
            raise KernelError(codes.RUNTIME_ERROR, f"`{op}`: scale {scale:g} for axis {a} is not a finite number")
        size = _scaled(n, scale)
        if size <= 0 or size >= 2**31:
            raise KernelError(
                codes.RUNTIME_ERROR, f"`{op}`: scale {scale:g} turns axis {a} of size {n} into {size} elements"
            )
        sizes.append(size)
    return tuple(sizes)


@register(
    "dyn.nn.upsampling",
    inputs=3,
    relation=dyn_upsampling_rel,
    attrs=(
        Attr("scale_h", "float", 0.0),
        Attr("scale_w", "float", 0.0),
        Attr("layout", "str", "NCHW"),
        Attr("method", "str", "nearest_neighbor"),
        Attr("align_corners", "bool", False),
    ),
    doc="nn.upsampling with scale_h and scale_w given as scalar tensors.",
)
def dyn_upsampling(args: Args, attrs: Attrs) -> Value:
    x, sh, sw = args
    _sizes("dyn.nn.upsampling", x, attrs["layout"], "HW", (sh, sw))
    return upsampling((x,), {**attrs, "scale_h": float(sh), "scale_w": float(sw)})


@register(
    "dyn.nn.upsampling3d",
    inputs=4,
    relation=dyn_upsampling3d_rel,
    attrs=(Attr("scale_d", "float", 0.0), Attr("scale_h", "float", 0.0), Attr("scale_w", "float", 0.0), *_ATTRS_3D),
    doc="nn.upsampling3d with scale_d, scale_h and scale_w given as scalar tensors.",
)
def dyn_upsampling3d(args: Args, attrs: Attrs) -> Value:
    x, *scales = args
    layout = attrs["layout"]
    sizes = _sizes("dyn.nn.upsampling3d", x, layout, SPATIAL, tuple(scales))
    return resize_3d(x, layout, sizes, METHODS_3D[attrs["method"]], attrs["coordinate_transformation_mode"])
