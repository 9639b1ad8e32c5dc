"""The `relay` program's two routes (relay_text/launch.py): `relay check` and
`relay fmt` with file names and on/off flags run without click; any other
command line goes through click. Both must give a user the same result."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from relay_text import commands
from relay_text.cli import main as group
from relay_text.launch import FLAGS, quick

ROOT = Path(__file__).resolve().parents[2]

GOOD = "def @main() {\n  1\n}\n"
BAD = "def @main() { %x }\n"
# Reformatted by `relay fmt`; `%y` is unused (a warning for `relay check`).
LOOSE = "def @main(%y: int32) { let %x = 1; %x }\n"


def _command(name: str) -> click.Command:
    command = group.get_command(click.Context(group), name)
    assert command is not None
    return command


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_every_quick_flag_is_the_click_flag_of_the_same_parameter(name: str) -> None:
    """A flag read by `launch` sets the parameter and value that click sets
    for it: `--no-warnings-as-errors` is the off side of the same option."""
    options = [p for p in _command(name).params if isinstance(p, click.Option)]
    for flag, (parameter, value) in FLAGS[name].items():
        matches = [p for p in options if flag in p.opts or flag in p.secondary_opts]
        assert len(matches) == 1, flag
        option = matches[0]
        assert option.name == parameter, flag
        assert option.is_flag, flag
        assert (flag in option.opts) is value, flag


@pytest.mark.parametrize("name", ["check", "fmt"])
def test_the_commands_functions_default_to_what_click_passes(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A parameter the quick route leaves out takes the function's default,
    which must be the value click passes when the flag is not given."""
    body = getattr(commands, name)
    defaults = {n: p.default for n, p in inspect.signature(body).parameters.items() if p.default is not p.empty}
    received: dict[str, object] = {}

    def record(paths: tuple[str, ...], **given: object) -> int:
        received.update(given)
        return 0

    monkeypatch.setattr(commands, name, record)
    with pytest.raises(SystemExit) as stopped:
        group.main([name, "a.rly"], standalone_mode=False)
    assert stopped.value.code == 0
    assert received == defaults
    assert len(defaults) == len(_command(name).params) - 2  # (all but the paths and --debug)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["check", "a.rly"], ("check", ("a.rly",), {})),
        (["check", "a.rly", "-", "dir"], ("check", ("a.rly", "-", "dir"), {})),
        (["check", "--types", "a.rly", "--fix"], ("check", ("a.rly",), {"show_types": True, "fix": True})),
        (
            ["check", "--warnings-as-errors", "--no-warnings-as-errors", "a.rly"],
            ("check", ("a.rly",), {"warnings_as_errors": False}),
        ),
        (["fmt", "--check", "a.rly"], ("fmt", ("a.rly",), {"check_only": True})),
        (["fmt", "a.rly", "--diff", "--debug"], ("fmt", ("a.rly",), {"show_diff": True, "debug": True})),
        # click reads these: no file, an option with a value, help, `--`,
        # a short option, an unknown flag, another command, no command.
        (["check"], None),
        (["fmt", "--check"], None),
        (["check", "--output-format", "json", "a.rly"], None),
        (["check", "--output-format=json", "a.rly"], None),
        (["check", "--help"], None),
        (["check", "--", "-odd.rly"], None),
        (["check", "-W", "error", "a.rly"], None),
        (["fmt", "--types", "a.rly"], None),
        (["check", "--check", "a.rly"], None),
        (["run", "a.rly"], None),
        (["--version"], None),
        ([], None),
    ],
)
def test_which_command_lines_take_the_quick_route(args: list[str], expected: object) -> None:
    assert quick(args) == expected


def test_shell_completion_goes_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_RELAY_COMPLETE", "bash_complete")
    assert quick(["check", "a.rly"]) is None


def _run(route: str, args: list[str], cwd: Path) -> tuple[int, str, str]:
    """`relay ARGS` in a new process, by the quick route (`python -m
    relay_text`, which uses it when it can) or through click alone."""
    code = "import sys; from relay_text.cli import main; main(prog_name='relay')"
    cmd = [sys.executable, "-m", "relay_text", *args] if route == "quick" else [sys.executable, "-c", code, *args]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    env.pop("RELAY_DEBUG", None)
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, check=False)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["check", "good.rly"],
        ["check", "bad.rly", "good.rly"],
        ["check", "loose.rly", "--warnings-as-errors"],
        ["check", "--types", "good.rly", "loose.rly"],
        ["check", "--diff", "loose.rly"],
        ["check", "missing.rly"],
        ["check", "."],
        ["fmt", "--check", "."],
        ["fmt", "--diff", "loose.rly"],
        ["fmt", "--check", "bad.rly", "missing.rly"],
    ],
    ids=lambda args: " ".join(args),
)
def test_both_routes_print_the_same_and_exit_alike(tmp_path: Path, args: list[str]) -> None:
    """The same status, standard output and standard error whichever route
    ran (the quick one is checked to be taken for these)."""
    assert quick(args) is not None
    outcomes = []
    for route in ("quick", "click"):
        where = tmp_path / route
        where.mkdir()
        for name, text in {"good.rly": GOOD, "bad.rly": BAD, "loose.rly": LOOSE}.items():
            (where / name).write_text(text)
        outcomes.append(_run(route, args, where))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] in (0, 1, 2)


def test_fmt_writes_the_same_files_by_either_route(tmp_path: Path) -> None:
    """`relay fmt DIR` rewrites the same files with the same text."""
    results = {}
    for route in ("quick", "click"):
        where = tmp_path / route
        where.mkdir()
        (where / "loose.rly").write_text(LOOSE)
        (where / "good.rly").write_text(GOOD)
        status = _run(route, ["fmt", "."], where)
        results[route] = (status, (where / "loose.rly").read_text(), (where / "good.rly").read_text())
    assert results["quick"] == results["click"]
    (code, _, err), formatted, _ = results["quick"]
    assert (code, err) == (0, "reformatted ./loose.rly\n1 file reformatted, 1 file left unchanged\n")
    assert formatted != LOOSE


# The console script pip installed beside this interpreter.
SCRIPT = Path(sys.executable).parent / "relay"


@pytest.mark.skipif(not SCRIPT.exists(), reason="the `relay` console script is not installed beside this Python")
def test_the_console_script_takes_the_quick_route(tmp_path: Path) -> None:
    """The installed `relay` program starts at `launch.main`."""
    (tmp_path / "good.rly").write_text(GOOD)
    assert "from relay_text.launch import main" in SCRIPT.read_text()
    proc = subprocess.run([str(SCRIPT), "check", "good.rly"], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert (proc.returncode, proc.stderr) == (0, "No errors in 1 file\n")


def test_ctrl_c_while_the_command_loads_is_a_clean_stop(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """A Ctrl-C that arrives while `relay` imports click or a command's
    modules (before the command handles signals) stops it as one that
    arrives later does: `interrupted`, status 130, no traceback."""
    import relay_text.launch as launch

    def loading(args: list[str]) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(launch, "quick", loading)
    with pytest.raises(SystemExit) as stop:
        launch.main(["fmt", "--jobs", "2", "x.rly"])
    assert stop.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"
