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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, codes
from ..ir.module import Metadata
from ..ir.span import Span
from .metadata_json import _JsonError, parse_json
from .metadata_tensor import (
    CPU,
    HEADER,
    MAGIC,
    MAX_JSON_DEPTH,
    MAX_NDIM,
    MetadataError,
    MetaTensor,
    decode_ndarray,
    encode_ndarray,
)

# An index written as a string ("3", as TVM writes attribute values): one
# optional minus and ASCII digits (`str.isdigit` also takes "²", which
# `int` does not)
_INDEX = re.compile(r"-?[0-9]+")

__all__ = [
    "CPU",
    "HEADER",
    "MAGIC",
    "MAX_JSON_DEPTH",
    "MAX_NDIM",
    "MetaTable",
    "MetaTensor",
    "MetadataError",
    "decode_metadata",
    "decode_ndarray",
    "encode_metadata",
    "encode_ndarray",
    "parse_json",
    "read_metadata",
]


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
            out.append((name, _field_value(self.nodes, node_index if node_index is not None else 0, raw)))
        return tuple(out)

    def constant_type(self, index: int) -> Any:
        """`Tensor[shape, dtype]` of a constant, or None."""
        from ..ir.ty import TensorType

        t = self.constants[index] if 0 <= index < len(self.constants) else None
        if t is not None:
            return TensorType(t.shape, t.dtype)
        return None


class _Reader:
    def __init__(self, meta: Metadata) -> None:
        self.meta = meta
        self.base = meta.span.end - len(meta.text)
        self.spans: dict[tuple[Any, ...], tuple[int, int]] = {}
        self.diags: list[Diagnostic] = []

    def span_of(self, path: tuple[Any, ...]) -> Span:
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

    def _index(self, value: Any, path: tuple[Any, ...], count: int, what: str, noun: str = "node") -> int:
        if isinstance(value, str) and _INDEX.fullmatch(value.strip()):
            value = int(value)
        if type(value) is not int:
            raise MetadataError(f"{what} must be a {noun} index, found {json.dumps(value)[:40]}", path)
        if not 0 <= value < count:
            there = f"there {'is' if count == 1 else 'are'} {count} {noun}{'' if count == 1 else 's'}"
            valid = [f"valid indices are 0 to {count - 1}"] if count else []
            raise MetadataError(f"{what} refers to {noun} {value}, but {there}", path, valid)
        return value

    def _node(self, nodes: list[Any], index: Any, path: tuple[Any, ...]) -> dict[str, Any]:
        index = self._index(index, path, len(nodes), "this")
        node = nodes[index]
        if not isinstance(node, dict):
            raise MetadataError(f"node {index} must be a JSON object", ("nodes", index))
        return node

    def _map(self, nodes: list[Any], root: int) -> tuple[list[str], list[tuple[int, tuple[Any, ...]]]]:
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

    def _constant(
        self, nodes: list[Any], blobs: list[Any], item: Any, path: tuple[Any, ...], decoded: dict[Any, Any]
    ) -> MetaTensor | None:
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
            known: MetaTensor | None = decoded[blob_index]
            return known
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


def _field_value(nodes: list[Any], parent: int, raw: str, depth: int = 0) -> Any:
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


def _node_value(nodes: list[Any], index: Any, depth: int) -> Any:
    """The value a node stands for: an IntImm's int, a String's text, an
    Array's tuple of values; None for the null node."""
    i = _as_index(index, len(nodes))
    if i is None or i == 0 or depth > MAX_JSON_DEPTH:
        return None
    node = nodes[i]
    if not isinstance(node, dict):
        return None
    kind = node.get("type_key")
    attrs: dict[str, Any] = node["attrs"] if isinstance(node.get("attrs"), dict) else {}
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
