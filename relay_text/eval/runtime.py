"""Running a compiled program: deep recursion, errors as diagnostics.

A Relay call is one Python call, so a program that recurses a million
calls deep needs a million Python frames. `execute` raises Python's
recursion limit for the run (above `max_depth`, so that the compiled
program's own counter stops a runaway recursion first, with a
`recursion-limit` diagnostic at the call that went too deep). CPython 3.11
and later need nothing more; on 3.10, which uses about 700 bytes of C stack
per Python call, the run gets a thread with a stack large enough; the
timeout's signal, which only the main thread receives, is passed on to that
thread, so that the run stops where it is on every version.

Errors become diagnostics located in the program: the traceback's frames
that belong to the compiled program name the lines being executed, and
each line knows its IR node.
"""

from __future__ import annotations

import contextlib
import gc
import os
import queue
import sys
import threading
from typing import Any
from collections.abc import Callable, Iterator

import numpy as np

from ..diagnostics import Diagnostic, codes
from ..limits import LimitExceeded, RunTimeout, refused_by_system, resident
from ..ir.expr import Call, Expr, Match
from ..ir.span import PRELUDE_SOURCE_NAME, Span
from .code import DepthExceeded, MatchFailure
from .compile import CompiledProgram

DEFAULT_MAX_DEPTH = 2_000_000
_BASE_STACK = 256 * 1024 * 1024
_MAX_STACK = 16 * 1024**3  # address space only; pages are used as the stack grows
_C_STACK_PER_CALL = 1024 if sys.version_info < (3, 11) else 0
_PYTHON_FRAMES_PER_CALL = 2  # headroom for outlined regions and kernels
_RUN_LOCK = threading.Lock()
GC_THRESHOLD = 20_000


_RUNNING: list[tuple[CompiledProgram, int]] = []  # the program being run, and its thread


def running() -> tuple[CompiledProgram, int] | None:
    """The program being run now and the thread that runs it (for the
    deadline's watchdog, `eval.deadline`), or None."""
    return _RUNNING[-1] if _RUNNING else None


class EvalError(Exception):
    """Evaluation failed; carries the located diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def execute(
    program: CompiledProgram, entry: str, args: tuple[Any, ...] = (), max_depth: int = DEFAULT_MAX_DEPTH
) -> Any:
    """Call an entry of a compiled program; raises EvalError on a runtime error.

    Ctrl-C (KeyboardInterrupt) propagates to the caller at once."""
    if max_depth < 1:
        raise ValueError("max_depth must be at least 1")
    function = program.function(entry)
    ns = program.namespace

    def run() -> Any:
        ns["DEPTH"] = 0
        ns["MAXD"] = max_depth
        with np.errstate(all="ignore"):
            _RUNNING.append((program, threading.get_ident()))
            try:
                return function(*args)
            except BaseException as exc:
                diag = diagnose(program, exc, max_depth)
                if diag is None:
                    raise
                raise EvalError(diag) from None
            finally:
                _RUNNING.pop()

    with _RUN_LOCK, relaxed_gc():
        return run_deep(run, max_depth)


@contextlib.contextmanager
def relaxed_gc() -> Iterator[None]:
    """Collect cyclic garbage less often while a program runs.

    Relay values rarely form cycles (only through references and recursive
    closures), but a program that builds a list of a million cells makes
    the default collector rescan the growing heap over and over; with a
    larger first-generation threshold that costs about half the run time
    less, and cycles are still collected."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_THRESHOLD), old[1], old[2])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def run_deep(body: Callable[[], Any], max_depth: int) -> Any:
    """Run `body` with room for `max_depth` nested calls.

    From CPython 3.11 on, a Python call made by Python code uses no C
    stack, so raising the recursion limit is enough and `body` runs on the
    calling thread (Ctrl-C reaches it directly). CPython 3.10 recurses in C
    for every call: there `body` runs on a thread with a stack sized for
    `max_depth` calls."""
    needed = min(max_depth * _PYTHON_FRAMES_PER_CALL + 10_000, 2**31 - 1)  # (the interpreter's limit is a C int)
    old_limit = sys.getrecursionlimit()
    if needed > old_limit:
        sys.setrecursionlimit(needed)
    try:
        if _C_STACK_PER_CALL == 0:
            return body()
        return _on_big_stack(body, min(_BASE_STACK + max_depth * _C_STACK_PER_CALL, _MAX_STACK))
    finally:
        if sys.getrecursionlimit() == needed:
            sys.setrecursionlimit(old_limit)


class _BigStackWorker:
    """A thread with a large stack that runs one job at a time (CPython 3.10).

    Kept between runs: creating a thread with a stack of gigabytes costs
    about a third of a millisecond, more than a small program takes."""

    def __init__(self, stack: int) -> None:
        self.stack = stack
        # (body, outcome, done); a None body stops the thread
        self.jobs: queue.SimpleQueue[tuple[Any, Any, Any]] = queue.SimpleQueue()
        old_stack = threading.stack_size()
        try:
            threading.stack_size(stack)
        except (ValueError, RuntimeError):
            threading.stack_size(64 * 1024 * 1024)
        try:
            self.thread = threading.Thread(target=self.loop, name="relay-eval", daemon=True)
            try:
                self.thread.start()
            except RuntimeError:  # the system refused a stack that large
                threading.stack_size(_BASE_STACK)
                self.stack = _BASE_STACK
                self.thread = threading.Thread(target=self.loop, name="relay-eval", daemon=True)
                self.thread.start()
        finally:
            threading.stack_size(old_stack)

    def loop(self) -> None:
        while True:
            try:
                body, outcome, done = self.jobs.get()
            except RunTimeout:  # a timeout delivered just after the last job ended
                continue
            if body is None:
                return  # retired (see `_on_big_stack`)
            try:
                outcome["value"] = body()
            except BaseException as exc:
                outcome["error"] = exc
            finally:
                done.set()
                # Waiting for the next job, the loop must not keep this one's
                # program (and its constants) alive.
                body = outcome = done = None

    def interrupt(self, seconds: float) -> bool:
        """Raise RunTimeout inside the job this thread is running, at its
        next Python instruction (a numpy kernel in progress finishes first)."""
        import ctypes

        _DeliveredTimeout.seconds = seconds
        ident = self.thread.ident
        if ident is None:
            return False
        delivered: int = ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(ident), ctypes.py_object(_DeliveredTimeout)
        )
        return delivered == 1


class _DeliveredTimeout(RunTimeout):
    """The timeout raised inside the evaluator thread (an exception raised
    in another thread is created without arguments: the limit is kept here)."""

    seconds = 0.0

    def __init__(self) -> None:
        super().__init__(type(self).seconds)


_DELIVERY_GRACE = 10.0
"""Seconds the calling thread waits for a run to stop after its timeout was
delivered to the evaluator thread, before abandoning it."""


_WORKERS: list[_BigStackWorker] = []

_RETIRE_AFTER_GROWTH = 256 * 1024 * 1024
"""Bytes the process may grow by during one run on the evaluator thread
before the thread is retired after it."""


def _forget_workers() -> None:
    """A forked process has only the thread that forked: the parent's
    evaluator thread is not there to take jobs."""
    _WORKERS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


def _on_big_stack(body: Callable[[], Any], stack: int) -> Any:
    worker = _WORKERS[0] if _WORKERS and _WORKERS[0].stack >= stack and _WORKERS[0].thread.is_alive() else None
    if worker is None:
        worker = _BigStackWorker(stack)
        _WORKERS[:] = [worker]
    outcome: dict[str, Any] = {}
    done = threading.Event()
    held = resident()
    worker.jobs.put((body, outcome, done))
    try:
        try:
            while not done.wait(0.05):  # wakes up for Ctrl-C and the timeout's signal
                pass
        except RunTimeout as exc:
            # The signal reached this thread: the program runs in the other
            # one, where the timeout must stop it to be reported at its place.
            if not done.is_set() and not (worker.interrupt(exc.seconds) and done.wait(_DELIVERY_GRACE)):
                raise
    except BaseException:
        _WORKERS.clear()  # the worker may still be busy with the abandoned run
        raise
    if resident() - held > _RETIRE_AFTER_GROWTH:
        # A deep run touched much of the stack, and those pages stay with
        # the thread (they would count against --max-memory of later runs):
        # end it, and its stack goes back to the system.
        worker.jobs.put((None, None, None))
        _WORKERS.clear()
    if "error" in outcome:
        raise outcome.pop("error")
    return outcome["value"]


# ---------------------------------------------------------------- diagnostics


Frames = list[tuple[str, int, int]]
"""The compiled program's frames, outermost first: (Python function name,
line, the nested calls the entry stands for)."""


def frame_entries(program: CompiledProgram, name: str, line: int, frame: Any) -> Frames:
    """The entries of one frame of the program: one, or for a function
    running its self tail calls as a loop (see `emit`) in its `n`th
    iteration, entries for the `n - 1` calls it made of itself and one for
    where the frame is. The loop records where its latest self call was
    made and how many in a row were made there; the calls before those get
    the line 0 (a place not known)."""
    sites = program.loops.get(name)
    if sites is not None:
        f_locals = frame.f_locals
        loops, last, same = f_locals.get("LOOPS"), f_locals.get("LAST"), f_locals.get("SAME")
        if type(loops) is int and type(same) is int and 0 < same < loops and last in sites:
            earlier = loops - 1 - same
            entries = [(name, 0, earlier)] if earlier else []
            return [*entries, (name, program.line_of(program.tail_sites[last]), same), (name, line, 1)]
    return [(name, line, 1)]


def _program_frames(program: CompiledProgram, tb: Any) -> Frames:
    """The compiled program's frames in a traceback (see `Frames`)."""
    frames: Frames = []
    filename = program.filename
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename:
            frames.extend(frame_entries(program, code.co_name, tb.tb_lineno, tb.tb_frame))
        tb = tb.tb_next
    return frames


def diagnose(program: CompiledProgram, exc: BaseException, max_depth: int) -> Diagnostic | None:
    """The diagnostic for an exception raised while running, or None for
    exceptions that are not the program's fault (interrupts, bugs)."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        return None
    frames = _program_frames(program, exc.__traceback__)
    if not frames:
        return None
    innermost_node = program.node_at(frames[-1][1])
    if isinstance(exc, (DepthExceeded, RecursionError)):
        return _depth_diagnostic(program, frames, max_depth, isinstance(exc, DepthExceeded) and exc.tail)
    if isinstance(exc, (LimitExceeded, RunTimeout)):
        span = getattr(innermost_node, "span", None)
        label = exc.label if isinstance(exc, LimitExceeded) else "running here when the time ran out"
        diag = Diagnostic(codes.RESOURCE_LIMIT, str(exc), span, label=label)
        _add_backtrace(diag, program, frames)
        return diag
    if isinstance(exc, MatchFailure):
        match = program.match_sites[exc.site]
        diag = _match_diagnostic(match, exc.value)
        _add_backtrace(diag, program, frames)
        return diag
    if isinstance(exc, (NameError, UnboundLocalError, SyntaxError)) and _raised_in_program(program, exc):
        return None  # a fault of the compiler, reported as an internal error
    node = innermost_node
    span = getattr(node, "span", None)
    code = getattr(exc, "code", None)
    if type(exc).__name__ == "KernelError" and isinstance(code, codes.Code):
        # A value-dependent failure the operator itself describes.
        diag = Diagnostic(code, str(exc), span, label="failed here")
        if code == codes.DIVISION_BY_ZERO:
            _label_divisor(diag, program, node)
    elif isinstance(exc, ZeroDivisionError) or (isinstance(exc, FloatingPointError) and "divide" in str(exc)):
        diag = Diagnostic(codes.DIVISION_BY_ZERO, "integer division by zero", span, label="failed here")
        _label_divisor(diag, program, node)
    elif isinstance(exc, MemoryError):
        # (the system refused an allocation that --max-memory allowed)
        diag = Diagnostic(codes.RESOURCE_LIMIT, refused_by_system("this"), span, label="while evaluating this")
    else:
        what = _describe_node(node)
        message = str(exc) or type(exc).__name__
        diag = Diagnostic(codes.RUNTIME_ERROR, f"{what} failed: {message}", span, label="failed here")
    _add_backtrace(diag, program, frames)
    return diag


def _label_divisor(diag: Diagnostic, program: CompiledProgram, node: Expr | None) -> None:
    """Point at the divisor of `a / b` (or `divide(a, b)`, `mod(a, b)`)."""
    if not isinstance(node, Call) or len(node.args) != 2:
        return
    divisor = program.written_at(node, 2)  # children: op, a, b
    if divisor is not None and diag.span is not None and divisor.source is diag.span.source:
        diag.label = "divided by zero"
        diag.with_label(divisor, "the divisor")


def _raised_in_program(program: CompiledProgram, exc: BaseException) -> bool:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and last.tb_frame.f_code.co_filename == program.filename


def _describe_node(node: Expr | None) -> str:
    if isinstance(node, Call):
        op = node.op
        name = getattr(op, "name", None)
        if name is not None and type(op).__name__ == "Op":
            return f"operator `{name}`"
        if name is not None and type(op).__name__ == "GlobalVar":
            return f"the call of `@{name}`"
        return "this call"
    return "evaluation"


def _match_diagnostic(match: Match, value: Any) -> Diagnostic:
    from .show import value_text
    from .values import Data

    text = value_text(value)
    if len(text) > 60 or "\n" in text:
        text = (
            f"{value.con.name}(...)" if isinstance(value, Data) and value.fields else text.split("\n")[0][:57] + "..."
        )
    diag = Diagnostic(
        codes.MATCH_FAILURE, f"no clause matches the value `{text}`", _match_head(match), label="no clause matches"
    )
    if isinstance(value, Data):
        diag.with_note(f"the value was built by `{value.con.name}`, which no clause accepts")
    if not match.complete and not _in_prelude(match):
        diag.with_help(
            "`match?` allows clauses to leave values out; add a clause for this case, or use `match` to have it checked"
        )
    return diag


def _in_prelude(node: Expr) -> bool:
    span = getattr(node, "span", None)
    return span is not None and span.source.name == PRELUDE_SOURCE_NAME


def _match_head(match: Match) -> Span | None:
    """`match (%l)`: the keyword and the matched expression, without the
    clauses (a variable's own span is where it is bound, not used)."""
    span = match.span
    if span is None:
        return None
    text = span.source.text
    brace = text.find("{", span.start, span.end)
    end = brace if brace != -1 else span.end
    while end > span.start and text[end - 1].isspace():
        end -= 1
    return Span(span.source, span.start, end)


def _depth_diagnostic(program: CompiledProgram, frames: Frames, max_depth: int, tail: bool = False) -> Diagnostic:
    # The innermost frame is the function whose entry went over the limit;
    # the frame around it holds the call that entered it. After a self tail
    # call (`tail`), the innermost frame is the caller itself, at the call.
    at = frames[-1] if tail or len(frames) == 1 else frames[-2]
    call_node = program.node_at(at[1])
    span = getattr(call_node, "span", None)
    diag = Diagnostic(
        codes.RECURSION_LIMIT,
        f"evaluation went deeper than {max_depth:,} nested calls",
        span,
        label="this call went too deep",
    )
    counts: dict[str, int] = {}
    for name, _, times in frames if tail else frames[:-1]:  # the innermost call never started
        label = program.function_names.get(name, name)
        counts[label] = counts.get(label, 0) + times
    busiest = sorted(counts.items(), key=lambda kv: -kv[1])[:2]
    described = " and ".join(f"`{name}` ({n:,} call{'' if n == 1 else 's'})" for name, n in busiest if name != "region")
    if described:
        diag.with_note(f"the calls in progress were mostly {described}")
    if tail:
        looping = program.function_names.get(frames[-1][0], "fn")
        who = "the closure" if looping == "fn" else f"`{looping}`"
        diag.with_note(f"{who} calls itself last, as a loop: a higher limit lets it run longer, not hold more memory")
    diag.with_help("if the recursion is meant to go this deep, raise the limit with `--max-depth`")
    return diag


def _add_backtrace(diag: Diagnostic, program: CompiledProgram, frames: Frames, limit: int = 4) -> None:
    """Notes naming the calls that led to the error, innermost first:
    "`@hd` was called at prog.rly:3:5, in `@main`"."""
    names = program.function_names
    # Outlined regions belong to the function around them.
    relay_frames = [(names.get(name, name), line, times) for name, line, times in frames]
    calls: list[str] = []
    previous = None
    previous_key: tuple[Any, ...] | None = None
    repeats = 0
    callee_index = len(relay_frames) - 1
    while callee_index > 0 and len(calls) < limit:
        callee, line, times = relay_frames[callee_index]
        # An entry standing for `times` calls of a function by itself (see
        # `frame_entries`): at `line`, the same call as the one just
        # counted, `times - 1` more times; at a place not known, a note.
        if times > 1 and previous_key == (callee, line, callee):
            repeats += times - 1
        elif line == 0:
            if repeats:
                calls.append(f"... the same call {repeats:,} more time{'s' if repeats != 1 else ''}")
                repeats = 0
            who = "the closure" if callee == "fn" else f"`{callee}`"
            calls.append(f"... and {times:,} more call{'s' if times != 1 else ''} of {who} by itself before that")
            previous = previous_key = None
        caller_index = callee_index - 1
        while caller_index > 0 and relay_frames[caller_index][0] == "region":
            caller_index -= 1
        caller = relay_frames[caller_index][0]
        # The same frames as the last counted call: the same note (compared
        # first: a deep recursion repeats one call millions of times).
        key = (callee, relay_frames[callee_index - 1][1], caller)
        if key == previous_key:
            callee_index = caller_index
            repeats += 1
            continue
        node = program.node_at(relay_frames[callee_index - 1][1])
        callee_index = caller_index
        if callee == "region" or not isinstance(node, Call) or node.span is None:
            continue
        previous_key = key
        who = "a closure" if callee == "fn" else f"`{callee}`"
        where = "a closure" if caller == "fn" else f"`{caller}`"
        text = f"{who} was called at {node.span}, in {where}"
        if text == previous:
            repeats += 1
            continue
        if repeats:
            calls.append(f"... the same call {repeats:,} more time{'s' if repeats != 1 else ''}")
            repeats = 0
        previous = text
        calls.append(text)
    if repeats:
        calls.append(f"... the same call {repeats:,} more time{'s' if repeats != 1 else ''}")
    for text in calls:
        diag.with_note(text)
