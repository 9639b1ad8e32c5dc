"""Weights a model keeps in a file beside it (ONNX external data), read in place.

A model of 2 GiB or more keeps its weights in data files in its folder:
each tensor records the file (`location`, relative to the model), where it
starts (`offset`) and its length. `load_model` reads the model without
them, and each such tensor becomes a read-only view of its bytes in the
file (`numpy.memmap`): a model of several GiB is imported without holding
its weights in memory twice (as the model's bytes and as arrays); the
pages are read as the weights are written out.

`EXTERNAL_DIR` holds the model's folder while a model read from a path is
imported; a tensor with external data met without it (a model given as a
`ModelProto` whose data was not loaded) is an import error.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from onnx import TensorProto

EXTERNAL_DIR: ContextVar[str | None] = ContextVar("EXTERNAL_DIR", default=None)


class ExternalDataError(Exception):
    """A tensor's external data cannot be read; the message says why."""


def uses_external_data(t: TensorProto) -> bool:
    return bool(t.data_location == 1)  # TensorProto.EXTERNAL


def external_array(t: TensorProto) -> Any:
    """The tensor's values, mapped from its data file (read-only)."""
    from onnx.helper import tensor_dtype_to_np_dtype

    folder = EXTERNAL_DIR.get()
    info = {e.key: e.value for e in t.external_data}
    location = info.get("location", "")
    if folder is None:
        raise ExternalDataError(
            f"its data is in `{location}`, and the model's folder is not known (load it from a path)"
        )
    parts = location.replace("\\", "/").split("/")
    if not location or os.path.isabs(location) or ".." in parts:
        raise ExternalDataError(f"its data file `{location}` is not a file in the model's folder")
    path = os.path.join(folder, *parts)
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise ExternalDataError(f"its data file {path} cannot be read ({exc.strerror})") from None
    dtype = np.dtype(tensor_dtype_to_np_dtype(t.data_type)).newbyteorder("<")
    shape = tuple(int(d) for d in t.dims)
    need = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    try:
        offset = int(info.get("offset", "0"))
        length = int(info["length"]) if "length" in info else size - offset
    except ValueError:
        raise ExternalDataError(f"its offset or length in `{location}` is not a number") from None
    if offset < 0 or length != need or offset + length > size:
        raise ExternalDataError(
            f"it needs {need:,} bytes at offset {offset:,} of {path}, which holds {size:,} (the record says {length:,})"
        )
    if need == 0:
        return np.zeros(shape, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)
