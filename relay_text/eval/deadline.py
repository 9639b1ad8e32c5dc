"""`relay run --timeout`: a deadline that holds wherever the run is.

A signal handler alone cannot keep it: Python runs its handler between
bytecodes of the main thread, so a kernel that spends seconds inside
numpy (a matrix product in BLAS, which releases the GIL) finishes first,
and a runaway recursion stopped a million calls deep takes seconds more to
unwind (holding the GIL all along). So a watchdog thread waits for the
deadline. When it comes, the watchdog (which gets the GIL at once from a
kernel that released it, and within the interpreter's switch interval
from Python code) reads where the run is from the running thread's
frames: the program's expression being evaluated, with the calls that led
to it, and the operator whose kernel is running; or the stage before the
run (parsing, checking, compiling). Then:

* when the command owns its process (`hard=True`: the `relay` command
  itself), it prints that diagnostic and ends the process (status 1) at
  once: nothing of a run needs cleaning up (its output is written after
  the deadline is over);
* otherwise (the Python API, a test, the fuzzer running the command in
  its own process) it raises RunTimeout in the running thread, which stops
  at its next bytecode with the located diagnostic (`runtime.diagnose`).

Should even the watchdog not get the GIL (a C routine that holds it for
long), `faulthandler` ends the process `LAST_RESORT` seconds after the
deadline, printing the Python stack.

Measured (benchmarks/deadline.py): the command ends 0.1-0.3 s after the
deadline for a 6000x6000 `nn.dense`, a conv3d and a runaway recursion.
"""

from __future__ import annotations

import os
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from ..diagnostics import Diagnostic, codes
from ..limits import RunTimeout

if TYPE_CHECKING:
    from .runtime import Frames

LAST_RESORT = 2.0
"""Seconds after the deadline at which faulthandler ends a process whose
watchdog could not run."""

MAX_FRAMES = 20_000
"""Frames read from a deep recursion, innermost first (further ones are
not counted: reading a million takes longer than the grace period)."""

_STAGES = (
    ("relay_text/syntax/", "parsing"),
    ("relay_text/check/", "checking"),
    ("relay_text/std/", "loading the Prelude for"),
    ("relay_text/eval/optimize", "optimising"),
    ("relay_text/eval/compile", "compiling"),
    ("relay_text/eval/call_sites", "compiling"),
    ("relay_text/eval/args", "making the arguments of"),
)


class Deadline:
    """`with Deadline(seconds, report, name, hard):` around a run."""

    def __init__(self, seconds: float, report: Callable[[Diagnostic], None], name: str, hard: bool = False) -> None:
        self.seconds = seconds
        self.report = report
        self.name = name
        self.hard = hard
        self.target = threading.main_thread().ident
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.finished = False
        self.where: Diagnostic | None = None  # what the watchdog read at the deadline
        self.thread: threading.Thread | None = None
        self.started = 0.0

    def __enter__(self) -> Deadline:
        import time

        self.started = time.time()
        self.thread = threading.Thread(target=self._watch, name="relay-deadline", daemon=True)
        self.thread.start()
        if self.hard:
            import faulthandler

            faulthandler.dump_traceback_later(self.seconds + LAST_RESORT, exit=True)
        return self

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.finished = True
        self.done.set()
        if self.hard:
            import faulthandler

            faulthandler.cancel_dump_traceback_later()

    def stage_message(self) -> str:
        """The message for a RunTimeout that reached the command itself
        (outside the program): where the time ran out."""
        if self.where is not None:
            return self.where.message
        return f"the run took longer than the limit of {self.seconds:g} s (--timeout) while reading {self.name}"

    # ---- the watchdog

    def _watch(self) -> None:
        if self.done.wait(self.seconds):
            return
        with self.lock:
            if self.finished:
                return
            from . import runtime

            running = runtime.running()
            target = running[1] if running is not None else self.target
            frame = sys._current_frames().get(target) if target is not None else None
            self.where = self._diagnostic(frame, running[0] if running is not None else None)
            _log(self.started)
            if not self.hard:
                _raise_in(target, self.seconds)
                return
            # (Not an exception first: unwinding a deep recursion holds the
            # GIL for seconds, and this thread could not end the process.)
            try:
                self.report(self.where)
                sys.stderr.flush()
            finally:
                os._exit(1)

    def _diagnostic(self, frame: FrameType | None, program: Any) -> Diagnostic:
        limit = f"the run took longer than the limit of {self.seconds:g} s (--timeout)"
        frames, innermost, stage, counted = _frames(frame, program)
        if program is None or not frames:
            return Diagnostic(codes.RESOURCE_LIMIT, f"{limit} while {stage} {self.name}", None)
        from .runtime import _add_backtrace, _describe_node

        node = program.node_at(frames[-1][1])
        diag = Diagnostic(
            codes.RESOURCE_LIMIT, limit, getattr(node, "span", None), label="running here when the time ran out"
        )
        if innermost is not None and "relay_text/ops/" in innermost.replace(os.sep, "/"):
            diag.with_note(f"the time ran out inside the kernel of {_describe_node(node)}")
        _add_backtrace(diag, program, frames)
        if not counted:
            diag.with_note(f"the run was more than {MAX_FRAMES:,} frames deep: the calls further out are not counted")
        return diag


def _log(started: float) -> None:
    """`RELAY_DEADLINE_LOG=FILE`: note when the deadline began and when the
    watchdog acted (benchmarks/deadline.py measures the latency with it)."""
    path = os.environ.get("RELAY_DEADLINE_LOG")
    if path:
        import time

        try:
            with open(path, "w", encoding="ascii") as log:
                log.write(f"{started} {time.time()}\n")
        except OSError:
            pass


def _frames(frame: FrameType | None, program: Any) -> tuple[Frames, str | None, str, bool]:
    """The program's frames (see `runtime.Frames`), outermost first; the
    file of the innermost frame of relay_text; the stage the innermost
    frames name ("checking", ...; "reading" if none); whether every frame
    was read."""
    from .runtime import frame_entries

    out: Frames = []
    filename = program.filename if program is not None else None
    innermost = None
    stage = None
    n = 0
    while frame is not None and n < MAX_FRAMES:
        code = frame.f_code
        name = code.co_filename
        if filename is not None and name == filename:
            out.extend(reversed(frame_entries(program, code.co_name, frame.f_lineno, frame)))  # (reversed below)
        elif "relay_text" in name:
            if innermost is None:
                innermost = name
            if stage is None:
                stage = _stage(name)
        frame = frame.f_back
        n += 1
    out.reverse()
    return out, innermost, stage or "reading", frame is None


def _stage(filename: str) -> str | None:
    path = filename.replace(os.sep, "/")
    for part, stage in _STAGES:
        if part in path:
            return stage
    return None


def _raise_in(ident: int | None, seconds: float) -> None:
    """Raise RunTimeout in thread `ident` at its next bytecode."""
    import ctypes

    if ident is None:
        return
    _Expired.seconds = seconds
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(_Expired))


class _Expired(RunTimeout):
    """RunTimeout raised in another thread (created without arguments)."""

    seconds = 0.0

    def __init__(self) -> None:
        super().__init__(type(self).seconds)
