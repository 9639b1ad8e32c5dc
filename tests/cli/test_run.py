"""`relay run` as a user runs it: results on stdout, diagnostics on stderr,
exit codes 0 / 1 (the program has or hits errors) / 2 (usage, files) / 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from relay_text.cli import main
from tests.conftest import ROOT, SAMPLES


def run(args: list[str], input: str | None = None):
    return CliRunner().invoke(main, ["run", *args], input=input, env={"NO_COLOR": "1"}, catch_exceptions=False)


def write(tmp_path: Path, text: str, name: str = "prog.rly") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_sample_result_on_stdout() -> None:
    result = run([str(SAMPLES / "adt_numbers.rly")])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "(0, 3, 11)\n", "")


def test_json_output() -> None:
    result = run([str(SAMPLES / "second_opt.rly"), "--output-format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "tuple": [
            {"constructor": "None", "fields": []},
            {"constructor": "Some", "fields": [{"tensor": 2, "dtype": "int32", "shape": []}]},
            {"constructor": "None", "fields": []},
            {"constructor": "None", "fields": []},
        ]
    }


def test_tensor_output_and_full(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main() { Constant(1, (40, 40), int32) }\n")
    short = run([prog]).stdout
    assert short.splitlines()[0] == "Tensor[(40, 40), int32]" and "..." in short
    full = run([prog, "--full"]).stdout
    assert "..." not in full and full.count("1") == 1600 + full.splitlines()[0].count("1")


def test_npz_output(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main() { (Constant(1, (2), float32), (Constant(2, (3), int64), 5)) }\n")
    out = tmp_path / "out.npz"
    result = run([prog, "--output-format", "npz", "--output", str(out)])
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == f"wrote out0, out1_0, out1_1 to {out}\n"
    with np.load(out) as data:
        assert data["out0"].tolist() == [1.0, 1.0] and data["out1_0"].dtype == np.int64 and int(data["out1_1"]) == 5


def test_npz_needs_an_output_file_and_tensors(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main() { Nil() }\n")
    result = run([prog, "--output-format", "npz"])
    assert result.exit_code == 2 and "--output-format npz needs --output FILE" in result.stderr
    result = run(
        [
            write(tmp_path, "def @main() { (1, Cons(1, Nil())) }\n"),
            "--output-format",
            "npz",
            "--output",
            str(tmp_path / "x.npz"),
        ]
    )
    assert result.exit_code == 2
    assert (
        result.stderr
        == "error: cannot write the result as .npz: out1 is a constructor value, and .npz files hold only tensors\n"
    )


def test_text_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    result = run([str(SAMPLES / "list_sum.rly"), "--output", str(out)])
    assert result.exit_code == 0 and result.stdout == "" and out.read_text() == "6\n"


def test_arguments(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main(%x : int32, %l : List[int32]) { Cons(%x, %l) }\n")
    result = run([prog, "--arg", "x=1", "--arg", "l=Cons(2, Nil())"])
    assert (result.exit_code, result.stdout) == (0, "Cons(1, Cons(2, Nil()))\n")
    np.savez(tmp_path / "a.npz", x=np.int32(7))
    result = run([prog, "--args", str(tmp_path / "a.npz"), "--arg", "l=Nil()"])
    assert (result.exit_code, result.stdout) == (0, "Cons(7, Nil())\n")


def test_missing_argument_is_located(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main(%x : Tensor[(2), float32]) { %x }\n")
    result = run([prog])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "error[bad-argument]: missing argument for parameter `%x : Tensor[(2), float32]`\n"
        f" --> {prog}:1:11\n"
        "  |\n"
        "1 | def @main(%x : Tensor[(2), float32]) { %x }\n"
        "  |           ^^ no value given\n"
        "  |\n"
        "  = help: pass `--arg x=VALUE` (or `--args FILE.npz`, or `--random-args`)\n"
        "\n"
        "Found 1 error; nothing was run\n"
    )


def test_wrong_argument_shape_is_located_in_the_argument(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main(%x : Tensor[(2), float32]) { %x }\n")
    result = run([prog, "--arg", "x=Constant(0, (3), float32)"])
    assert result.exit_code == 1
    assert result.stderr == (
        "error[bad-argument]: argument `x` does not fit parameter `%x : Tensor[(2), float32]`: "
        "expected shape (2), found (3) (axis 0 is 3, not 2)\n"
        " --> --arg x:1:1\n"
        "  |\n"
        "1 | Constant(0, (3), float32)\n"
        "  | ^^^^^^^^^^^^^^^^^^^^^^^^^ this value\n"
        "  |\n"
        f"  = note: `%x` is declared at {prog}:1:11\n"
        "\n"
        "Found 1 error; nothing was run\n"
    )


def test_malformed_arg_option(tmp_path: Path) -> None:
    result = run([write(tmp_path, "def @main() { 1 }\n"), "--arg", "x"])
    assert result.exit_code == 2 and "expected NAME=VALUE" in result.stderr


def test_random_args_are_reproducible(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main(%x : Tensor[(3), float32], %l : List[int32]) { (%x, %l) }\n")
    first = run([prog, "--random-args", "--seed", "5", "--output-format", "json"])
    again = run([prog, "--random-args", "--seed", "5", "--output-format", "json"])
    other = run([prog, "--random-args", "--seed", "6", "--output-format", "json"])
    assert first.exit_code == 0 and first.stdout == again.stdout != other.stdout
    x = json.loads(first.stdout)["tuple"][0]
    assert (x["dtype"], x["shape"]) == ("float32", [3])


def test_entry_option(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @twice(%x : int32) -> int32 { %x * 2 }\ndef @main() { 0 }\n")
    assert run([prog, "--entry", "@twice", "--arg", "x=21"]).stdout == "42\n"
    result = run([prog, "--entry", "@thrice"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error[bad-argument]: `@thrice` is not defined in this file\n")


def test_runtime_error(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main() -> int32 {\n  @hd(Nil())\n}\n")
    result = run([prog])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "error[match-failure]: no clause matches the value `Nil()`\n"
        "  --> relay_text/std/prelude.rly:45:3\n"
        "   |\n"
        "45 |   match? (%l) {\n"
        "   |   ^^^^^^^^^^^ no clause matches\n"
        "   |\n"
        "   = note: the value was built by `Nil`, which no clause accepts\n"
        f"   = note: `@hd` was called at {prog}:2:3, in `@main`\n"
        "\n"
        "The program stopped with an error\n"
    )


def test_max_depth(tmp_path: Path) -> None:
    prog = write(
        tmp_path,
        (
            "def @count(%n : int32) -> int32 {\n  if (%n == 0) { 0 } else { 1 + @count(%n - 1) }\n}\ndef "
            "@main() { @count(100) }\n"
        ),
    )
    assert run([prog]).stdout == "100\n"
    result = run([prog, "--max-depth", "50"])
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"error[recursion-limit]: evaluation went deeper than 50 nested calls\n --> {prog}:2:33\n"
    )
    assert "= note: the calls in progress were mostly `@count` (49 calls) and `@main` (1 call)\n" in result.stderr
    assert run([prog, "--max-depth", "0"]).exit_code == 2


def test_no_prelude(tmp_path: Path) -> None:
    prog = write(tmp_path, "def @main() { @length(Cons(1, Nil())) }\n")
    assert run([prog]).stdout == "1\n"
    result = run([prog, "--no-prelude"])
    assert result.exit_code == 1 and "error[unknown-global]: unknown global `@length`" in result.stderr


def test_stdin() -> None:
    result = run(["-"], input="def @main() { (1, True) }\n")
    assert (result.exit_code, result.stdout) == (0, "(1, True)\n")


def test_missing_file(tmp_path: Path) -> None:
    result = run([str(tmp_path / "nope.rly")])
    assert result.exit_code == 2 and result.stderr == f"error: {tmp_path / 'nope.rly'}: no such file\n"


def test_check_errors_stop_before_running(tmp_path: Path) -> None:
    result = run([write(tmp_path, "def @main() -> int32 { True }\n")])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error[type-mismatch]") and result.stderr.endswith(
        "Found 1 error; nothing was run\n"
    )


def test_warnings_are_shown_and_the_program_runs() -> None:
    result = run([str(SAMPLES / "match_order.rly")])
    assert result.exit_code == 0 and result.stdout == "Cons(1, Cons(2, Nil()))\n"
    assert result.stderr.startswith("warning[unreachable-clause]")


def test_ctrl_c_exits_130_with_one_line(tmp_path: Path) -> None:
    prog = write(
        tmp_path,
        (
            "def @fib(%n : int32) -> int32 {\n  if (%n < 2) { %n } else { @fib(%n - 1) + @fib(%n - 2) "
            "}\n}\ndef @main() { @fib(40) }\n"
        ),
    )
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT))
    # Ctrl-C as a terminal sends it. (A suite started in the background by a
    # shell inherits SIGINT ignored, as the command would: Python keeps an
    # ignored SIGINT ignored, so the child gets the default disposition.)
    proc = subprocess.Popen(
        [sys.executable, "-m", "relay_text.cli", "run", prog],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out, err) == (130, "", "interrupted\n")


def test_a_value_too_long_to_print_is_cut_unless_full(tmp_path: Path) -> None:
    """A tuple that holds the same tuple twice, 40 levels deep, is small in
    memory and 2^40 leaves written out: the text stops after 4,000,000
    characters and says how to get everything."""
    from tests.cli.test_check import doubling_tuples

    path = write(tmp_path, doubling_tuples(40))
    result = run([path, "--arg", "x=1"])
    assert result.exit_code == 0
    assert result.stdout.startswith("((((((((")
    body, note = result.stdout.rstrip("\n").rsplit("\n", 1)
    assert len(body) == 4_000_000 + len(" ...")
    assert note == "... (cut after 4,000,000 characters; --full prints the whole value)"
    small = run([write(tmp_path, doubling_tuples(3), "small.rly"), "--arg", "x=1"])
    assert small.stdout == "(((1, 1), (1, 1)), ((1, 1), (1, 1)))\n"


def test_json_and_npz_refuse_a_value_too_large_to_write_out(tmp_path: Path) -> None:
    """JSON and .npz cannot share parts: a result that would spell out more
    than 10,000,000 tuples is refused with a message, exit 2, nothing written."""
    from tests.cli.test_check import doubling_tuples

    path = write(tmp_path, doubling_tuples(40))
    as_json = run([path, "--arg", "x=1", "--output-format", "json"])
    assert (as_json.exit_code, as_json.stdout) == (2, "")
    assert as_json.stderr == (
        "error: cannot write the result as JSON: it has more than 10,000,000 tuples and constructor values written out "
        "(it uses the same parts many times); the text output (the default) prints it cut short\n"
    )
    out = tmp_path / "out.npz"
    as_npz = run([path, "--arg", "x=1", "--output-format", "npz", "--output", str(out)])
    assert as_npz.exit_code == 2
    assert as_npz.stderr == (
        "error: cannot write the result as .npz: it has more than 10,000,000 tuples written out (it uses "
        "the same parts many times)\n"
    )
    assert not out.exists()
    small = run([write(tmp_path, doubling_tuples(2), "small.rly"), "--arg", "x=1", "--output-format", "json"])
    leaf = '{"tensor": 1, "dtype": "int32", "shape": []}'
    pair = f'{{"tuple": [{leaf}, {leaf}]}}'
    assert small.stdout == f'{{"tuple": [{pair}, {pair}]}}\n'
