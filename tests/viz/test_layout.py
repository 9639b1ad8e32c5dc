"""The layered layout and its coordinates: layers, orders, boxes that do
not overlap, groups that hold what they contain, folded groups."""

from __future__ import annotations

import itertools

import pytest

from relay_text.viz import model as m
from relay_text.viz.coords import HEADER, RANK_GAP, Placed, place, title_width
from relay_text.viz.layout import DUMMY, GROUP, IN, NODE, OUT, Layout, layered
from tests.conftest import CORPUS, corpus_files, needs_corpus
from tests.viz.helpers import PROGRAM, graph, graph_of_file


def check_layers(layout: Layout) -> None:
    """Every path steps down one layer at a time; each layer's order is a
    permutation of its items; ports are at the top, the result at the bottom."""
    for block in layout.blocks:
        assert sorted(v for layer in block.layers for v in layer) == list(range(len(block.kinds)))
        for r, layer in enumerate(block.layers):
            assert all(block.rank[v] == r for v in layer)
        for path in block.paths:
            ranks = [block.rank[v] for v in path.items]
            assert ranks == list(range(ranks[0], ranks[0] + len(ranks))), ranks
            assert all(block.kinds[v] == DUMMY for v in path.items[1:-1])
        assert block.rank[block.out] == len(block.layers) - 1
        assert all(block.rank[v] == 0 for v, k in enumerate(block.kinds) if k == IN)


def overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def inside(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return b[0] <= a[0] and a[0] + a[2] <= b[0] + b[2] + 1e-6 and b[1] <= a[1] and a[1] + a[3] <= b[1] + b[3] + 1e-6


def check_boxes(g: m.Graph, placed: Placed) -> None:
    """Boxes in the same group never overlap; nodes and groups lie inside their group."""
    members: dict[int, list[tuple[float, float, float, float]]] = {}
    for n in g.nodes:
        if placed.shown_nodes[n.id]:
            assert inside(placed.nodes[n.id], placed.groups[n.group]), n
            members.setdefault(n.group, []).append(placed.nodes[n.id])
    for gr in g.groups:
        if gr.parent >= 0 and placed.shown_groups[gr.id]:
            assert inside(placed.groups[gr.id], placed.groups[gr.parent]), gr
            members.setdefault(gr.parent, []).append(placed.groups[gr.id])
    tops = [placed.groups[gr.id] for gr in g.groups if gr.parent < 0]
    members[-1] = tops
    for boxes in members.values():
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not overlaps(a, b), (a, b)


def test_program_layout() -> None:
    g = graph(PROGRAM)
    layout = layered(g)
    check_layers(layout)
    check_boxes(g, place(layout))


def test_a_weight_stands_just_above_the_operator_that_reads_it() -> None:
    """Inputs that feed one box move down next to it (not all to the top)."""
    g = graph(
        "def @main(%x: Tensor[(1, 4), float32], %w1: Tensor[(4, 4), float32], %w2: Tensor[(4, 4), float32]) {\n"
        "  nn.dense(nn.relu(nn.dense(%x, %w1)), %w2)\n}\n"
    )
    layout = layered(g)
    block = layout.blocks[0]
    rank = {g.nodes[block.refs[v]].label: block.rank[v] for v, k in enumerate(block.kinds) if k == NODE}
    assert rank == {"%x": 0, "%w1": 0, "nn.dense": 3, "nn.relu": 2, "%w2": 2} or rank["%w2"] == 2
    placed = place(layout)
    dense2 = g.nodes[[n.id for n in g.nodes if n.label == "nn.dense"][-1]]
    w2 = next(n for n in g.nodes if n.label == "%w2")
    # one layer above, beside the activation it is multiplied with
    assert placed.nodes[w2.id][1] + placed.nodes[w2.id][3] + RANK_GAP == pytest.approx(placed.nodes[dense2.id][1])


def test_the_main_line_runs_straight() -> None:
    """A chain whose steps read weights: the chain's boxes share one centre line."""
    body = "%x"
    params = ["%x: Tensor[(1, 8), float32]"]
    for i in range(6):
        params.append(f"%w{i}: Tensor[(8, 8), float32]")
        body = f"nn.relu(nn.dense({body}, %w{i}))"
    g = graph(f"def @main({', '.join(params)}) {{ {body} }}\n")
    placed = place(layered(g))
    centres = {round(x + w / 2, 3) for n, (x, _, w, _) in zip(g.nodes, placed.nodes, strict=False) if n.kind == m.OP}
    assert len(centres) == 1


def test_long_edges_of_one_source_share_their_points() -> None:
    """A value used in many later places is one line down the layers that
    branches off where it is used: one point per layer, not per use."""
    uses = " ".join(f"%{i + 1} = add(%{i}, %x);" for i in range(8))
    g = graph(f"def @main(%x: float32) {{ %0 = negative(%x); {uses} %8 }}\n")
    block = layered(g).blocks[0]
    source = next(v for v, k in enumerate(block.kinds) if k == NODE and g.nodes[block.refs[v]].label == "%x")
    dummies = [v for v, k in enumerate(block.kinds) if k == DUMMY and block.refs[v] == source]
    assert len({block.rank[v] for v in dummies}) == len(dummies)


def test_folding_a_group() -> None:
    """A folded group is its title bar; what it holds is not drawn, and the
    boxes around move up to fill the space."""
    g = graph(PROGRAM)
    open_ = place(layered(g))
    (if_group,) = [gr.id for gr in g.groups if gr.kind == m.IF]
    folded = place(layered(g), {if_group})
    x, y, w, h = folded.groups[if_group]
    assert (w, h) == (title_width(g.groups[if_group]), HEADER)
    hidden = {gr.id for gr in g.groups if gr.parent == if_group}
    assert not any(folded.shown_groups[gid] for gid in hidden)
    assert [n.label for n in g.nodes if not folded.shown_nodes[n.id]] == ["%k(…)", "add"]
    main = next(gr.id for gr in g.groups if gr.name == "@main")
    assert folded.groups[main][3] < open_.groups[main][3]
    check_boxes(g, folded)
    # edges into the folded group end at its top, an arrow on each
    ends = [(pts[-1], arrow) for e, pts, arrow in folded.routes if g.edges[e].dst == ~if_group]
    assert ends == [((x + w / 2, y), True)]


def test_orthogonal_routes_turn_only_between_layers() -> None:
    g = graph(PROGRAM)
    for orthogonal in (True, False):
        for _, pts, _ in place(layered(g), orthogonal=orthogonal).routes:
            segments = list(itertools.pairwise(pts))
            if orthogonal:
                assert all(a[0] == b[0] or a[1] == b[1] for a, b in segments)
            assert all(b[1] >= a[1] for a, b in segments)  # edges run down


def test_items_of_each_kind() -> None:
    g = graph(PROGRAM)
    layout = layered(g)
    main = next(gr.id for gr in g.groups if gr.name == "@main")
    kinds = layout.blocks[main].kinds
    assert kinds.count(NODE) == 5 and kinds.count(GROUP) == 2 and kinds.count(OUT) == 1 and kinds.count(IN) == 0
    then = next(gr.id for gr in g.groups if gr.kind == m.THEN)
    # `%1` and the closure come into `then` from outside: one port each
    assert sorted(layout.blocks[then].refs[v] for v, k in enumerate(layout.blocks[then].kinds) if k == IN) == sorted(
        [~next(gr.id for gr in g.groups if gr.kind == m.FN), next(n.id for n in g.nodes if n.name == "%1")]
    )


@needs_corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.stem)
def test_corpus_layouts(path) -> None:
    g = graph_of_file(path)
    layout = layered(g)
    check_layers(layout)
    placed = place(layout)
    if len(g.nodes) < 600:  # the pairwise overlap check is quadratic
        check_boxes(g, placed)
    assert all(placed.shown_nodes)


@needs_corpus
def test_resnet50_is_tall_not_wide() -> None:
    placed = place(layered(graph_of_file(CORPUS / "apache-tvm-menangerie-resnet50.rly")))
    assert placed.width < 1000 and placed.height > 10 * placed.width
