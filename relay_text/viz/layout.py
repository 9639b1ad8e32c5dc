"""A layered layout in linear time: which layer each box goes in, and in
what order.

Each group is laid out on its own, as a block: its nodes, its child groups
(each one box, however much it holds), a port at its top for every value
that comes in from outside, and a port at its bottom for its result.
Every edge becomes one path per block it passes through: from its source,
down through the ports of the groups it enters, to its target.

Per block:

1. Ranks by longest path from the sources; then, consumers first, a box
   whose inputs are no more than its outputs moves down to just above its
   first consumer (a weight next to the convolution that reads it, not at
   the top of the model); empty layers are dropped.
2. An edge that spans several layers gets a point per layer it crosses (a
   "dummy"); the long edges of one source share their points, so a value
   used in many later places is one line that branches off where it is
   used, not a bundle.
3. Order in each layer by barycentres: sweeps down and up, each box sorted
   by the mean position of its neighbours in the layer before.

Coordinates, which depend on which groups are collapsed, are computed from
this in `coords` (and by the same steps in the HTML viewer).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import model as m

# Item kinds of a block
NODE, GROUP, DUMMY, IN, OUT = 0, 1, 2, 3, 4

SWEEPS = 4  # down-and-up barycentre sweeps


@dataclass(eq=False, slots=True)
class Path:
    """One edge's way through one block: `items` from the source item over
    dummies to the target item; `port` is the input port of the target
    group the edge enters (an item of that group's block, -1: none);
    `final` tells that the target item is where the edge ends."""

    edge: int
    items: list[int]
    port: int = -1
    final: bool = True


@dataclass(eq=False, slots=True)
class Block:
    group: int
    kinds: list[int] = field(default_factory=list)
    refs: list[int] = field(default_factory=list)  # node id, group id, or the source ref of a port
    paths: list[Path] = field(default_factory=list)
    layers: list[list[int]] = field(default_factory=list)
    rank: list[int] = field(default_factory=list)
    out: int = -1
    ports: dict[int, int] = field(default_factory=dict)  # source ref -> IN item

    def add(self, kind: int, ref: int) -> int:
        self.kinds.append(kind)
        self.refs.append(ref)
        return len(self.kinds) - 1


@dataclass(eq=False, slots=True)
class Layout:
    """The layers of every group of a graph (`blocks[gid]`)."""

    graph: m.Graph
    blocks: list[Block]
    item_of_node: list[int]  # node id -> its item in its group's block
    item_of_group: list[int]  # group id -> its item in its parent's block (-1: top level)


def layered(graph: m.Graph) -> Layout:
    """Ranks, dummies and orders for every block of `graph`."""
    groups = graph.groups
    blocks = [Block(g.id) for g in groups]
    item_of_node = [0] * len(graph.nodes)
    item_of_group = [-1] * len(groups)
    for g in groups:
        blocks[g.id].out = blocks[g.id].add(OUT, -1)
    for node in graph.nodes:
        item_of_node[node.id] = blocks[node.group].add(NODE, node.id)
    for g in groups:
        if g.parent >= 0:
            item_of_group[g.id] = blocks[g.parent].add(GROUP, g.id)
    for index, edge in enumerate(graph.edges):
        _route(graph, blocks, item_of_node, item_of_group, index, edge)
    for block in blocks:
        _rank(block)
        _dummies(block)
        _order(block)
    return Layout(graph, blocks, item_of_node, item_of_group)


def _route(
    graph: m.Graph, blocks: list[Block], item_of_node: list[int], item_of_group: list[int], index: int, edge: m.Edge
) -> None:
    """Split one edge into its paths, block by block, top down."""
    groups = graph.groups
    src = edge.src
    if m.is_group(src):
        top = groups[m.group_id(src)].parent
        src_item = item_of_group[m.group_id(src)]
    else:
        top = graph.nodes[src].group
        src_item = item_of_node[src]
    dst = edge.dst
    if edge.role == m.RESULT:
        bottom = m.group_id(dst)
        dst_item = blocks[bottom].out
    elif m.is_group(dst):
        bottom = groups[m.group_id(dst)].parent
        dst_item = item_of_group[m.group_id(dst)]
    else:
        bottom = graph.nodes[dst].group
        dst_item = item_of_node[dst]
    if bottom == top:  # the common case: both in one group
        blocks[top].paths.append(Path(index, [src_item, dst_item]))
        return
    chain = [bottom]  # the blocks from the target's up to the source's
    while chain[-1] != top:
        parent = groups[chain[-1]].parent
        if parent < 0:
            return  # not below the source's group: nothing to draw (cannot come from the IR)
        chain.append(parent)
    chain.reverse()
    start = src_item
    for depth, gid in enumerate(chain):
        block = blocks[gid]
        if depth + 1 < len(chain):
            child = chain[depth + 1]
            target = item_of_group[child]
            inner = blocks[child]
            port = inner.ports.get(src)
            if port is None:
                port = inner.ports[src] = inner.add(IN, src)
            block.paths.append(Path(index, [start, target], port, final=False))
            start = port
        else:
            block.paths.append(Path(index, [start, dst_item]))


def _rank(block: Block) -> None:
    n = len(block.kinds)
    kinds = block.kinds
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for path in block.paths:
        a, b = path.items[0], path.items[-1]
        succ[a].append(b)
        indeg[b] += 1
    has_ports = bool(block.ports)
    rank = [0] * n
    first = 1 if has_ports else 0
    for i in range(n):
        if kinds[i] != IN:
            rank[i] = first
    order = [i for i in range(n) if indeg[i] == 0]
    left = indeg[:]
    head = 0
    while head < len(order):
        v = order[head]
        head += 1
        r = rank[v] + 1
        for w in succ[v]:
            if rank[w] < r:
                rank[w] = r
            left[w] -= 1
            if left[w] == 0:
                order.append(w)
    if len(order) < n:  # a cycle: cannot come from an expression DAG; keep what was ranked
        seen = set(order)
        order.extend(i for i in range(n) if i not in seen)
    out = block.out
    last = max((rank[i] for i in range(n) if i != out), default=first - 1) + 1
    rank[out] = max(last, first)
    outdeg = [len(s) for s in succ]
    for v in reversed(order):
        if kinds[v] in (IN, OUT) or not succ[v] or outdeg[v] < indeg[v]:
            continue
        low = min(rank[w] for w in succ[v]) - 1
        if low > rank[v]:
            rank[v] = low
    used = sorted(set(rank))
    if has_ports and 0 not in used:
        used.insert(0, 0)
    renumber = {r: i for i, r in enumerate(used)}
    block.rank = [renumber[r] for r in rank]


def _dummies(block: Block) -> None:
    """A point per layer crossed by each long path, shared by the paths of one source."""
    rank = block.rank
    shared: dict[tuple[int, int], int] = {}
    for path in block.paths:
        a, b = path.items[0], path.items[-1]
        ra, rb = rank[a], rank[b]
        if rb - ra <= 1:
            continue
        items = [a]
        for r in range(ra + 1, rb):
            key = (a, r)
            d = shared.get(key)
            if d is None:
                d = shared[key] = block.add(DUMMY, a)
                rank.append(r)
            items.append(d)
        items.append(b)
        path.items = items


def _order(block: Block) -> None:
    n = len(block.kinds)
    rank = block.rank
    depth = max(rank, default=-1) + 1
    layers: list[list[int]] = [[] for _ in range(depth)]
    for i in range(n):
        layers[rank[i]].append(i)
    from .coords import neighbours

    preds, succs = neighbours(block)
    pos = [0] * n
    for layer in layers:
        for i, v in enumerate(layer):
            pos[v] = i
    busy = [r for r in range(depth) if len(layers[r]) > 1]  # a layer of one has one order
    down = [r for r in busy if r > 0]
    up = [r for r in reversed(busy) if r < depth - 1]
    for _ in range(SWEEPS):
        for r in down:
            _sort(layers[r], preds, pos)
        for r in up:
            _sort(layers[r], succs, pos)
    block.layers = layers


def _sort(layer: list[int], neighbours: list[list[int]], pos: list[int]) -> None:
    """Sort a layer by the mean position of each item's neighbours (its own if it has none)."""
    keys: dict[int, float] = {}
    for v in layer:
        near = neighbours[v]
        if len(near) == 1:
            keys[v] = pos[near[0]]
        elif near:
            total = 0
            for u in near:
                total += pos[u]
            keys[v] = total / len(near)
        else:
            keys[v] = pos[v]
    layer.sort(key=keys.__getitem__)
    for i, v in enumerate(layer):
        pos[v] = i
