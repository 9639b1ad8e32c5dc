"""`relay run --max-output`: the text or JSON of a result is estimated
before it is produced; passing the limit is a `resource-limit` error at the
entry, and nothing is printed or written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from relay_text import limits
from relay_text.cli import main
from relay_text.eval.output_size import estimate
from relay_text.eval.show import value_text, value_json

INTS = 'def @main() {\n  zeros(shape=[100, 100], dtype="int32")\n}\n'
HELP_RAISE = "  = help: raise the limit with `--max-output SIZE` (or `max-output` in [tool.relay])"
HELP_NPZ = "  = help: `--output-format npz --output FILE` writes the result's tensors in binary"


def write(tmp_path: Path, text: str, name: str = "prog.rly") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def run(*args: str):
    return CliRunner().invoke(main, ["run", *args], env={"NO_COLOR": "1"})


def test_full_text_past_the_limit_is_refused_at_the_entry(tmp_path: Path) -> None:
    prog = write(tmp_path, INTS)
    result = run("--full", "--max-output", "1K", str(prog))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        "error[resource-limit]: the result would print about 29.8 KiB of text, more than the output limit of 1 KiB (--max-output)",
        f" --> {prog}:1:5",
        "  |",
        "1 | def @main() {",
        "  |     ^^^^^ this result is too large to print",
        "  |",
        HELP_RAISE,
        HELP_NPZ,
        "",
        "The result was not printed",
    ]
    # the summary (without --full) is short, and fits
    summary = run("--max-output", "1K", str(prog))
    assert summary.exit_code == 0 and summary.stdout.startswith("Tensor[(100, 100), int32]\n[[0 0 0 ... 0 0 0]")
    assert run("--full", "--max-output", "64K", str(prog)).exit_code == 0


def test_json_past_the_limit_is_refused_and_no_file_is_written(tmp_path: Path) -> None:
    prog = write(tmp_path, INTS)
    out = tmp_path / "out.json"
    result = run("--output-format", "json", "--output", str(out), "--max-output", "1K", str(prog))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        "error[resource-limit]: the result would print about 29.8 KiB of JSON, more than the output limit of 1 KiB (--max-output)"
    )
    assert not out.exists()
    assert run("--output-format", "json", "--output", str(out), "--max-output", "64K", str(prog)).exit_code == 0
    assert out.stat().st_size == 30_252


def test_npz_output_has_no_output_limit(tmp_path: Path) -> None:
    prog = write(tmp_path, INTS)
    out = tmp_path / "out.npz"
    result = run("--output-format", "npz", "--output", str(out), "--max-output", "1K", str(prog))
    assert result.exit_code == 0 and np.load(out)["out0"].shape == (100, 100)


def test_a_tensor_of_short_axes_is_printed_whole_and_counts_without_full(tmp_path: Path) -> None:
    """numpy prints an axis of six or fewer elements whole: (2,) * 16 is
    65,536 elements printed even in the summary."""
    shape = ", ".join(["2"] * 16)
    prog = write(tmp_path, f'def @main() {{\n  zeros(shape=[{shape}], dtype="bool")\n}}\n')
    result = run("--max-output", "64K", str(prog))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        "error[resource-limit]: the result would print about 1 MiB of text, more than the output limit of 64 KiB (--max-output)"
    )
    assert HELP_NPZ not in result.stderr  # (the summary was asked for: it was not --full)
    ok = run("--max-output", "2M", str(prog))
    assert ok.exit_code == 0 and len(ok.stdout) == 1_015_854


def test_a_shared_value_with_full_is_refused_instead_of_printed_for_ever(tmp_path: Path) -> None:
    """A tuple holding the same tuple twice, 40 levels deep, has 2^40 leaves
    written out: `--full` refuses it at once (the text output cuts it)."""
    from tests.cli.test_check import doubling_tuples

    prog = write(tmp_path, doubling_tuples(40))
    result = run("--full", "--arg", "x=1", str(prog))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[:2] == [
        "error[resource-limit]: the result would print about 7 TiB of text, more than the output limit of 64 MiB (--max-output)",
        f" --> {prog}:1:5",
    ]
    cut = run("--arg", "x=1", str(prog))
    assert cut.exit_code == 0 and cut.stdout.endswith("--full prints the whole value)\n")


def test_the_error_points_at_the_entry_that_ran(tmp_path: Path) -> None:
    prog = write(tmp_path, 'def @big() {\n  zeros(shape=[100, 100], dtype="int32")\n}\nlet %t = @big(); %t\n')
    result = run("--full", "--max-output", "1K", str(prog))
    assert result.stderr.splitlines()[1:5] == [f" --> {prog}:4:1", "  |", "4 | let %t = @big(); %t", "  | ^^^^^^^^^^^^^^^^^^^ this result is too large to print"]
    entry = run("--full", "--max-output", "1K", "--entry", "big", str(prog))
    assert entry.stderr.splitlines()[1] == f" --> {prog}:1:5"


def test_the_default_output_limit_is_64_mib() -> None:
    assert limits.DEFAULT_MAX_OUTPUT == 64 * 2**20


@pytest.mark.parametrize(
    "value",
    [
        np.arange(10_000, dtype=np.int64).reshape(100, 100) * 1_000_003,
        np.random.default_rng(0).standard_normal((200, 300)).astype(np.float32),
        np.random.default_rng(1).standard_normal((50, 40)),
        np.zeros((300, 300), np.float32),
        (np.ones((64, 64), np.float16), np.array([True, False] * 500)),
    ],
)
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_the_estimate_is_near_the_printed_size(value: object, output_format: str) -> None:
    printed = len(value_json(value)) if output_format == "json" else len(value_text(value, full=True))
    guess = estimate(value, output_format, True, limits.DEFAULT_MAX_OUTPUT)[0]
    assert printed <= guess <= 2 * printed + 1024, (printed, guess)
