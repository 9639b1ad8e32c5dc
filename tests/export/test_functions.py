"""`relay export --functions`: global functions as ONNX local functions,
one per signature, giving the values the inlined model gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from relay_text.cli import main
from relay_text.export.functions import DOMAIN

from .helpers import export, max_difference, onnx, ort

PROGRAM = """
def @layer(%x: Tensor[(2, 3), float32], %w: Tensor[(3, 3), float32]) -> Tensor[(2, 3), float32] {
  nn.relu(nn.dense(%x, %w) + 1f)
}
def @id<t>(%v: t) -> t { %v }
def @pair(%a: Tensor[(2, 3), float32]) { (@layer(%a, ones(shape=[3, 3], dtype="float32")), negative(%a)) }
def @choose(%c: bool, %a: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {
  if (%c) {
    @layer(%a, ones(shape=[3, 3], dtype="float32"))
  } else {
    reshape(reshape(%a, newshape=[6]), newshape=[2, 3])
  }
}
def @count(%i: int32, %x: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {
  if (%i < 3) { @count(%i + 1, @layer(%x, ones(shape=[3, 3], dtype="float32"))) } else { %x }
}
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(3, 3), float32], %c: bool) {
  %0 = @layer(%x, %w);
  %1 = @layer(%0, %w);
  %2 = @pair(%1);
  (@id(%2.0), @id(7i64), @choose(%c, %2.1), @choose(%c, %0), @count(0, %x))
}
"""


def run(model, **inputs):  # type: ignore[no-untyped-def]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def test_globals_become_local_functions_one_per_signature() -> None:
    model = export(PROGRAM, functions=True)
    assert [f.name for f in model.functions] == ["layer", "pair", "id", "id_1", "choose"]
    assert all(f.domain == DOMAIN for f in model.functions)
    calls = [n.op_type for n in model.graph.node if n.domain == DOMAIN]
    assert calls == ["layer", "layer", "pair", "id", "id_1", "choose", "choose"]
    assert (DOMAIN, 1) in [(o.domain, o.version) for o in model.opset_import]
    # a recursive function stays a Loop; its body calls the local function
    loop = next(n for n in model.graph.node if n.op_type == "Loop")
    assert "layer" in [n.op_type for n in loop.attribute[0].g.node]
    # a function body has no initializers: its constants are Constant nodes
    layer = model.functions[0]
    assert [n.op_type for n in layer.node].count("Constant") == 1


def test_local_functions_give_the_numpy_engine_s_values() -> None:
    from relay_text.eval.entry import RunRequest
    from relay_text.ir.span import Source
    from relay_text.pipeline import run_source

    model = export(PROGRAM, functions=True)
    rng = np.random.default_rng(0)
    for c in (True, False):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        w = rng.standard_normal((3, 3)).astype(np.float32)
        ran = run_source(Source("t.rly", PROGRAM), RunRequest(values=(x, w, np.array(c))))
        assert ran.ok, [str(d) for d in ran.diagnostics]
        got = run(model, x=x, w=w, c=np.array(c))
        expected = ran.value
        flat = [expected[0], expected[1], expected[2], expected[3], expected[4]]
        assert max_difference(tuple(flat), tuple(got)) < 1e-5


def test_a_call_passing_a_function_is_inlined() -> None:
    text = (
        "def @apply(%f: fn(Tensor[(2), float32]) -> Tensor[(2), float32], %x: Tensor[(2), float32]) -> Tensor[(2), "
        "float32] { %f(%x) }\n"
        "def @main(%x: Tensor[(2), float32]) { @apply(fn (%y: Tensor[(2), float32]) { negative(%y) }, %x) }\n"
    )
    model = export(text, functions=True)
    assert list(model.functions) == []
    assert [n.op_type for n in model.graph.node] == ["Neg", "Identity"]


def test_the_command_writes_local_functions(tmp_path: Path) -> None:
    src = tmp_path / "p.rly"
    src.write_text(PROGRAM)
    out = tmp_path / "p.onnx"
    result = CliRunner().invoke(main, ["export", str(src), "-o", str(out), "--functions"])
    assert result.exit_code == 0, result.output
    assert "5 local functions" in result.output
    onnx.checker.check_model(onnx.load(str(out)), full_check=True)
