"""No operator call is given a type with a negative dimension: whatever
attribute leads a relation there (`channels=-1`), the call is an error at
its place (it reached `relay run`, where drawing a random weight of shape
(-1, 3, 3, 3) was an internal error; a fuzzer finding)."""

from __future__ import annotations

from tests.check.helpers import diagnostics


def test_an_input_the_attributes_make_negative() -> None:
    text = (
        "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w) {\n  nn.conv2d(%x, %w, channels=-1, kernel_size=[3, 3])\n}\n"
    )
    (diag,) = diagnostics(text)
    assert (diag.code, diag.span.text, diag.location()[1:3]) == ("shape-mismatch", "%w", (2, 17))
    assert (
        diag.message == "`nn.conv2d` would need `Tensor[(-1, 3, 3, 3), float32]` here, which has a negative dimension"
    )
    assert diag.notes == ["check the call's attributes (`channels`, sizes, axes)"]


def test_random_arguments_are_never_drawn_for_such_a_type() -> None:
    from relay_text.eval.entry import RunRequest
    from relay_text.ir.span import Source
    from relay_text.pipeline import run_source

    text = (
        "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w) {\n  nn.conv2d(%x, %w, channels=-1, kernel_size=[3, 3])\n}\n"
    )
    ran = run_source(Source("a.rly", text), RunRequest(random_args=True))
    assert not ran.started
    assert [d.code for d in ran.diagnostics] == ["shape-mismatch"]
