"""`[tool.relay]` in the nearest pyproject.toml: read with tomllib, every
key checked (a misspelt key gets a warning naming the closest one), settings
for every command, and the command line wins."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main
from relay_text.config import KEYS, ConfigError, validate

COUNT = (
    "def @count(%n : int32) -> int32 {\n  if (%n == 0) { 0 } else { 1 + @count(%n - 1) }\n}\ndef @main() { "
    "@count(100) }\n"
)


def invoke(args: list[str], env: dict | None = None):
    return CliRunner().invoke(main, args, env=env or {"NO_COLOR": "1"}, catch_exceptions=False)


def project(tmp_path: Path, table: str, name: str = "m.rly", text: str = "def @main() {\n  1\n}\n") -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.relay]\n{table}\n")
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("command", [["check"], ["fmt", "--check"], ["run"]])
def test_a_misspelt_key_gets_a_warning_naming_the_closest_key(tmp_path: Path, command: list[str]) -> None:
    path = project(tmp_path, "line_length = 90\nwarnings-as-error = true\ncolour = 'never'\nfrobnicate = 1\n")
    result = invoke([*command, str(path)])
    config = tmp_path / "pyproject.toml"
    assert result.exit_code == 0
    assert result.stderr.startswith(
        f"warning: {config}: unknown key `line_length` in [tool.relay] (ignored); did you mean `line-length`?\n"
        f"warning: {config}: unknown key `warnings-as-error` in [tool.relay] (ignored); did you mean "
        f"`warnings-as-errors`?\n"
        f"warning: {config}: unknown key `colour` in [tool.relay] (ignored); did you mean `color`?\n"
        f"warning: {config}: unknown key `frobnicate` in [tool.relay] (ignored); the known keys are "
        "`line-length`, `dialect`, `warnings-as-errors`, `color`, `max-depth`, `max-memory`, `max-output`, "
        "`timeout`, `jobs`, "
        "`exclude`, `extend-exclude`, `respect-gitignore`, `ignore`\n"
    )


@pytest.mark.parametrize(
    "table, message",
    [
        ("color = 'sometimes'", '[tool.relay] color must be "auto", "always" or "never", not "sometimes"'),
        ("max-depth = 0", "[tool.relay] max-depth must be a positive integer, not 0"),
        ("warnings-as-errors = 'yes'", '[tool.relay] warnings-as-errors must be true or false, not "yes"'),
        ("jobs = true", '[tool.relay] jobs must be a positive integer or "auto", not true'),
        ("line-length = 8.5", "[tool.relay] line-length must be a positive integer, not 8.5"),
        (
            "max-memory = '12Q'",
            '[tool.relay] max-memory must be a size such as "512M" or "2G", or a positive number of bytes, not "12Q"',
        ),
        (
            "max-memory = 0",
            '[tool.relay] max-memory must be a size such as "512M" or "2G", or a positive number of bytes, not 0',
        ),
        (
            "max-output = -1",
            '[tool.relay] max-output must be a size such as "64M" or "1G", or a positive number of bytes, not -1',
        ),
        (
            "max-output = true",
            '[tool.relay] max-output must be a size such as "64M" or "1G", or a positive number of bytes, not true',
        ),
        ("timeout = 0", "[tool.relay] timeout must be a positive number of seconds, not 0"),
        ("timeout = '10s'", '[tool.relay] timeout must be a positive number of seconds, not "10s"'),
        ("timeout = inf", "[tool.relay] timeout must be a positive number of seconds, not inf"),
    ],
)
def test_a_bad_value_is_an_error_for_every_command(tmp_path: Path, table: str, message: str) -> None:
    path = project(tmp_path, table)
    for command in (["check"], ["fmt"], ["run"]):
        result = invoke([*command, str(path)])
        assert (result.exit_code, result.stderr) == (2, f"error: {tmp_path / 'pyproject.toml'}: {message}\n")


def test_invalid_toml_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.relay\nline-length = 1\n")
    path = tmp_path / "m.rly"
    path.write_text("def @main() { 1 }\n")
    result = invoke(["check", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'pyproject.toml'}: invalid TOML (")


def test_max_depth_for_run(tmp_path: Path) -> None:
    path = project(tmp_path, "max-depth = 50", text=COUNT)
    result = invoke(["run", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error[recursion-limit]: evaluation went deeper than 50 nested calls\n")
    assert invoke(["run", "--max-depth", "1000", str(path)]).stdout == "100\n"


def test_max_memory_for_run_and_the_flag_wins(tmp_path: Path) -> None:
    path = project(
        tmp_path, "max-memory = '1M'", text='def @main() {\n  zeros(shape=[1000, 1000], dtype="float32")\n}\n'
    )
    result = invoke(["run", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "error[resource-limit]: the result of `zeros` needs 3.81 MiB (1,000,000 elements), more than the "
        "memory limit of 1 MiB (--max-memory)\n"
    )
    assert invoke(["run", "--max-memory", "1T", str(path)]).exit_code == 0  # (what the test process holds counts too)
    project(tmp_path, "max-memory = 1048576", text=path.read_text())  # a number of bytes
    assert "more than the memory limit of 1 MiB" in invoke(["run", str(path)]).stderr


def test_max_output_for_run_and_the_flag_wins(tmp_path: Path) -> None:
    path = project(tmp_path, "max-output = '1K'", text='def @main() {\n  zeros(shape=[100, 100], dtype="int32")\n}\n')
    result = invoke(["run", "--full", str(path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith(
        "error[resource-limit]: the result would print about 29.8 KiB of text, more than the output limit "
        "of 1 KiB (--max-output)\n"
    )
    assert invoke(["run", "--full", "--max-output", "1M", str(path)]).exit_code == 0


def test_timeout_for_run_and_the_flag_wins(tmp_path: Path) -> None:
    from tests.limits.test_cli_limits import RUNAWAY

    path = project(tmp_path, "timeout = 0.5", text=RUNAWAY)
    result = invoke(["run", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error[resource-limit]: the run took longer than the limit of 0.5 s (--timeout)\n")
    one = project(tmp_path, "timeout = 0.5", "one.rly", "def @main() { 1 + 1 }\n")
    assert invoke(["run", "--timeout", "30", str(one)]).stdout == "2\n"
    short = invoke(["run", "--timeout", "1", str(path)])  # the flag, not the file's 0.5 s
    assert short.stderr.startswith("error[resource-limit]: the run took longer than the limit of 1 s (--timeout)\n")


def test_misspelt_limit_keys_get_a_warning(tmp_path: Path) -> None:
    settings = validate({"max_memory": "1G", "max-ouput": "1M", "timout": 3}, tmp_path / "pyproject.toml")
    assert settings.values == {}
    assert [w.rsplit("; ", 1)[1] for w in settings.warnings] == [
        "did you mean `max-memory`?",
        "did you mean `max-output`?",
        "did you mean `timeout`?",
    ]


def test_color_setting_the_environment_and_the_flag(tmp_path: Path) -> None:
    path = project(tmp_path, "color = 'always'", text="def @main() { %x }\n")
    plain_env = {"NO_COLOR": "", "FORCE_COLOR": ""}
    assert "\x1b[" in invoke(["check", str(path)], env=plain_env).stderr
    assert "\x1b[" not in invoke(["check", str(path)], env={"NO_COLOR": "1"}).stderr  # NO_COLOR beats the file
    assert (
        "\x1b[" in invoke(["check", "--color", "always", str(path)], env={"NO_COLOR": "1"}).stderr
    )  # the flag beats both
    assert "\x1b[" not in invoke(["check", "--color", "never", str(path)], env=plain_env).stderr
    assert "\x1b[" in invoke(["run", str(path)], env=plain_env).stderr


def test_jobs_setting(tmp_path: Path) -> None:
    path = project(tmp_path, "jobs = 2")
    assert invoke(["check", str(path)]).exit_code == 0
    project(tmp_path, "jobs = 'auto'")
    assert invoke(["check", str(path)]).exit_code == 0


def test_every_key_is_documented() -> None:
    """docs/configuration.md shows every key of [tool.relay] in its example table."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    for key in KEYS:
        assert f"{key} = " in page, key


def test_validate_keeps_known_keys_and_reports_the_rest(tmp_path: Path) -> None:
    settings = validate({"line-length": 90, "dialect": "tvm", "jobs": 3, "linelength": 1}, tmp_path / "pyproject.toml")
    assert settings.values == {"line_length": 90, "dialect": "tvm", "jobs": 3}
    assert len(settings.warnings) == 1 and "did you mean `line-length`?" in settings.warnings[0]
    with pytest.raises(ConfigError):
        validate({"dialect": 1}, tmp_path / "pyproject.toml")
