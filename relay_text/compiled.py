"""Optional compiled loops: the `fast` extra (`pip install "relay-text[fast]"`, numba).

A compiled loop replaces a numpy path only where it gives the same result:
the same bits where numpy's result is exact or made by numpy alone
(`ops._half`'s conversions, `eval.numbers_jit`'s text), the same value to
the rounding of a sum taken in another order where numpy's sums are the
BLAS's (`ops.nn._depthwise`; its check demands the same bits on sums
that are exact).
`Compiled` holds one such loop (or a group of them) for the process: the
first `get()` imports numba, builds the loop (or loads it from numba's
cache) and runs the caller's check against numpy; the loop is used only if
every step succeeds. Without numba, if the compiler fails in any way, or if
the check finds a difference, `get()` answers None, once and for good, and
the caller keeps its numpy path.

Loading numba costs a fraction of a second, which a short run would never
win back: a loop made with `warm=N` is loaded by `after(work)` only once
numpy has done N units of the work it would take over (elements
converted, multiply-adds), about as long as loading takes. A run that
never wins the loading back then loses at most as much as it spent.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_UNDECIDED = object()


class Compiled(Generic[T]):
    """A compiled loop, decided once per process. `load` builds it and checks
    it against numpy: it returns the loop, or None if the loop's results
    differ. `warm`: the units of work numpy does before `after` loads it."""

    __slots__ = ("_load", "_value", "numpy_work", "warm", "warm_loaded")

    def __init__(self, load: Callable[[], T | None], warm: int = 0, warm_loaded: int | None = None) -> None:
        """`warm_loaded`: the units of work before `after` loads the loop
        where numba is imported already (by another loop), when that is
        fewer than `warm` (the loop's cached machine code then loads in
        milliseconds)."""
        self._load = load
        self._value: object = _UNDECIDED
        self.warm = warm
        self.warm_loaded = warm_loaded
        self.numpy_work = 0  # units of work numpy did while the loop was not loaded

    @classmethod
    def decided(cls, value: T | None) -> Compiled[T]:
        """One whose answer is already `value` (for tests, and to pin a choice)."""
        known: Compiled[T] = cls(lambda: value)
        known._value = value
        return known

    @property
    def tried(self) -> bool:
        """Whether the loop was loaded (or found unusable) already."""
        return self._value is not _UNDECIDED

    def get(self) -> T | None:
        """The loop, loading and checking it now if that was not done yet;
        None where numpy must do the work."""
        if self._value is _UNDECIDED:
            self._value = _attempt(self._load)
        return self._value  # type: ignore[return-value]  # (a T or None once decided)

    def available(self) -> bool:
        return self.get() is not None

    def after(self, work: int) -> T | None:
        """The loop for a step of `work` units, or None where numpy does it:
        while numpy has done less than `warm` units (this step counted), and
        where the loop is not available."""
        if self._value is _UNDECIDED:
            self.numpy_work += work
            warm = self.warm
            if self.warm_loaded is not None and "numba" in sys.modules:
                warm = min(warm, self.warm_loaded)
            if self.numpy_work < warm:
                return None
        return self.get()


def plain(array: Any) -> Any:
    """`array` if it is writable and aligned, else a copy that is: the kind
    of array the loops are compiled for. numba compiles a loop again (for
    seconds, in the middle of a run) the first time it is given a
    read-only array (a constant's) or an unaligned one."""
    return array if array.flags.writeable and array.flags.aligned else array.copy()


def _attempt(load: Callable[[], T | None]) -> T | None:
    try:
        import numba  # noqa: F401
    except ImportError:  # (the `fast` extra is not installed)
        return None
    import warnings

    try:
        with warnings.catch_warnings():  # (numba warns where it cannot write its cache)
            warnings.simplefilter("ignore")
            return load()
    except Exception:  # any failure of the third-party compiler: numpy does the work
        return None
