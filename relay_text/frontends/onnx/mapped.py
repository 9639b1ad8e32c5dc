"""A model file read without copying its weights: each large initializer
is mapped from where its bytes lie in the file itself.

An ONNX file is a protobuf message: `ModelProto.graph` (field 7) holds the
initializers (`GraphProto.initializer`, field 5), each a `TensorProto`
whose values are its `raw_data` (field 9). `read_mapped` walks the fields
of the file as it is mapped in memory (their keys and lengths only), and
writes a copy of the model in which each `raw_data` of at least
`MAPPED_MIN` bytes is replaced by an external-data record pointing at the
same bytes in the model file (`location` the file's own name, `offset`,
`length`, `data_location` EXTERNAL). That copy is small; parsing it gives
a model whose weights `external.external_array` maps from the file, as it
maps the weights of a file beside the model. Without this, a model of
1.5 GB was held twice while it was imported: as the parsed message, and
as the arrays taken from it.

Anything unexpected in the file (a field of a wire type ONNX does not use,
a length past the end) gives None, and the caller reads the file the
usual way, whose errors say what is wrong.
"""

from __future__ import annotations

import mmap
import os

MAPPED_MIN = 1024
"""Bytes of raw data from which an initializer is mapped from the file."""

_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5
_MODEL_GRAPH, _GRAPH_INITIALIZER, _TENSOR_RAW_DATA = 7, 5, 9
_TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION = 13, 14


class _Malformed(Exception):
    pass


def _varint(buf: mmap.mmap | bytes, pos: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _Malformed
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _fields(buf: mmap.mmap | bytes, start: int, end: int) -> list[tuple[int, int, int, int, int]]:
    """(field number, wire type, field start, value start, field end) of a message's fields."""
    out = []
    pos = start
    while pos < end:
        key, value = _varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            _, stop = _varint(buf, value, end)
        elif wire == _LEN:
            length, value = _varint(buf, value, end)
            stop = value + length
        elif wire == _FIXED64:
            stop = value + 8
        elif wire == _FIXED32:
            stop = value + 4
        else:
            raise _Malformed
        if stop > end:
            raise _Malformed
        out.append((number, wire, pos, value, stop))
        pos = stop
    return out


def _encode_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _len_field(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | _LEN) + _encode_varint(len(payload)) + payload


def _entry(key: str, value: str) -> bytes:
    return _len_field(1, key.encode()) + _len_field(2, value.encode())


def _tensor(buf: mmap.mmap, start: int, end: int, location: str) -> bytes | None:
    """The tensor message with its raw data replaced by a record of where it
    lies in the file, or None to keep it as it is."""
    fields = _fields(buf, start, end)
    raw = [f for f in fields if f[0] == _TENSOR_RAW_DATA and f[1] == _LEN]
    if len(raw) != 1 or raw[0][4] - raw[0][3] < MAPPED_MIN:
        return None
    if any(f[0] in (_TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION) for f in fields):
        return None
    _, _, _, data_start, data_end = raw[0]
    kept = b"".join(bytes(buf[f[2] : f[4]]) for f in fields if f is not raw[0])
    record = b"".join(
        _len_field(_TENSOR_EXTERNAL_DATA, _entry(k, v))
        for k, v in (("location", location), ("offset", str(data_start)), ("length", str(data_end - data_start)))
    )
    return kept + record + _encode_varint(_TENSOR_DATA_LOCATION << 3 | _VARINT) + _encode_varint(1)


def _graph(buf: mmap.mmap, start: int, end: int, location: str) -> tuple[bytes, int]:
    """The graph message with its large initializers mapped, and how many were."""
    parts = []
    mapped = 0
    for number, wire, field_start, value, stop in _fields(buf, start, end):
        if number == _GRAPH_INITIALIZER and wire == _LEN:
            tensor = _tensor(buf, value, stop, location)
            if tensor is not None:
                parts.append(_len_field(_GRAPH_INITIALIZER, tensor))
                mapped += 1
                continue
        parts.append(bytes(buf[field_start:stop]))
    return b"".join(parts), mapped


def read_mapped(path: str) -> bytes | None:
    """The model file's bytes with its large initializers turned into
    records of where they lie in the file, or None when none is worth it
    (or the file is not as expected)."""
    location = os.path.basename(path)
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return None
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        parts = []
        mapped = 0
        for number, wire, field_start, value, stop in _fields(buf, 0, len(buf)):
            if number == _MODEL_GRAPH and wire == _LEN:
                graph, count = _graph(buf, value, stop, location)
                parts.append(_len_field(_MODEL_GRAPH, graph))
                mapped += count
            else:
                parts.append(bytes(buf[field_start:stop]))
        return b"".join(parts) if mapped else None
    except _Malformed:
        return None
    finally:
        buf.close()
