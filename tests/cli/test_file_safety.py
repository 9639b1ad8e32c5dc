"""`relay fmt` writes only what it should, and keeps what a file is: special
files refused without being opened, `/dev/stdin` never rewritten, mode,
owner, group and hard links kept, read-only files refused unless `--force`,
a writable file in a read-only directory written in place, and a file
changed while it was being formatted left as it is."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from relay_text import writing
from relay_text.cli import main
from relay_text.files import collect, read, write_atomic
from tests.conftest import ROOT

MESSY = "def @main(%a,%b){%a+%b}\n"
TIDY = "def @main(%a, %b) {\n  %a + %b\n}\n"

is_root = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not is_root, reason="changing a file's owner, or running as another user, needs root")


def fmt(*args: str, input: str | None = None):
    return CliRunner().invoke(main, ["fmt", *args], input=input, env={"NO_COLOR": "1"}, catch_exceptions=False)


def relay(*args: str, stdin=None) -> subprocess.CompletedProcess:
    """The command in a process of its own."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "relay_text", *args], stdin=stdin, capture_output=True, text=True, env=env, timeout=120
    )


NOBODY = 65534


def as_nobody(args: list[str], cwd: Path | None = None, input: str | None = None) -> tuple[int, str, str]:
    """`relay ARGS` run by an unprivileged user (from `cwd`, entered while
    still root): in a forked copy of this process, everything it needs
    already imported, as the interpreter's own files may not be readable
    by that user; (exit status, stdout, stderr)."""
    import json
    import secrets  # noqa: F401 - (imported for the child)
    import tempfile  # noqa: F401

    CliRunner().invoke(main, ["fmt", "-"], input=MESSY)  # loads what the commands need
    CliRunner().invoke(main, ["check", "-"], input=MESSY)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 99
        try:
            os.close(read_end)
            if cwd is not None:
                os.chdir(cwd)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            result = CliRunner().invoke(main, args, input=input, env={"NO_COLOR": "1"})
            os.write(write_end, json.dumps([result.stdout, result.stderr]).encode())
            code = result.exit_code
        except BaseException as exc:
            os.write(write_end, json.dumps(["", repr(exc)]).encode())
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        out, err = json.loads(pipe.read().decode())
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out, err


@pytest.fixture
def shared_dir():
    """A directory every user may enter (pytest's own are private)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="relay-test-"))
    folder.chmod(0o755)
    yield folder
    for root, dirs, _ in os.walk(folder):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    import shutil

    shutil.rmtree(folder)


def test_a_fifo_named_on_the_command_line_is_refused_unopened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.rly"
    os.mkfifo(fifo)
    result = fmt(str(fifo))  # (opening it would wait for a writer for ever)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {fifo}: is a FIFO (named pipe), not a regular file; relay fmt rewrites regular files only "
        f"(`relay fmt - < {fifo}` prints the result)\n1 file not written\n"
    )
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_device_is_refused() -> None:
    result = fmt("/dev/null")
    assert result.exit_code == 2
    assert "error: /dev/null: names a stream or device, not a file relay fmt may rewrite" in result.stderr


def test_directories_skip_special_files_without_opening_them(tmp_path: Path) -> None:
    (tmp_path / "a.rly").write_text(MESSY)
    os.mkfifo(tmp_path / "b.rly")
    assert collect([str(tmp_path)]) == [str(tmp_path / "a.rly")]
    result = relay("check", str(tmp_path))  # (it hung, reading the FIFO)
    assert (result.returncode, result.stderr) == (0, "No errors in 1 file\n")


def test_fmt_of_dev_stdin_does_not_rewrite_the_file_behind_it(tmp_path: Path) -> None:
    path = tmp_path / "f.rly"
    path.write_text(MESSY)
    with open(path) as stdin:
        result = relay("fmt", "/dev/stdin", stdin=stdin)
    assert result.returncode == 2
    assert result.stderr.startswith(
        "error: /dev/stdin: names a stream or device, not a file relay fmt may rewrite; to format standard "
        "input, use `relay fmt -`"
    )
    assert path.read_text() == MESSY
    with open(path) as stdin:  # what it says to do instead
        result = relay("fmt", "-", stdin=stdin)
    assert (result.returncode, result.stdout) == (0, TIDY)
    assert path.read_text() == MESSY


def test_mode_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    path.chmod(0o640)
    assert fmt(str(path)).exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.read_text() == TIDY


@needs_root
def test_owner_and_group_of_another_user_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    os.chown(path, 12345, 23456)
    inode = path.stat().st_ino
    assert fmt(str(path)).exit_code == 0
    st = path.stat()
    assert (st.st_uid, st.st_gid, path.read_text()) == (12345, 23456, TIDY)
    assert st.st_ino != inode  # (root may give the copy the owner: replaced by a rename)


def test_hard_links_are_not_split(tmp_path: Path) -> None:
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    other = tmp_path / "other.rly"
    os.link(path, other)
    inode = path.stat().st_ino
    assert fmt(str(path)).exit_code == 0
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert other.read_text() == TIDY
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.rly", "other.rly"]  # no copy left


def test_a_read_only_file_is_refused_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    path.chmod(0o444)
    result = fmt(str(path))
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {path}: is read-only; nothing was written (`relay fmt --force` writes it anyway)\n1 file not written\n"
    )
    assert path.read_text() == MESSY
    assert fmt("--check", str(path)).exit_code == 1  # (checking needs no writing)
    result = fmt("--force", str(path))
    assert result.exit_code == 0, result.stderr
    assert path.read_text() == TIDY
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_the_summary_counts_files_not_written_apart_from_files_not_formatted(tmp_path: Path) -> None:
    """docs/commands/fmt.md, "Writing never loses data": a refused write is
    counted as not written, a file that does not parse as failed."""
    locked, tidy_locked, broken, messy = (tmp_path / f"{name}.rly" for name in ("a", "b", "c", "d"))
    locked.write_text(MESSY)
    tidy_locked.write_text(TIDY)
    broken.write_text("def @main( {\n")
    messy.write_text(MESSY)
    locked.chmod(0o444)
    tidy_locked.chmod(0o444)
    result = fmt(str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "1 file reformatted, 1 file left unchanged, 1 file not written, 1 file failed to reformat"
    )
    assert (locked.read_text(), tidy_locked.read_text(), messy.read_text()) == (MESSY, TIDY, TIDY)


def test_an_already_formatted_read_only_file_is_no_error(tmp_path: Path) -> None:
    path = tmp_path / "m.rly"
    path.write_text(TIDY)
    path.chmod(0o444)
    result = fmt(str(path))
    assert (result.exit_code, result.stderr) == (0, "1 file left unchanged\n")


@needs_root
def test_a_writable_file_in_a_read_only_directory_is_written_in_place(shared_dir: Path) -> None:
    folder = shared_dir / "ro"
    folder.mkdir()
    path = folder / "m.rly"
    path.write_text(MESSY)
    path.chmod(0o666)
    folder.chmod(0o555)
    inode = path.stat().st_ino
    code, _, err = as_nobody(["fmt", str(path)])  # a user who cannot create files there
    assert (code, err) == (0, f"reformatted {path}\n1 file reformatted\n")
    assert path.read_text() == TIDY
    assert path.stat().st_ino == inode and path.stat().st_uid == 0
    assert sorted(p.name for p in folder.iterdir()) == ["m.rly"]


@needs_root
def test_a_file_of_another_user_is_written_in_place_when_its_owner_cannot_be_kept(shared_dir: Path) -> None:
    path = shared_dir / "m.rly"
    path.write_text(MESSY)
    path.chmod(0o666)
    shared_dir.chmod(0o777)
    inode = path.stat().st_ino
    code, _, err = as_nobody(["fmt", str(path)])  # (a rename would make it nobody's)
    assert (code, err) == (0, f"reformatted {path}\n1 file reformatted\n")
    assert path.stat().st_ino == inode
    assert path.read_text() == TIDY
    assert (path.stat().st_uid, path.stat().st_gid) == (0, 0)


def test_a_file_changed_while_formatting_is_left_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import relay_text.formatter as formatter

    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    edited = "def @main(%a,%b){%a*%b}  // saved by an editor\n"
    format_source = formatter.format_source

    def slow_format(*args, **kwargs):
        path.write_text(edited)  # the user saves while fmt works
        return format_source(*args, **kwargs)

    monkeypatch.setattr(formatter, "format_source", slow_format)
    result = fmt(str(path))
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {path}: changed while it was being formatted (another program wrote it); "
        "it was left as it is now: run relay fmt again\n1 file not written\n"
    )
    assert path.read_text() == edited


@pytest.mark.parametrize("change", ["same-size", "replaced"])
def test_replace_checks_identity_and_text(tmp_path: Path, change: str) -> None:
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    inp = read(str(path))
    if change == "same-size":  # same size, same second: the text tells
        mtime = path.stat().st_mtime_ns
        path.write_text(MESSY.replace("+", "*"))
        os.utime(path, ns=(mtime, mtime))
    else:  # an editor's save by rename: another inode
        (tmp_path / "new").write_text(MESSY)
        os.replace(tmp_path / "new", path)
    with pytest.raises(writing.WriteRefused, match="changed while it was being formatted"):
        write_atomic(str(path), TIDY, inp)
    assert path.read_text() != TIDY


def test_no_temporary_file_is_left_when_writing_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.rly"
    path.write_text(MESSY)

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writing.os, "replace", broken_replace)
    result = fmt(str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}: cannot write (No space left on device)")
    assert path.read_text() == MESSY
    assert [p.name for p in tmp_path.iterdir()] == ["m.rly"]


def test_a_signal_while_replacing_waits_for_the_replacement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM arriving between writing the copy and renaming it is acted
    on after the rename: the file is complete and no copy is left."""
    import signal

    from relay_text import interrupts

    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    real_replace = os.replace

    def replace_after_a_signal(src, dst):
        os.kill(os.getpid(), signal.SIGTERM)
        return real_replace(src, dst)

    old = {s: signal.getsignal(s) for s in interrupts.SIGNALS}
    interrupts.install()
    monkeypatch.setattr(writing.os, "replace", replace_after_a_signal)
    try:
        with pytest.raises(interrupts.Interrupted) as caught:
            inp = read(str(path))
            write_atomic(str(path), TIDY, inp)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    assert caught.value.exit_code == 143
    assert path.read_text() == TIDY
    assert [p.name for p in tmp_path.iterdir()] == ["m.rly"]


def test_a_symbolic_link_to_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "link.rly").symlink_to(tmp_path / "pipe")
    result = fmt(str(tmp_path / "link.rly"))
    assert result.exit_code == 2
    assert "is a FIFO (named pipe), not a regular file" in result.stderr
    assert collect([str(tmp_path)]) == []


def test_a_concurrent_writer_never_sees_a_partial_file(tmp_path: Path) -> None:
    """Readers see the old text or the new one while fmt rewrites."""
    path = tmp_path / "m.rly"
    big = "".join(f"def @f{i}(%x:int32){{%x+{i}}}\n" for i in range(400))
    path.write_text(big)
    seen: set[int] = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            try:
                seen.add(len(path.read_bytes()))
            except FileNotFoundError:
                seen.add(-1)

    reader = threading.Thread(target=watch)
    reader.start()
    try:
        assert fmt(str(path)).exit_code == 0
    finally:
        stop.set()
        reader.join()
    assert seen <= {len(big.encode()), len(path.read_bytes())}


def test_the_temporary_copy_stays_unnamed_until_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On Linux the copy has no name while it is written (SIGKILL then
    leaves nothing behind)."""
    if not hasattr(os, "O_TMPFILE"):
        pytest.skip("no O_TMPFILE on this system")
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    names_during_write: list[list[str]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        names_during_write.append(sorted(p.name for p in tmp_path.iterdir()))
        real_fsync(fd)

    monkeypatch.setattr(writing.os, "fsync", fsync)
    write_atomic(str(path), TIDY)
    assert names_during_write == [["m.rly"]]
    assert path.read_text() == TIDY


def test_a_failed_write_in_place_restores_the_original_text(tmp_path: Path) -> None:
    """Writing through the inode (hard links, read-only directories) keeps a
    verified copy of the original and restores it when a write fails."""
    path = tmp_path / "m.rly"
    path.write_text(MESSY)
    original = path.read_bytes()

    real_write = os.write
    calls = [0]

    def failing_write(fd: int, data) -> int:
        calls[0] += 1
        if calls[0] == 2:  # (the first is the backup copy's)
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    inp = read(str(path))
    mp = pytest.MonkeyPatch()
    mp.setattr(writing.os, "write", failing_write)
    try:
        with pytest.raises(OSError, match="No space left"):
            writing._in_place(str(path), str(path), TIDY.encode(), inp.identity, inp.data)
    finally:
        mp.undo()
    assert path.read_bytes() == original
    assert [p.name for p in tmp_path.iterdir()] == ["m.rly"]


@needs_root
def test_stdin_from_a_directory_the_user_cannot_search(shared_dir: Path) -> None:
    """The search for pyproject.toml passes over a directory it may not
    look into (it was an internal error)."""
    inner = shared_dir / "private" / "inner"
    inner.mkdir(parents=True)
    (shared_dir / "private").chmod(0o700)
    code, out, err = as_nobody(["check", "--types", "-"], cwd=inner, input="def @main(%a: int32) { %a }")
    assert (code, out, err) == (0, "@main : fn(Tensor[(), int32]) -> Tensor[(), int32]\n", "No errors in 1 file\n")
    code, out, err = as_nobody(["fmt", "-"], cwd=inner, input=MESSY)
    assert (code, out) == (0, TIDY)


# ---------------------------------------------------------------- files a command creates


def test_a_new_output_file_appears_whole_with_the_umask_permissions(tmp_path: Path) -> None:
    from relay_text.writing import write_output

    out = tmp_path / "model.rly"
    mask = os.umask(0o027)
    try:
        write_output(str(out), b"def @main() { 1 }\n")
    finally:
        os.umask(mask)
    assert out.read_bytes() == b"def @main() { 1 }\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.rly"]


def test_an_existing_output_file_is_replaced_keeping_its_mode_and_links(tmp_path: Path) -> None:
    from relay_text.writing import write_output

    out = tmp_path / "model.rly"
    out.write_text("old\n")
    out.chmod(0o604)
    os.link(out, tmp_path / "other-name.rly")
    write_output(str(out), b"new\n")
    assert out.read_text() == "new\n"
    assert (tmp_path / "other-name.rly").read_text() == "new\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o604
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.rly", "other-name.rly"]
