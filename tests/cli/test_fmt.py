"""`relay fmt` as a user runs it: files and directories, stdin, --check,
--diff, options from pyproject.toml, errors, exit codes and streams."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

import relay_text.formatter as formatter
from relay_text.cli import main
from tests.conftest import corpus_files, sample_files

MESSY = "def @main(%a,%b){%a+%b}\n"
TIDY = "def @main(%a, %b) {\n  %a + %b\n}\n"
BROKEN = "def @main() { %x + }\n"


def run(args: list[str], input: str | None = None, env: dict | None = None):
    runner = CliRunner()
    return runner.invoke(main, ["fmt", *args], input=input, env=env or {"NO_COLOR": "1"}, catch_exceptions=False)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_rewrites_a_file_in_place(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", MESSY)
    result = run([str(path)])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == f"reformatted {path}\n1 file reformatted\n"
    assert path.read_text() == TIDY


def test_leaves_formatted_files_untouched(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", TIDY)
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(before - 10**9, before - 10**9))
    result = run([str(path)])
    assert result.exit_code == 0
    assert result.stderr == "1 file left unchanged\n"
    assert path.stat().st_mtime_ns == before - 10**9


def test_check_lists_files_that_would_change_and_writes_nothing(tmp_path: Path) -> None:
    messy = write(tmp_path / "a.rly", MESSY)
    tidy = write(tmp_path / "b.rly", TIDY)
    result = run(["--check", str(messy), str(tidy)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"would reformat {messy}\n1 file would be reformatted, 1 file would be left unchanged\n"
    assert messy.read_text() == MESSY


def test_check_passes_when_nothing_would_change(tmp_path: Path) -> None:
    tidy = write(tmp_path / "b.rly", TIDY)
    result = run(["--check", str(tidy)])
    assert result.exit_code == 0
    assert result.stderr == "1 file would be left unchanged\n"


def test_diff_prints_a_unified_diff_on_stdout(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", MESSY)
    result = run(["--diff", str(path)])
    assert result.exit_code == 1
    assert result.stdout == (
        f"--- {path}\n"
        f"+++ {path} (formatted)\n"
        "@@ -1 +1,3 @@\n"
        "-def @main(%a,%b){%a+%b}\n"
        "+def @main(%a, %b) {\n"
        "+  %a + %b\n"
        "+}\n"
    )
    assert result.stderr == "1 file would be reformatted\n"
    assert path.read_text() == MESSY


def test_stdin_to_stdout() -> None:
    result = run(["-"], input=MESSY)
    assert result.exit_code == 0
    assert result.stdout == TIDY
    assert result.stderr == "1 file reformatted\n"


def test_stdin_already_formatted_is_echoed() -> None:
    result = run(["-"], input=TIDY)
    assert result.exit_code == 0
    assert result.stdout == TIDY
    assert result.stderr == "1 file left unchanged\n"


def test_stdin_with_check_prints_no_code() -> None:
    result = run(["--check", "-"], input=MESSY)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "would reformat <stdin>\n1 file would be reformatted\n"


def test_directories_are_searched_recursively_skipping_hidden_ones(tmp_path: Path) -> None:
    a = write(tmp_path / "src" / "a.rly", MESSY)
    b = write(tmp_path / "src" / "deep" / "b.relay", MESSY)
    hidden = write(tmp_path / "src" / ".cache" / "c.rly", MESSY)
    other = write(tmp_path / "src" / "notes.txt", MESSY)
    result = run([str(tmp_path / "src")])
    assert result.exit_code == 0
    assert result.stderr.splitlines()[-1] == "2 files reformatted"
    assert a.read_text() == TIDY and b.read_text() == TIDY
    assert hidden.read_text() == MESSY and other.read_text() == MESSY


def test_a_file_that_does_not_parse_is_reported_and_the_rest_formatted(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.rly", BROKEN)
    good = write(tmp_path / "good.rly", MESSY)
    result = run([str(bad), str(good)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "error[syntax-error]: expected an expression, found `}`\n"
        f" --> {bad}:1:20\n"
        "  |\n"
        "1 | def @main() { %x + }\n"
        "  |                    ^ unexpected token\n"
        "\n"
        f"error: cannot format {bad}\n"
        f"reformatted {good}\n"
        "1 file reformatted, 1 file failed to reformat\n"
    )
    assert bad.read_text() == BROKEN
    assert good.read_text() == TIDY


def test_a_missing_file_is_an_error(tmp_path: Path) -> None:
    result = run([str(tmp_path / "nope.rly")])
    assert result.exit_code == 2
    assert result.stderr == f"error: {tmp_path / 'nope.rly'}: no such file\n1 file failed to reformat\n"


def test_line_length(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", "def @f(%long_name_a, %long_name_b) { (%long_name_a, %long_name_b) }\n")
    result = run(["--line-length", "30", str(path)])
    assert result.exit_code == 0
    assert path.read_text() == ("def @f(\n  %long_name_a,\n  %long_name_b\n) {\n  (%long_name_a, %long_name_b)\n}\n")


def test_line_length_must_be_positive(tmp_path: Path) -> None:
    result = run(["--line-length", "0", str(write(tmp_path / "m.rly", TIDY))])
    assert result.exit_code == 2
    assert "Invalid value for '--line-length'" in result.stderr


def test_dialect_conversion_to_tvm(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", MESSY)
    result = run(["--dialect", "tvm", str(path)])
    assert result.exit_code == 0
    assert path.read_text() == '#[version = "0.0.5"]\ndef @main(%a, %b) {\n  add(%a, %b)\n}\n'


def test_dialect_conversion_to_docs(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", '#[version = "0.0.5"]\ndef @main(%a, %b) {\n  add(%a, %b)\n}\n')
    result = run(["--dialect", "docs", str(path)])
    assert result.exit_code == 0
    assert path.read_text() == "def @main(%a, %b) {\n  add(%a, %b)\n}\n"


def test_what_tvm_cannot_express_is_a_located_error(tmp_path: Path) -> None:
    text = "def @main(%a, %b) {\n  let %f = fn (%x, %y) where Broadcast { add(%x, %y) };\n  %f(%a, %b)\n}\n"
    path = write(tmp_path / "m.rly", text)
    result = run(["--dialect", "tvm", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "error[unformattable]: a `where` clause cannot be written in TVM's format\n"
        f" --> {path}:2:30\n"
        "  |\n"
        "2 |   let %f = fn (%x, %y) where Broadcast { add(%x, %y) };\n"
        "  |                              ^^^^^^^^^ not expressible in TVM 0.0.5\n"
        "  |\n"
        "  = note: TVM 0.0.5 functions take no relations; remove the `where` clause or keep the documented syntax\n"
        "\n"
        f"error: cannot format {path}\n"
        "1 file failed to reformat\n"
    )
    assert path.read_text() == text


def test_settings_from_the_nearest_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.relay]\nline-length = 30\ndialect = "tvm"\n'
    )
    path = write(tmp_path / "models" / "m.rly", "def @f(%long_name_a, %long_name_b) { %long_name_a }\n")
    result = run([str(path)])
    assert result.exit_code == 0
    assert (
        path.read_text() == '#[version = "0.0.5"]\ndef @f(\n  %long_name_a,\n  %long_name_b\n) {\n  %long_name_a\n}\n'
    )


def test_command_line_options_override_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.relay]\nline-length = 30\n")
    path = write(tmp_path / "m.rly", "def @f(%long_name_a, %long_name_b) { %long_name_a }\n")
    result = run(["--line-length", "100", str(path)])
    assert result.exit_code == 0
    assert path.read_text() == "def @f(%long_name_a, %long_name_b) {\n  %long_name_a\n}\n"


def test_a_bad_setting_in_pyproject_is_reported(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.relay]\ndialect = "latest"\n')
    path = write(tmp_path / "m.rly", TIDY)
    result = run([str(path)])
    assert result.exit_code == 2
    assert result.stderr == f'error: {config}: [tool.relay] dialect must be "keep", "docs" or "tvm", not "latest"\n'


def test_a_failed_safety_check_writes_nothing_and_saves_both_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from relay_text.printer import render as printer

    real = printer.render_module

    def wrong(*args, **kwargs):  # a printer bug: the constant changes
        out = real(*args, **kwargs)
        return printer.Printed(out.text.replace("%a + %b", "%a + 1"), out.comment_order)

    monkeypatch.setattr(printer, "render_module", wrong)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = write(tmp_path / "m.rly", MESSY)
    result = run([str(path)])
    assert result.exit_code == 2
    assert path.read_text() == MESSY
    logs = list(tmp_path.glob("relay-fmt-*.log"))
    assert len(logs) == 1
    assert result.stderr == (
        f"error[internal-error]: {path}: the formatted text is a different program; nothing was written. "
        f"Both texts are saved in {logs[0]} - please report this.\n"
        "1 file failed to reformat\n"
    )
    saved = logs[0].read_text()
    assert MESSY in saved and "%a + 1" in saved


def test_fast_skips_the_safety_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args, **kwargs):
        raise AssertionError("the safety checks must not run with --fast")

    monkeypatch.setattr(formatter, "verify", fail)
    monkeypatch.setattr(formatter, "_same_program", fail)
    path = write(tmp_path / "m.rly", MESSY)
    result = run(["--fast", str(path)])
    assert result.exit_code == 0
    assert path.read_text() == TIDY


def test_a_file_already_in_normal_form_needs_no_verifying(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unchanged text is the same program with the same comments, and a
    fixed point: the safety checks have nothing to find (black does the same)."""
    calls = []
    real = formatter._same_program  # the first of the safety checks
    monkeypatch.setattr(formatter, "_same_program", lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs))
    tidy = write(tmp_path / "tidy.rly", TIDY)
    assert run(["--check", str(tidy)]).exit_code == 0
    assert calls == []
    messy = write(tmp_path / "messy.rly", MESSY)
    assert run([str(messy)]).exit_code == 0
    assert calls == [1] and messy.read_text() == TIDY


def test_windows_line_endings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "m.rly"
    path.write_bytes(MESSY.replace("\n", "\r\n").encode())
    result = run([str(path)])
    assert result.exit_code == 0
    assert path.read_bytes() == TIDY.replace("\n", "\r\n").encode()


def test_rewriting_keeps_the_file_mode(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", MESSY)
    path.chmod(0o640)
    run([str(path)])
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["m.rly"]  # no temporary left behind


def test_colour_only_when_asked(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", MESSY)
    plain = run(["--check", str(path)], env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain.stderr
    coloured = run(["--check", str(path)], env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert "\x1b[" in coloured.stderr


def test_every_sample_and_corpus_file_formats_and_then_checks_clean(tmp_path: Path) -> None:
    """The real workload: each file formats (safely) and the output is stable."""
    files = [*sample_files(), *corpus_files()]
    for src in files:
        shutil.copyfile(src, tmp_path / src.name)  # (the corpus is read-only)
    first = run([str(tmp_path)])
    assert first.exit_code == 0, first.stderr
    second = run(["--check", str(tmp_path)])
    assert second.exit_code == 0, second.stderr
    assert second.stderr == f"{len(files)} files would be left unchanged\n"


def test_formatting_imports_neither_numpy_nor_rich(tmp_path: Path) -> None:
    """Start-up time: `relay fmt --check` on a small file loads only what it needs."""
    import subprocess
    import sys

    path = write(tmp_path / "m.rly", TIDY)
    code = (
        "import sys\n"
        "from relay_text.cli import main\n"
        "try:\n"
        f"    main(['fmt', '--check', {str(path)!r}])\n"
        "except SystemExit as exit:\n"
        "    print(exit.code, 'numpy' in sys.modules, 'rich' in sys.modules, 'lark' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR",)}
    env["NO_COLOR"] = "1"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out == "0 False False False\n"


def test_the_relay_table_is_read_with_tomllib(tmp_path: Path) -> None:
    """Only `[tool.relay]` counts, in any TOML spelling; the nearest
    pyproject.toml above the files is the one read."""
    from relay_text.config import find_pyproject, fmt_settings, load

    text = (
        "[project]\nname = \"x\"\n\n[tool.relay]  # formatting\nline-length = 1_20\ndialect = 'tvm'  # "
        "convert\n\n[tool.other]\nline-length = 5\n"
    )
    config = tmp_path / "pyproject.toml"
    config.write_text(text)
    assert load(config) == {"line-length": 120, "dialect": "tvm"}
    assert fmt_settings(load(config), config) == {"line_length": 120, "dialect": "tvm"}
    config.write_text("tool = { relay = { line-length = 90 } }\n")
    assert load(config) == {"line-length": 90}
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_pyproject([str(nested / "m.rly")]) == config


def test_line_length_in_pyproject_must_be_a_positive_integer(tmp_path: Path) -> None:
    from relay_text.config import ConfigError, fmt_settings

    with pytest.raises(ConfigError, match='line-length must be a positive integer, not "wide"'):
        fmt_settings({"line-length": "wide"}, tmp_path / "pyproject.toml")


def test_a_symbolic_link_stays_a_link_and_its_target_is_formatted(tmp_path: Path) -> None:
    target = write(tmp_path / "real" / "m.rly", MESSY)
    link = tmp_path / "link.rly"
    link.symlink_to(target)
    result = run([str(link)])
    assert (result.exit_code, result.stderr) == (0, f"reformatted {link}\n1 file reformatted\n")
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_text() == TIDY
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["m.rly"]  # no temporary left behind


MESSY2 = "def @main(%a,%b){\n%a+%b}\n"  # two lines: the line ending shows without a final newline


@pytest.mark.parametrize(
    "before, after",
    [
        (MESSY.encode(), TIDY.encode()),
        (MESSY.replace("\n", "\r\n").encode(), TIDY.replace("\n", "\r\n").encode()),
        (b"\xef\xbb\xbf" + MESSY.encode(), b"\xef\xbb\xbf" + TIDY.encode()),
        (b"\xef\xbb\xbf" + MESSY.replace("\n", "\r\n").encode(), b"\xef\xbb\xbf" + TIDY.replace("\n", "\r\n").encode()),
        (MESSY.rstrip("\n").encode(), TIDY.rstrip("\n").encode()),
        (MESSY2.rstrip("\n").replace("\n", "\r\n").encode(), TIDY.rstrip("\n").replace("\n", "\r\n").encode()),
    ],
    ids=["lf", "crlf", "bom", "bom-crlf", "no-final-newline", "crlf-no-final-newline"],
)
def test_line_endings_bom_and_final_newline_are_kept(tmp_path: Path, before: bytes, after: bytes) -> None:
    path = tmp_path / "m.rly"
    path.write_bytes(before)
    assert run([str(path)]).exit_code == 0
    assert path.read_bytes() == after
    again = run(["--check", str(path)])  # and the result is stable
    assert (again.exit_code, again.stderr) == (0, "1 file would be left unchanged\n")
    assert path.read_bytes() == after


def test_a_formatted_file_with_a_bom_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "m.rly"
    path.write_bytes(b"\xef\xbb\xbf" + TIDY.replace("\n", "\r\n").encode())
    result = run([str(path)])
    assert (result.exit_code, result.stderr) == (0, "1 file left unchanged\n")


def test_stdin_keeps_its_conventions_too() -> None:
    result = CliRunner().invoke(
        main, ["fmt", "-"], input=MESSY2.rstrip("\n").replace("\n", "\r\n").encode(), env={"NO_COLOR": "1"}
    )
    assert result.stdout_bytes == TIDY.rstrip("\n").replace("\n", "\r\n").encode()


def test_color_flag_wins_over_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path / "m.rly", MESSY)
    assert "\x1b[" in run(["--check", "--color", "always", str(path)], env={"NO_COLOR": "1"}).stderr
    assert (
        "\x1b[" not in run(["--check", "--color", "never", str(path)], env={"FORCE_COLOR": "1", "NO_COLOR": ""}).stderr
    )
    assert "\x1b[" not in run(["--check", "--color", "auto", str(path)], env={"NO_COLOR": "1"}).stderr


UNRESOLVED = """#[version = "0.0.5"]
def @main(%x: Tensor[(2), flaot32], %l: MyList[int32]) -> Foo {
  %0 = @helper(%x,   %z);
  match (%l) { MyNil => %0, MyCons(%h, _) => %h+%w }
}
"""


def test_a_file_whose_names_do_not_resolve_is_formatted(tmp_path: Path) -> None:
    """Formatting needs syntax, not names: an unknown global, type, dtype or
    constructor and unbound variables are `relay check`'s business. The
    names are written as the source wrote them (a type that did not
    resolve is not a hole `_`)."""
    path = write(tmp_path / "fragment.rly", UNRESOLVED)
    result = run([str(path)])
    assert (result.exit_code, result.stderr) == (0, f"reformatted {path}\n1 file reformatted\n")
    assert path.read_text() == (
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2), flaot32], %l: MyList[int32]) -> Foo {\n"
        "  %0 = @helper(%x, %z);\n"
        "  match (%l) {\n"
        "    MyNil => %0,\n"
        "    MyCons(%h, _) => %h + %w\n"
        "  }\n"
        "}\n"
    )
    assert run([str(path)]).stderr == "1 file left unchanged\n"


def test_a_file_whose_unresolved_name_cannot_be_written_back_is_not_formatted(tmp_path: Path) -> None:
    """An unknown dimension variable is read as `?`: printing would lose the
    name, so the file is reported, not changed."""
    text = "def @main(%x : Tensor[(n, 2), float32]) { %x }\n"
    path = write(tmp_path / "dims.rly", text)
    result = run([str(path)])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == "error[unknown-type]: unknown dimension variable `n`"
    assert result.stderr.endswith(f"error: cannot format {path}\n1 file failed to reformat\n")
    assert path.read_text() == text
