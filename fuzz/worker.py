"""A worker process that runs the oracles on one case at a time, under a time limit.

The parent sends a case; the worker reports the stage it is in (check, fmt,
run) and then its failures. A case that takes longer than the time limit
is a hang: the worker is killed and a new one forked (the parent has
already imported relay_text and read the Prelude, so that is quick). A
worker that dies (a crash, or the memory limit's kill) is a `crash`.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .oracles import Failure, evaluate, innermost
import contextlib

Target = Callable[..., list[Failure]]


def _limit_memory(limit: int | None) -> None:
    """At most `limit` more bytes of address space than the worker has when
    it starts (a parent that loaded PyTorch has gigabytes mapped already)."""
    if not limit:
        return
    try:
        import resource

        try:
            with open("/proc/self/statm") as statm:
                mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            mapped = 0
        resource.setrlimit(resource.RLIMIT_AS, (mapped + limit, mapped + limit))
    except (ImportError, ValueError, OSError):
        pass


def _serve(conn: Any, target: Target, memory_limit: int | None) -> None:
    os.environ["RELAY_DEBUG"] = "1"  # tracebacks of internal errors place them
    os.environ["NO_COLOR"] = "1"
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    _limit_memory(memory_limit)
    workdir = Path(tempfile.mkdtemp(prefix="relay-fuzz-"))
    os.chdir(workdir)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        text, reference, run = message
        try:
            failures = target(text, reference, workdir, lambda name: conn.send(("stage", name)), run)
        except BaseException as exc:
            trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            failures = [Failure("internal", "api", f"{type(exc).__name__}: {str(exc)[:200]}", innermost(trace))]
        conn.send(("done", failures))


# Cases one worker process runs before it is replaced: what a long series
# of cases leaves behind (caches, a fragmented heap) would otherwise count
# against the memory limit of later ones.
CASES_PER_PROCESS = 200

# How many times the time limit a case may take in wall time while it has
# not used the limit in CPU time (the machine is busy), before it is a hang.
WALL_FACTOR = 6


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time (user + system, all threads) a process has used, or None
    where /proc is not available."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class Worker:
    def __init__(
        self, target: Target = evaluate, case_timeout: float = 10.0, memory_limit: int | None = 3 << 30
    ) -> None:
        self.target = target
        self.case_timeout = case_timeout
        self.memory_limit = memory_limit
        self.context = multiprocessing.get_context("fork")
        self.process: Any = None
        self.conn: Any = None
        self.restarts = 0
        self.served = 0  # cases the current worker process has run

    def _start(self) -> None:
        parent, child = self.context.Pipe()
        self.process = self.context.Process(target=_serve, args=(child, self.target, self.memory_limit), daemon=True)
        self.process.start()
        child.close()
        self.conn = parent
        self.served = 0

    def _kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join(5)
            self.conn.close()
        self.process = None
        self.restarts += 1

    def close(self) -> None:
        if self.process is not None:
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.process.join(2)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(2)
            self.conn.close()
            self.process = None

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def evaluate(
        self, text: str, reference: str | None = None, timeout: float | None = None, run: bool = True
    ) -> tuple[list[Failure], float]:
        """The failures of one case and the seconds it took."""
        if self.process is not None and self.served >= CASES_PER_PROCESS:
            self.close()  # a fresh process, as each `relay` command is
        if self.process is None or not self.process.is_alive():
            self._start()
        self.served += 1
        limit = self.case_timeout if timeout is None else timeout
        start = time.monotonic()
        cpu_start = _cpu_seconds(self.process.pid)
        stage = "start"
        try:
            self.conn.send((text, reference, run))
            while True:
                left = limit - (time.monotonic() - start)
                if left <= 0 and not self.conn.poll(0):
                    # Past the limit in wall time. On a busy machine the case
                    # may have had little of a core: it is a hang once it has
                    # used the limit in CPU time (or waited WALL_FACTOR times it).
                    cpu = _cpu_seconds(self.process.pid)
                    waited = time.monotonic() - start
                    if cpu is None or cpu_start is None or cpu - cpu_start >= limit or waited >= WALL_FACTOR * limit:
                        self._kill()
                        return [Failure("hang", stage, f"still running after {limit:g} s")], waited
                    self.conn.poll(min(1.0, limit))
                    continue
                if left > 0 and not self.conn.poll(left):
                    continue
                kind, value = self.conn.recv()
                if kind == "stage":
                    stage = value
                else:
                    return value, time.monotonic() - start
        except (EOFError, OSError, BrokenPipeError):
            code = self.process.exitcode if self.process is not None else None
            self._kill()
            return [Failure("crash", stage, f"the worker died (exit {code})")], time.monotonic() - start
