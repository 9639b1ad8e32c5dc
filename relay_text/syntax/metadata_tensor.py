"""Tensors of the `#[metadata]` section: TVM's binary NDArray layout (see
`metadata` for the layout), decoded without numpy and encoded from numpy
arrays, and the error every part of the section's reading raises.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MAGIC = 0xDD5E40F096B4A13F
CPU = 1
HEADER = struct.Struct("<QQiiiBBH")  # magic, reserved, device type/id, ndim, dtype code/bits/lanes

# (type code, bits) -> dtype name, and back
_CODES = {
    (0, 8): "int8",
    (0, 16): "int16",
    (0, 32): "int32",
    (0, 64): "int64",
    (1, 1): "bool",
    (1, 8): "uint8",
    (1, 16): "uint16",
    (1, 32): "uint32",
    (1, 64): "uint64",
    (2, 16): "float16",
    (2, 32): "float32",
    (2, 64): "float64",
    (4, 16): "bfloat16",
}
_DTYPE_CODES = {name: code for code, name in _CODES.items()}

# Beyond these, a header is treated as corrupt rather than as a request for
# an absurd allocation.
MAX_NDIM = 32
MAX_JSON_DEPTH = 64


class MetadataError(Exception):
    """A problem in the section: a message, where (a JSON path), and notes."""

    def __init__(self, message: str, path: tuple[Any, ...] = (), notes: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.notes = list(notes)


# ---------------------------------------------------------------- tensors


@dataclass(frozen=True, slots=True)
class MetaTensor:
    """One decoded blob: its dtype and shape, and its raw little-endian data."""

    dtype: str
    shape: tuple[int, ...]
    data: bytes = field(repr=False)

    def array(self) -> Any:
        """The tensor as a read-only numpy array of exactly `dtype`."""
        import numpy as np

        if self.dtype == "bool":
            out = np.frombuffer(self.data, dtype=np.uint8).reshape(self.shape) != 0
        elif self.dtype == "bfloat16":
            # numpy has no bfloat16: the `ml_dtypes` package (the optional
            # extra `relay-text[bfloat16]`) gives it; ImportError without it.
            import ml_dtypes

            out = np.frombuffer(self.data, dtype="<u2").reshape(self.shape).astype(np.uint16).view(ml_dtypes.bfloat16)
        else:
            wire = np.dtype(self.dtype).newbyteorder("<")
            out = np.frombuffer(self.data, dtype=wire).reshape(self.shape)
            if wire != np.dtype(self.dtype):  # a big-endian host
                out = out.astype(self.dtype)
        out.setflags(write=False)
        return out


def decode_ndarray(blob: bytes) -> MetaTensor:
    """A tensor from TVM's binary NDArray layout; MetadataError if it does not fit."""
    if len(blob) < HEADER.size:
        raise MetadataError(f"the tensor is {len(blob)} bytes long, shorter than the {HEADER.size}-byte header")
    magic, _reserved, device, _device_id, ndim, code, bits, lanes = HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise MetadataError(
            "this is not a TVM tensor: its first 8 bytes are not the NDArray magic number",
            notes=[f"found 0x{magic:016X}, expected 0x{MAGIC:016X}"],
        )
    if device != CPU:
        raise MetadataError(f"the tensor was saved from device type {device}; TVM only saves CPU tensors (type 1)")
    if not 0 <= ndim <= MAX_NDIM:
        raise MetadataError(f"the tensor header gives {ndim} dimensions")
    dtype = _CODES.get((code, bits))
    if dtype is None:
        raise MetadataError(
            f"the tensor's element type (type code {code}, {bits} bits) is not supported",
            notes=["supported: int8-64, uint8-64, bool, float16/32/64, bfloat16"],
        )
    if lanes != 1:
        raise MetadataError(
            f"the tensor's element type {dtype}x{lanes} has {lanes} lanes; only scalar elements are supported"
        )
    pos = HEADER.size
    need = pos + 8 * ndim + 8
    if len(blob) < need:
        raise MetadataError(f"the tensor is cut short inside its header ({len(blob)} of at least {need} bytes)")
    shape = struct.unpack_from(f"<{ndim}q", blob, pos)
    pos += 8 * ndim
    if any(d < 0 for d in shape):
        raise MetadataError(f"the tensor header gives a negative dimension in shape {list(shape)}")
    (size,) = struct.unpack_from("<q", blob, pos)
    pos += 8
    count = 1
    for d in shape:
        count *= d
    expected = count * ((bits + 7) // 8)
    if size != expected:
        raise MetadataError(
            f"the tensor header says {size} bytes of data, but {count} elements of {dtype} take {expected}",
            notes=[f"shape {list(shape)}"],
        )
    rest = len(blob) - pos
    if rest != size:
        problem = "is cut short" if rest < size else "has bytes after its data"
        raise MetadataError(f"the tensor {problem}: {rest} bytes follow the header, which announces {size}")
    return MetaTensor(dtype, tuple(shape), blob[pos:])


def encode_ndarray(array: Any) -> bytes:
    """A numpy array in TVM's binary NDArray layout."""
    import numpy as np

    a = np.asarray(array)
    name = a.dtype.name
    if name not in _DTYPE_CODES:
        raise ValueError(f"cannot encode dtype {name}")
    code, bits = _DTYPE_CODES[name]
    if name == "bool":
        data = a.astype(np.uint8).tobytes(order="C")
    elif name == "bfloat16":
        data = np.ascontiguousarray(a).view(np.uint16).astype("<u2").tobytes(order="C")
    else:
        data = a.astype(a.dtype.newbyteorder("<")).tobytes(order="C")
    head = HEADER.pack(MAGIC, 0, CPU, 0, a.ndim, code, bits, 1)
    return head + struct.pack(f"<{a.ndim}q", *a.shape) + struct.pack("<q", len(data)) + data


# ---------------------------------------------------------------- JSON with positions
