"""Values whose size is known only at run time (`?` dimensions, from `dyn.*`
and other data-dependent operators) are checked against the sizes a program
declares where they meet them: at an annotated `let`, at a call of a function
whose parameter has sizes, at a function's declared result."""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.eval.entry import RunRequest
from relay_text.ir.span import Source
from relay_text.pipeline import run_source

PROGRAM = """
def @f(%y : Tensor[(2, 3), float32]) { %y }

def @main(%x : Tensor[(6), float32], %s : Tensor[(2), int64], %k : int32) -> Tensor[(2, 3), float32] {
  let %y : Tensor[(2, 3), float32] = dyn.reshape(%x, %s);
  let %z = if (%k == 0) { %y } else { @f(dyn.reshape(%x, %s)) };
  if (%k == 2) { dyn.reshape(%x, %s) } else { %z }
}
"""


def run(shape: list[int], k: int):
    request = RunRequest(values=(np.ones(6, np.float32), np.array(shape, np.int64), np.int32(k)))
    return run_source(Source("dyn.rly", PROGRAM), request)


def test_sizes_that_agree_run() -> None:
    ran = run([2, 3], 1)
    assert ran.ok and ran.value.shape == (2, 3) and ran.value.dtype == np.float32


@pytest.mark.parametrize(
    "k, message, where",
    [
        (0, "`%y` has shape (3, 2), but its declared type needs (2, 3)", "dyn.reshape(%x, %s)"),
    ],
)
def test_an_annotated_let(k: int, message: str, where: str) -> None:
    ran = run([3, 2], k)
    [diag] = ran.diagnostics
    assert (diag.code, diag.message, diag.span.text, diag.location()[1]) == ("runtime-error", message, where, 5)


def test_a_call_argument_and_the_result() -> None:
    """The let is checked first; with it out of the way (a program without the
    annotation) the argument of `@f` and the declared result are checked."""
    text = PROGRAM.replace("let %y : Tensor[(2, 3), float32] = dyn.reshape(%x, %s);", "let %y = %x;")
    text = text.replace("if (%k == 0) { %y } else", "if (%k == 0) { reshape(%y, newshape=[2, 3]) } else")
    text = text.replace("if (%k == 2)", "if (%k != 1)")
    for k, message, line in (
        (1, "argument 1 has shape (3, 2), but its declared type needs (2, 3)", 6),
        (0, "the result has shape (3, 2), but its declared type needs (2, 3)", 7),
    ):
        request = RunRequest(values=(np.ones(6, np.float32), np.array([3, 2], np.int64), np.int32(k)))
        ran = run_source(Source("dyn.rly", text), request)
        [diag] = ran.diagnostics
        assert (diag.code, diag.message, diag.location()[1]) == ("runtime-error", message, line)
