"""numpy, imported the first time a kernel touches it (`relay check` never does)."""

from __future__ import annotations

from typing import Any


class _LazyNumpy:
    """Stands for the numpy module; the first attribute access imports it."""

    def __getattr__(self, name: str) -> Any:
        import numpy

        value = getattr(numpy, name)
        setattr(self, name, value)  # later accesses skip __getattr__
        return value


np: Any = _LazyNumpy()


def wrap(x: Any, dtype: Any) -> Any:
    """`x` as a numpy array of `dtype` (a 0-d array for a scalar, never a numpy scalar)."""
    return np.asarray(x, dtype=dtype)


def is_int(dtype: Any) -> bool:
    return np.dtype(dtype).kind in "iu"


def is_float(dtype: Any) -> bool:
    return np.dtype(dtype).kind == "f"
