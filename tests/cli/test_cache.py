"""The cache of `relay check` and `relay fmt`: a file whose text is the one
an earlier run with the same settings found clean (or formatted) is not
parsed again; any other file is, and every output stays what it was."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import relay_text.batch as batch
import relay_text.cache as cache_module
import relay_text.formatter as formatter
from relay_text.cache import Cache, digest
from relay_text.cli import main
from relay_text.launch import main as launch_main

TIDY = "def @main(%a, %b) {\n  %a + %b\n}\n"
MESSY = "def @main(%a,%b){%a+%b}\n"
UNUSED = "def @main(%x : int32) {\n  %0 = add(%x, 1);\n  %x\n}\n"  # a warning: never remembered as clean


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.delenv("RELAY_NO_CACHE", raising=False)
    monkeypatch.setenv("RELAY_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many files were checked and formatted for real."""
    counts = {"check": 0, "fmt": 0}
    check, real_format = batch._check, formatter.format_source  # (format_file imports it when called)

    def counted_check(*args: Any) -> Any:
        counts["check"] += 1
        return check(*args)

    def counted_format(*args: Any, **kwargs: Any) -> Any:
        counts["fmt"] += 1
        return real_format(*args, **kwargs)

    monkeypatch.setattr(batch, "_check", counted_check)
    monkeypatch.setattr(formatter, "format_source", counted_format)
    return counts


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)


def cache_files(folder: Path, command: str) -> list[dict[str, str]]:
    """{path: digest} of each cache file of `command` (a line `DIGEST PATH` per file)."""
    found = []
    for cache_file in sorted(folder.glob(f"{command}-*.txt")):
        header, *lines = cache_file.read_text().splitlines()
        assert header == "relay-text cache 1"
        found.append({path: text_digest for text_digest, _, path in (line.partition(" ") for line in lines)})
    return found


def test_a_clean_file_is_checked_once_until_its_text_changes(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    path = tmp_path / "m.rly"
    path.write_text(TIDY)
    for _ in range(2):
        result = run("check", str(path))
        assert (result.exit_code, result.stderr) == (0, "No errors in 1 file\n")
    assert work["check"] == 1
    assert cache_files(cache_dir, "check") == [{str(path): digest(TIDY.encode())}]
    path.write_text(TIDY.replace("%b\n}", "%b  \n}"))  # same size class, other text: seen by its digest
    assert run("check", str(path)).exit_code == 0
    assert work["check"] == 2


def test_a_file_with_a_warning_is_checked_every_time(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    path = tmp_path / "w.rly"
    path.write_text(UNUSED)
    outputs = {run("check", str(path)).stderr for _ in range(2)}
    assert work["check"] == 2
    (output,) = outputs  # the same warning both times
    assert output.startswith("warning[unused-binding]: graph binding `%0` is never used\n")
    assert cache_files(cache_dir, "check") == []  # (nothing remembered: no file written)


def test_a_file_that_gets_a_problem_is_forgotten(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    clean, other = tmp_path / "a.rly", tmp_path / "b.rly"
    clean.write_text(TIDY)
    other.write_text(TIDY)
    assert run("check", str(clean), str(other)).exit_code == 0
    other.write_text("def @main() { %x }\n")
    result = run("check", str(clean), str(other))
    assert result.exit_code == 1 and "error[unbound-variable]" in result.stderr
    assert work["check"] == 3  # both, then only the edited one
    assert cache_files(cache_dir, "check") == [{str(clean): digest(TIDY.encode())}]


def test_output_beyond_diagnostics_is_never_cached(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    path = tmp_path / "m.rly"
    path.write_text(TIDY)
    run("check", str(path))
    types = run("check", "--types", str(path))
    assert types.stdout == (
        "@main : fn<a : Shape, b : BaseType, c : Shape, d : Shape>(Tensor[a, b], Tensor[c, b]) -> Tensor[d, b] "
        "where Broadcast\n"
    )
    document = json.loads(run("check", "--output-format", "json", str(path)).stdout)
    assert document["diagnostics"] == [] and list(document["globals"]) == ["@main"]
    assert work["check"] == 3


def test_formatted_files_are_not_formatted_again(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    assert run("fmt", str(path)).stderr == f"reformatted {path}\n1 file reformatted\n"
    assert path.read_text() == TIDY
    # the text written passed the safety check: it is remembered as formatted
    assert cache_files(cache_dir, "fmt") == [{str(path): digest(TIDY.encode())}]
    for args in (["--check"], ["--diff"], []):
        result = run("fmt", *args, str(path))
        assert (result.exit_code, result.stdout) == (0, "")
        assert result.stderr.endswith("1 file would be left unchanged\n" if args else "1 file left unchanged\n")
    assert work["fmt"] == 1


def test_a_file_that_would_change_is_formatted_every_time(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    for _ in range(2):
        assert run("fmt", "--check", str(path)).exit_code == 1
    assert work["fmt"] == 2
    assert run("fmt", "--fast", str(path)).exit_code == 0  # written unchecked: not remembered
    assert cache_files(cache_dir, "fmt") == []
    assert run("fmt", "--check", str(path)).exit_code == 0
    assert cache_files(cache_dir, "fmt") == [{str(path): digest(TIDY.encode())}]


def test_settings_that_change_the_text_keep_separate_memories(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    """A line length or a dialect of its own is a cache of its own."""
    path = tmp_path / "m.rly"
    path.write_text(TIDY)
    run("fmt", "--check", str(path))
    run("fmt", "--check", "--line-length", "20", str(path))
    run("fmt", "--check", "--dialect", "tvm", str(path))
    assert work["fmt"] == 3
    assert len(cache_files(cache_dir, "fmt")) == 2  # (TVM's dialect rewrites the file: not remembered)
    run("fmt", "--check", "--line-length", "20", str(path))
    assert work["fmt"] == 3


@pytest.mark.parametrize("how", ["--no-cache", "RELAY_NO_CACHE"])
def test_the_cache_can_be_turned_off(tmp_path: Path, cache_dir: Path, work: dict, how: str, monkeypatch) -> None:
    path = tmp_path / "m.rly"
    path.write_text(TIDY)
    args = ["--no-cache"] if how == "--no-cache" else []
    if how == "RELAY_NO_CACHE":
        monkeypatch.setenv("RELAY_NO_CACHE", "1")
    for _ in range(2):
        run("check", *args, str(path))
        run("fmt", "--check", *args, str(path))
    assert work == {"check": 2, "fmt": 2}
    assert not cache_dir.exists()


def test_the_quick_route_reads_no_cache(tmp_path: Path, cache_dir: Path, work: dict, capsys) -> None:
    path = tmp_path / "m.rly"
    path.write_text(TIDY)
    for _ in range(2):
        with pytest.raises(SystemExit) as stop:
            launch_main(["check", "--no-cache", str(path)])
        assert stop.value.code == 0
    assert work["check"] == 2 and not cache_dir.exists()
    with pytest.raises(SystemExit):
        launch_main(["fmt", "--check", "--cache", str(path)])
    assert capsys.readouterr().err.endswith("1 file would be left unchanged\n")
    assert cache_files(cache_dir, "fmt") == [{str(path): digest(TIDY.encode())}]


def test_a_damaged_cache_is_ignored_and_replaced(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    path = tmp_path / "m.rly"
    path.write_text(TIDY)
    run("check", str(path))
    (cache_file,) = cache_dir.glob("check-*.txt")
    good = f"{digest(TIDY.encode())} {path}"
    damages = [b"{not a cache", f"relay-text cache 1\nabc {path}\n".encode(), b"\xff\xfe", b"", good.encode()]
    for damage in damages:
        cache_file.write_bytes(damage)
        assert run("check", str(path)).stderr == "No errors in 1 file\n"
    assert work["check"] == 6  # (the last has no header line: not read either)
    assert cache_file.read_text() == f"relay-text cache 1\n{good}\n"


def test_a_path_that_is_not_utf8_is_remembered(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    name = os.fsdecode(b"caf\xe9.rly")  # (Latin-1 bytes: a surrogate escape in the str)
    path = tmp_path / name
    path.write_text(TIDY)
    for _ in range(2):
        assert run("check", str(path)).exit_code == 0
    assert work["check"] == 1


def test_a_cache_that_cannot_be_written_changes_nothing(tmp_path: Path, monkeypatch, work: dict) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.delenv("RELAY_NO_CACHE", raising=False)
    monkeypatch.setenv("RELAY_CACHE_DIR", str(blocker / "cache"))
    path = tmp_path / "m.rly"
    path.write_text(TIDY)
    for _ in range(2):
        assert (run("check", str(path)).exit_code, run("fmt", str(path)).exit_code) == (0, 0)
    assert work == {"check": 2, "fmt": 2}
    assert blocker.read_text() == ""


def test_standard_input_is_never_cached(tmp_path: Path, cache_dir: Path, work: dict) -> None:
    for _ in range(2):
        result = CliRunner().invoke(main, ["fmt", "-"], input=TIDY, env={"NO_COLOR": "1"})
        assert result.stdout == TIDY
    assert work["fmt"] == 2


def test_entries_are_by_absolute_path(tmp_path: Path, cache_dir: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    cache = Cache("check", ("x",))
    cache.remember("m.rly", "a" * 64)
    assert cache.known(os.path.join(str(tmp_path), "m.rly")) == "a" * 64
    cache.save()
    assert Cache("check", ("x",)).known("./m.rly") == "a" * 64
    assert Cache("check", ("y",)).known("m.rly") is None  # other settings, other file
    assert Cache("check", None).known("m.rly") is None  # off


def test_a_cache_keeps_the_most_recent_files(tmp_path: Path, cache_dir: Path, monkeypatch) -> None:
    """At most MAX_ENTRIES files per cache file: the ones noted last stay
    (a file found clean again counts as recent)."""
    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 3)
    files = []
    for i in range(5):
        f = tmp_path / f"f{i}.rly"
        f.write_text(TIDY)
        files.append(f)
    first = Cache("check", ())
    for f in files:
        first.note(str(f), digest(f.read_bytes()))
    first.note(str(files[0]), digest(files[0].read_bytes()))  # f0 seen again: now the most recent
    first.save()
    again = Cache("check", ())
    assert list(again.files) == [str(files[3]), str(files[4]), str(files[0])]


def test_old_cache_files_and_leftover_temporaries_are_deleted(tmp_path: Path, cache_dir: Path) -> None:
    """A save deletes check/fmt cache files unused for UNUSED_DAYS and
    temporary files over an hour old; recent ones and the parser's tables stay."""
    cache_dir.mkdir()
    old = time.time() - (cache_module.UNUSED_DAYS + 1) * 86400
    names = {
        "check-0123456789abcdef0123.txt": old,  # deleted
        "fmt-0123456789abcdef0123.txt": old,  # deleted
        "check-aaaaaaaaaaaaaaaaaaaa.txt.4242.tmp": time.time() - 7200,  # deleted
        "fmt-bbbbbbbbbbbbbbbbbbbb.txt": time.time() - 86400,  # kept: used yesterday
        "check-cccccccccccccccccccc.txt.4243.tmp": time.time() - 60,  # kept: a run may be writing it
        "tables-c096e068637643e825be.marshal": old,  # kept: not a file cache
        "notes.txt": old,  # kept: not ours
    }
    for name, when in names.items():
        (cache_dir / name).write_text("x")
        os.utime(cache_dir / name, (when, when))
    f = tmp_path / "a.rly"
    f.write_text(TIDY)
    assert run("check", str(f)).exit_code == 0
    left = sorted(p.name for p in cache_dir.iterdir())
    fresh = [n for n in left if n not in names]
    assert len(fresh) == 1 and fresh[0].startswith("check-") and fresh[0].endswith(".txt")
    assert sorted(set(left) - set(fresh)) == sorted(
        [
            "fmt-bbbbbbbbbbbbbbbbbbbb.txt",
            "check-cccccccccccccccccccc.txt.4243.tmp",
            "tables-c096e068637643e825be.marshal",
            "notes.txt",
        ]
    )


def test_a_cache_that_is_only_read_counts_as_used(tmp_path: Path, cache_dir: Path) -> None:
    """A cache whose files all stay clean is read and never written again:
    reading renews its time stamp, so that pruning keeps it."""
    f = tmp_path / "a.rly"
    f.write_text(TIDY)
    first = Cache("check", ())
    first.note(str(f), digest(f.read_bytes()))
    first.save()
    assert first.path is not None
    old = time.time() - (cache_module.UNUSED_DAYS + 1) * 86400
    os.utime(first.path, (old, old))
    again = Cache("check", ())
    assert list(again.files) == [str(f)]
    assert time.time() - os.stat(first.path).st_mtime < 600
    cache_module.prune(str(cache_dir))
    assert Path(first.path).exists()
