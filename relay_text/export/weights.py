"""The weights of an exported model: written into the model, or beside it.

The exporter keeps each constant tensor as its numpy array (`Pending`)
until the model is assembled, and only then writes it into the model's
`GraphProto`, one tensor at a time, so that the model never holds a
weight twice and the arrays can go as soon as they are written.

A model is a protobuf message, and protobuf refuses to serialize one of
2 GiB or more. A model whose weights would not fit is written with ONNX
*external data*: each weight of at least `EXTERNAL_MIN` bytes goes to one
data file beside the model (at an offset aligned to `ALIGN`), and the
model records its file name, offset and length. `onnx.load`, the ONNX
checker and onnxruntime read such a model from its path, the data file
in the same folder.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

if TYPE_CHECKING:
    from dataclasses import dataclass

    from onnx import GraphProto, TensorProto
else:  # the same classes, for less at import (see relay_text/record.py)
    from ..record import dataclass

PROTOBUF_LIMIT = 2**31
"""Bytes from which protobuf refuses to serialize a message."""

INLINE_LIMIT = PROTOBUF_LIMIT - 2**26
"""Weights, in bytes, above which a model is written with external data
(64 MiB kept for the nodes, names and types around them)."""

EXTERNAL_MIN = 1024
"""Bytes from which a weight goes to the data file (smaller ones, shapes
and scalars, stay in the model, as ONNX's own tools do it)."""

ALIGN = 4096
"""Offsets of weights in the data file are multiples of this (a page: a
reader may map them straight from the file)."""


@dataclass(slots=True)
class Pending:
    """A constant tensor waiting to be written: its value name, its array
    (in C order) and its ONNX element type."""

    name: str
    array: Any
    data_type: int


class DataFile:
    """Weights written to one external data file, as they come."""

    def __init__(self, stream: BinaryIO, location: str) -> None:
        self.stream = stream
        self.location = location  # the file's name, as the model records it
        self.offset = 0
        self.tensors = 0

    def put(self, tensor: TensorProto, array: Any) -> None:
        from onnx import TensorProto

        start = -(-self.offset // ALIGN) * ALIGN
        if start > self.offset:
            self.stream.write(b"\0" * (start - self.offset))
        data = memoryview(_little_endian(array)).cast("B")
        self.stream.write(data)
        self.offset = start + data.nbytes
        self.tensors += 1
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.location), ("offset", str(start)), ("length", str(data.nbytes))):
            entry = tensor.external_data.add()
            entry.key = key
            entry.value = value


def _little_endian(array: Any) -> Any:
    """The array as ONNX stores its bytes: C order, little-endian (the array
    itself when it is already)."""
    return np.asarray(array, order="C").astype(array.dtype.newbyteorder("<"), copy=False)


def fits_in_model(weights: int) -> bool:
    """Whether weights of this many bytes can be written into the model itself."""
    return weights <= INLINE_LIMIT


def weight_bytes(pending: list[Pending]) -> int:
    """The bytes the pending weights take."""
    return sum(int(p.array.nbytes) for p in pending)


def write_initializers(graph: GraphProto, pending: list[Pending], data: DataFile | None) -> None:
    """Write the pending weights into `graph`'s initializers, in order, each
    in the model or (at least `EXTERNAL_MIN` bytes, with `data`) in the data
    file; `pending` is emptied as they are written, so each array can be
    let go as soon as its bytes are in place."""
    pending.reverse()
    while pending:
        item = pending.pop()
        tensor = graph.initializer.add()
        tensor.name = item.name
        tensor.data_type = item.data_type
        tensor.dims.extend(item.array.shape)
        if data is not None and item.array.nbytes >= EXTERNAL_MIN:
            data.put(tensor, item.array)
        else:
            tensor.raw_data = _little_endian(item.array).tobytes()
        del item


class WeightsRefused(Exception):
    """The weights' data file cannot be written; the message says why."""


class BesideModel:
    """`relay export -o OUT.onnx`'s weights file, `OUT.onnx.data`: used when
    `always` or when the weights would not fit in the model.

    The weights are written as the model is assembled into a temporary file
    in the output's folder (`open`); `commit` checks the finished model
    against them, then gives the data file its name and writes the model;
    `discard` removes what was written. Nothing of an earlier `OUT.onnx.data`
    is touched before the new model has passed the check."""

    def __init__(self, model_path: str, always: bool) -> None:
        self.model_path = model_path
        self.path = model_path + ".data"
        self.always = always
        self.file: DataFile | None = None
        self._temporary: str | None = None

    def open(self, weights: int) -> DataFile | None:
        """The data file for `weights` bytes of weights, or None to keep them in the model."""
        import tempfile

        from ..writing import new_file_mode

        if not self.always and fits_in_model(weights):
            return None
        problem = self.problem(weights)
        if problem is not None:
            raise WeightsRefused(problem)
        folder = os.path.dirname(os.path.abspath(self.model_path))
        fd, self._temporary = tempfile.mkstemp(prefix=".relay-export-", suffix=".data", dir=folder)
        os.fchmod(fd, new_file_mode())  # (mkstemp makes it private)
        self.file = DataFile(os.fdopen(fd, "wb"), os.path.basename(self._temporary))
        return self.file

    def problem(self, weights: int | None = None) -> str | None:
        """Why the model and its data file cannot be written where asked, or None."""
        from ..limits import byte_text
        from ..writing import special_kind

        why = f"the weights ({byte_text(weights)}) go" if weights is not None else "--external-data writes the weights"
        for path, what in ((self.model_path, "the model"), (self.path, "the weights")):
            try:
                st = os.stat(path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                return f"{path}: cannot write {what} ({exc.strerror})"
            kind = special_kind(st.st_mode)
            if kind is not None:
                if path == self.model_path:
                    return f"{why} to a file beside the model, but {path} is {kind}: give -o a file name"
                return f"{path}: is {kind}, not a file for {what}; nothing was written"
            if not st.st_mode & 0o222:
                return f"{path}: is read-only; nothing was written"
        return None

    def commit(self, model: Any) -> bytes:
        """Check `model`, whose weights went to the data file, give the file
        its name, and return the model's bytes (which record that name)."""
        import tempfile

        import onnx

        assert self.file is not None and self._temporary is not None
        stream = self.file.stream
        stream.flush()
        os.fsync(stream.fileno())
        stream.close()
        folder = os.path.dirname(self._temporary)
        fd, probe = tempfile.mkstemp(prefix=".relay-export-", suffix=".onnx", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(model.SerializeToString())
            onnx.checker.check_model(probe, full_check=True)  # a failure here is a bug of the exporter
        finally:
            os.unlink(probe)
        if not self.file.tensors:  # no weight as large as EXTERNAL_MIN: nothing to write beside the model
            self.discard()
            whole: bytes = model.SerializeToString()
            return whole
        final = os.path.basename(self.path)
        for tensor in model.graph.initializer:
            for entry in tensor.external_data:
                if entry.key == "location":
                    entry.value = final
        data: bytes = model.SerializeToString()
        os.replace(self._temporary, self.path)
        self._temporary = None
        return data

    def discard(self) -> None:
        if self.file is not None and not self.file.stream.closed:
            self.file.stream.close()
        if self._temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._temporary)
            self._temporary = None
