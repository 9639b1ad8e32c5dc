"""Mode `environment`: `relay fmt` and `relay check` in a hostile
environment rather than on hostile text.

Each case is one scenario, drawn at random, run on real processes in a
scratch directory:

- interrupt  `relay fmt --jobs 2` on a few dozen files, stopped at a random
             moment by SIGINT, SIGTERM, SIGHUP or SIGKILL
- edit       a file rewritten by "an editor" while `relay fmt` formats it
- special    FIFOs, sockets and device links named `*.rly`, a read-only
             file and a read-only directory among ordinary files, for
             `relay check DIR` and `relay fmt DIR`

The oracle: no file changed wrongly (each is as it was, or exactly what
`relay fmt` makes of it; an edit is never lost; special and read-only files
are left alone), no temporary file left, no hang, no process left behind,
no traceback.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .oracles import Failure
import contextlib

ROOT = Path(__file__).resolve().parent.parent
HANG_SECONDS = 60.0
KINDS = ("interrupt", "edit", "special")


def _relay(args: list[str], **kwargs: object) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("RELAY_DEBUG", None)
    return subprocess.Popen(
        [sys.executable, "-m", "relay_text", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
        **kwargs,  # type: ignore[arg-type]
    )


def _finish(proc: subprocess.Popen, failures: list[Failure], what: str) -> str:
    """Wait for a command (a hang is a failure; it is then killed); its stderr."""
    try:
        _, err = proc.communicate(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        failures.append(Failure("hang", "fmt", f"{what}: still running after {HANG_SECONDS:g} s"))
    text = err.decode("utf-8", "replace")
    if _at_startup(text):
        return text
    if "Traceback" in text or "internal error" in text:
        failures.append(Failure("internal", "fmt", f"{what}: {_exception_line(text)[:200]}"))
    return text


def _exception_line(stderr: str) -> str:
    """The line that names the exception of a traceback (or the internal error)."""
    lines = stderr.splitlines()
    for _i, line in enumerate(lines):
        if line.startswith("internal error"):
            return line
    in_trace = False
    found = ""
    for line in lines:
        if line.startswith("Traceback") or line.startswith("Exception ignored"):
            in_trace = True
        elif in_trace and line and not line.startswith(" "):
            found, in_trace = line, False
    return found or stderr.strip()[-200:]


def _at_startup(stderr: str) -> bool:
    """Whether a Ctrl-C reached Python itself, before the command began
    (while the interpreter imported its site packages or relay_text's
    modules, before the command installs its handlers): Python's own
    traceback and exit, and no file was touched yet (the oracle on the files
    still holds)."""
    lines = stderr.strip().splitlines()
    if not lines or lines[-1] != "KeyboardInterrupt":
        return False
    # (site packages, or relay_text's own modules, still being imported: its
    # frames in the traceback are all module bodies)
    import re

    frames = re.findall(r'File "([^"]*)", line \d+, in (\S+)', stderr)
    return all(name == "<module>" for path, name in frames if "relay_text" in path)


def _left_processes(pgid: int, seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while True:
        alive = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(int(entry))
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


def _temporaries(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob(".relay-fmt-*"))


def _formatted(texts: dict[str, str], scratch: Path) -> dict[str, str]:
    """What `relay fmt` makes of each file (formatted in a copy, uninterrupted)."""
    reference = scratch / "reference"
    reference.mkdir()
    for name, text in texts.items():
        (reference / name).write_text(text, encoding="utf-8")
    proc = _relay(["fmt", "--jobs", "1", str(reference)])
    proc.communicate(timeout=600)
    return {name: (reference / name).read_text(encoding="utf-8") for name in texts}


def _files(rng: random.Random, seeds: list[tuple[str, str]], count: int) -> dict[str, str]:
    """`count` files made from the seeds: some as they are, some squashed
    onto fewer lines (so that formatting changes them)."""
    out = {}
    for i in range(count):
        _, text = rng.choice(seeds)
        if rng.random() < 0.6:
            text = "\n".join(line.strip() for line in text.splitlines())
        out[f"f{i:03}.rly"] = text
    return out


def interrupt(rng: random.Random, seeds: list[tuple[str, str]], scratch: Path) -> tuple[str, list[Failure]]:
    texts = _files(rng, seeds, rng.randint(20, 60))
    formatted = _formatted(texts, scratch)
    folder = scratch / "work"
    folder.mkdir()
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    signum = rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
    delay = rng.uniform(0.0, 2.0)
    origin = f"interrupt: {len(texts)} files, {signal.Signals(signum).name} after {delay:.2f} s"
    failures: list[Failure] = []
    proc = _relay(["fmt", "--jobs", "2", str(folder)])
    time.sleep(delay)
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signum)
    err = _finish(proc, failures, origin)
    expected = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGKILL: -9}[signum]
    # (a signal before the command installed its handlers ends Python itself)
    startup = (1, -signal.SIGINT) if signum == signal.SIGINT and _at_startup(err) else ()
    if proc.returncode not in (0, expected, 2, -signum, *startup):
        failures.append(Failure("exit", "fmt", f"{origin}: exit status {proc.returncode}"))
    left = _left_processes(proc.pid)
    if left:
        failures.append(Failure("leftover", "fmt", f"{origin}: {len(left)} processes still running"))
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    wrong = [
        name for name in texts if (folder / name).read_text(encoding="utf-8") not in (texts[name], formatted[name])
    ]
    if wrong:
        failures.append(
            Failure("lost", "fmt", f"{origin}: {len(wrong)} files neither original nor formatted ({wrong[0]})")
        )
    if _temporaries(folder):
        failures.append(Failure("leftover", "fmt", f"{origin}: temporary files left: {_temporaries(folder)[:3]}"))
    return origin, failures


def edit(rng: random.Random, seeds: list[tuple[str, str]], scratch: Path) -> tuple[str, list[Failure]]:
    _, text = max(rng.sample(seeds, min(4, len(seeds))), key=lambda s: len(s[1]))
    text = "\n".join(line.strip() for line in text.splitlines())
    edited = text + "\n// saved by an editor\n"
    path = scratch / "edited.rly"
    path.write_text(text, encoding="utf-8")
    formatted_edit = _formatted({"edited.rly": edited}, scratch)["edited.rly"]
    delay = rng.uniform(0.0, 1.5)
    by_rename = rng.random() < 0.5
    origin = f"edit: {len(text)} chars, saved {'by rename' if by_rename else 'in place'} after {delay:.2f} s"
    failures: list[Failure] = []
    proc = _relay(["fmt", str(path)])
    time.sleep(delay)
    if by_rename:
        (scratch / "edited.new").write_text(edited, encoding="utf-8")
        os.replace(scratch / "edited.new", path)
    else:
        path.write_text(edited, encoding="utf-8")
    _finish(proc, failures, origin)
    now = path.read_text(encoding="utf-8")
    if now not in (edited, formatted_edit):
        failures.append(Failure("lost", "fmt", f"{origin}: the edit was lost (exit {proc.returncode})"))
    if _temporaries(scratch):
        failures.append(Failure("leftover", "fmt", f"{origin}: temporary files left"))
    return origin, failures


def special(rng: random.Random, seeds: list[tuple[str, str]], scratch: Path) -> tuple[str, list[Failure]]:
    folder = scratch / "tree"
    (folder / "sub").mkdir(parents=True)
    texts = _files(rng, seeds, rng.randint(2, 6))
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    made = []
    fifo = folder / rng.choice(["pipe.rly", "sub/pipe.relay"])
    os.mkfifo(fifo)
    made.append("fifo")
    if rng.random() < 0.5:
        sock = socket.socket(socket.AF_UNIX)
        try:
            sock.bind(str(folder / "sock.rly"))
            made.append("socket")
        except OSError:
            pass
        finally:
            sock.close()
    if rng.random() < 0.5:
        (folder / "null.rly").symlink_to("/dev/null")
        made.append("device link")
    readonly = folder / "readonly.rly"
    readonly.write_text("def @main(){1}\n", encoding="utf-8")
    readonly.chmod(0o444)
    locked = folder / "sub" / "locked"
    locked.mkdir()
    (locked / "inner.rly").write_text("def @main(){2}\n", encoding="utf-8")
    (locked / "inner.rly").chmod(0o666)
    locked.chmod(0o555)
    origin = f"special: {', '.join(made)}, a read-only file and directory among {len(texts)} files"
    failures: list[Failure] = []
    for args in (["check", str(folder)], ["fmt", "--check", str(folder)], ["fmt", str(folder)], ["fmt", str(fifo)]):
        proc = _relay(args)
        _finish(proc, failures, f"{origin} ({' '.join(args[:-1])})")
        if proc.returncode not in (0, 1, 2):
            failures.append(Failure("exit", "fmt", f"{origin}: `{' '.join(args[:-1])}` exit status {proc.returncode}"))
    if not stat.S_ISFIFO(os.lstat(fifo).st_mode):
        failures.append(Failure("lost", "fmt", f"{origin}: the FIFO was replaced"))
    if readonly.read_text(encoding="utf-8") != "def @main(){1}\n":
        failures.append(Failure("lost", "fmt", f"{origin}: a read-only file was rewritten without --force"))
    if (folder / "null.rly").is_symlink() and os.readlink(folder / "null.rly") != "/dev/null":
        failures.append(Failure("lost", "fmt", f"{origin}: the link to /dev/null was replaced"))
    locked.chmod(0o755)
    if _temporaries(folder):
        failures.append(Failure("leftover", "fmt", f"{origin}: temporary files left"))
    return origin, failures


SCENARIOS = {"interrupt": interrupt, "edit": edit, "special": special}


def run_scenario(rng: random.Random, seeds: list[tuple[str, str]]) -> tuple[str, list[Failure]]:
    """One scenario, in a scratch directory removed afterwards."""
    kind = rng.choice(KINDS)
    scratch = Path(tempfile.mkdtemp(prefix="relay-fuzz-env-"))
    try:
        return SCENARIOS[kind](rng, seeds, scratch)
    finally:
        for root, dirs, _ in os.walk(scratch):
            for d in dirs:
                with contextlib.suppress(OSError):
                    os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(scratch, ignore_errors=True)


def environment_seeds() -> list[tuple[str, str]]:
    """Seed files that check and format (so that formatting them is meaningful)."""
    from .mutate import seed_texts

    from relay_text.formatter import format_source
    from relay_text.ir.span import Source

    out = []
    for name, text in seed_texts():
        if len(text) > 40_000:
            continue
        try:
            if format_source(Source(name, text)).text is not None:
                out.append((name, text))
        except Exception:
            continue
    return out
