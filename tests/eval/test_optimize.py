"""The optimising evaluator (`relay_text.eval.optimize`, `inplace`) against
the plan as written (`relay run --no-opt`): the same results within float
rounding for every corpus model and every sample; folded constants and
batch norms; elementwise steps in place only where nothing else can see
the buffer; effects never folded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from relay_text.eval.entry import RunRequest
from relay_text.eval.values import Data
from relay_text.ir.span import Source
from relay_text.pipeline import check_source, run_source
from tests.conftest import corpus_files, model_params, needs_corpus, sample_files

from .test_samples import ARGS


def run_both(name: str, text: str, **request: Any) -> tuple[Any, Any]:
    """The runs of a program optimised and as written."""
    out = []
    for optimize in (True, False):
        ran = run_source(Source(name, text), RunRequest(optimize=optimize, **request))
        out.append(ran)
    return out[0], out[1]


def assert_close(a: Any, b: Any, where: str = "result") -> None:
    """Equal values, tensors within float rounding (relative to the largest
    magnitude), everything else exactly."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            assert_close(x, y, f"{where}.{i}")
        return
    if isinstance(a, Data):
        assert isinstance(b, Data) and (a.con.name, a.con.tag) == (b.con.name, b.con.tag), where
        assert_close(tuple(a.fields), tuple(b.fields), f"{where}:{a.con.name}")
        return
    if isinstance(a, (np.ndarray, np.generic)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, where
        if a.dtype.kind == "f" and a.size:
            scale = max(float(np.max(np.abs(b[np.isfinite(b)]), initial=0.0)), 1e-30)
            assert np.array_equal(np.isnan(a), np.isnan(b)), where
            finite = np.isfinite(b)
            assert np.array_equal(a[~finite & ~np.isnan(b)], b[~finite & ~np.isnan(b)]), where
            rtol = 1e-4 if a.dtype.itemsize >= 4 else 1e-2
            assert float(np.max(np.abs(a[finite] - b[finite]), initial=0.0)) <= rtol * scale, where
        else:
            assert np.array_equal(a, b), where
        return
    if callable(a):
        assert callable(b), where
        return
    assert type(a) is type(b) and a == b, where


def assert_same_outcome(optimised: Any, plain: Any) -> None:
    assert optimised.ok == plain.ok, ([str(d) for d in optimised.diagnostics], [str(d) for d in plain.diagnostics])
    if optimised.ok:
        assert_close(optimised.value, plain.value)
    else:
        assert [(d.code, d.span.start_line_col if d.span else None) for d in optimised.diagnostics] == [
            (d.code, d.span.start_line_col if d.span else None) for d in plain.diagnostics
        ]


# ---------------------------------------------------------------- every model, every sample


@needs_corpus
@pytest.mark.parametrize("path", model_params(corpus_files()), ids=lambda p: p.name)
def test_corpus_model_optimised_and_as_written_agree(path: Path) -> None:
    optimised, plain = run_both(path.name, path.read_text(), random_args=True, random_consts=True, seed=0)
    assert_same_outcome(optimised, plain)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_sample_optimised_and_as_written_agree(path: Path) -> None:
    optimised, plain = run_both(path.name, path.read_text(), arg_texts=ARGS.get(path.name, []))
    assert plain.ok, [str(d) for d in plain.diagnostics]
    assert_same_outcome(optimised, plain)


# ---------------------------------------------------------------- what is rewritten


def compiled(text: str, optimize: bool = True, consts: dict | None = None) -> Any:
    from relay_text.eval.compile import compile_program

    checked = check_source(Source("<test>", text), use_prelude=False)
    assert checked.errors == 0, [str(d) for d in checked.diagnostics]
    module = checked.module
    return compile_program(
        module,
        globals_=[module.global_var("main")],
        type_of=checked.result.type_of,
        constants=consts,
        optimize=optimize,
    )


def kernel_calls(program: Any) -> list[str]:
    """The operators the compiled program still calls, by name."""
    names = []
    for line in program.source.splitlines():
        for token in line.replace("(", " ").split():
            if token.startswith(("K", "I")) and token[1:].isdigit():
                fn = program.namespace[token]
                names.append(getattr(fn, "__name__", token))
    return names


CONV_BN = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0], padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.batch_norm(%0, meta[relay.Constant][1], meta[relay.Constant][2],
                     meta[relay.Constant][3], meta[relay.Constant][4]);
  %2 = %1.0;
  nn.relu(%2)
}
"""


def conv_bn_constants() -> dict:
    rng = np.random.default_rng(1)
    return {
        0: rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
        1: rng.standard_normal(4).astype(np.float32),
        2: rng.standard_normal(4).astype(np.float32),
        3: rng.standard_normal(4).astype(np.float32),
        4: rng.uniform(0.5, 2.0, 4).astype(np.float32),
    }


def test_batch_norm_after_a_convolution_is_folded_into_its_weights() -> None:
    from relay_text.eval.runtime import execute

    consts = conv_bn_constants()
    x = np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype(np.float32)
    fast = compiled(CONV_BN, True, consts)
    plain = compiled(CONV_BN, False, consts)
    assert "batch_norm" in kernel_calls(plain)
    calls = kernel_calls(fast)
    assert "batch_norm" not in calls and "multiply" not in calls and "sqrt" not in calls
    assert calls.count("conv2d") == 1
    assert_close(execute(fast, "@main", (x,)), execute(plain, "@main", (x,)))


def test_batch_norm_on_parameters_is_folded_at_run_time() -> None:
    text = """def @main(%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(3, 2, 1, 1), float32], %g: Tensor[(3), float32],
                 %b: Tensor[(3), float32], %m: Tensor[(3), float32], %v: Tensor[(3), float32]) {
  %0 = nn.conv2d(%x, %w);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.batch_norm(%1, %g, %b, %m, %v, epsilon=0.01f);
  %2.0
}
"""
    optimised, plain = run_both("<test>", text, random_args=True, seed=3)
    assert optimised.ok and plain.ok
    assert_close(optimised.value, plain.value)
    assert "batch_norm" not in kernel_calls(compiled(text))


def test_constant_expressions_are_computed_once_at_compile_time() -> None:
    text = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  let %c = add(multiply(ones(shape=[2, 2], dtype="float32"), 3f),
               meta[relay.Constant][0] /* ty=Tensor[(2, 2), float32] */);
  add(%x, exp(%c))
}
"""
    consts = {0: np.arange(4, dtype=np.float32).reshape(2, 2)}
    program = compiled(text, True, consts)
    assert kernel_calls(program) == ["add"]
    from relay_text.eval.runtime import execute

    x = np.ones((2, 2), np.float32)
    assert_close(execute(program, "@main", (x,)), x + np.exp(np.float32(3) + consts[0]))


def test_a_folded_result_is_not_shared_with_the_caller() -> None:
    text = "def @main() { Constant(1, (2, 2), float32) + 1f }"
    program = compiled(text)
    from relay_text.eval.runtime import execute

    out = execute(program, "@main", ())
    out[0, 0] = 5.0  # the program's result is the caller's to change
    assert float(execute(program, "@main", ())[0, 0]) == 2.0


def test_memory_planned_calls_are_never_folded() -> None:
    text = (Path(__file__).parents[2] / "samples" / "vm_memory_plan.rly").read_text()
    checked = check_source(Source("vm", text), use_prelude=False)
    module = checked.module
    from relay_text.eval.compile import compile_program

    from relay_text.eval.plausible import metadata_values

    program = compile_program(
        module,
        globals_=[module.global_var("main")],
        type_of=checked.result.type_of,
        constants=metadata_values(module),
        optimize=True,
    )
    calls = kernel_calls(program)
    assert calls.count("alloc_tensor") == 2 and calls.count("invoke_tvm_op") == 2


def test_a_division_by_zero_in_a_folded_expression_still_fails_where_it_is() -> None:
    text = "def @main() -> int32 {\n  let %x = 7;\n  %x / (%x - 7)\n}\n"
    optimised, plain = run_both("<test>", text)
    assert not optimised.ok
    assert_same_outcome(optimised, plain)


# ---------------------------------------------------------------- in place


def test_parameters_and_their_views_are_never_written() -> None:
    text = """def @main(%x: Tensor[(4, 4), float32]) {
  %0 = reshape(%x, newshape=[16]);
  %1 = add(%0, 1f);
  %2 = nn.relu(%x);
  %3 = multiply(%2, 2f);
  (%1, %3, %x)
}
"""
    import relay_text

    x = np.arange(16, dtype=np.float32).reshape(4, 4) - 8
    keep = x.copy()
    a, b, c = relay_text.run(text, x)
    assert np.array_equal(x, keep)
    assert np.array_equal(c, keep)
    assert np.array_equal(a, keep.reshape(16) + 1)
    assert np.array_equal(b, np.maximum(keep, 0) * 2)


def test_a_buffer_still_viewed_by_a_later_step_is_not_overwritten() -> None:
    text = """def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x);
  %1 = reshape(%0, newshape=[3, 2]);
  %2 = add(%0, 10f);
  %3 = transpose(%2);
  (%1, %3)
}
"""
    import relay_text

    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    first, second = relay_text.run(text, x)
    assert np.array_equal(first, np.maximum(x, 0).reshape(3, 2))
    assert np.array_equal(second, (np.maximum(x, 0) + 10).T)


def test_elementwise_chains_run_in_one_buffer() -> None:
    text = """def @main(%x: Tensor[(64, 64), float32], %y: Tensor[(64), float32]) {
  %0 = nn.dense(%x, %x);
  %1 = add(%0, %y);
  %2 = sigmoid(%1);
  %3 = multiply(%2, %2);
  %4 = power(%3, 3f);
  %5 = tanh(%4);
  nn.relu(%5)
}
"""
    fast = compiled(text)
    # every step after the product in the product's buffer, in two fused
    # passes (`%2 * %2` reads the buffer twice, so it starts the second)
    assert kernel_calls(fast) == ["dense", "chain", "chain"]
    rng = np.random.default_rng(4)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    y = rng.standard_normal(64).astype(np.float32)
    from relay_text.eval.runtime import execute

    assert_close(execute(fast, "@main", (x, y)), execute(compiled(text, False), "@main", (x, y)))


def test_large_elementwise_steps_split_across_threads_give_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_NUM_THREADS", "3")
    text = """def @main(%x: Tensor[(4, 70, 1000), float32], %b: Tensor[(70), float32]) {
  %0 = nn.bias_add(nn.relu(%x), %b);
  %1 = nn.log_softmax(%0);
  %2 = nn.bias_add(multiply(%1, 0.5f), %b);
  nn.softmax(%2)
}
"""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 70, 1000)).astype(np.float32)
    b = rng.standard_normal(70).astype(np.float32)
    from relay_text.eval.runtime import execute

    assert_close(execute(compiled(text), "@main", (x, b)), execute(compiled(text, False), "@main", (x, b)))


def test_run_no_opt_on_the_command_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from relay_text.cli import main

    prog = tmp_path / "p.rly"
    prog.write_text("def @main() { Constant(2, (2), float32) * 3f + 1f }\n")
    runner = CliRunner()
    fast = runner.invoke(main, ["run", str(prog)])
    plain = runner.invoke(main, ["run", "--no-opt", str(prog)])
    assert fast.exit_code == plain.exit_code == 0
    assert fast.output == plain.output == "Tensor[(2), float32]\n[7. 7.]\n"


def test_a_generic_closure_over_a_constant_runs_optimised() -> None:
    """A function whose parameter has no annotation is applied at a tensor
    type only when it is called: the optimiser leaves its steps as they are
    (they used to fail to compile)."""
    text = """def @main() {
  let %g = fn () { %x = Constant(0, (1, 1), float32); fn (%y) { %y * %y * %y * %x } };
  let %f = %g();
  %f(ones(shape=[10, 10], dtype="float32"))
}
"""
    fast, slow = run_both("generic.rly", text)
    assert fast.diagnostics == [] and slow.diagnostics == []
    np.testing.assert_array_equal(fast.value, np.zeros((10, 10), np.float32))
    assert_close(fast.value, slow.value)


def test_a_long_elementwise_chain_is_fused_in_passes_of_bounded_length() -> None:
    """40 steps in one buffer run as three passes (16, 16 and 8 steps): each
    step's fusing costs the same however long the chain, so a chain of
    thousands of `let`s compiles in linear time (it was quadratic)."""
    from relay_text.eval.emit_inplace import CHAIN_STEPS
    from relay_text.eval.runtime import execute

    assert CHAIN_STEPS == 16
    body = "".join(f"  let %x{i} = add(%x{i - 1}, 1f);\n" for i in range(2, 42))
    text = f"def @main(%x0: Tensor[(64), float32]) {{\n  let %x1 = negative(%x0);\n{body}  %x41\n}}\n"
    fast = compiled(text)
    assert kernel_calls(fast) == ["negative", "chain", "chain", "chain"]
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(execute(fast, "@main", (x,)), -x + 40)
