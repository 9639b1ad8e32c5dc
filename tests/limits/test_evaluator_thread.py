"""The evaluator thread that CPython 3.10 runs programs on (a large C
stack): exercised directly, so that every Python version tests it.

A timeout's signal reaches the main thread; it must stop the job inside
the evaluator thread (to be reported where the program was). A forked
process must not hand its jobs to the parent's thread, which it does not
have (the fuzzer forks its workers)."""

from __future__ import annotations

import multiprocessing
import signal
import sys
import time
import traceback

import pytest

from relay_text.eval import runtime
from relay_text.limits import RunTimeout

STACK = 64 * 1024 * 1024


def busy() -> None:
    while True:
        pass


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")
def test_a_timeout_signal_stops_the_job_inside_the_evaluator_thread() -> None:
    def expired(signum: int, frame: object) -> None:
        raise RunTimeout(0.2)

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    start = time.monotonic()
    try:
        with pytest.raises(RunTimeout) as caught:
            runtime._on_big_stack(busy, STACK)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.monotonic() - start < 5
    assert str(caught.value) == "the run took longer than the limit of 0.2 s (--timeout)"
    # raised in the job, not in the thread that waited for it
    frames = [f.name for f in traceback.extract_tb(caught.value.__traceback__)]
    assert frames[-1] == "busy"
    # and the thread takes the next job
    assert runtime._on_big_stack(lambda: 42, STACK) == 42


def _run_in_child(conn: object) -> None:
    conn.send(runtime._on_big_stack(lambda: "child", STACK))  # type: ignore[attr-defined]


@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
def test_a_forked_process_starts_its_own_evaluator_thread() -> None:
    assert runtime._on_big_stack(lambda: "parent", STACK) == "parent"  # the parent's thread exists
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe()
    process = context.Process(target=_run_in_child, args=(child,), daemon=True)
    process.start()
    try:
        assert parent.poll(20), "the forked process waited for the parent's evaluator thread"
        assert parent.recv() == "child"
    finally:
        process.kill()
        process.join(5)


HELD: list = []


def _grow(n: int) -> str:
    HELD.append(b"x" * n)  # written, so resident
    return "grown"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_a_run_that_grew_the_process_retires_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages a deep run touched stay with the thread's stack and would
    count against --max-memory of later runs: such a thread is ended after
    its run (and a new one takes the next job)."""
    monkeypatch.setattr(runtime, "_RETIRE_AFTER_GROWTH", 16 * 1024 * 1024)
    assert runtime._on_big_stack(lambda: "small", STACK) == "small"
    (kept,) = runtime._WORKERS
    assert runtime._on_big_stack(lambda: "small again", STACK) == "small again"
    assert [kept] == runtime._WORKERS
    try:
        assert runtime._on_big_stack(lambda: _grow(64 * 1024 * 1024), STACK) == "grown"
    finally:
        HELD.clear()
    assert runtime._WORKERS == []
    kept.thread.join(5)
    assert not kept.thread.is_alive()
    assert runtime._on_big_stack(lambda: 42, STACK) == 42
    assert runtime._WORKERS and runtime._WORKERS[0] is not kept
