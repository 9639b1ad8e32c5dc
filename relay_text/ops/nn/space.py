"""Moving blocks of elements between the spatial axes and the channel or
batch axis: `nn.depth_to_space`, `nn.space_to_depth`,
`nn.space_to_batch_nd`, `nn.batch_to_space_nd`.

* `nn.depth_to_space(data, block_size, layout, mode)` turns each group of
  `block_size ** 2` channels into a `block_size` x `block_size` block of
  pixels: (N, C, H, W) becomes (N, C / b**2, H * b, W * b), the channel
  count divided rounding down (leftover channels are dropped, as TVM does).
  Channel `k` of a block goes to block row `i`, column `j`, output channel
  `c` where `k = (i * b + j) * (C / b**2) + c` with `mode="DCR"` (depth,
  column, row: TensorFlow's order) or `k = c * b**2 + i * b + j` with
  `mode="CDR"` (PyTorch's `pixel_shuffle`).
* `nn.space_to_depth(data, block_size, layout)` is the inverse of DCR:
  (N, C, H, W) becomes (N, C * b**2, H / b, W / b), the sizes divided
  rounding down (trailing rows and columns are dropped). Its `mode`
  attribute exists in TVM's schema and is unused.
* Both take `layout` "NCHW" or "NHWC" (TOPI's two).
* `nn.space_to_batch_nd(data, block_shape, paddings, pad_value)` pads the
  M spatial axes that follow the batch (`paddings`: M [before, after]
  pairs, filled with `pad_value` converted to the data's dtype), cuts each
  into blocks of `block_shape[i]` and moves the offsets within the blocks
  into the batch: (B, P1, ..., PM, rest) becomes
  (B * prod(block_shape), P1 / b1, ..., PM / bM, rest), where every padded
  size `Pi` must be a multiple of `bi`. The output batch index is
  `offset * B + b`, the offsets in row-major order (TensorFlow's rule).
* `nn.batch_to_space_nd(data, block_shape, crops)` is its inverse: the
  batch, a multiple of prod(block_shape), is spread back over the spatial
  axes, which are then cropped by `crops` ([before, after] per axis; at
  least one element must remain).
"""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, DimBinOp, TensorType
from .._np import np, wrap
from .._vision import times
from ..registry import Attr, register
from ..relations import Relation, is_unknown, known_rank, relation, shape_text
from ..types import Args, Attrs, Shape, Value

# ---------------------------------------------------------------- depth <-> space


def _sub_pixel_checks(r: Relation) -> tuple[str, int]:
    layout = r.attrs["layout"]
    if layout not in ("NCHW", "NHWC"):
        r.fail(codes.TYPE_MISMATCH, f'`{r.op}`: layout "{layout}" is not supported', notes=['use "NCHW" or "NHWC"'])
    b = r.attrs["block_size"]
    if b < 1:
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` block_size must be positive, found {b}")
    return layout, b


def _scale(d: Any, b: int, up: bool) -> Any:
    """d * b, or d / b rounded down (symbolic only as a product)."""
    if b == 1:
        return d
    if up:
        return times(d, b)
    return d // b if type(d) is int else AnyDim()


def plus(d: Any, k: int) -> Any:
    """d + k, kept symbolic for a shape variable (`n + 2`, `n - 1`)."""
    if k == 0 or type(d) is int:
        return d + k
    if isinstance(d, AnyDim) or is_unknown(d):
        return AnyDim()
    return DimBinOp("+" if k > 0 else "-", d, abs(k))


@relation("DepthToSpace")
def depth_to_space_rel(r: Relation) -> bool:
    """(N, C, H, W) -> (N, C / b**2, H * b, W * b), in the layout's order."""
    layout, b = _sub_pixel_checks(r)
    if r.attrs["mode"] not in ("DCR", "CDR"):
        r.fail(codes.TYPE_MISMATCH, f'`nn.depth_to_space` mode must be "DCR" or "CDR", found "{r.attrs["mode"]}"')
    return _sub_pixel_result(r, layout, b, up=True)


@relation("SpaceToDepth")
def space_to_depth_rel(r: Relation) -> bool:
    """(N, C, H, W) -> (N, C * b**2, H / b, W / b), in the layout's order."""
    layout, b = _sub_pixel_checks(r)
    return _sub_pixel_result(r, layout, b, up=False)


def _sub_pixel_result(r: Relation, layout: str, b: int, up: bool) -> bool:
    data = r.tensor(0)
    if not known_rank(data.shape):
        return False
    if len(data.shape) != 4:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` needs 4-D data ({layout}), found {shape_text(data.shape)}", arg=0)
    dims = {x: data.shape[layout.index(x)] for x in "NCHW"}
    dims["C"] = _scale(dims["C"], b * b, not up)
    dims["H"], dims["W"] = _scale(dims["H"], b, up), _scale(dims["W"], b, up)
    r.set_result(TensorType(tuple(dims[x] for x in layout), data.dtype))
    return True


_SUB_PIXEL_ATTRS = (Attr("block_size", "int", 1), Attr("layout", "str", "NCHW"), Attr("mode", "str", "DCR"))


def _nchw(x: Any, layout: str) -> Any:
    return x if layout == "NCHW" else np.transpose(x, (0, 3, 1, 2))


def _from_nchw(x: Any, layout: str) -> Any:
    return x if layout == "NCHW" else np.transpose(x, (0, 2, 3, 1))


@register(
    "nn.depth_to_space",
    inputs=1,
    relation=depth_to_space_rel,
    attrs=_SUB_PIXEL_ATTRS,
    doc="Rearrange groups of block_size**2 channels into block_size x block_size pixel blocks.",
)
def depth_to_space(args: Args, attrs: Attrs) -> Value:
    x = _nchw(args[0], attrs["layout"])
    b = attrs["block_size"]
    n, c, h, w = x.shape
    cf = c // (b * b)
    x = x[:, : cf * b * b]
    if attrs["mode"] == "DCR":  # channel k = (i * b + j) * cf + c
        out = x.reshape(n, b, b, cf, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:  # channel k = c * b * b + i * b + j
        out = x.reshape(n, cf, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return wrap(_from_nchw(out.reshape(n, cf, h * b, w * b), attrs["layout"]), args[0].dtype)


@register(
    "nn.space_to_depth",
    inputs=1,
    relation=space_to_depth_rel,
    attrs=_SUB_PIXEL_ATTRS,
    doc="Rearrange block_size x block_size pixel blocks into channels (the inverse of DCR depth_to_space).",
)
def space_to_depth(args: Args, attrs: Attrs) -> Value:
    x = _nchw(args[0], attrs["layout"])
    b = attrs["block_size"]
    n, c, h, w = x.shape
    oh, ow = h // b, w // b
    blocks = x[:, :, : oh * b, : ow * b].reshape(n, c, oh, b, ow, b)
    out = blocks.transpose(0, 3, 5, 1, 2, 4).reshape(n, b * b * c, oh, ow)
    return wrap(_from_nchw(out, attrs["layout"]), args[0].dtype)


# ---------------------------------------------------------------- space <-> batch


def _blocks(r: Relation, pairs_name: str) -> tuple[Shape, tuple[tuple[int, int], ...]]:
    block = r.attrs["block_shape"]
    pairs = r.attrs[pairs_name]
    if any(b < 1 for b in block):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` block_shape must be positive, found {list(block)}")
    if len(pairs) != len(block):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` needs one [before, after] pair of {pairs_name} per block axis: block_shape has {len(block)} "
            f"values, {pairs_name} {len(pairs)} pairs",
        )
    if any(v < 0 for p in pairs for v in p):
        r.fail(codes.TYPE_MISMATCH, f"`{r.op}` {pairs_name} cannot be negative, found {[list(p) for p in pairs]}")
    return block, pairs


def _data(r: Relation, m: int) -> Any:
    data = r.tensor(0)
    if not known_rank(data.shape):
        return None
    if len(data.shape) < m + 1:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`{r.op}` needs data of rank at least {m + 1} (the batch and {m} block axes), found "
            f"{shape_text(data.shape)}",
            arg=0,
        )
    return data


@relation("SpaceToBatchND")
def space_to_batch_nd_rel(r: Relation) -> bool:
    """(B, P1, ..., PM, rest) -> (B * prod(block), P1 / b1, ..., PM / bM, rest), P padded."""
    block, pads = _blocks(r, "paddings")
    data = _data(r, len(block))
    if data is None:
        return False
    shape = list(data.shape)
    total = math.prod(block)
    shape[0] = times(shape[0], total)
    for i, (b, (before, after)) in enumerate(zip(block, pads, strict=False)):
        d = data.shape[i + 1]
        if type(d) is not int:
            shape[i + 1] = plus(d, before + after) if b == 1 else AnyDim()
            continue
        padded = d + before + after
        if padded % b:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.space_to_batch_nd`: axis {i + 1} has size {padded} after padding, which is not a multiple of "
                f"its block size {b}",
                arg=0,
                notes=[f"size {d} padded by [{before}, {after}]"],
            )
        shape[i + 1] = padded // b
    r.set_result(TensorType(tuple(shape), data.dtype))
    return True


@register(
    "nn.space_to_batch_nd",
    inputs=1,
    relation=space_to_batch_nd_rel,
    attrs=(Attr("block_shape", "ints", (1, 1)), Attr("paddings", "int_pairs"), Attr("pad_value", "float", 0.0)),
    doc="Pad the spatial axes and move blocks of them into the batch axis.",
)
def space_to_batch_nd(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    block, pads = attrs["block_shape"], attrs["paddings"]
    m = len(block)
    widths = [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - m - 1)
    fill = np.asarray(attrs["pad_value"]).astype(x.dtype)
    xp = np.pad(x, widths, constant_values=fill) if any(w != (0, 0) for w in widths) else x
    batch, rest = x.shape[0], x.shape[m + 1 :]
    split = [batch]
    for i, b in enumerate(block):
        split += [xp.shape[i + 1] // b, b]
    t = xp.reshape(tuple(split) + rest)
    order = (
        [2 + 2 * i for i in range(m)]
        + [0]
        + [1 + 2 * i for i in range(m)]
        + list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    )
    out_shape = (batch * math.prod(block), *tuple(xp.shape[i + 1] // b for i, b in enumerate(block)), *rest)
    return wrap(t.transpose(order).reshape(out_shape), x.dtype)


@relation("BatchToSpaceND")
def batch_to_space_nd_rel(r: Relation) -> bool:
    """(B, D1, ..., DM, rest) -> (B / prod(block), D1 * b1 - crops, ..., rest)."""
    block, crops = _blocks(r, "crops")
    data = _data(r, len(block))
    if data is None:
        return False
    shape = list(data.shape)
    total = math.prod(block)
    batch = data.shape[0]
    if type(batch) is int:
        if batch % total:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.batch_to_space_nd`: the batch of {batch} is not a multiple of {total}, the product of "
                f"block_shape {list(block)}",
                arg=0,
            )
        shape[0] = batch // total
    elif total != 1:
        shape[0] = AnyDim()
    for i, (b, (before, after)) in enumerate(zip(block, crops, strict=False)):
        d = data.shape[i + 1]
        if type(d) is not int:
            shape[i + 1] = plus(times(d, b), -before - after)
            continue
        size = d * b - before - after
        if size <= 0:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.batch_to_space_nd`: crops [{before}, {after}] leave nothing of axis {i + 1}, which has size {d} "
                f"* {b} = {d * b}",
                arg=0,
            )
        shape[i + 1] = size
    r.set_result(TensorType(tuple(shape), data.dtype))
    return True


@register(
    "nn.batch_to_space_nd",
    inputs=1,
    relation=batch_to_space_nd_rel,
    attrs=(Attr("block_shape", "ints", (1, 1)), Attr("crops", "int_pairs")),
    doc="Move blocks of the batch axis back into the spatial axes, then crop them.",
)
def batch_to_space_nd(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    block, crops = attrs["block_shape"], attrs["crops"]
    m = len(block)
    batch = x.shape[0] // math.prod(block)
    spatial, rest = x.shape[1 : m + 1], x.shape[m + 1 :]
    t = x.reshape((*tuple(block), batch, *spatial, *rest))
    # (b1..bM, B, D1..DM, rest) -> (B, D1, b1, ..., DM, bM, rest)
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    full = t.transpose(order).reshape((batch, *tuple(d * b for d, b in zip(spatial, block, strict=False)), *rest))
    index = (slice(None), *tuple(slice(c0, full.shape[i + 1] - c1) for i, (c0, c1) in enumerate(crops)))
    return wrap(full[index], x.dtype)
