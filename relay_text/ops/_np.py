"""numpy, imported the first time a kernel touches it (`relay check` never does)."""

from __future__ import annotations

from typing import Any


class _LazyNumpy:
    """Stands for the numpy module; the first attribute access imports it."""

    def __getattr__(self, name: str) -> Any:
        import numpy

        _no_hugepages(numpy)
        value = getattr(numpy, name)
        setattr(self, name, value)  # later accesses skip __getattr__
        return value


def _no_hugepages(numpy: Any) -> None:
    """Ask numpy not to advise huge pages for big arrays. Kernels allocate many
    short-lived tensors of megabytes; where the kernel compacts memory to find
    huge pages on demand (transparent huge pages with `defrag=madvise`), each
    fresh allocation stalls, measured at 7x the cost of a plain one."""
    for module in ("_core", "core"):
        setter = getattr(getattr(getattr(numpy, module, None), "multiarray", None), "_set_madvise_hugepage", None)
        if setter is not None:
            setter(False)
            return


np: Any = _LazyNumpy()


def wrap(x: Any, dtype: Any) -> Any:
    """`x` as a numpy array of `dtype` (a 0-d array for a scalar, never a numpy scalar)."""
    return np.asarray(x, dtype=dtype)


def is_int(dtype: Any) -> bool:
    kind: str = np.dtype(dtype).kind
    return kind in "iu"


def is_float(dtype: Any) -> bool:
    kind: str = np.dtype(dtype).kind
    return kind == "f"
