"""Shell completion (click's): file names for the paths of every command,
diagnostic codes for `relay explain`."""

from __future__ import annotations

from click.testing import CliRunner

from relay_text.cli import main


def complete(words: str, shell: str = "bash") -> list[str]:
    """What `relay` answers the shell for the last word of `words`."""
    parts = words.split(" ")
    env = {"_RELAY_COMPLETE": f"{shell}_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(parts) - 1)}
    result = CliRunner().invoke(main, [], env=env, prog_name="relay")
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_explain_completes_diagnostic_codes() -> None:
    assert complete("relay explain unu") == ["plain,unused-binding"]
    assert complete("relay explain unknown-g") == ["plain,unknown-global"]
    # zsh shows each code's summary beside it.
    assert complete("relay explain type-m", "zsh") == ["plain", "type-mismatch", "two types that must be equal differ"]


def test_paths_complete_as_file_names() -> None:
    """The shell completes `file` items itself, from the directory."""
    for words in (
        "relay check sam",
        "relay fmt sam",
        "relay run sam",
        "relay run x.rly --args ar",
        "relay run x.rly --output ou",
    ):
        assert complete(words)[0].startswith("file,"), words


def test_commands_and_options_complete() -> None:
    assert "plain,explain" in complete("relay ex")
    assert "plain,--summary" in complete("relay run --sum")
