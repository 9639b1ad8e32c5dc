"""What `relay summary` counts as weights and inputs, and its rows."""

from __future__ import annotations

from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from relay_text.summary.count import FunctionSummary, module_summary

F = "float32"


def summarize(text: str, inputs: list[str] | None = None, entry: str | None = None) -> list[FunctionSummary]:
    checked = check_source(Source("t.rly", text))
    assert checked.ok, [str(d) for d in checked.diagnostics]
    return module_summary(checked.module, checked.result.types.get, entry, inputs)


def only(text: str, inputs: list[str] | None = None) -> FunctionSummary:
    (summary,) = summarize(text, inputs)
    return summary


MODEL = f"""
def @main(%x: Tensor[(1, 3, 8, 8), {F}], %w: Tensor[(4, 3, 3, 3), {F}], %b: Tensor[(4), {F}],
          %scale: Tensor[(4, 1, 1), {F}], %skip: Tensor[(1, 4, 6, 6), {F}]) {{
  %0 = nn.conv2d(%x, %w);
  %1 = nn.bias_add(%0, %b);
  %2 = multiply(%1, %scale);
  add(%2, %skip)
}}
"""


def test_parameters_in_a_weights_place_are_weights() -> None:
    """The convolution's kernel, the bias, a per-channel scale broadcast over
    the activations; the data and an operand of full size are inputs."""
    s = only(MODEL)
    assert [i.name for i in s.inputs] == ["%x", "%skip"]
    assert [(w.name, w.count, w.bytes, w.kind) for w in s.weights] == [
        ("%w", 108, 432, "parameter"),
        ("%b", 4, 16, "parameter"),
        ("%scale", 4, 16, "parameter"),
    ]
    assert [(r.name, r.op, r.output, r.weights, r.macs) for r in s.rows] == [
        ("%0", "nn.conv2d", "1×4×6×6 float32", 108, 4 * 36 * 27),  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
        ("%1", "nn.bias_add", "1×4×6×6 float32", 4, 0),  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
        ("%2", "multiply", "1×4×6×6 float32", 4, 0),  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
        ("", "add", "1×4×6×6 float32", 0, 0),  # noqa: RUF001 (the multiplication sign separates dimensions in the output)
    ]


def test_inputs_named_on_the_command_line_win() -> None:
    s = only(MODEL, inputs=["x", "%scale"])
    assert [i.name for i in s.inputs] == ["%x", "%scale"]
    assert [w.name for w in s.weights] == ["%w", "%b", "%skip"]


def test_weights_through_tuples_and_moves() -> None:
    """Stacked weights (a tuple, `concatenate`, `transpose`) stay weights; an
    embedding table read by integer indices is a weight."""
    s = only(
        f"""
def @main(%ids: Tensor[(5), int32], %table: Tensor[(100, 8), {F}],
          %w1: Tensor[(8, 8), {F}], %w2: Tensor[(8, 8), {F}]) {{
  %0 = take(%table, %ids, axis=0);
  %1 = concatenate((%w1, %w2), axis=0);
  nn.dense(%0, transpose(transpose(%1)))
}}
"""
    )
    assert [i.name for i in s.inputs] == ["%ids"]
    assert [w.name for w in s.weights] == ["%table", "%w1", "%w2"]
    # each weight counted once, where it is first read
    assert [(r.op, r.weights) for r in s.rows] == [
        ("take", 800),
        ("concatenate", 128),
        ("transpose", 0),
        ("transpose", 0),
        ("nn.dense", 0),
    ]


def test_constants() -> None:
    """Metadata constants count once per index, literal tensors count,
    scalar literals do not."""
    s = only(
        f"""#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), {F}]) {{
  %0 = nn.dense(%x, meta[relay.Constant][0], units=4);
  %1 = add(%0, 1f);
  %2 = multiply(%1, Constant(2, (4), float32));
  add(%2, nn.dense(%x, meta[relay.Constant][0], units=4))
}}
"""
    )
    assert [(w.name, w.type, w.count, w.kind) for w in s.weights] == [
        ("meta[0]", "Tensor[(4, 3), float32]", 12, "constant"),
        ("Constant(2, (4), float32)", "Tensor[(4), float32]", 4, "constant"),
    ]
    assert s.weight_count == 16 and s.weights_known
    assert s.macs == 2 * (2 * 4 * 3)


def test_functions_and_their_calls() -> None:
    """Global calls, constructors and closure calls are rows; every function
    is summarised, or only the one asked for."""
    text = """
def @twice(%f: fn(int32) -> int32, %x: int32) -> int32 { %f(%f(%x)) }
def @main() { (@twice(fn (%y: int32) { %y + 1 }, 3), Some(2)) }
"""
    twice, main = summarize(text)
    assert [(r.op, r.kind) for r in twice.rows] == [("%f", "function"), ("%f", "function")]
    assert [i.name for i in twice.inputs] == ["%f", "%x"] and twice.weights == []
    assert [(r.op, r.kind, r.output) for r in main.rows] == [
        ("add", "operator", "scalar int32"),
        ("@twice", "function", "scalar int32"),
        ("Some", "constructor", "Optional[Tensor[(), int32]]"),
    ]
    assert [s.name for s in summarize(text, entry="@twice")] == ["@twice"]


def test_grouped_rows() -> None:
    s = only(MODEL)
    assert [(g["op"], g["count"], g["weights"], g["macs"]) for g in s.groups()] == [
        ("nn.conv2d", 1, 108, 4 * 36 * 27),
        ("nn.bias_add", 1, 4, 0),
        ("multiply", 1, 4, 0),
        ("add", 1, 0, 0),
    ]


def test_unknown_sizes_are_lower_bounds() -> None:
    s = only(f"def @main(%x: Tensor[(?, 8), {F}], %w: Tensor[(4, 8), {F}]) {{ nn.dense(%x, %w) }}")
    assert s.weights_known and not s.macs_known and s.rows[0].macs is None
