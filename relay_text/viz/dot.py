"""The graph in Graphviz's DOT language (`relay viz -o model.dot`).

Each group is a cluster (`subgraph cluster_g3`), nested as the groups
nest, with a point that stands for its value: edges from an `if`, a
`match` or a closure start there, and its condition, the value a `match`
reads and the results of its branches end there. No layout is computed:
`dot -Tsvg model.dot` (or any DOT tool) lays it out.
"""

from __future__ import annotations

from . import model as m

_FILL = {
    m.OP: "#e8f0fb",
    m.CALL: "#fdf0d9",
    m.CONSTRUCTOR: "#efe6fb",
    m.TUPLE: "#eef1f4",
    m.PROJECT: "#eef1f4",
    m.PARAM: "#dff3e4",
    m.CONST: "#f6f6f6",
    m.PATTERN: "#e3f4f4",
    m.GLOBAL: "#fdf0d9",
    m.REF: "#fbe9e9",
}


def quote(text: str) -> str:
    """A DOT string: quoted, with backslashes, quotes and line breaks escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "\\n") + '"'


def write_dot(graph: m.Graph, functions: set[int] | None = None) -> str:
    """DOT text of `graph`; `functions`: the top-level groups to include (default all)."""
    children: dict[int, list[int]] = {}
    members: dict[int, list[int]] = {}
    for g in graph.groups:
        children.setdefault(g.parent, []).append(g.id)
    for node in graph.nodes:
        members.setdefault(node.group, []).append(node.id)
    kept: set[int] = set()
    out = [
        f"digraph {quote(graph.source_name or 'relay')} {{\n",
        "  compound=true;\n  rankdir=TB;\n",
        '  node [shape=box, style="rounded,filled", fontname="monospace", fontsize=10];\n',
        '  edge [color="#7d8b99", arrowsize=0.6];\n',
    ]
    # groups to open (id >= 0) and to close (~id), with their nesting level
    stack: list[tuple[int, int]] = [
        (gid, 1) for gid in reversed(children.get(-1, [])) if functions is None or gid in functions
    ]
    while stack:
        gid, level = stack.pop()
        pad = "  " * level
        if gid < 0:  # the end of group ~gid
            out.append(pad + "}\n")
            continue
        group = graph.groups[gid]
        kept.add(gid)
        out.append(f"{pad}subgraph cluster_g{gid} {{\n")
        out.append(
            f'{pad}  label={quote(group.label)}; style=rounded; color="#b8c4cf"; fontname="monospace"; fontsize=11;\n'
        )
        out.append(f'{pad}  g{gid} [shape=point, width=0.06, label=""];\n')
        for nid in members.get(gid, []):
            out.append(pad + "  " + _node(graph.nodes[nid]) + "\n")
        stack.append((~gid, level))
        for child in reversed(children.get(gid, [])):
            stack.append((child, level + 1))
    for edge in graph.edges:
        src_group = m.group_id(edge.src) if m.is_group(edge.src) else graph.nodes[edge.src].group
        if src_group not in kept:
            continue
        src = f"g{m.group_id(edge.src)}" if m.is_group(edge.src) else f"n{edge.src}"
        dst = f"g{m.group_id(edge.dst)}" if m.is_group(edge.dst) else f"n{edge.dst}"
        attrs = []
        if m.is_group(edge.src):
            attrs.append(f"ltail=cluster_g{m.group_id(edge.src)}")
        if m.is_group(edge.dst) and edge.role != m.RESULT:
            attrs.append(f"lhead=cluster_g{m.group_id(edge.dst)}")
        if edge.role == m.CALLEE:
            attrs.append("style=dashed")
        if edge.role in (m.COND, m.DATA):
            attrs.append(f"label={edge.role}")
        out.append(f"  {src} -> {dst}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";\n")
    out.append("}\n")
    return "".join(out)


def _node(node: m.Node) -> str:
    label = node.label if not node.caption else f"{node.label}\n{node.caption}"
    tip = node.type or node.label
    if node.name:
        tip = f"{node.name} : {tip}"
    attrs = [f"label={quote(label)}", f"fillcolor={quote(_FILL.get(node.kind, '#ffffff'))}", f"tooltip={quote(tip)}"]
    if node.kind in (m.PARAM, m.CONST, m.PATTERN):
        attrs.append("shape=box")
    return f"n{node.id} [{', '.join(attrs)}];"
