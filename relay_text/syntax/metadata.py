"""TVM's `#[metadata]` section: a JSON object graph with base64 tensor blobs.

When TVM prints a module whose constants are too large to write inline, each
one is printed as `meta[relay.Constant][i]` and the tensors follow the program
in a `#[metadata]` section. That section is TVM's generic object
serialisation (the format of `tvm.ir.save_json`):

    {
      "root": 1,                      index of the root node in "nodes"
      "nodes": [                      node 0 is always the null object
        {"type_key": ""},
        {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
        {"type_key": "Array", "data": [3, 4]},
        {"type_key": "relay.Constant", "attrs": {"data": "0", "span": "0", ...}},
        ...
      ],
      "b64ndarrays": ["P6G0lvBAXt0...", ...],
      "attrs": {"tvm_version": "0.8.0"}
    }

The root is a map from a kind (`relay.Constant`) to an array of nodes; entry
`i` of the `relay.Constant` array is what `meta[relay.Constant][i]` means. A
constant node's `data` attribute is the position (as a decimal string) of its
tensor in `b64ndarrays`. A map whose keys are all strings lists them in
`keys`, its values in `data`; any other map alternates key and value node
indices in `data`.

Each blob is a tensor in TVM's binary NDArray layout, little-endian:

    u64  magic 0xDD5E40F096B4A13F     u64  reserved (0)
    i32  device type (1 = CPU)        i32  device id
    i32  ndim                         u8 type code, u8 bits, u16 lanes
    i64  shape[ndim]                  i64  byte size of the data
    the data, row-major

with type codes 0 (int), 1 (uint; 1-bit uint is bool), 2 (float) and 4
(bfloat, 16 bits).

Reading the section never executes anything from the file: it is parsed as
data, every index and size is checked against what is present, and anything
that does not fit is a `bad-metadata` diagnostic located at the offending
part of the section. Tensor headers are decoded without numpy (the type
checker only needs shapes and dtypes); `MetaTensor.array()` makes the numpy
array when a value is needed.

`encode_metadata` writes a section in the same layout (used by the tests, and
by anyone who wants to produce such a file).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

from ..diagnostics import Diagnostic, codes
from ..ir.module import Metadata
from ..ir.span import Span

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

    def __init__(self, message: str, path: tuple = (), notes: Sequence[str] = ()) -> None:
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

_SPACE = re.compile(r"[ \t\r\n]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WORDS = {"true": True, "false": False, "null": None}


class _JsonError(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def parse_json(text: str) -> tuple[Any, dict[tuple, tuple[int, int]]]:
    """Parse JSON text, also returning the `(start, end)` offsets of every
    value by its path (`("nodes", 3, "attrs", "data")`).

    Iterative, so nesting depth costs no Python stack; strings are scanned by
    the json module's C scanner, so megabyte-long base64 blobs are cheap.
    """
    from json.decoder import scanstring  # type: ignore[attr-defined]

    spans: dict[tuple, tuple[int, int]] = {}
    n = len(text)
    pos = _SPACE.match(text, 0).end()
    # frames: [container, path, start offset, pending key (objects)]
    stack: list[list[Any]] = []
    root: Any = None
    expect_value = True

    def fail(message: str, at: int) -> None:
        raise _JsonError(message, at)

    while True:
        if expect_value:
            if pos >= n:
                fail("the JSON ends where a value was expected", pos)
            ch = text[pos]
            path = _child_path(stack)
            if ch == "{" or ch == "[":
                container: Any = {} if ch == "{" else []
                start = pos
                if len(stack) >= MAX_JSON_DEPTH:
                    fail(
                        f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep; TVM's tables are nested 4 deep",
                        pos,
                    )
                stack.append([container, path, start, None])
                pos = _SPACE.match(text, pos + 1).end()
                close = "}" if ch == "{" else "]"
                if pos < n and text[pos] == close:
                    stack.pop()
                    spans[path] = (start, pos + 1)
                    value, end = container, pos + 1
                elif ch == "{":
                    pos = _read_key(text, pos, stack[-1], scanstring, fail)
                    continue
                else:
                    continue
            elif ch == '"':
                try:
                    value, end = scanstring(text, pos + 1, True)
                except ValueError as exc:
                    fail(f"a malformed string: {exc.args[0].split(':')[0]}", pos)
                spans[path] = (pos, end)
            else:
                m = _NUMBER.match(text, pos)
                if m:
                    lit = m.group()
                    value = float(lit) if any(c in lit for c in ".eE") else int(lit)
                    end = m.end()
                else:
                    for word, word_value in _WORDS.items():
                        if text.startswith(word, pos):
                            value, end = word_value, pos + len(word)
                            break
                    else:
                        fail(f"expected a JSON value, found `{_word_at(text, pos)}`", pos)
                spans[path] = (pos, end)
            # attach the value to its parent
            if not stack:
                root = value
                pos = _SPACE.match(text, end).end()
                if pos != n:
                    fail("unexpected text after the JSON value", pos)
                return root, spans
            frame = stack[-1]
            if isinstance(frame[0], dict):
                frame[0][frame[3]] = value
            else:
                frame[0].append(value)
            pos = _SPACE.match(text, end).end()
            expect_value = False
        else:
            frame = stack[-1]
            container = frame[0]
            close = "}" if isinstance(container, dict) else "]"
            if pos >= n:
                fail(
                    f"the JSON ends inside {'an object' if close == '}' else 'a list'}; `{close}` is missing", frame[2]
                )
            ch = text[pos]
            if ch == ",":
                pos = _SPACE.match(text, pos + 1).end()
                if isinstance(container, dict):
                    pos = _read_key(text, pos, frame, scanstring, fail)
                expect_value = True
            elif ch == close:
                stack.pop()
                spans[frame[1]] = (frame[2], pos + 1)
                end = pos + 1
                if not stack:
                    pos = _SPACE.match(text, end).end()
                    if pos != n:
                        fail("unexpected text after the JSON value", pos)
                    return container, spans
                parent = stack[-1]
                if isinstance(parent[0], dict):
                    parent[0][parent[3]] = container
                else:
                    parent[0].append(container)
                pos = _SPACE.match(text, end).end()
            else:
                fail(f"expected `,` or `{close}`, found `{ch}`", pos)


def _word_at(text: str, pos: int) -> str:
    m = re.compile(r"[^\s,:\[\]{}]+").match(text, pos)
    return m.group()[:20] if m else text[pos]


def _child_path(stack: list[list[Any]]) -> tuple:
    if not stack:
        return ()
    container, path, _, key = stack[-1]
    return path + ((key,) if isinstance(container, dict) else (len(container),))


def _read_key(text: str, pos: int, frame: list[Any], scanstring: Any, fail: Any) -> int:
    if pos >= len(text):
        fail("the JSON ends inside an object; `}` is missing", frame[2])
    if text[pos] != '"':
        fail("expected a quoted key", pos)
    try:
        key, end = scanstring(text, pos + 1, True)
    except ValueError:
        fail("a malformed key", pos)
    pos = _SPACE.match(text, end).end()
    if pos >= len(text) or text[pos] != ":":
        fail(f'expected `:` after the key "{key}"', pos)
    frame[3] = key
    return _SPACE.match(text, pos + 1).end()


# ---------------------------------------------------------------- the table


@dataclass(slots=True)
class MetaTable:
    """The decoded section.

    `kinds` maps each kind in the table (`relay.Constant`, ...) to how many
    entries it has; `constants[i]` is the tensor of `meta[relay.Constant][i]`
    (None where that entry could not be decoded: a diagnostic says why).
    """

    kinds: dict[str, int]
    constants: list[MetaTensor | None]
    tvm_version: str | None = None
    # node indices of every kind's entries, and the nodes themselves, for
    # the entries that are not constants (attributes, virtual devices, ...)
    entries: dict[str, list[Any]] = field(default_factory=dict)
    nodes: list[Any] = field(default_factory=list)

    def attrs(self, kind: str, index: int) -> tuple[tuple[str, Any], ...] | None:
        """The fields of an attributes object (`meta[relay.attrs.DenseAttrs][0]`)
        as `(name, value)` pairs: numbers, strings, None and tuples. None when
        the table has no such entry or it is not an object with fields."""
        items = self.entries.get(kind)
        if items is None or not 0 <= index < len(items):
            return None
        node_index = _as_index(items[index], len(self.nodes))
        node = self.nodes[node_index] if node_index is not None else None
        if not isinstance(node, dict) or not isinstance(node.get("attrs"), dict):
            return None
        out = []
        for name, raw in sorted(node["attrs"].items()):
            if name == "span" or not isinstance(raw, str):
                continue
            out.append((name, _field_value(self.nodes, node_index, raw)))
        return tuple(out)

    def constant_type(self, index: int) -> Any:
        """`Tensor[shape, dtype]` of a constant, or None."""
        from ..ir.ty import TensorType

        if 0 <= index < len(self.constants) and self.constants[index] is not None:
            t = self.constants[index]
            return TensorType(t.shape, t.dtype)
        return None


class _Reader:
    def __init__(self, meta: Metadata) -> None:
        self.meta = meta
        self.base = meta.span.end - len(meta.text)
        self.spans: dict[tuple, tuple[int, int]] = {}
        self.diags: list[Diagnostic] = []

    def span_of(self, path: tuple) -> Span:
        while path not in self.spans and path:
            path = path[:-1]
        start, end = self.spans.get(path, (0, 0))
        if path == () and (start, end) == (0, 0):
            return self.meta.span
        if path == ():  # the whole object: point at its opening brace only
            end = start + 1
        return Span(self.meta.span.source, self.base + start, self.base + end)

    def error(self, exc: MetadataError, prefix: str = "") -> None:
        diag = Diagnostic(codes.BAD_METADATA, prefix + exc.message, self.span_of(exc.path))
        for note in exc.notes:
            diag.with_note(note)
        self.diags.append(diag)

    def read(self) -> MetaTable | None:
        text = self.meta.text
        if not text.strip():
            self.diags.append(
                Diagnostic(codes.BAD_METADATA, "the `#[metadata]` section is empty", self.meta.span).with_note(
                    "TVM writes a JSON object after `#[metadata]`; remove the header if there is no metadata"
                )
            )
            return None
        try:
            doc, self.spans = parse_json(text)
        except _JsonError as exc:
            span = Span(self.meta.span.source, self.base + exc.pos, self.base + min(exc.pos + 1, len(text)))
            self.diags.append(
                Diagnostic(codes.BAD_METADATA, f"the `#[metadata]` section is not valid JSON: {exc.message}", span)
            )
            return None
        try:
            return self._table(doc)
        except MetadataError as exc:
            self.error(exc)
            return None

    def _table(self, doc: Any) -> MetaTable:
        if not isinstance(doc, dict):
            raise MetadataError(
                "the `#[metadata]` section must be a JSON object with `root`, `nodes` and `b64ndarrays`"
            )
        for key in ("root", "nodes"):
            if key not in doc:
                raise MetadataError(
                    f"the metadata object has no `{key}`", notes=["TVM's format has `root`, `nodes` and `b64ndarrays`"]
                )
        nodes = doc["nodes"]
        if not isinstance(nodes, list):
            raise MetadataError("`nodes` must be a list", ("nodes",))
        blobs = doc.get("b64ndarrays", [])
        if not isinstance(blobs, list):
            raise MetadataError("`b64ndarrays` must be a list of strings", ("b64ndarrays",))
        attrs = doc.get("attrs", {})
        version = attrs.get("tvm_version") if isinstance(attrs, dict) else None
        root = self._index(doc["root"], ("root",), len(nodes), "`root`")
        keys, values = self._map(nodes, root)
        kinds: dict[str, int] = {}
        constants: list[MetaTensor | None] = []
        decoded: dict[int, MetaTensor | None] = {}
        for key, (value_index, value_path) in zip(keys, values, strict=False):
            array_node = self._node(nodes, value_index, value_path)
            if array_node.get("type_key") != "Array":
                raise MetadataError(f"the entry for `{key}` must be an Array node", ("nodes", value_index, "type_key"))
            items = array_node.get("data", [])
            if not isinstance(items, list):
                raise MetadataError("an Array's `data` must be a list of node indices", ("nodes", value_index, "data"))
            kinds[key] = len(items)
            if key != "relay.Constant":
                continue
            for j, item in enumerate(items):
                path = ("nodes", value_index, "data", j)
                constants.append(self._constant(nodes, blobs, item, path, decoded))
        entries: dict[str, list[Any]] = {}
        for key, (value_index, _) in zip(keys, values, strict=False):
            items = nodes[value_index].get("data", [])
            entries[key] = items if isinstance(items, list) else []
        return MetaTable(kinds, constants, version if isinstance(version, str) else None, entries, nodes)

    def _index(self, value: Any, path: tuple, count: int, what: str, noun: str = "node") -> int:
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if type(value) is not int:
            raise MetadataError(f"{what} must be a {noun} index, found {json.dumps(value)[:40]}", path)
        if not 0 <= value < count:
            there = f"there {'is' if count == 1 else 'are'} {count} {noun}{'' if count == 1 else 's'}"
            valid = [f"valid indices are 0 to {count - 1}"] if count else []
            raise MetadataError(f"{what} refers to {noun} {value}, but {there}", path, valid)
        return value

    def _node(self, nodes: list, index: Any, path: tuple) -> dict:
        index = self._index(index, path, len(nodes), "this")
        node = nodes[index]
        if not isinstance(node, dict):
            raise MetadataError(f"node {index} must be a JSON object", ("nodes", index))
        return node

    def _map(self, nodes: list, root: int) -> tuple[list[str], list[tuple[int, tuple]]]:
        node = self._node(nodes, root, ("root",))
        if node.get("type_key") not in ("Map", "StrMap"):
            raise MetadataError(
                f"the root node must be a Map from kinds to arrays, found `{node.get('type_key')}`",
                ("nodes", root, "type_key"),
            )
        data = node.get("data", [])
        if not isinstance(data, list):
            raise MetadataError("a Map's `data` must be a list of node indices", ("nodes", root, "data"))
        if "keys" in node:
            keys = node["keys"]
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                raise MetadataError("a Map's `keys` must be a list of strings", ("nodes", root, "keys"))
            if len(keys) != len(data):
                raise MetadataError(f"the root Map has {len(keys)} keys but {len(data)} values", ("nodes", root))
            return keys, [(v, ("nodes", root, "data", i)) for i, v in enumerate(data)]
        # keys are nodes themselves (strings written as runtime.String nodes), alternating with values
        if len(data) % 2:
            raise MetadataError("a Map without `keys` must alternate key and value indices", ("nodes", root, "data"))
        keys, values = [], []
        for i in range(0, len(data), 2):
            key_node = self._node(nodes, data[i], ("nodes", root, "data", i))
            key = key_node.get("repr_str")
            if not isinstance(key, str):
                raise MetadataError("a key of the root Map must be a string", ("nodes", root, "data", i))
            keys.append(key)
            values.append((data[i + 1], ("nodes", root, "data", i + 1)))
        return keys, values

    def _constant(self, nodes: list, blobs: list, item: Any, path: tuple, decoded: dict) -> MetaTensor | None:
        try:
            index = self._index(item, path, len(nodes), "this constant")
            node = nodes[index]
            if not isinstance(node, dict) or node.get("type_key") != "relay.Constant":
                found = node.get("type_key") if isinstance(node, dict) else node
                raise MetadataError(
                    f"a `relay.Constant` entry must be a relay.Constant node, found `{found}`", ("nodes", index)
                )
            attrs = node.get("attrs")
            if not isinstance(attrs, dict) or "data" not in attrs:
                raise MetadataError("the constant node has no `data` attribute", ("nodes", index))
            blob_index = self._index(
                attrs["data"], ("nodes", index, "attrs", "data"), len(blobs), "the constant's `data`", "tensor"
            )
        except MetadataError as exc:
            self.error(exc)
            return None
        if blob_index in decoded:
            return decoded[blob_index]
        blob_path = ("b64ndarrays", blob_index)
        text = blobs[blob_index]
        result: MetaTensor | None = None
        try:
            if not isinstance(text, str):
                raise MetadataError("a tensor must be a base64 string", blob_path)
            try:
                raw = base64.b64decode("".join(text.split()), validate=True)
            except (binascii.Error, ValueError):
                raise MetadataError("the tensor is not valid base64", blob_path) from None
            try:
                result = decode_ndarray(raw)
            except MetadataError as exc:
                exc.path = blob_path
                raise
        except MetadataError as exc:
            self.error(exc, f"tensor {blob_index}: ")
        decoded[blob_index] = result
        return result


def _as_index(value: Any, count: int) -> int | None:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if type(value) is int and 0 <= value < count else None


def _field_value(nodes: list, parent: int, raw: str, depth: int = 0) -> Any:
    """A field of an object node, from the text TVM wrote for it.

    Plain fields (ints, floats, bools, dtypes, `std::string`s) are written as
    their text; object fields (arrays, `IntImm`s, `String`s) as the index of
    their node, which TVM numbers after the object that holds them. A number
    is read as a node reference only when it names such a node after the
    parent; None stands for the null node (index 0)."""
    index = _as_index(raw, len(nodes))
    if index is not None and index > parent and depth < MAX_JSON_DEPTH:
        node = nodes[index]
        if isinstance(node, dict):
            kind = node.get("type_key")
            if kind == "Array":
                data = node.get("data", [])
                return tuple(_node_value(nodes, i, depth + 1) for i in (data if isinstance(data, list) else []))
            if kind in ("IntImm", "FloatImm", "runtime.String"):
                return _node_value(nodes, index, depth + 1)
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        return float(raw)
    except ValueError:
        return raw


def _node_value(nodes: list, index: Any, depth: int) -> Any:
    """The value a node stands for: an IntImm's int, a String's text, an
    Array's tuple of values; None for the null node."""
    i = _as_index(index, len(nodes))
    if i is None or i == 0 or depth > MAX_JSON_DEPTH:
        return None
    node = nodes[i]
    if not isinstance(node, dict):
        return None
    kind = node.get("type_key")
    attrs = node.get("attrs") if isinstance(node.get("attrs"), dict) else {}
    if kind == "IntImm":
        try:
            value = int(attrs.get("value", "0"))
        except ValueError:
            return None
        return bool(value) if attrs.get("dtype") == "bool" else value
    if kind == "FloatImm":
        try:
            return float(attrs.get("value", "0"))
        except ValueError:
            return None
    if kind == "runtime.String":
        return node.get("repr_str")
    if kind == "Array":
        data = node.get("data", [])
        return tuple(_node_value(nodes, j, depth + 1) for j in (data if isinstance(data, list) else []))
    return None


def decode_metadata(meta: Metadata) -> tuple[MetaTable | None, list[Diagnostic]]:
    """Decode a `#[metadata]` section: the table (None when the section is
    unusable as a whole) and the `bad-metadata` diagnostics found. The parser
    attaches this to `Metadata.decoder`; `Metadata.decoded()` caches it."""
    reader = _Reader(meta)
    table = reader.read()
    return table, reader.diags


def read_metadata(meta: Metadata) -> tuple[MetaTable | None, list[Diagnostic]]:
    """A module's decoded `#[metadata]` section (decoded once per section)."""
    if meta.decoder is None:
        meta.decoder = decode_metadata
    return meta.decoded()


# ---------------------------------------------------------------- writing


def encode_metadata(constants: Sequence[Any], tvm_version: str = "0.8.0") -> str:
    """The JSON text of a `#[metadata]` section holding `constants` (numpy
    arrays) as `meta[relay.Constant][0]`, `[1]`, ..., laid out as TVM lays it
    out (null node, root Map, Array, one relay.Constant node per tensor)."""
    nodes: list[dict[str, Any]] = [
        {"type_key": ""},
        {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
        {"type_key": "Array", "data": [3 + i for i in range(len(constants))]},
    ]
    blobs = []
    for i, array in enumerate(constants):
        nodes.append({"type_key": "relay.Constant", "attrs": {"_checked_type_": "0", "data": str(i), "span": "0"}})
        blobs.append(base64.b64encode(encode_ndarray(array)).decode("ascii"))
    if not constants:
        del nodes[2]["data"]
    doc = {"root": 1, "nodes": nodes, "b64ndarrays": blobs, "attrs": {"tvm_version": tvm_version}}
    return json.dumps(doc, indent=2)
