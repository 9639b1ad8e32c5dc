"""Progress of a run, shown on a terminal.

`relay run` on a terminal shows, once a run has taken a second, what it is
doing: the stage (checking, compiling, running `@main`), the operator
calls made so far (calls on scalars, which take a fast path, are not
counted), how deep the nested calls go when a program recurses
deeply, and the time elapsed. It is redrawn a few times a second on
standard error by rich's live display, and erased when the run ends; a
one-line account stays. Nothing is shown when standard error is not a
terminal (a pipe, a file, CI), on a `TERM=dumb` terminal, or for a run
that ends within the first second (`RELAY_PROGRESS_DELAY=SECONDS` sets
how long to wait).

The stages report through `stage` and `running`, which do nothing unless
a display is active (`terminal_progress`), so that the Python API and
piped runs pay nothing. While a display is active, the compiled program's
operator kernels are wrapped to count their calls (a counter increment
each), and the depth of nested calls is read from the program's own
counter.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from typing import IO, Any
from collections.abc import Callable, Iterator

DELAY = 1.0  # seconds before the display appears (RELAY_PROGRESS_DELAY sets it)
REFRESH = 8  # redraws a second
DEEP = 1_000  # nested calls from which the depth is shown

# How the compiler names operator kernels and in-place steps; the scalar
# fast path (`S...`, a few hundred nanoseconds a call) is not counted, as
# counting would cost as much as the operation.
_KERNEL_NAME = re.compile(r"[KI]\d+\Z")


class Tracker:
    """What a run is doing, as the display reads it."""

    def __init__(self) -> None:
        self.stage = "reading"
        self.started = time.monotonic()
        self.calls = [0]  # operator calls so far (a cell the kernels' wrappers add to)
        self.namespace: dict[str, Any] | None = None  # the running program's (its DEPTH)
        self.max_depth = 0
        self.entry = ""

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def depth(self) -> int:
        ns = self.namespace
        if ns is None:
            return 0
        depth = ns.get("DEPTH", 0)
        return depth if isinstance(depth, int) else 0

    def line(self) -> str:
        """`running @main: 12,345 operator calls, depth 250,000 (limit 2,000,000), 3.2 s`"""
        parts = [self.stage]
        if self.calls[0]:
            parts.append(f"{self.calls[0]:,} operator call{'' if self.calls[0] == 1 else 's'}")
        depth = self.depth()
        if depth >= DEEP:
            parts.append(f"depth {depth:,} (limit {self.max_depth:,})")
        parts.append(f"{self.elapsed():.1f} s")
        return ", ".join(parts)

    def account(self) -> str:
        """The line left once the run is over."""
        what = f"ran {self.entry}" if self.entry else f"stopped while {self.stage}"
        calls = f" ({self.calls[0]:,} operator call{'' if self.calls[0] == 1 else 's'})" if self.calls[0] else ""
        return f"{what} in {self.elapsed():.1f} s{calls}"


_ACTIVE: list[Tracker] = []


def stage(name: str) -> None:
    """Report the stage a run has reached (nothing without a display)."""
    if _ACTIVE:
        _ACTIVE[-1].stage = name


@contextlib.contextmanager
def running(namespace: dict[str, Any], entry: str, max_depth: int) -> Iterator[None]:
    """Around the call of a compiled program's entry `entry`: with a display
    active, count the calls of its operators and show its depth."""
    if not _ACTIVE:
        yield
        return
    tracker = _ACTIVE[-1]
    originals = {name: fn for name, fn in namespace.items() if _KERNEL_NAME.match(name) and callable(fn)}
    cell = tracker.calls
    for name, fn in originals.items():
        namespace[name] = _counted(fn, cell, len(getattr(fn, "parts", ())) or 1)
    tracker.namespace, tracker.max_depth = namespace, max_depth
    tracker.stage = f"running {entry}"
    tracker.entry = entry
    try:
        yield
    finally:
        namespace.update(originals)
        tracker.namespace = None


def _counted(fn: Callable[..., Any], cell: list[int], steps: int) -> Callable[..., Any]:
    """`fn`, adding `steps` to `cell[0]` at each call (a fused chain of
    in-place steps counts each of its operators)."""

    def counted(*args: Any) -> Any:
        cell[0] += steps
        return fn(*args)

    return counted


def _delay() -> float:
    try:
        return max(0.0, float(os.environ.get("RELAY_PROGRESS_DELAY", DELAY)))
    except ValueError:
        return DELAY


def wanted(stream: IO[str]) -> bool:
    """Whether to show progress on `stream`: a terminal that is not dumb."""
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


@contextlib.contextmanager
def terminal_progress(stream: IO[str], color: bool = True, enabled: bool | None = None) -> Iterator[Tracker | None]:
    """Show the progress of what runs inside on `stream` if it is a terminal
    (`enabled` decides instead when given): from DELAY seconds on, erased at
    the end, leaving the account of the run when it was shown."""
    if not (wanted(stream) if enabled is None else enabled):
        yield None
        return
    tracker = Tracker()
    display = _Display(stream, tracker, color)
    _ACTIVE.append(tracker)
    timer = threading.Timer(_delay(), display.start)
    timer.daemon = True
    timer.start()
    try:
        yield tracker
    finally:
        timer.cancel()
        _ACTIVE.remove(tracker)
        display.stop()


class _Display:
    """rich's live display of one tracker; started from a timer thread,
    stopped by the run's thread."""

    def __init__(self, stream: IO[str], tracker: Tracker, color: bool) -> None:
        self.stream = stream
        self.tracker = tracker
        self.color = color
        self.lock = threading.Lock()
        self.live: Any = None
        self.stopped = False

    def start(self) -> None:
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner
        from rich.text import Text

        with self.lock:
            if self.stopped:
                return
            console = Console(file=self.stream, force_terminal=True, no_color=not self.color, highlight=False)
            spinner = Spinner("dots", style="cyan")

            def render() -> Any:
                # One line, cut to the terminal's width.
                line = Text(no_wrap=True, overflow="ellipsis")
                frame = spinner.render(time.monotonic())
                line.append_text(frame if isinstance(frame, Text) else Text(str(frame)))
                line.append(" " + self.tracker.line())
                return line

            self.live = Live(
                console=console,
                get_renderable=render,
                refresh_per_second=REFRESH,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self.live.start()

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            live, self.live = self.live, None
        if live is None:
            return
        live.stop()
        live.console.print(self.tracker.account(), style="dim", highlight=False)
