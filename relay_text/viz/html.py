"""The interactive viewer: one self-contained HTML file.

The page carries the graph and its layers as JSON, and the viewer's script
and style inline (`place.js`, `viewer.js`, `viewer.css`, `viewer.html`
beside this module): it needs no network and no other file. The script
places the boxes itself (`place.js`: the steps of `coords`), so that
collapsing a group re-flows what is around it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any
from xml.sax.saxutils import escape

from . import coords
from . import model as m
from .layout import Layout

NODE_KINDS = [m.OP, m.CALL, m.CONSTRUCTOR, m.TUPLE, m.PROJECT, m.PARAM, m.CONST, m.PATTERN, m.GLOBAL, m.REF]
GROUP_KINDS = [m.FUNCTION, m.FN, m.IF, m.THEN, m.ELSE, m.MATCH, m.CLAUSE]
ROLES = [m.ARG, m.CALLEE, m.COND, m.DATA, m.RESULT]

FORMAT_VERSION = 1


@cache
def _asset(name: str) -> str:
    return resources.files("relay_text.viz").joinpath(name).read_text(encoding="utf-8")


class _Strings:
    """A table of the distinct strings of a column (types repeat a lot)."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.items)
            self.items.append(text)
        return found


def graph_data(layout: Layout, collapsed: set[int] | None = None, orthogonal: bool = True) -> dict[str, Any]:
    """What the viewer reads: the graph, its layers and the constants of `coords`."""
    graph = layout.graph
    strings = _Strings()
    nodes = graph.nodes
    sizes = [coords.node_size(n) for n in nodes]
    node_cols: dict[str, list[Any]] = {
        "kind": [NODE_KINDS.index(n.kind) for n in nodes],
        "label": [n.label for n in nodes],
        "name": [n.name for n in nodes],
        "group": [n.group for n in nodes],
        "w": [s[0] for s in sizes],
        "h": [s[1] for s in sizes],
        "type": [strings(n.type) for n in nodes],
        "caption": [strings(n.caption) for n in nodes],
        "shape": [strings(n.shape) for n in nodes],
        "dtype": [strings(n.dtype) for n in nodes],
        "op": [n.op for n in nodes],
        "where": [_where(n.where) for n in nodes],
        "attrs": [n.attrs or None for n in nodes],
        "link": [n.link for n in nodes],
        "macs": [n.macs for n in nodes],
    }
    groups = graph.groups
    group_cols: dict[str, list[Any]] = {
        "kind": [GROUP_KINDS.index(g.kind) for g in groups],
        "label": [g.label for g in groups],
        "parent": [g.parent for g in groups],
        "depth": [g.depth for g in groups],
        "name": [g.name for g in groups],
        "type": [strings(g.type) for g in groups],
        "where": [_where(g.where) for g in groups],
        "tw": [coords.title_width(g) for g in groups],
    }
    edge_cols = {
        "src": [e.src for e in graph.edges],
        "dst": [e.dst for e in graph.edges],
        "index": [e.index for e in graph.edges],
        "role": [ROLES.index(e.role) for e in graph.edges],
    }
    blocks = []
    for block in layout.blocks:
        blocks.append(
            {
                "kinds": block.kinds,
                "refs": block.refs,
                "rank": block.rank,
                "layers": block.layers,
                "out": block.out,
                "paths": [[p.edge, p.port, 1 if p.final else 0, *p.items] for p in block.paths],
            }
        )
    return {
        "version": FORMAT_VERSION,
        "file": graph.source_name,
        "entry": graph.entry,
        "nodeKinds": NODE_KINDS,
        "groupKinds": GROUP_KINDS,
        "roles": ROLES,
        "strings": strings.items,
        "nodes": node_cols,
        "groups": group_cols,
        "edges": edge_cols,
        "blocks": blocks,
        "lines": {str(k): v for k, v in sorted(graph.lines.items())},
        "collapsed": sorted(collapsed or ()),
        "orthogonal": orthogonal,
        "layout": {
            "GROUP_PAD": coords.GROUP_PAD,
            "HEADER": coords.HEADER,
            "NODE_GAP": coords.NODE_GAP,
            "EDGE_GAP": coords.EDGE_GAP,
            "RANK_GAP": coords.RANK_GAP,
            "TOP_GAP": coords.TOP_GAP,
            "COORD_SWEEPS": coords.COORD_SWEEPS,
            "LONELY": coords.LONELY,
            "ATTACHED": coords.ATTACHED,
            "MAX_LABEL": coords.MAX_LABEL,
            "MAX_CAPTION": coords.MAX_CAPTION,
            "PAD_X": coords.PAD_X,
        },
    }


def _where(where: m.Where | None) -> list[int] | None:
    return None if where is None else [where.line, where.column, where.end_line, where.end_column]


def write_html(
    layout: Layout, collapsed: set[int] | None = None, orthogonal: bool = True, title: str | None = None
) -> str:
    """The viewer page of a graph's layout."""
    data = json.dumps(graph_data(layout, collapsed, orthogonal), separators=(",", ":"), ensure_ascii=False)
    data = data.replace("<", "\\u003c")  # nothing in it can close the script element
    name = title or layout.graph.source_name or "graph"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(name)} - relay viz</title>\n"
        f"<style>\n{_asset('viewer.css')}</style>\n</head>\n<body>\n{_asset('viewer.html')}"
        f'<script type="application/json" id="relay-graph">{data}</script>\n'
        f"<script>\n{_asset('place.js')}{_asset('viewer.js')}</script>\n</body>\n</html>\n"
    )
