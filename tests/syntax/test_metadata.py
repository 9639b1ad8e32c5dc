"""Decoding TVM's `#[metadata]` section: the JSON object graph and its tensor blobs.

The layout facts (root Map from kind to Array, `relay.Constant` nodes whose
`data` attribute indexes `b64ndarrays`, the binary NDArray header) are TVM's
object serialisation as its printer writes it; the one real section below
was printed by TVM 0.8.
"""

from __future__ import annotations

import base64
import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from relay_text.ir.ty import TensorType
from relay_text.syntax.metadata import (
    HEADER,
    MAGIC,
    MetadataError,
    decode_ndarray,
    encode_metadata,
    encode_ndarray,
    parse_json,
    read_metadata,
)
from relay_text.syntax.parser import parse
from tests.helpers import where

PROGRAM = '#[version = "0.0.5"]\ndef @main(%x: Tensor[(1, 2, 3), float32]) {\n  meta[relay.Constant][0]\n}\n\n'

# Printed by TVM 0.8.0 for a module whose body is a 2x3 float32 constant 1..6.
REAL_SECTION = """#[metadata]
{
  "root": 1, 
  "nodes": [
    {
      "type_key": ""
    }, 
    {
      "type_key": "Map", 
      "keys": [
        "relay.Constant"
      ], 
      "data": [2]
    }, 
    {
      "type_key": "Array", 
      "data": [3]
    }, 
    {
      "type_key": "relay.Constant", 
      "attrs": {
        "_checked_type_": "0", 
        "data": "0", 
        "span": "0"
      }
    }
  ], 
  "b64ndarrays": [
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAIA/AAAAQAAAQEAAAIBAAACgQAAAwEA="
  ], 
  "attrs": {"tvm_version": "0.8.0"}
}
"""  # noqa: W291 (TVM 0.8.0 wrote these trailing spaces)


def read(section_json: str, program: str = PROGRAM):
    """Parse a program followed by `#[metadata]` + the JSON; decode the section."""
    result = parse(program + "#[metadata]\n" + section_json, "test.rly")
    assert result.diagnostics == [], [str(d) for d in result.diagnostics]
    return read_metadata(result.module.metadata)


def only_error(section_json: str, program: str = PROGRAM):
    table, diags = read(section_json, program)
    assert len(diags) == 1, [str(d) for d in diags]
    return table, diags[0]


def section(blobs: list[str], data_attrs: list[str] | None = None) -> str:
    """A section in TVM's layout with the given raw blob strings."""
    data_attrs = data_attrs if data_attrs is not None else [str(i) for i in range(len(blobs))]
    nodes = [
        {"type_key": ""},
        {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
        {"type_key": "Array", "data": [3 + i for i in range(len(data_attrs))]},
    ] + [{"type_key": "relay.Constant", "attrs": {"data": d, "span": "0"}} for d in data_attrs]
    return json.dumps({"root": 1, "nodes": nodes, "b64ndarrays": blobs, "attrs": {"tvm_version": "0.8.0"}}, indent=2)


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# ---------------------------------------------------------------- real TVM output


def test_real_tvm_section_decodes() -> None:
    result = parse(PROGRAM + REAL_SECTION, "test.rly")
    assert result.diagnostics == []
    table, diags = read_metadata(result.module.metadata)
    assert diags == []
    assert table.kinds == {"relay.Constant": 1}
    assert table.tvm_version == "0.8.0"
    (tensor,) = table.constants
    assert (tensor.dtype, tensor.shape) == ("float32", (2, 3))
    a = tensor.array()
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    assert not a.flags.writeable, "constants are immutable values"
    assert table.constant_type(0) == TensorType((2, 3), "float32")
    assert table.constant_type(1) is None


def test_real_blob_header_fields() -> None:
    """The header fields, read by hand: magic, CPU device, 2 dims, float (code 2) of 32 bits."""
    raw = base64.b64decode(REAL_SECTION.split('"P6')[1].split('"')[0].join(["P6", ""]))
    magic, reserved, dev, dev_id, ndim, code, bits, lanes = struct.unpack_from("<QQiiiBBH", raw)
    assert (magic, reserved, dev, dev_id, ndim, code, bits, lanes) == (MAGIC, 0, 1, 0, 2, 2, 32, 1)
    assert struct.unpack_from("<qqq", raw, HEADER.size) == (2, 3, 24)


def test_encoder_reproduces_tvm_blob() -> None:
    blob = b64(encode_ndarray(np.arange(1, 7, dtype=np.float32).reshape(2, 3)))
    assert blob == (
        "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAIA/AAAAQAAAQEAAAIBAAACgQAAAwEA="
    )


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize(
    "dtype",
    ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"],
)
def test_round_trip_every_dtype(dtype: str) -> None:
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) * 50).astype(dtype)
    table, diags = read(encode_metadata([a]))
    assert diags == []
    out = table.constants[0].array()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, a)


def test_scalar_empty_and_non_contiguous_tensors() -> None:
    scalar = np.array(2.5, dtype=np.float32)
    empty = np.zeros((0, 3), dtype=np.int32)
    transposed = np.arange(6, dtype=np.int64).reshape(2, 3).T
    table, diags = read(encode_metadata([scalar, empty, transposed]))
    assert diags == []
    assert [(t.dtype, t.shape) for t in table.constants] == [("float32", ()), ("int32", (0, 3)), ("int64", (3, 2))]
    assert table.constants[0].array().shape == ()
    assert float(table.constants[0].array()) == 2.5
    np.testing.assert_array_equal(table.constants[2].array(), transposed)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int8, np.uint16, np.bool_]),
        shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
    )
)
def test_round_trip_property(a: np.ndarray) -> None:
    t = decode_ndarray(encode_ndarray(a))
    assert (t.dtype, t.shape) == (a.dtype.name, a.shape)
    np.testing.assert_array_equal(t.array(), a)


def test_shared_blob_and_several_constants() -> None:
    """Two entries may name one blob; each keeps its own index."""
    blob = b64(encode_ndarray(np.array([1, 2], dtype=np.int32)))
    program = '#[version = "0.0.5"]\ndef @main() {\n  (meta[relay.Constant][0], meta[relay.Constant][1])\n}\n\n'
    table, diags = read(section([blob], ["0", "0"]), program)
    assert diags == []
    assert len(table.constants) == 2
    assert table.constants[0] is table.constants[1]


def test_other_kinds_are_counted_not_decoded() -> None:
    doc = json.loads(encode_metadata([np.ones(2, dtype=np.float32)]))
    doc["nodes"][1]["keys"].append("relay.attrs.Conv2DAttrs")
    doc["nodes"][1]["data"].append(4)
    doc["nodes"].append({"type_key": "Array", "data": [5]})
    doc["nodes"].append({"type_key": "relay.attrs.Conv2DAttrs", "attrs": {"channels": "8"}})
    table, diags = read(json.dumps(doc))
    assert diags == []
    assert table.kinds == {"relay.Constant": 1, "relay.attrs.Conv2DAttrs": 1}
    assert len(table.constants) == 1


def test_map_with_node_keys() -> None:
    """A map whose keys are string objects alternates key and value indices in `data`."""
    blob = b64(encode_ndarray(np.array([7], dtype=np.int64)))
    doc = {
        "root": 1,
        "nodes": [
            {"type_key": ""},
            {"type_key": "Map", "data": [2, 3]},
            {"type_key": "runtime.String", "repr_str": "relay.Constant"},
            {"type_key": "Array", "data": [4]},
            {"type_key": "relay.Constant", "attrs": {"data": "0"}},
        ],
        "b64ndarrays": [blob],
    }
    table, diags = read(json.dumps(doc))
    assert diags == []
    assert table.constants[0].array().tolist() == [7]


def test_empty_table() -> None:
    table, diags = read(encode_metadata([]), '#[version = "0.0.5"]\ndef @main() {\n  1\n}\n\n')
    assert diags == []
    assert table.constants == []


def test_blob_with_line_breaks() -> None:
    blob = b64(encode_ndarray(np.arange(40, dtype=np.float64)))
    wrapped = "\n".join(blob[i : i + 60] for i in range(0, len(blob), 60))
    table, diags = read(section([wrapped]))
    assert diags == []
    assert table.constants[0].array().sum() == 780.0


def test_decoding_is_cached_per_section() -> None:
    result = parse(PROGRAM + REAL_SECTION, "test.rly")
    first, _ = read_metadata(result.module.metadata)
    again, _ = read_metadata(result.module.metadata)
    assert first is again


# ---------------------------------------------------------------- malformed sections


def test_invalid_json_is_located() -> None:
    text = PROGRAM + REAL_SECTION.replace('"root": 1, ', '"root": 1 ')
    result = parse(text, "test.rly")
    table, diags = read_metadata(result.module.metadata)
    assert table is None
    (d,) = diags
    assert d.code == "bad-metadata"
    assert d.message == 'the `#[metadata]` section is not valid JSON: expected `,` or `}`, found `"`'
    assert where(d) == ("bad-metadata", line_of(text, '"nodes"'), 3)


def test_truncated_json() -> None:
    _, d = only_error('{"root": 1, "nodes": [')
    assert d.message == "the `#[metadata]` section is not valid JSON: the JSON ends where a value was expected"


def test_empty_section() -> None:
    result = parse(PROGRAM + "#[metadata]\n", "test.rly")
    table, diags = read_metadata(result.module.metadata)
    assert table is None
    assert [(d.code, d.message) for d in diags] == [("bad-metadata", "the `#[metadata]` section is empty")]
    assert where(diags[0]) == ("bad-metadata", 6, 1)


def test_not_an_object() -> None:
    _, d = only_error("[1, 2]")
    assert d.message == "the `#[metadata]` section must be a JSON object with `root`, `nodes` and `b64ndarrays`"


def test_missing_nodes() -> None:
    _, d = only_error('{"root": 1}')
    assert d.message == "the metadata object has no `nodes`"


def test_root_out_of_range() -> None:
    text = section([]).replace('"root": 1', '"root": 9')
    _, d = only_error(text)
    assert d.message == "`root` refers to node 9, but there are 3 nodes"
    assert d.notes == ["valid indices are 0 to 2"]
    full = PROGRAM + "#[metadata]\n" + text
    assert where(d) == ("bad-metadata", line_of(full, '"root"'), 11)
    assert d.span.text == "9"


def test_root_is_not_a_map() -> None:
    doc = json.loads(section([]))
    doc["root"] = 2
    _, d = only_error(json.dumps(doc))
    assert d.message == "the root node must be a Map from kinds to arrays, found `Array`"
    assert d.span.text == '"Array"'


def test_invalid_base64() -> None:
    text = section(["not base64!"])
    _, d = only_error(text)
    assert d.message == "tensor 0: the tensor is not valid base64"
    assert d.span.text == '"not base64!"'
    full = PROGRAM + "#[metadata]\n" + text
    assert where(d) == ("bad-metadata", line_of(full, "not base64!"), 5)


def test_wrong_magic() -> None:
    raw = bytearray(encode_ndarray(np.ones(2, np.float32)))
    raw[0] ^= 0xFF
    _, d = only_error(section([b64(bytes(raw))]))
    assert d.message == "tensor 0: this is not a TVM tensor: its first 8 bytes are not the NDArray magic number"
    assert d.notes == ["found 0xDD5E40F096B4A1C0, expected 0xDD5E40F096B4A13F"]


def test_data_cut_short() -> None:
    raw = encode_ndarray(np.ones((2, 2), np.float32))[:-3]
    table, d = only_error(section([b64(raw)]))
    assert d.message == "tensor 0: the tensor is cut short: 13 bytes follow the header, which announces 16"
    assert table.constants == [None]


def test_trailing_bytes() -> None:
    raw = encode_ndarray(np.ones(2, np.int8)) + b"\0"
    _, d = only_error(section([b64(raw)]))
    assert d.message == "tensor 0: the tensor has bytes after its data: 3 bytes follow the header, which announces 2"


def test_size_disagrees_with_shape() -> None:
    raw = bytearray(encode_ndarray(np.ones((2, 3), np.float32)))
    struct.pack_into("<q", raw, HEADER.size + 16, 20)
    _, d = only_error(section([b64(bytes(raw))]))
    assert d.message == "tensor 0: the tensor header says 20 bytes of data, but 6 elements of float32 take 24"


def test_header_cut_short() -> None:
    _, d = only_error(section([b64(encode_ndarray(np.ones((2, 3), np.float32))[:40])]))
    assert d.message == "tensor 0: the tensor is cut short inside its header (40 of at least 56 bytes)"


def test_unsupported_element_type() -> None:
    raw = bytearray(encode_ndarray(np.ones(2, np.uint16)))
    raw[28] = 3  # an opaque handle (type code 4, bfloat, is supported)
    _, d = only_error(section([b64(bytes(raw))]))
    assert d.message == "tensor 0: the tensor's element type (type code 3, 16 bits) is not supported"


def test_vector_lanes() -> None:
    raw = bytearray(encode_ndarray(np.ones(2, np.float32)))
    struct.pack_into("<H", raw, 30, 4)
    _, d = only_error(section([b64(bytes(raw))]))
    assert d.message == "tensor 0: the tensor's element type float32x4 has 4 lanes; only scalar elements are supported"


def test_device_tensor() -> None:
    raw = bytearray(encode_ndarray(np.ones(2, np.float32)))
    struct.pack_into("<i", raw, 16, 2)
    _, d = only_error(section([b64(bytes(raw))]))
    assert d.message == "tensor 0: the tensor was saved from device type 2; TVM only saves CPU tensors (type 1)"


def test_absurd_header_is_not_an_allocation() -> None:
    raw = bytearray(encode_ndarray(np.ones(2, np.float32)))
    struct.pack_into("<i", raw, 24, 1_000_000)
    _, d = only_error(section([b64(bytes(raw))]))
    assert d.message == "tensor 0: the tensor header gives 1000000 dimensions"


def test_constant_points_past_the_blobs() -> None:
    text = section([b64(encode_ndarray(np.ones(1, np.float32)))], ["3"])
    table, d = only_error(text)
    assert d.message == "the constant's `data` refers to tensor 3, but there is 1 tensor"
    assert d.notes == ["valid indices are 0 to 0"]
    assert d.span.text == '"3"'
    assert table.constants == [None]


@pytest.mark.parametrize("written", ["------0", "-", "²", "1 2", "+3"])
def test_an_index_string_that_is_no_number_is_located_not_a_crash(written: str) -> None:
    text = section([b64(encode_ndarray(np.ones(1, np.float32)))], [written])
    table, d = only_error(text)
    assert d.message == f"the constant's `data` must be a tensor index, found {json.dumps(written)}"
    assert d.span.text == json.dumps(written)
    assert table.constants == [None]


def test_a_negative_index_string_is_out_of_range() -> None:
    text = section([b64(encode_ndarray(np.ones(1, np.float32)))], ["-1"])
    _, d = only_error(text)
    assert d.message == "the constant's `data` refers to tensor -1, but there is 1 tensor"


def test_entry_that_is_not_a_constant() -> None:
    doc = json.loads(section([]))
    doc["nodes"][2]["data"] = [1]
    _, d = only_error(json.dumps(doc))
    assert d.message == "a `relay.Constant` entry must be a relay.Constant node, found `Map`"


def test_each_bad_blob_is_reported() -> None:
    good = b64(encode_ndarray(np.ones(1, np.float32)))
    table, diags = read(section(["@@", good, "%%"]))
    assert [d.message for d in diags] == [
        "tensor 0: the tensor is not valid base64",
        "tensor 2: the tensor is not valid base64",
    ]
    assert table.constants[0] is None and table.constants[2] is None
    assert table.constants[1].shape == (1,)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    table, d = only_error("[" * 100_000 + "]" * 100_000)
    assert table is None
    assert d.message == (
        "the `#[metadata]` section is not valid JSON: the JSON is nested more than 64 levels deep; "
        "TVM's tables are nested 4 deep"
    )
    assert d.span.start_line_col == (7, 65)


def test_text_in_the_section_is_only_data() -> None:
    """Strings that look like code are never evaluated: they are just wrong keys."""
    doc = json.loads(section([]))
    doc["nodes"][1]["keys"] = ["__import__('os').system('false')"]
    doc["nodes"][2]["data"] = []
    table, diags = read(json.dumps(doc))
    assert diags == []
    assert table.kinds == {"__import__('os').system('false')": 0}


# ---------------------------------------------------------------- references


def test_reference_past_the_table() -> None:
    program = '#[version = "0.0.5"]\ndef @main() {\n  add(meta[relay.Constant][0], meta[relay.Constant][2])\n}\n\n'
    (d,) = checked(program + "#[metadata]\n" + encode_metadata([np.ones(2, np.float32)])).diagnostics
    assert d.message == "`meta[relay.Constant][2]` is not in the metadata section"
    assert d.notes == ["the section has 1 constant: indices 0 to 0"]
    assert where(d) == ("bad-metadata", 3, 32)
    assert d.span.text == "meta[relay.Constant][2]"


def test_decode_ndarray_errors_are_exceptions() -> None:
    with pytest.raises(MetadataError, match="shorter than the 32-byte header"):
        decode_ndarray(b"\0" * 8)


def test_parse_json_spans() -> None:
    value, spans = parse_json('{"a": [1, "xy"], "b": {}}')
    assert value == {"a": [1, "xy"], "b": {}}
    assert spans[("a", 1)] == (10, 14)
    assert spans[("b",)] == (22, 24)


# ---------------------------------------------------------------- through the type checker


def checked(text: str):
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source

    return check_source(Source("test.rly", text))


def test_constant_types_come_from_the_section() -> None:
    result = checked(PROGRAM + REAL_SECTION)
    assert result.diagnostics == []
    assert result.global_types == {"@main": "fn(Tensor[(1, 2, 3), float32]) -> Tensor[(2, 3), float32]"}
    assert result.result.meta_types == {0: TensorType((2, 3), "float32")}


def test_section_type_conflicts_with_use() -> None:
    program = PROGRAM.replace("meta[relay.Constant][0]", "add(%x, meta[relay.Constant][0])")
    text = program + "#[metadata]\n" + encode_metadata([np.ones((4,), np.float32)])
    (d,) = checked(text).diagnostics
    assert d.code == "shape-mismatch"
    assert d.message == "cannot broadcast shapes (1, 2, 3) and (4)"


def test_malformed_section_fails_relay_check() -> None:
    result = checked(PROGRAM + REAL_SECTION.replace('"data": "0"', '"data": "3"'))
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("bad-metadata", "the constant's `data` refers to tensor 3, but there is 1 tensor")
    ]
    assert where(result.diagnostics[0]) == ("bad-metadata", 28, 17)


def test_missing_entry_fails_relay_check_at_the_reference() -> None:
    program = PROGRAM.replace("meta[relay.Constant][0]", "add(meta[relay.Constant][0], meta[relay.Constant][1])")
    (d,) = checked(program + REAL_SECTION).diagnostics
    assert (d.code, d.message, where(d)) == (
        "bad-metadata",
        "`meta[relay.Constant][1]` is not in the metadata section",
        ("bad-metadata", 3, 32),
    )
