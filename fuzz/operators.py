"""Calls of every operator with random inputs and random attribute values.

Each case is one `@main` that calls one registered operator on parameters
of random small tensor types, with attribute values drawn from the sizes a
program may ask for: ordinary ones (0, 1, 2, -1, a layout name) and the
extremes (2^31 - 1, -2^63, a list of six, 10^6). Whatever the values, the
oracles hold: the toolchain reports a located error or runs the call.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relay_text.ops.registry import OpDef

SMALL_INTS = (0, 1, 1, 2, 2, 3, -1, -2, 4)
EXTREME_INTS = (7, 16, 255, 65536, 10**6, 2**31 - 1, -(2**31), 2**63 - 1, -(2**63))
FLOATS = ("0.5f", "1f", "-1f", "0f", "2f", "0.00001f", "100000f", "-0.5f")
STRINGS = (
    "NCHW", "NHWC", "OIHW", "HWIO", "NCW", "NCDHW", "", "bilinear", "nearest_neighbor", "linear",
    "half_pixel", "asymmetric", "align_corners", "round", "clip", "wrap", "constant", "edge", "reflect",
    "mean", "sum", "left", "right", "xy", "ij", "same", "valid", "float32",
)  # fmt: skip
DTYPES = ("float32", "float32", "int32", "int64", "int8", "uint8", "float16", "bool", "float64")
SHAPE_DIMS = (1, 1, 2, 3, 4, 5, 8)


def _int(rng: random.Random) -> int:
    return rng.choice(EXTREME_INTS) if rng.random() < 0.25 else rng.choice(SMALL_INTS)


def _ints(rng: random.Random) -> str:
    return "[" + ", ".join(str(_int(rng)) for _ in range(rng.choice((0, 1, 2, 2, 3, 4, 6)))) + "]"


def attribute_value(kind: str, rng: random.Random) -> str:
    """A value of attribute kind `kind` (see `registry.ATTR_KINDS`), now and
    then one of another kind."""
    if rng.random() < 0.05:
        kind = rng.choice(("int", "ints", "float", "str", "bool"))
    if kind.startswith("opt_") and rng.random() < 0.2:
        return "None"
    kind = kind.removeprefix("opt_")
    if kind == "int":
        return str(_int(rng))
    if kind in ("ints", "int_or_ints", "number_or_ints"):
        return _ints(rng) if kind == "ints" or rng.random() < 0.5 else str(_int(rng))
    if kind == "int_pairs":
        return "[" + ", ".join(f"[{_int(rng)}, {_int(rng)}]" for _ in range(rng.choice((1, 2, 3, 4, 4, 5)))) + "]"
    if kind == "float":
        return rng.choice(FLOATS)
    if kind == "floats":
        return "[" + ", ".join(rng.choice(FLOATS) for _ in range(rng.choice((0, 1, 2, 4)))) + "]"
    if kind == "bool":
        return rng.choice(("True", "False"))
    if kind == "dtype":
        return f'"{rng.choice(DTYPES)}"'
    if kind == "str":
        return f'"{rng.choice(STRINGS)}"'
    return rng.choice((str(_int(rng)), _ints(rng), f'"{rng.choice(STRINGS)}"'))  # a family's own kind


def tensor_type(rng: random.Random) -> str:
    rank = rng.choice((0, 1, 1, 2, 3, 4, 4, 4, 5))
    dims = ", ".join(str(rng.choice(SHAPE_DIMS)) for _ in range(rank))
    return f"Tensor[({dims}{',' if rank == 1 else ''}), {rng.choice(DTYPES)}]"


def operator_call(op: OpDef, rng: random.Random) -> str:
    """A program whose `@main` calls `op` once."""
    from relay_text.ops.registry import REQUIRED

    params = [f"%a{i}: {tensor_type(rng)}" for i in range(op.inputs)]
    attrs = []
    for attr in op.attrs:
        keep = 0.95 if attr.default is REQUIRED else 0.5
        if rng.random() < keep:
            attrs.append(f"{attr.name}={attribute_value(attr.kind, rng)}")
    args = ", ".join([*(f"%a{i}" for i in range(op.inputs)), *attrs])
    return f"def @main({', '.join(params)}) {{\n  {op.name}({args})\n}}\n"


def operator_cases(rng: random.Random) -> Iterator[tuple[str, str]]:
    """(program, origin) for ever: an operator chosen at random each time."""
    from relay_text.ops import registry

    ops = sorted((op for op in registry.all_ops() if op.inputs >= 0), key=lambda op: op.name)
    while True:
        op = rng.choice(ops)
        yield operator_call(op, rng), f"operators: {op.name}"
