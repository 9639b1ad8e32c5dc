"""Graphs of small programs for the viz tests."""

from __future__ import annotations

from pathlib import Path

from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from relay_text.viz import graph_of
from relay_text.viz.model import Graph


def graph(text: str, name: str = "t.rly") -> Graph:
    checked = check_source(Source(name, text))
    assert checked.ok, [str(d) for d in checked.diagnostics]
    return graph_of(checked.module, checked.result)


def graph_of_file(path: Path) -> Graph:
    return graph(path.read_text(), str(path))


def node_table(g: Graph) -> list[tuple]:
    """(kind, label, group label, name, caption) of each node."""
    return [(n.kind, n.label, g.groups[n.group].label, n.name, n.caption) for n in g.nodes]


def ref_text(g: Graph, ref: int) -> str:
    if ref < 0:
        return "[" + g.groups[~ref].label + "]"
    return g.nodes[ref].name or g.nodes[ref].label


def edge_table(g: Graph) -> list[tuple[str, str, int, str]]:
    return [(ref_text(g, e.src), ref_text(g, e.dst), e.index, e.role) for e in g.edges]


# A function, a closure that captures a value, an `if` whose branches share
# and do not share values, a global call, a match with a nested pattern.
PROGRAM = """\
def @f(%a: int32) -> int32 { %a * 2 }
def @main(%x: int32, %c: bool) -> int32 {
  %0 = @f(%x);
  %1 = %0 + 1;
  let %k = fn (%y: int32) -> int32 { %y + %1 };
  if (%c) {
    %2 = %k(%1);
    %2 + %2
  } else {
    %1
  }
}
def @g(%l: List[int32]) -> int32 {
  match (%l) {
    case Cons(%h, Cons(_, %t)) { %h + @g(%t) }
    case _ { 0 }
  }
}
"""


def residual_model(blocks: int) -> str:
    """A deep network in TVM's format, its weights as metadata constants:
    `blocks` residual blocks (two convolutions, each with a batch norm),
    every fourth with a squeeze-and-excite branch; 25,000 nodes at 1,164
    blocks, about the size of the largest models people draw."""
    lines = ['#[version = "0.0.5"]', "def @main(%x: Tensor[(1, 16, 8, 8), float32]) {"]
    count = [0, 0]  # bindings, constants

    def bind(expr: str) -> str:
        lines.append(f"  %{count[0]} = {expr};")
        count[0] += 1
        return f"%{count[0] - 1}"

    def const() -> str:
        count[1] += 1
        return f"meta[relay.Constant][{count[1] - 1}]"

    def conv_bn(x: str) -> str:
        y = bind(f"nn.conv2d({x}, {const()}, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3])")
        y = bind(f"nn.batch_norm({y}, {const()}, {const()}, {const()}, {const()})")
        return bind(f"{y}.0")

    cur = "%x"
    for i in range(blocks):
        y = bind(f"nn.relu({conv_bn(cur)})")
        y = conv_bn(y)
        if i % 4 == 3:
            s = bind(f"nn.global_avg_pool2d({y})")
            s = bind(f"reshape({s}, newshape=[1, 16])")
            s = bind(f"nn.relu(nn.dense({s}, {const()}, units=4))")
            s = bind(f"sigmoid(nn.dense({s}, {const()}, units=16))")
            y = bind(f"multiply({y}, reshape({s}, newshape=[1, 16, 1, 1]))")
        cur = bind(f"nn.relu(add({y}, {cur}))")
    lines.append(f"  {cur}\n}}\n")
    return "\n".join(lines)
