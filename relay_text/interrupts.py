"""Signals: Ctrl-C, SIGTERM and SIGHUP end a command the same way, and never
in the middle of replacing a file.

A command installs `install()`: each of the three signals raises
`Interrupted` (a KeyboardInterrupt, so that every `finally` runs), and the
command exits with 128 + the signal's number (130, 143, 129). While a file
is being replaced (`critical()`), a signal waits until the replacement is
complete (the file is then either the old text or the new one, and no
temporary file is left), and is acted on as soon as the section ends.

The worker processes of `relay check` and `relay fmt` (`batch.py`) call
`worker_started()`: they die with their parent, even when the parent is
killed with SIGKILL (Linux's parent-death signal, and a thread that watches
the parent's process id where that does not exist), and a signal ends them
at once, outside a critical section.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Any
from collections.abc import Iterator

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupted(KeyboardInterrupt):
    """A signal asked the command to stop."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def message(self) -> str:
        if self.signum == signal.SIGINT:
            return "interrupted"
        return f"terminated ({signal.Signals(self.signum).name})"


_depth = 0
_pending: list[int] = []


def in_critical() -> bool:
    return _depth > 0


@contextlib.contextmanager
def critical() -> Iterator[None]:
    """A section no signal of `SIGNALS` interrupts: one that arrives is
    acted on when the section ends."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and _pending:
            signum = _pending[0]
            _pending.clear()
            handler = signal.getsignal(signum)
            if callable(handler):
                handler(signum, None)


_received: list[int] = []  # signals that raised Interrupted


def _raise(signum: int, frame: Any) -> None:
    if _depth:
        _pending.append(signum)
        return
    _received.append(signum)
    raise Interrupted(signum)


def check() -> None:
    """Raise Interrupted again for a signal whose exception was swallowed
    (raised inside a callback whose errors Python only prints, such as one
    run at fork)."""
    if _received:
        raise Interrupted(_received[0])


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGNALS back (in the operating system) while the section runs,
    such as while worker processes are forked: a signal then could land in
    a fork callback, where its exception is printed and dropped. Children
    forked meanwhile start with them held: `worker_started` lets them in."""
    block = getattr(signal, "pthread_sigmask", None)
    with critical():  # (a signal another thread takes waits as well)
        if block is None:
            yield
            return
        old = block(signal.SIG_BLOCK, SIGNALS)
        try:
            yield
        finally:
            block(signal.SIG_SETMASK, old)


def install() -> None:
    """Make SIGINT, SIGTERM and SIGHUP raise `Interrupted` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in SIGNALS:
        try:
            if signum != signal.SIGINT and signal.getsignal(signum) == signal.SIG_IGN:
                continue  # (nohup: SIGHUP stays ignored)
            signal.signal(signum, _raise)
        except (OSError, ValueError):  # pragma: no cover - not the main thread
            pass


# ---------------------------------------------------------------- worker processes


def _exit_now(signum: int, frame: Any) -> None:
    if _depth:
        _pending.append(signum)
        return
    os._exit(128 + signum)


_PR_SET_PDEATHSIG = 1


def _death_signal(signum: int) -> bool:
    """Ask Linux to send `signum` to this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl
        return False


WATCH_SECONDS = 0.5
"""How often a worker's watchdog thread looks whether its parent is alive."""


def _watch_parent(parent: int) -> None:
    import time

    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:
            _exit_now(signal.SIGTERM, None)
            if _depth:  # finishing a file: the section's end exits
                continue


def worker_started(parent: int) -> None:
    """In a worker process: end on SIGTERM or SIGHUP (after a critical
    section), ignore SIGINT (the parent decides, and stops its workers), and
    die with the parent `parent`."""
    global _depth
    _depth = 0  # (forked inside the parent's `deferred` section)
    _pending.clear()
    _received.clear()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in SIGNALS:
        if signum != signal.SIGINT:
            signal.signal(signum, _exit_now)
    if hasattr(signal, "pthread_sigmask"):  # (forked while the parent held them back)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    _death_signal(signal.SIGTERM)
    # The parent may have died before the death signal was asked for; and
    # where there is no death signal, a thread watches.
    if os.getppid() != parent:
        os._exit(128 + signal.SIGTERM)
    threading.Thread(target=_watch_parent, args=(parent,), name="relay-parent-watch", daemon=True).start()
