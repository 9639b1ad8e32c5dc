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
        (
            "error[resource-limit]: the result would print about 29.8 KiB of text, more than the output limit "
            "of 1 KiB (--max-output)"
        ),
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
        "error[resource-limit]: the result would print about 29.8 KiB of JSON, more than the output limit "
        "of 1 KiB (--max-output)"
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
        "error[resource-limit]: the result would print about 1 MiB of text, more than the output limit of "
        "64 KiB (--max-output)"
    )
    assert HELP_NPZ not in result.stderr  # (the summary was asked for: it was not --full)
    ok = run("--max-output", "2M", str(prog))
    assert ok.exit_code == 0 and len(ok.stdout) == 1_015_854


def test_a_shared_value_with_full_is_refused_instead_of_printed_for_ever(tmp_path: Path) -> None:
    """A tuple holding the same tuple twice, 40 levels deep, has 2^40 leaves
    written out: `--full` refuses it at once (the text output cuts it)."""
    from tests.cli.test_check import doubling_tuples

    prog = write(tmp_path, doubling_tuples(40))
    result = run("--full", "--max-output", "64M", "--arg", "x=1", str(prog))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[:2] == [
        (
            "error[resource-limit]: the result would print about 7 TiB of text, more than the output limit of "
            "64 MiB (--max-output)"
        ),
        f" --> {prog}:1:5",
    ]
    cut = run("--arg", "x=1", str(prog))
    assert cut.exit_code == 0 and cut.stdout.endswith("--full prints the whole value)\n")


def test_the_error_points_at_the_entry_that_ran(tmp_path: Path) -> None:
    prog = write(tmp_path, 'def @big() {\n  zeros(shape=[100, 100], dtype="int32")\n}\nlet %t = @big(); %t\n')
    result = run("--full", "--max-output", "1K", str(prog))
    assert result.stderr.splitlines()[1:5] == [
        f" --> {prog}:4:1",
        "  |",
        "4 | let %t = @big(); %t",
        "  | ^^^^^^^^^^^^^^^^^^^ this result is too large to print",
    ]
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


class _Terminal:
    def isatty(self) -> bool:
        return True


def test_the_default_limit_guards_a_terminal_only(tmp_path: Path) -> None:
    """Without `--max-output`: 64 MiB on a terminal, the free space of the
    file system for a file (`--output`, or standard output redirected to a
    file), and nothing for a pipe."""
    import os

    from relay_text.run_command import default_output_limit

    assert default_output_limit(None, _Terminal(), 64 * 2**20) == (64 * 2**20, False)
    vfs = os.statvfs(tmp_path)
    free, disk = default_output_limit(str(tmp_path / "out.txt"), _Terminal(), 64 * 2**20)
    assert disk and abs(free - vfs.f_bavail * vfs.f_frsize) < 2**30  # (other writers move it a little)
    with open(tmp_path / "redirected.txt", "w") as stream:
        free, disk = default_output_limit(None, stream, 64 * 2**20)
        assert disk and free > 0
    read, write_end = os.pipe()
    try:
        with os.fdopen(write_end, "w") as pipe:
            assert default_output_limit(None, pipe, 64 * 2**20) == (None, False)
    finally:
        os.close(read)


def test_a_large_result_goes_to_a_pipe_or_a_file_without_a_limit(tmp_path: Path) -> None:
    """Above 64 MiB... scaled down: with the terminal limit at 1 KiB, a result
    of 29.8 KiB is refused on a terminal, printed whole to a pipe (a
    CliRunner's output has no file descriptor) and written whole to a file."""
    from unittest import mock

    import relay_text.run_command as cli

    prog = write(tmp_path, INTS)
    real = cli.default_output_limit
    with mock.patch.object(cli, "default_output_limit", lambda path, stream, limit: real(path, _Terminal(), 1024)):
        refused = run("--full", str(prog))
    assert refused.exit_code == 1
    assert refused.stderr.splitlines()[0] == (
        "error[resource-limit]: the result would print about 29.8 KiB of text, more than the output limit "
        "of 1 KiB (--max-output)"
    )
    with mock.patch("relay_text.limits.DEFAULT_MAX_OUTPUT", 1024):  # what a terminal would get
        piped = run("--full", str(prog))
    assert piped.exit_code == 0 and piped.stdout.startswith("Tensor[(100, 100), int32]") and len(piped.stdout) > 20_000
    out = tmp_path / "out.txt"
    assert run("--full", "--output", str(out), str(prog)).exit_code == 0
    assert out.read_text() == piped.stdout


def test_a_file_larger_than_the_free_space_is_refused_before_writing(tmp_path: Path) -> None:
    from collections import namedtuple
    from unittest import mock

    prog = write(tmp_path, INTS)
    out = tmp_path / "out.txt"
    vfs = namedtuple("vfs", "f_bavail f_frsize")(1, 1024)
    with mock.patch("os.statvfs", lambda path: vfs):
        result = run("--full", "--output", str(out), str(prog))
    assert result.exit_code == 1 and not out.exists()
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "error[resource-limit]: the result would print about 29.8 KiB of text, more than the 1 KiB free "
        "where it is written"
    )
    assert "  = help: free some space, or write it elsewhere (`--max-output SIZE` sets a limit of your own)" in lines
