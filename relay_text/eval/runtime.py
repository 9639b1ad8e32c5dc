"""Running a compiled program: deep recursion, errors as diagnostics.

A Relay call is one Python call, so a program that recurses a million
calls deep needs a million Python frames. `execute` raises Python's
recursion limit for the run and runs it on a thread of its own whose stack
is large enough (CPython 3.10 uses about 700 bytes of C stack per Python
call; 3.11 and later use none). Python's limit is set above `max_depth`,
so it is the compiled program's own counter that stops a runaway
recursion, with a `recursion-limit` diagnostic at the call that went too
deep.

Errors become diagnostics located in the program: the traceback's frames
that belong to the compiled program name the lines being executed, and
each line knows its IR node.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable

import numpy as np

from ..diagnostics import Diagnostic
from ..ir.expr import Call, Expr, Match
from .compile import CompiledProgram, DepthExceeded, MatchFailure

DEFAULT_MAX_DEPTH = 2_000_000
_BASE_STACK = 256 * 1024 * 1024
_C_STACK_PER_CALL = 1024 if sys.version_info < (3, 11) else 0
_PYTHON_FRAMES_PER_CALL = 2  # headroom for outlined regions and kernels
_RUN_LOCK = threading.Lock()


class EvalError(Exception):
    """Evaluation failed; carries the located diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def execute(program: CompiledProgram, entry: str, args: tuple = (), max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
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
            try:
                return function(*args)
            except BaseException as exc:  # noqa: BLE001 - every error is reported as a diagnostic
                diag = diagnose(program, exc, max_depth)
                if diag is None:
                    raise
                raise EvalError(diag) from None

    with _RUN_LOCK:
        return run_deep(run, max_depth)


def run_deep(body: Callable[[], Any], max_depth: int) -> Any:
    """Run `body` on a thread with room for `max_depth` nested calls."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = body()
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            outcome["error"] = exc

    stack = _BASE_STACK + max_depth * _C_STACK_PER_CALL
    old_limit = sys.getrecursionlimit()
    needed = max_depth * _PYTHON_FRAMES_PER_CALL + 10_000
    old_stack = threading.stack_size()
    try:
        threading.stack_size(stack)
    except (ValueError, RuntimeError):
        threading.stack_size(64 * 1024 * 1024)
    try:
        worker = threading.Thread(target=target, name="relay-eval", daemon=True)
        if needed > old_limit:
            sys.setrecursionlimit(needed)
        worker.start()
    finally:
        threading.stack_size(old_stack)
    try:
        while worker.is_alive():
            worker.join(0.05)
    finally:
        if not worker.is_alive() and sys.getrecursionlimit() == needed:
            sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        error = outcome.pop("error")
        raise error.with_traceback(None) if isinstance(error, EvalError) else error
    return outcome["value"]


# ---------------------------------------------------------------- diagnostics


def _program_frames(program: CompiledProgram, tb: Any) -> list[tuple[str, int]]:
    """(Python function name, line) of the compiled program's frames in a
    traceback, outermost first."""
    frames = []
    filename = program.filename
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename:
            frames.append((code.co_name, tb.tb_lineno))
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
    if isinstance(exc, DepthExceeded) or isinstance(exc, RecursionError):
        return _depth_diagnostic(program, frames, max_depth)
    if isinstance(exc, MatchFailure):
        match = program.match_sites[exc.site]
        diag = _match_diagnostic(match, exc.value)
        _add_backtrace(diag, program, frames[:-1])
        return diag
    if isinstance(exc, (NameError, UnboundLocalError, SyntaxError)) and _raised_in_program(program, exc):
        return None  # a fault of the compiler, reported as an internal error
    node = innermost_node
    span = getattr(node, "span", None)
    if isinstance(exc, ZeroDivisionError) or (isinstance(exc, FloatingPointError) and "divide" in str(exc)):
        diag = Diagnostic("division-by-zero", "integer division by zero", span, label="the divisor is zero")
    elif isinstance(exc, MemoryError):
        diag = Diagnostic("runtime-error", "out of memory", span, label="while evaluating this")
    else:
        what = _describe_node(node)
        message = str(exc) or type(exc).__name__
        diag = Diagnostic("runtime-error", f"{what} failed: {message}", span, label="failed here")
    _add_backtrace(diag, program, frames[:-1])
    return diag


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
        text = f"{value.con.name}(...)" if isinstance(value, Data) and value.fields else text.split("\n")[0][:57] + "..."
    span = getattr(match.data, "span", None) or match.span
    diag = Diagnostic("match-failure", f"no clause matches the value `{text}`", span, label="this value")
    if isinstance(value, Data):
        diag.with_note(f"the value was built by `{value.con.name}`, which no clause accepts")
    if not match.complete:
        diag.with_help("`match?` allows clauses to leave values out; add a clause for this case, or use `match` to have it checked")
    return diag


def _depth_diagnostic(program: CompiledProgram, frames: list[tuple[str, int]], max_depth: int) -> Diagnostic:
    # The innermost frame is the function whose entry went over the limit;
    # the frame around it holds the call that entered it.
    call_node = program.node_at(frames[-2][1]) if len(frames) > 1 else program.node_at(frames[-1][1])
    span = getattr(call_node, "span", None)
    diag = Diagnostic(
        "recursion-limit",
        f"evaluation went deeper than {max_depth:,} nested calls",
        span,
        label="this call went too deep",
    )
    counts: dict[str, int] = {}
    for name, _ in frames:
        label = program.function_names.get(name, name)
        counts[label] = counts.get(label, 0) + 1
    busiest = sorted(counts.items(), key=lambda kv: -kv[1])[:2]
    described = " and ".join(f"`{name}` ({n:,} calls)" for name, n in busiest if name != "region")
    if described:
        diag.with_note(f"the calls in progress were mostly {described}")
    diag.with_help("if the recursion is meant to go this deep, raise the limit with `--max-depth`")
    return diag


def _add_backtrace(diag: Diagnostic, program: CompiledProgram, frames: list[tuple[str, int]], limit: int = 4) -> None:
    """Notes naming the calls that led to the error, innermost first."""
    calls: list[str] = []
    previous = None
    repeats = 0
    for name, line in reversed(frames):
        node = program.node_at(line)
        span = getattr(node, "span", None)
        if span is None or not isinstance(node, Call):
            continue
        where = program.function_names.get(name, name)
        if where == "region":
            continue
        text = f"called from {where} at {span}" if where != "fn" else f"called from a closure at {span}"
        if text == previous:
            repeats += 1
            continue
        if repeats:
            calls.append(f"... the same call {repeats:,} more times")
            repeats = 0
        previous = text
        calls.append(text)
        if len(calls) >= limit:
            break
    if repeats:
        calls.append(f"... the same call {repeats:,} more times")
    for text in calls:
        diag.with_note(text)
