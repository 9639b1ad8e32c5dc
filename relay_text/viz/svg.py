"""A static SVG picture of a graph, for documents.

One `<g class="node">` per node (a box with its operator and its shape),
one `<g class="group">` per group (a titled frame), one `<path>` per
piece of an edge; a global call links (`<a href="#fn-main">`) to its
callee's frame. Styles are inline (in a `<style>` element), so the file
shows the same everywhere.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from . import model as m
from .coords import HEADER, MAX_CAPTION, MAX_LABEL, PAD_X, Placed, clip

MARGIN = 20.0

STYLE = """
.node rect { stroke: #5b6b7a; stroke-width: 1; }
.node text, .group text { font: 11px ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace; fill: #1d2733; }
.node .caption { fill: #5b6b7a; }
.k-op rect { fill: #e8f0fb; } .k-call rect { fill: #fdf0d9; } .k-constructor rect { fill: #efe6fb; }
.k-tuple rect, .k-project rect { fill: #eef1f4; } .k-param rect { fill: #dff3e4; }
.k-const rect { fill: #f6f6f6; stroke: #a9b3bd; }
.k-pattern rect { fill: #e3f4f4; } .k-global rect { fill: #fdf0d9; } .k-ref rect { fill: #fbe9e9; }
.group > rect { fill: #fbfcfd; stroke: #b8c4cf; stroke-width: 1; }
.group .title { font-weight: bold; }
.g-function > rect { fill: #ffffff; stroke: #8a9aab; }
.g-if > rect, .g-match > rect { fill: #f7f9fb; }
.edge { fill: none; stroke: #7d8b99; stroke-width: 1.1; }
.e-callee { stroke-dasharray: 4 3; } .e-result { stroke: #a9b3bd; }
"""


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _anchor(group: m.Group) -> str:
    return "fn-" + (group.name.lstrip("@") or f"g{group.id}")


def write_svg(graph: m.Graph, placed: Placed) -> str:
    """The SVG text of `placed`, the layout of `graph` (`viz.only` keeps one function)."""
    left = top = float("inf")
    right = bottom = float("-inf")
    for g in graph.groups:
        if g.parent < 0:
            x, y, w, h = placed.groups[g.id]
            left, top = min(left, x), min(top, y)
            right, bottom = max(right, x + w), max(bottom, y + h)
    if left == float("inf"):
        left = top = right = bottom = 0.0
    width, height = right - left + 2 * MARGIN, bottom - top + 2 * MARGIN
    dx, dy = MARGIN - left, MARGIN - top
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{_fmt(width)}" height="{_fmt(height)}" viewBox="0 0 {_fmt(width)} {_fmt(height)}">\n',
        f"<title>{escape(graph.source_name or 'relay graph')}</title>\n",
        '<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#7d8b99"/></marker></defs>\n',
        f"<style>{STYLE}</style>\n",
        f'<rect width="100%" height="100%" fill="#ffffff"/>\n<g transform="translate({_fmt(dx)},{_fmt(dy)})">\n',
    ]
    for g in sorted(graph.groups, key=lambda g: g.depth):
        if not placed.shown_groups[g.id]:
            continue
        x, y, w, h = placed.groups[g.id]
        anchor = f' id="{_anchor(g)}"' if g.parent < 0 else ""
        folded = " ▸" if g.id in placed.collapsed else ""
        out.append(
            f'<g class="group g-{g.kind}"{anchor}><rect x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(w)}" '
            f'height="{_fmt(h)}" rx="6"/>'
            f'<text class="title" x="{_fmt(x + PAD_X)}" '
            f'y="{_fmt(y + HEADER / 2 + 4)}">{escape(clip(g.label, 60) + folded)}</text></g>\n'
        )
    for edge_index, pts, arrow in placed.routes:
        edge = graph.edges[edge_index]
        d = "M" + " L".join(f"{_fmt(x)},{_fmt(y)}" for x, y in pts)
        marker = ' marker-end="url(#arrow)"' if arrow else ""
        out.append(f'<path class="edge e-{edge.role}" d="{d}"{marker}/>\n')
    functions_by_name = {g.name: g for g in graph.groups if g.parent < 0 and g.name}
    for node in graph.nodes:
        if not placed.shown_nodes[node.id]:
            continue
        x, y, w, h = placed.nodes[node.id]
        label, caption = clip(node.label, MAX_LABEL), clip(node.caption, MAX_CAPTION)
        tip = node.type or node.label
        if node.name:
            tip = f"{node.name} = {node.label} : {tip}"
        parts = [
            f'<g class="node k-{node.kind}"><title>{escape(tip)}</title>',
            f'<rect x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(w)}" height="{_fmt(h)}" rx="4"/>',
            f'<text x="{_fmt(x + w / 2)}" y="{_fmt(y + 15)}" text-anchor="middle">{escape(label)}</text>',
        ]
        if caption:
            parts.append(
                f'<text class="caption" x="{_fmt(x + w / 2)}" y="{_fmt(y + 29)}" '
                f'text-anchor="middle">{escape(caption)}</text>'
            )
        parts.append("</g>")
        text = "".join(parts)
        target = functions_by_name.get(node.link)
        if target is not None:
            text = f"<a href={quoteattr('#' + _anchor(target))}>{text}</a>"
        out.append(text + "\n")
    out.append("</g>\n</svg>\n")
    return "".join(out)
