"""Coordinates and edge routes from a layered layout.

The HTML viewer runs the same steps in JavaScript (`place.js`) whenever a
group is collapsed or expanded; the two are kept equal by a test that
compares them in a browser. Every number is computed in the same order in
both, so the results are the same floats.

Per block, children first (a group's box is as large as its contents):
layers stack from the top, each as tall as its tallest box; in each layer,
boxes keep their order and their minimum distances and are pulled toward
the mean position of their neighbours in the layer above (sweeping down)
or below (sweeping up). Placing a layer is a weighted isotonic regression,
solved exactly by pooling adjacent violators in linear time. Global
functions are then packed in rows.

Edges are drawn through their dummies: straight lines, or orthogonal ones
that turn only in the gaps between layers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import model as m
from .layout import GROUP, IN, NODE, OUT, Block, Layout

CHAR_W = 6.6  # width of a character of the 11 px monospace font
PAD_X = 8.0
NODE_H1 = 22.0  # a box with one line
NODE_H2 = 36.0  # with two
MAX_LABEL = 30
MAX_CAPTION = 34
GROUP_PAD = 12.0
HEADER = 22.0
NODE_GAP = 16.0
EDGE_GAP = 8.0
RANK_GAP = 26.0
TOP_GAP = 40.0
COORD_SWEEPS = 4
LONELY = 0.25  # the weight of a box's own position when it has no neighbours
ATTACHED = 1e-6  # the weight of an input that feeds one box only (a weight): next to nothing


def clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def node_size(node: m.Node) -> tuple[float, float]:
    label, caption = clip(node.label, MAX_LABEL), clip(node.caption, MAX_CAPTION)
    chars = max(len(label), len(caption))
    return max(chars * CHAR_W + 2 * PAD_X, 36.0), NODE_H2 if caption else NODE_H1


def title_width(group: m.Group) -> float:
    return (len(clip(group.label, 60)) + 3) * CHAR_W + 2 * PAD_X


@dataclass(eq=False, slots=True)
class Placed:
    """Absolute boxes (left, top, width, height) and edge routes.

    `shown_nodes[i]` / `shown_groups[g]`: not inside a collapsed group.
    `routes`: (edge index, points, arrow) for each piece of an edge that is
    shown."""

    nodes: list[tuple[float, float, float, float]]
    groups: list[tuple[float, float, float, float]]
    shown_nodes: list[bool]
    shown_groups: list[bool]
    collapsed: set[int]
    routes: list[tuple[int, list[tuple[float, float]], bool]] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0


@dataclass(eq=False, slots=True)
class _Placement:
    x: list[float]  # centre of each item, relative to the block's content
    tops: list[float]
    heights: list[float]
    width: float
    height: float


def neighbours(block: Block) -> tuple[list[list[int]], list[list[int]]]:
    """Each item's items in the layer above and below, in path order; in
    the layer above, an input that feeds only this item (a weight, a
    constant) is left out where the item has other inputs, so that the main
    line of a model runs straight and its weights stand beside it."""
    n = len(block.kinds)
    preds: list[list[int]] = [[] for _ in range(n)]
    succs: list[list[int]] = [[] for _ in range(n)]
    linked: set[tuple[int, int]] = set()
    for path in block.paths:
        items = path.items
        for i in range(len(items) - 1):
            a, b = items[i], items[i + 1]
            if (a, b) not in linked:
                linked.add((a, b))
                preds[b].append(a)
                succs[a].append(b)
    kinds = block.kinds
    for b in range(n):
        near = preds[b]
        if len(near) > 1:
            main = [a for a in near if not (kinds[a] == NODE and not preds[a] and len(succs[a]) == 1)]
            if main:
                preds[b] = main
    return preds, succs


def _pava(desired: list[float], weights: list[float], offsets: list[float]) -> list[float]:
    """x minimising sum w (x - d)^2 with x[i+1] - x[i] >= offsets[i+1] - offsets[i]."""
    n = len(desired)
    means: list[float] = []
    sums: list[float] = []
    counts: list[int] = []
    for i in range(n):
        w = weights[i]
        mean = desired[i] - offsets[i]
        total = w
        count = 1
        while means and means[-1] > mean:
            pw = sums[-1]
            mean = (means[-1] * pw + mean * total) / (pw + total)
            total = pw + total
            count += counts[-1]
            means.pop()
            sums.pop()
            counts.pop()
        means.append(mean)
        sums.append(total)
        counts.append(count)
    out = [0.0] * n
    i = 0
    for k in range(len(means)):
        for _ in range(counts[k]):
            out[i] = means[k] + offsets[i]
            i += 1
    return out


def place_block(block: Block, widths: list[float], heights: list[float]) -> _Placement:
    """Coordinates of a block's items, given each item's size."""
    layers = block.layers
    kinds = block.kinds
    preds, succs = neighbours(block)
    n = len(kinds)
    # an input that feeds one box only gives way to the boxes of the main line
    attached = [kinds[v] == NODE and not preds[v] and len(succs[v]) == 1 for v in range(n)]
    x = [0.0] * n
    tops: list[float] = []
    layer_h: list[float] = []
    offsets: list[list[float]] = []
    top = 0.0
    for layer in layers:
        h = 0.0
        for v in layer:
            if heights[v] > h:
                h = heights[v]
        tops.append(top)
        layer_h.append(h)
        top = top + h + RANK_GAP
        off = [0.0] * len(layer)
        for i in range(1, len(layer)):
            a, b = layer[i - 1], layer[i]
            gap = NODE_GAP if kinds[a] in (NODE, GROUP) and kinds[b] in (NODE, GROUP) else EDGE_GAP
            off[i] = off[i - 1] + (widths[a] + widths[b]) / 2 + gap
        offsets.append(off)
        shift = off[-1] / 2 if off else 0.0
        for i, v in enumerate(layer):
            x[v] = off[i] - shift
    depth = len(layers)
    for sweep in range(2 * COORD_SWEEPS):
        down = sweep % 2 == 0
        order = range(1, depth) if down else range(depth - 2, -1, -1)
        near = preds if down else succs
        for r in order:
            layer = layers[r]
            desired = [0.0] * len(layer)
            weights = [0.0] * len(layer)
            for i, v in enumerate(layer):
                nb = near[v]
                if nb:
                    total = 0.0
                    for u in nb:
                        total += x[u]
                    desired[i] = total / len(nb)
                    weights[i] = ATTACHED if attached[v] else float(len(nb))
                else:
                    desired[i] = x[v]
                    weights[i] = ATTACHED if attached[v] else LONELY
            placed = _pava(desired, weights, offsets[r])
            for i, v in enumerate(layer):
                x[v] = placed[i]
    left = math.inf
    right = -math.inf
    for v in range(n):
        if x[v] - widths[v] / 2 < left:
            left = x[v] - widths[v] / 2
        if x[v] + widths[v] / 2 > right:
            right = x[v] + widths[v] / 2
    if n == 0:
        left = right = 0.0
    for v in range(n):
        x[v] = x[v] - left
    height = tops[-1] + layer_h[-1] if layers else 0.0
    return _Placement(x, tops, layer_h, right - left, height)


def place(layout: Layout, collapsed: set[int] | None = None, orthogonal: bool = True) -> Placed:
    """Boxes and routes of every node and group, with the groups in `collapsed` folded."""
    graph = layout.graph
    collapsed = set(collapsed or ())
    groups = graph.groups
    blocks = layout.blocks
    node_sizes = [node_size(nd) for nd in graph.nodes]
    size: list[tuple[float, float]] = [(0.0, 0.0)] * len(groups)
    placements: list[_Placement | None] = [None] * len(groups)
    origin_off: list[tuple[float, float]] = [(0.0, 0.0)] * len(groups)
    for gid in sorted(range(len(groups)), key=lambda g: -groups[g].depth):
        tw = title_width(groups[gid])
        if gid in collapsed:
            size[gid] = (tw, HEADER)
            continue
        block = blocks[gid]
        widths, heights = _item_sizes(block, node_sizes, size)
        inside = placements[gid] = place_block(block, widths, heights)
        w = max(inside.width + 2 * GROUP_PAD, tw)
        h = HEADER + GROUP_PAD + inside.height + GROUP_PAD
        size[gid] = (w, h)
        origin_off[gid] = ((w - inside.width) / 2, HEADER + GROUP_PAD)
    boxes: list[tuple[float, float, float, float]] = [(0.0, 0.0, 0.0, 0.0)] * len(groups)
    node_boxes: list[tuple[float, float, float, float]] = [(0.0, 0.0, 0.0, 0.0)] * len(graph.nodes)
    top_level = [g.id for g in groups if g.parent < 0]
    total_w, total_h = _pack(top_level, size, boxes)
    shown_groups = [False] * len(groups)
    shown_nodes = [False] * len(graph.nodes)
    out = Placed(node_boxes, boxes, shown_nodes, shown_groups, collapsed, width=total_w, height=total_h)
    for gid in sorted(range(len(groups)), key=lambda g: groups[g].depth):
        parent = groups[gid].parent
        shown_groups[gid] = parent < 0 or (shown_groups[parent] and parent not in collapsed)
        placement = placements[gid]
        if gid in collapsed or placement is None or not shown_groups[gid]:
            continue
        block = blocks[gid]
        gx, gy = boxes[gid][0] + origin_off[gid][0], boxes[gid][1] + origin_off[gid][1]
        for v, kind in enumerate(block.kinds):
            cx = gx + placement.x[v]
            cy = gy + placement.tops[block.rank[v]] + placement.heights[block.rank[v]] / 2
            if kind == NODE:
                w, h = node_sizes[block.refs[v]]
                node_boxes[block.refs[v]] = (cx - w / 2, cy - h / 2, w, h)
                shown_nodes[block.refs[v]] = shown_groups[gid]
            elif kind == GROUP:
                w, h = size[block.refs[v]]
                boxes[block.refs[v]] = (cx - w / 2, cy - h / 2, w, h)
    for gid in sorted(range(len(groups)), key=lambda g: groups[g].depth):
        if gid in collapsed or not shown_groups[gid]:
            continue
        _routes(layout, gid, placements, origin_off, boxes, node_boxes, collapsed, orthogonal, out.routes)
    return out


def _item_sizes(
    block: Block, node_sizes: list[tuple[float, float]], size: list[tuple[float, float]]
) -> tuple[list[float], list[float]]:
    widths = [0.0] * len(block.kinds)
    heights = [0.0] * len(block.kinds)
    for v, kind in enumerate(block.kinds):
        if kind == NODE:
            widths[v], heights[v] = node_sizes[block.refs[v]]
        elif kind == GROUP:
            widths[v], heights[v] = size[block.refs[v]]
    return widths, heights


def _pack(
    top_level: list[int], size: list[tuple[float, float]], boxes: list[tuple[float, float, float, float]]
) -> tuple[float, float]:
    """Rows of global functions, in source order, about 1.5 times wider than tall."""
    area = 0.0
    widest = 0.0
    for g in top_level:
        area += size[g][0] * size[g][1]
        if size[g][0] > widest:
            widest = size[g][0]
    limit = max(widest, math.sqrt(area) * 1.5)
    x = y = row_h = 0.0
    total_w = 0.0
    for g in top_level:
        w, h = size[g]
        if x > 0 and x + w > limit:
            x = 0.0
            y = y + row_h + TOP_GAP
            row_h = 0.0
        boxes[g] = (x, y, w, h)
        if x + w > total_w:
            total_w = x + w
        x = x + w + TOP_GAP
        if h > row_h:
            row_h = h
    return total_w, y + row_h


def _routes(
    layout: Layout,
    gid: int,
    placements: list[_Placement | None],
    origin_off: list[tuple[float, float]],
    boxes: list[tuple[float, float, float, float]],
    node_boxes: list[tuple[float, float, float, float]],
    collapsed: set[int],
    orthogonal: bool,
    routes: list[tuple[int, list[tuple[float, float]], bool]],
) -> None:
    block = layout.blocks[gid]
    found = placements[gid]
    assert found is not None
    placement = found
    gx, gy = boxes[gid][0] + origin_off[gid][0], boxes[gid][1] + origin_off[gid][1]
    top, bottom = boxes[gid][1], boxes[gid][1] + boxes[gid][3]
    tops, heights = placement.tops, placement.heights
    kinds, refs, rank = block.kinds, block.refs, block.rank
    for path in block.paths:
        items = path.items
        pts: list[tuple[float, float]] = []
        a = items[0]
        kind = kinds[a]
        if kind == IN:
            pts.append((gx + placement.x[a], top))
        elif kind == GROUP:
            pts.append(_exit(layout, refs[a], placements, origin_off, boxes, collapsed))
        else:
            box = node_boxes[refs[a]]
            pts.append((box[0] + box[2] / 2, box[1] + box[3]))
        for d in items[1:-1]:
            r = rank[d]
            pts.append((gx + placement.x[d], gy + tops[r]))
            pts.append((gx + placement.x[d], gy + tops[r] + heights[r]))
        b = items[-1]
        kind = kinds[b]
        arrow = path.final
        if kind == OUT:
            pts.append((gx + placement.x[b], bottom))
            arrow = False
        elif kind == GROUP:
            child = refs[b]
            if child in collapsed or path.port < 0:
                box = boxes[child]
                pts.append((box[0] + box[2] / 2, box[1]))
                arrow = True
            else:
                inner = placements[child]
                assert inner is not None
                pts.append((boxes[child][0] + origin_off[child][0] + inner.x[path.port], boxes[child][1]))
        else:
            box = node_boxes[refs[b]]
            pts.append((box[0] + box[2] / 2, box[1]))
        if orthogonal:
            pts = _orthogonal(pts, [gy + tops[rank[v]] + heights[rank[v]] for v in items], gy, tops)
        routes.append((path.edge, pts, arrow))


def _exit(
    layout: Layout,
    child: int,
    placements: list[_Placement | None],
    origin_off: list[tuple[float, float]],
    boxes: list[tuple[float, float, float, float]],
    collapsed: set[int],
) -> tuple[float, float]:
    box = boxes[child]
    inner = placements[child]
    if child in collapsed or inner is None:
        return (box[0] + box[2] / 2, box[1] + box[3])
    out = layout.blocks[child].out
    return (box[0] + origin_off[child][0] + inner.x[out], box[1] + box[3])


def _orthogonal(
    pts: list[tuple[float, float]], bottoms: list[float], gy: float, tops: list[float]
) -> list[tuple[float, float]]:
    """Turn a route through layers into vertical runs joined by horizontal
    ones in the middle of the gap below each layer. `bottoms[i]` is the
    bottom of the layer of the route's i-th item; the points are the
    source's exit, two per dummy (top and bottom of its layer), and the
    target's entry."""
    out = [pts[0]]
    # the runs between layers: from the source's exit, from each dummy's bottom
    starts = [0] + [2 + 2 * k for k in range((len(pts) - 2) // 2)]
    for k, i in enumerate(starts):
        p, q = pts[i], pts[i + 1]
        if k > 0:
            out.append(p)
        if p[0] != q[0]:
            mid = bottoms[k] + RANK_GAP / 2
            out.append((p[0], mid))
            out.append((q[0], mid))
        out.append(q)
    return out
