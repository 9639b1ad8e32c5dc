"""The documented limits on what a program may ask for, in one place.

Every size a program can request is checked against one of these before it
is used; exceeding it is a `resource-limit` diagnostic at the place that
asked. The documentation's Limits page (docs/limits.md) lists them with
their defaults and how to change them.

This module imports nothing of relay-text, so every stage may use it.
"""

from __future__ import annotations

import os
from typing import Any

MAX_LITERAL_DIGITS = 1000
"""Digits in one number literal (`123...`, `1.5e...`, a dimension, `.15`)."""

MAX_RANK = 32
"""Dimensions of one tensor type or constant."""

MAX_STATIC_ELEMENTS = 2**40
"""Elements of one tensor whose shape is known before running (a
`Constant(...)`, a metadata tensor): more is reported by `relay check`."""

DEFAULT_MEMORY_FRACTION = 0.5
"""`relay run --max-memory` defaults to this fraction of the machine's memory."""

FALLBACK_MEMORY = 4 * 2**30
"""The machine's memory when neither /proc/meminfo nor sysconf tells it."""

DEFAULT_MAX_OUTPUT = 64 * 2**20
"""`relay run --max-output`: the most text (or JSON) a result may print,
estimated before printing (relay_text/eval/output_size.py)."""


def machine_memory() -> int:
    """The machine's physical memory in bytes."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return FALLBACK_MEMORY


def default_max_memory() -> int:
    """The default of `relay run --max-memory`, in bytes."""
    return int(machine_memory() * DEFAULT_MEMORY_FRACTION)


def byte_text(n: int) -> str:
    """`1.5 GiB`, `512 MiB`, `1,020 MiB`, `100 bytes`: three significant
    digits, whole units from 1,000 of them on."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.3g} {unit}" if value < 999.5 else f"{value:,.0f} {unit}"
    return f"{n} bytes"


_UNITS = {
    "": 1,
    "b": 1,
    "k": 2**10,
    "kb": 10**3,
    "kib": 2**10,
    "m": 2**20,
    "mb": 10**6,
    "mib": 2**20,
    "g": 2**30,
    "gb": 10**9,
    "gib": 2**30,
    "t": 2**40,
    "tb": 10**12,
    "tib": 2**40,
}


def parse_bytes(text: str) -> int:
    """`512M`, `2GiB`, `1.5g`, `1000000` -> bytes; ValueError if malformed."""
    s = text.strip().lower().replace("_", "")
    i = len(s)
    while i > 0 and s[i - 1].isalpha():
        i -= 1
    number, unit = s[:i].strip(), s[i:]
    if unit not in _UNITS or not number or len(number) > 30:
        raise ValueError(f"`{text}` is not a size (such as 512M, 2G or 1000000)")
    value = float(number) * _UNITS[unit]
    if not 1 <= value < float("inf"):  # (also refuses nan)
        raise ValueError(f"`{text}` is not a positive size")
    return int(value)


def elements(shape: tuple[Any, ...]) -> int:
    """The number of elements of a concrete shape (Python ints: no overflow)."""
    n = 1
    for d in shape:
        n *= int(d)
    return n


def result_rank_problem(op: str, rank: int) -> str | None:
    """Why an operator's result of `rank` dimensions passes the limit, or None."""
    if rank > MAX_RANK:
        return f"`{op}` would produce a tensor of {rank:,} dimensions, more than the limit of {MAX_RANK}"
    return None


def written_shape_problem(shape: tuple[Any, ...]) -> str | None:
    """Why a shape written in a tensor type passes a static limit (too many
    dimensions, or, when every dimension is a number, too many elements), or
    None. Dimensions that are not numbers (`?`, `n`) count as dimensions only."""
    if len(shape) > MAX_RANK:
        return f"a tensor type of {len(shape)} dimensions has more than the limit of {MAX_RANK}"
    if all(type(d) is int for d in shape):
        count = elements(shape)
        if count > MAX_STATIC_ELEMENTS:
            return f"a tensor type of {count:,} elements has more than the limit of {MAX_STATIC_ELEMENTS:,} (2^40)"
    return None


# ---------------------------------------------------------------- while running

GUARD_BYTES = 1 << 20
"""An operator call whose result the checker sized at this many bytes or
more is checked against `--max-memory` before its kernel runs; smaller ones
are not counted."""


class LimitExceeded(Exception):
    """A run asked for more than a limit allows (reported as `resource-limit`
    at the expression being evaluated)."""

    def __init__(self, message: str, label: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.label = label


class RunTimeout(BaseException):
    """`relay run --timeout` expired (a BaseException, so that no handler
    meant for a program's errors swallows it)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the run took longer than the limit of {seconds:g} s (--timeout)")
        self.seconds = seconds


_max_memory: list[int | None] = [None]
try:
    _PAGE = os.sysconf("SC_PAGE_SIZE")
except (AttributeError, ValueError, OSError):
    _PAGE = 4096


def max_memory() -> int:
    """The memory limit of the current run (`--max-memory`), in bytes."""
    limit = _max_memory[0]
    if limit is None:
        limit = _max_memory[0] = default_max_memory()
    return limit


def set_max_memory(n: int | None) -> int | None:
    """Set the memory limit for runs (None: the default); returns the old one."""
    old = _max_memory[0]
    _max_memory[0] = n
    return old


def resident() -> int:
    """Bytes of memory the process holds now (0 where the system does not say)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def refused_by_system(what: str, need: int | None = None) -> str:
    """The message for an allocation the system refused although the memory
    limit allowed it (a MemoryError: an address-space limit, a fragmented heap)."""
    needs = f"needs {byte_text(need)}," if need is not None else "needs"
    return f"{what} {needs} more memory than the system gives the run"


def check_allocation(count: int, itemsize: int, what: str) -> None:
    """Raise LimitExceeded if `count` elements of `itemsize` bytes, with the
    memory the process already holds, exceed the memory limit of the run."""
    need = count * itemsize
    limit = max_memory()
    if need > limit:
        raise LimitExceeded(
            f"{what} needs {byte_text(need)} ({count:,} elements), "
            f"more than the memory limit of {byte_text(limit)} (--max-memory)",
            "too large",
        )
    if need >= GUARD_BYTES:
        held = resident()
        if need + held > limit:
            raise LimitExceeded(
                f"{what} needs {byte_text(need)} ({count:,} elements); "
                f"with the {byte_text(held)} the run already holds, "
                f"that is more than the memory limit of {byte_text(limit)} (--max-memory)",
                "too large",
            )


SCRATCH_BYTES = 32 << 20
"""The most a kernel's working buffer (a convolution's im2col matrix) holds
at once: a kernel whose temporaries would be larger works in blocks of
output rows, each of at most this size (and of what the memory limit
leaves). 32 MiB keeps the matrix products large enough to run at full
speed (benchmarks/memory.py)."""


def scratch_rows(rows: int, row_bytes: int, what: str) -> int:
    """How many of `rows` rows of `row_bytes` bytes a kernel's temporary may
    hold at once: at most SCRATCH_BYTES, and what the memory limit leaves
    beside the memory the run holds (so that every temporary counts against
    `--max-memory`). Raises LimitExceeded if not even one row fits."""
    room = max_memory() - resident()
    if row_bytes > room:
        raise LimitExceeded(
            f"{what} need {byte_text(row_bytes)} at least, more than the memory limit of {byte_text(max_memory())} "
            f"leaves beside the {byte_text(resident())} the run holds (--max-memory)",
            "too large",
        )
    return max(1, min(rows, min(SCRATCH_BYTES, room) // max(row_bytes, 1)))
