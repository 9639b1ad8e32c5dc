"""Values as text (what `relay run` prints) and as JSON.

Text:
    11   2.5   True   7i64   0.5f64      scalars, as Relay literals
    (1, (2, 3))   ()                     tuples
    Cons(1, Cons(2, Nil()))              constructor values
    ref(0)                               references
    fn(%x : int32) -> int32              closures, by their signature
    Tensor[(2, 2), float32]              tensors: a header, then the body
    [[1. 2.]                             as numpy prints it (summarised
     [3. 4.]]                            beyond 1,000 elements unless full)

A composite value that holds a non-scalar tensor spreads over several
lines, one field per line. JSON follows `--output-format json`:
`{"tensor": ..., "dtype": ..., "shape": [...]}`, `{"tuple": [...]}`,
a `List` (`Cons`/`Nil`, the Prelude's, TVM's or a file's own) as a JSON
array of its elements, other constructor values as
`{"constructor": "Some", "fields": [...]}`, `{"closure": "..."}`,
`{"ref": ...}` (relay_text/schemas/run.schema.json). Both walk the value
with an explicit stack, so a list of a million elements prints without
recursion (and, in JSON, without nesting).
"""

from __future__ import annotations

import math
import sys
from typing import Any
from collections.abc import Callable

import numpy as np

from ..text.type_text import shape_text
from .numbers import float_text, write_tensor
from .values import Data, Ref

# The name, in a compiled program's namespace, of its table from the id of
# each compiled function's code object to its Relay signature, or a function
# that computes it when first needed (set by compile). The table lives and
# dies with the program; its code objects live as long as the namespace.
SIGNATURES_NAME = "__relay_signatures__"

SUMMARY_THRESHOLD = 1000

_INT_SUFFIX = {
    "int8": "i8",
    "int16": "i16",
    "int32": "",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
}
_FLOAT_SUFFIX = {"float16": "f16", "float32": "", "float64": "f64"}


def is_list_node(value: Data) -> bool:
    """Whether a constructor value is a cell of the Prelude's (or a user's) `List`."""
    owner = value.con.belong_to
    return owner is not None and owner.name == "List" and value.con.name in ("Cons", "Nil")


def closure_signature(fn: Any) -> str:
    code = getattr(fn, "__code__", None)
    table = getattr(fn, "__globals__", {}).get(SIGNATURES_NAME)
    if code is not None and table is not None:
        sig = table.get(id(code))
        if callable(sig):
            sig = table[id(code)] = sig()
        if sig is not None:
            return str(sig)
    return f"fn {getattr(fn, '__name__', '?')}"


def _scalar_formatter(scalar_type: type) -> Callable[[Any], str]:
    """A fast formatter for one numpy scalar type (the common cases)."""
    name = np.dtype(scalar_type).name
    if name == "bool":
        return lambda v: "True" if v else "False"
    if np.dtype(scalar_type).kind in "iu":
        suffix = _INT_SUFFIX.get(name, "")
        return lambda v: f"{int(v)}{suffix}"
    return lambda v: _scalar_text(v)


_FORMATTERS: dict[type, Callable[[Any], str]] = {}


def scalar_text(value: Any) -> str:
    """A 0-d tensor (numpy scalar or 0-d array) as a Relay literal of its dtype."""
    fmt = _FORMATTERS.get(type(value))
    if fmt is None:
        if not isinstance(value, np.generic):
            return _scalar_text(value)
        fmt = _FORMATTERS[type(value)] = _scalar_formatter(type(value))
    return fmt(value)


def _scalar_text(value: Any) -> str:
    dtype = value.dtype
    name = dtype.name
    if name == "bool":
        return "True" if bool(value) else "False"
    if name == "bfloat16":
        # Relay has no bfloat16 literal: the cast of its exact float32 value.
        exact = _scalar_text(np.float32(value))
        return f'cast({exact}f, "bfloat16")' if math.isfinite(float(value)) else exact
    if dtype.kind in "iu":
        return f"{int(value)}{_INT_SUFFIX.get(name, '')}"
    if dtype.kind == "f":
        x = float(value)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        # A numpy scalar prints as the shortest text that reads back as the
        # same value in its own precision.
        text = str(value if isinstance(value, np.generic) else value[()])
        if not any(c in text for c in ".eE"):
            text += ".0"
        return text + _FLOAT_SUFFIX.get(name, "")
    return str(value)


def tensor_header(value: Any) -> str:
    return f"Tensor[{shape_text(tuple(value.shape))}, {value.dtype.name}]"


def tensor_body(value: np.ndarray, full: bool = False) -> str:
    threshold = sys.maxsize if full else SUMMARY_THRESHOLD
    return np.array2string(np.asarray(value), threshold=threshold, max_line_width=100)


def tensor_layout(value: np.ndarray, full: bool = False, pad: str = "") -> str:
    """A tensor's header, then its elements as numpy prints them, each line
    after the first indented by `pad`."""
    body = tensor_body(value, full).replace("\n", "\n" + pad)
    return f"{tensor_header(value)}\n{pad}{body}"


def _is_scalar(value: Any) -> bool:
    return isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0)


def _children(value: Any) -> tuple[Any, ...]:
    if isinstance(value, tuple):
        return value
    if isinstance(value, Data):
        return value.fields
    if isinstance(value, Ref):
        return (value.value,)
    return ()


def _has_big_tensor(value: Any) -> bool:
    """Whether a non-scalar tensor occurs anywhere inside `value`."""
    seen: set[int] = set()
    stack = [value]
    ndarray = np.ndarray
    while stack:
        v = stack.pop()
        t = type(v)
        if t is ndarray:
            if v.ndim > 0:
                return True
        elif t is tuple or t is Data or t is Ref:
            if id(v) in seen:
                continue
            seen.add(id(v))
            stack.extend(v if t is tuple else v.fields if t is Data else (v.value,))
    return False


def _multiline(value: Any) -> dict[int, bool]:
    """For every composite value inside `value`: whether it holds a
    non-scalar tensor (empty when nothing does, the common case)."""
    out: dict[int, bool] = {}
    if not _has_big_tensor(value):
        return out
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        v, expanded = stack.pop()
        if id(v) in out:
            continue
        if isinstance(v, np.ndarray) and v.ndim > 0:
            out[id(v)] = True
            continue
        kids = _children(v)
        if not kids:
            out[id(v)] = False
            continue
        if expanded:
            out[id(v)] = any(out[id(k)] for k in kids)
        else:
            stack.append((v, True))
            stack.extend((k, False) for k in kids if id(k) not in out)
    return out


def _composite(v: Any) -> tuple[str, tuple[Any, ...], str]:
    """Opening text, fields and closing text of a tuple, constructor value or reference."""
    if type(v) is tuple:
        return "(", v, ",)" if len(v) == 1 else ")"
    if type(v) is Data:
        return f"{v.con.name}(", v.fields, ")"
    return "ref(", (v.value,), ")"


TEXT_LIMIT = 4_000_000
"""Characters of a value `relay run` prints unless `--full`, or more for a
value with many parts (64 characters a part). Only a value that shares its
parts (a tuple holding the same tuple twice, forty levels deep: small in
memory, exponentially long written out) reaches it."""

LIST_LIMIT = 100
"""Elements of the longest `List` printed whole unless `--full`; a longer
one shows its first LIST_SHOWN elements, then how many more it has."""
LIST_SHOWN = 10
NESTING_LIMIT = 64
"""Levels of tuples, constructor values and references printed unless
`--full`; what lies deeper prints as `...` (a `List`'s cells count as one
level: its elements are one level below the list)."""


def list_length(value: Data, stop: int | None = None) -> int:
    """Cells of the `Cons`/`Nil` chain starting at `value` (its elements;
    counting stops past `stop`)."""
    n = 0
    node: Any = value
    while type(node) is Data and is_list_node(node) and node.con.name == "Cons" and len(node.fields) == 2:
        n += 1
        if stop is not None and n > stop:
            break
        node = node.fields[1]
    return n


def value_text(
    value: Any,
    full: bool = False,
    describe: Callable[[Any], str] | None = None,
    limit: int | None = None,
    tensor_text: Callable[[np.ndarray, str], str] | None = None,
) -> str:
    """The text `relay run` prints for a value (without a trailing newline).

    Unless `full`: a `List` of more than LIST_LIMIT elements shows its first
    LIST_SHOWN, then `...N more elements`; parts nested more than
    NESTING_LIMIT levels deep print as `...`; and the text is cut after
    `limit` characters (by default TEXT_LIMIT or 64 a part of the value)
    with a line that says so. `tensor_text(array, indentation)` replaces
    the header and numpy layout of a tensor that is not a scalar."""
    describe = describe or closure_signature
    nesting = sys.maxsize if full else NESTING_LIMIT
    long_list = sys.maxsize if full else LIST_LIMIT
    multi = _multiline(value)
    parts: list[str] = []
    # Work items: literal text (str), or (value, indentation, depth, spine):
    # `spine` is (position, length) for the cells of a List after its first.
    stack: list[Any] = [(value, 0, 0, None)]
    pop, push = stack.pop, stack.append
    generic, ndarray = np.generic, np.ndarray
    checked = 0  # parts already counted towards the limit
    size = 0
    while stack:
        if not full and len(parts) - checked > 4096:
            size += sum(map(len, parts[checked:]))
            checked = len(parts)
            if limit is None and size > TEXT_LIMIT:
                limit = max(TEXT_LIMIT, 64 * part_counts(value)[0])  # counted only when needed
            if limit is not None and size > limit:
                text = "".join(parts)[:limit]
                return f"{text} ...\n... (cut after {limit:,} characters; --full prints the whole value)"
        item = pop()
        if type(item) is str:
            parts.append(item)
            continue
        v, indent, depth, spine = item
        t = type(v)
        if t is ndarray and v.ndim > 0:
            pad = " " * indent
            parts.append(tensor_text(v, pad) if tensor_text is not None else tensor_layout(v, full, pad))
        elif isinstance(v, generic) or t is ndarray:
            parts.append(scalar_text(v))
        elif t is tuple or t is Data or t is Ref:
            if depth >= nesting and spine is None:  # (a List's next cell is no deeper)
                parts.append("...")
                continue
            tail = None  # how the fields of a List cell continue
            if t is Data and v.con.name == "Cons" and is_list_node(v) and len(v.fields) == 2:
                position, length = spine if spine is not None else (0, list_length(v, None if not full else 0))
                if length > long_list and position == LIST_SHOWN:
                    parts.append(f"...{length - position:,} more elements")
                    continue
                tail = (position + 1, length)
            opener, fields, closer = _composite(v)
            inner_depth = depth + 1
            if not multi.get(id(v), False):
                parts.append(opener)
                push(closer)
                for i in range(len(fields) - 1, -1, -1):
                    push(
                        (fields[i], indent, depth, tail)
                        if tail is not None and i == 1
                        else (fields[i], indent, inner_depth, None)
                    )
                    if i:
                        push(", ")
            else:
                inner = indent + 2
                pad = " " * inner
                parts.append(opener + "\n")
                push(" " * indent + closer.lstrip(","))
                for i in range(len(fields) - 1, -1, -1):
                    push(",\n")
                    push(
                        (fields[i], inner, depth, tail)
                        if tail is not None and i == 1
                        else (fields[i], inner, inner_depth, None)
                    )
                    push(pad)
        elif callable(v):
            parts.append(describe(v))
        else:
            parts.append(repr(v))
    return "".join(parts)


# ---------------------------------------------------------------- JSON


def _json_tensor_data(value: Any, write: Callable[[str], Any]) -> None:
    """Write a tensor's elements as JSON (nested lists; a scalar alone)."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        write(_scalar_json(arr[()]))
    elif arr.size == 0:
        # Lists down to the first empty axis: (2, 0) is [[], []].
        first_empty = arr.shape.index(0)
        text = "[]"
        for size in reversed(arr.shape[:first_empty]):
            text = "[" + ", ".join([text] * size) + "]"
        write(text)
    else:
        write_tensor(write, arr)


def _scalar_json(x: Any) -> str:
    kind = x.dtype.kind
    if kind == "b":
        return "true" if x else "false"
    if kind in "iu":
        return str(int(x))
    if kind == "f" or x.dtype.name == "bfloat16":
        return float_text(x)
    return '"' + str(x) + '"'


def _json_string(s: str) -> str:
    import json

    return json.dumps(s)


def _json_scalar(scalar_type: type) -> Callable[[Any], str]:
    name = np.dtype(scalar_type).name
    tail = f', "dtype": "{name}", "shape": []}}'
    if name == "bool":
        return lambda v: ('{"tensor": true' if v else '{"tensor": false') + tail
    if np.dtype(scalar_type).kind in "iu":
        return lambda v: '{"tensor": ' + str(int(v)) + tail
    return lambda v: '{"tensor": ' + float_text(v) + tail


_JSON_SCALARS: dict[type, Callable[[Any], str]] = {
    t: _json_scalar(t)
    for t in (
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
    )
}


JSON_PARTS_LIMIT = 10_000_000
"""Most tuples, constructor values and references a JSON or .npz result may
spell out. Neither format can share, so a value that shares its parts is
written in full; one whose expansion passes this limit is refused instead
of cut."""


def part_counts(value: Any, cap: int = JSON_PARTS_LIMIT) -> tuple[int, int]:
    """How many tuples, constructor values and references make up `value`:
    distinct ones, and written out (a shared part counts each time it is
    used; counting stops past `cap`). Each distinct part is visited once."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        v, ready = stack.pop()
        if ready:
            sizes[id(v)] = min(cap + 1, 1 + sum(sizes.get(id(k), 0) for k in _children(v)))
            continue
        t = type(v)
        if (t is tuple or t is Data or t is Ref) and id(v) not in sizes:
            sizes[id(v)] = 0  # being counted
            stack.append((v, True))
            stack.extend((k, False) for k in _children(v))
    return len(sizes), sizes.get(id(value), 0)


def value_json(value: Any, describe: Callable[[Any], str] | None = None) -> str:
    """One JSON value (compact, on one line) describing a Relay value.
    Raises ValueError for a value too large to write out (JSON_PARTS_LIMIT)."""
    parts: list[str] = []
    write_value_json(value, parts.append, describe)
    return "".join(parts)


def check_json_size(value: Any) -> None:
    """ValueError for a value too large to write out as JSON (JSON_PARTS_LIMIT)."""
    if part_counts(value)[1] > JSON_PARTS_LIMIT:
        raise ValueError(
            f"it has more than {JSON_PARTS_LIMIT:,} tuples and constructor values written out "
            "(it uses the same parts many times); the text output (the default) prints it cut short"
        )


def write_value_json(value: Any, write: Callable[[str], Any], describe: Callable[[Any], str] | None = None) -> None:
    """Write `value_json(value)` through `write` in pieces: a tensor's
    elements go out a block at a time (see `numbers`), so memory stays a
    small multiple of the largest tensor. Raises ValueError, before writing
    anything, for a value too large to write out (JSON_PARTS_LIMIT)."""
    check_json_size(value)
    describe = describe or closure_signature
    parts: list[str] = []
    stack: list[Any] = [(value,)]  # literal text (str) or (value,)
    pop, push = stack.pop, stack.append
    generic, ndarray = np.generic, np.ndarray
    while stack:
        item = pop()
        if type(item) is str:
            parts.append(item)
            continue
        v = item[0]
        t = type(v)
        if t in _JSON_SCALARS:
            parts.append(_JSON_SCALARS[t](v))
            continue
        if t is ndarray or isinstance(v, generic):
            shape = ", ".join(str(d) for d in np.shape(v))
            parts.append('{"tensor": ')
            if np.ndim(v) and np.size(v) > 64:
                write("".join(parts))
                parts.clear()
                _json_tensor_data(v, write)
            else:
                _json_tensor_data(v, parts.append)
            parts.append(f', "dtype": "{v.dtype.name}", "shape": [{shape}]}}')
            continue
        if t is tuple:
            opener, fields, closer = '{"tuple": [', v, "]}"
        elif t is Data and is_list_node(v) and _list_elements(v) is not None:
            opener, fields, closer = "[", _list_elements(v), "]"
        elif t is Data:
            opener, fields, closer = f'{{"constructor": {_json_string(v.con.name)}, "fields": [', v.fields, "]}"
        elif t is Ref:
            opener, fields, closer = '{"ref": ', (v.value,), "}"
        elif callable(v):
            parts.append(f'{{"closure": {_json_string(describe(v))}}}')
            continue
        else:
            parts.append(_json_string(repr(v)))
            continue
        parts.append(opener)
        push(closer)
        for i in range(len(fields) - 1, -1, -1):
            push((fields[i],))
            if i:
                push(", ")
        if len(parts) > 4096:
            write("".join(parts))
            parts.clear()
    write("".join(parts))


def _list_elements(value: Data) -> tuple[Any, ...] | None:
    """The elements of a `Cons`/`Nil` chain, or None if its end is not `Nil`."""
    out: list[Any] = []
    node: Any = value
    while type(node) is Data and is_list_node(node):
        if node.con.name == "Nil":
            return tuple(out)
        if len(node.fields) != 2:
            return None
        out.append(node.fields[0])
        node = node.fields[1]
    return None


def flatten_tensors(value: Any) -> dict[str, np.ndarray]:
    """Tensors of a result for `.npz` output: a tensor is `out0`; a tuple's
    tensors are `out0`, `out1`, ...; nested tuples add `_i` (`out1_0`).

    Raises ValueError naming the first value that is not a tensor, or for
    a result with more than JSON_PARTS_LIMIT tuples written out."""
    out: dict[str, np.ndarray] = {}
    if part_counts(value)[1] > JSON_PARTS_LIMIT:
        raise ValueError(
            f"it has more than {JSON_PARTS_LIMIT:,} tuples written out (it uses the same parts many times)"
        )
    if not isinstance(value, tuple):
        value = (value,)
    stack: list[tuple[str, Any]] = [(f"out{i}", v) for i, v in reversed(list(enumerate(value)))]
    while stack:
        key, v = stack.pop()
        if isinstance(v, (np.ndarray, np.generic)):
            out[key] = np.asarray(v)
        elif isinstance(v, tuple):
            stack.extend((f"{key}_{i}", f) for i, f in reversed(list(enumerate(v))))
        else:
            kind = (
                "a constructor value" if isinstance(v, Data) else "a reference" if isinstance(v, Ref) else "a closure"
            )
            raise ValueError(f"{key} is {kind}, and .npz files hold only tensors")
    return out
