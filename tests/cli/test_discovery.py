"""Many files: which files a directory stands for (.gitignore, `exclude`,
`extend-exclude`), the summary, the warning when nothing matched, and the
project-wide `ignore` of warning codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text.cli import main
from relay_text.config import Settings
from relay_text.discovery import Rules, discover

OK = "def @main() { 1 }\n"
UNUSED = "def @main() {\n  %0 = add(1, 2);\n  3\n}\n"  # an unused graph binding: a warning


def invoke(args: list[str], input: str | None = None):
    return CliRunner().invoke(main, args, input=input, env={"NO_COLOR": "1"}, catch_exceptions=False)


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def found(root: Path, settings: Settings | None = None, **options: object) -> list[str]:
    rules = Rules(settings or Settings(), cwd=root, **options)  # type: ignore[arg-type]
    return sorted(str(Path(f).relative_to(root)) for f in discover([str(root)], rules).files)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with the usual clutter."""
    (tmp_path / ".git").mkdir()
    tree(
        tmp_path,
        {
            "src/model.rly": OK,
            "src/gen/out.rly": OK,
            "src/gen/keep.rly": OK,
            "tests/fixtures/broken.rly": "def @main() {",
            "build/copy.rly": OK,
            "node_modules/pkg/x.relay": OK,
            ".hidden/y.rly": OK,
            "notes.txt": "not relay",
        },
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_search_leaves_out_hidden_and_default_excluded_directories(project: Path) -> None:
    assert found(project) == ["src/gen/keep.rly", "src/gen/out.rly", "src/model.rly", "tests/fixtures/broken.rly"]


def test_gitignore_files_are_read_as_git_reads_them(project: Path) -> None:
    (project / ".gitignore").write_text("# generated\nsrc/gen/\n")
    assert found(project) == ["src/model.rly", "tests/fixtures/broken.rly"]
    # A deeper file's patterns come first: a `!` there takes a file back.
    (project / ".gitignore").write_text("*.rly\n")
    (project / "src" / ".gitignore").write_text("!model.rly\n")
    assert found(project) == ["src/model.rly"]
    # Searching a subdirectory still reads the repository root's file.
    assert sorted(discover(["src"], Rules(Settings(), cwd=project)).files) == ["src/model.rly"]
    # respect-gitignore = false
    assert len(found(project, Settings(values={"respect_gitignore": False}))) == 4


def test_gitignore_above_the_repository_is_not_read(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.rly\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    tree(repo, {"a.rly": OK})
    assert found(repo) == ["a.rly"]


def test_exclude_and_extend_exclude_settings(project: Path) -> None:
    config = project / "pyproject.toml"
    config.write_text("[tool.relay]\nextend-exclude = ['tests/fixtures/', 'out.rly']\n")
    result = invoke(["check", "."])
    assert (result.exit_code, result.stderr) == (0, "No errors in 2 files\n")
    # `exclude` replaces the defaults: build/ and node_modules/ are searched.
    config.write_text("[tool.relay]\nexclude = ['src/']\n")
    result = invoke(["check", "--output-format", "json", "."])
    assert '"file": "./build/copy.rly"' in result.stdout and '"file": "./node_modules/pkg/x.relay"' in result.stdout
    assert "src/" not in result.stdout
    # Settings' patterns are relative to the pyproject.toml, whatever the current directory.
    config.write_text("[tool.relay]\nextend-exclude = ['src/gen/']\n")
    result = invoke(["check", str(project / "src")])
    assert result.stderr == "No errors in 1 file\n"


def test_exclude_options_on_the_command_line(project: Path) -> None:
    result = invoke(["fmt", "--check", "--extend-exclude", "tests/", "--extend-exclude", "gen", "."])
    assert (result.exit_code, result.stderr) == (1, "would reformat ./src/model.rly\n1 file would be reformatted\n")
    result = invoke(["check", "--exclude", "src", "--output-format", "json", "."])
    assert '"file": "./build/copy.rly"' in result.stdout and "src/" not in result.stdout


def test_a_named_file_is_taken_unless_force_exclude(project: Path) -> None:
    (project / ".gitignore").write_text("src/gen/\n")
    assert invoke(["check", "src/gen/out.rly"]).stderr == "No errors in 1 file\n"
    result = invoke(["check", "--force-exclude", "src/gen/out.rly", "src/model.rly"])
    assert (result.exit_code, result.stderr) == (0, "No errors in 1 file\n")


def test_a_warning_when_no_file_matched(project: Path) -> None:
    (project / "empty").mkdir()
    result = invoke(["check", "empty"])
    assert (result.exit_code, result.stderr) == (0, "warning: no Relay files (*.rly, *.relay) found in empty\n")
    assert (
        invoke(["check", "--output-format", "json", "empty"]).stdout == '{"files": []}\n'
    )  # (the schema's several-files form)
    result = invoke(["fmt", "build", "node_modules"])
    assert (result.exit_code, result.stderr) == (
        0,
        (
            "warning: no Relay files (*.rly, *.relay) found in build, node_modules (2 paths left out by "
            ".gitignore or exclude patterns)\n"
        ),
    )


def test_the_summary_says_how_many_files_were_checked(project: Path) -> None:
    result = invoke(["check", "."])
    assert result.exit_code == 1
    assert result.stderr.endswith("Found 1 error in 1 file (4 files checked)\n")


# ---------------------------------------------------------------- ignore = [codes]


def test_ignore_silences_warnings_project_wide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    tree(tmp_path, {"a.rly": UNUSED, "sub/b.rly": UNUSED})
    result = invoke(["check", "."])
    assert result.stderr.count("warning[unused-binding]") == 2
    (tmp_path / "pyproject.toml").write_text("[tool.relay]\nignore = ['unused-binding']\n")
    result = invoke(["check", "."])
    assert (result.exit_code, result.stderr) == (0, "No errors in 2 files\n")
    result = invoke(["run", "a.rly"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "3\n", "")
    # With --warnings-as-errors too: an ignored warning is no error.
    assert invoke(["check", "-W", "error", "a.rly"]).exit_code == 0


def test_ignore_names_only_warning_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    tree(tmp_path, {"a.rly": OK})
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.relay]\nignore = ['unused-bindng', 'type-mismatch']\n")
    result = invoke(["check", "a.rly"])
    assert result.exit_code == 0
    assert result.stderr == (
        f"warning: {config}: `unused-bindng` in `ignore` is not a diagnostic code; did you mean `unused-binding`?\n"
        f"warning: {config}: `type-mismatch` in `ignore` is an error, and errors cannot be ignored\n"
        "No errors in 1 file\n"
    )
    config.write_text("[tool.relay]\nignore = 'unused-binding'\n")
    result = invoke(["check", "a.rly"])
    assert result.exit_code == 2
    assert "[tool.relay] ignore must be a list of diagnostic codes (strings)" in result.stderr
