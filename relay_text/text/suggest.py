"""Close-name suggestions for "did you mean ...?" hints.

Two sources, consulted in this order by `close_names`:

* `NEAR_MISSES`, a table of spellings people bring from elsewhere: Python
  or C keywords (`true`, `lambda`), dtypes capitalised or abbreviated
  (`Float32`, `double`, `f32`), and operators under the names other
  frameworks (or older TVM releases) gave them (`flatten`, `mul`, `cat`).
  A hit there is certain, so it is the only suggestion.
* Otherwise, candidates within a small edit distance.

Each caller says which kinds of near-miss fit where the name was written
(a keyword or dtype cannot be suggested for a global's name): `near=` is a
set of `KEYWORD`, `DTYPE`, `OPERATOR`. An operator near-miss is offered
only when its replacement is among the candidates.
"""

from __future__ import annotations

from collections.abc import Iterable

KEYWORD = "keyword"
DTYPE = "dtype"
OPERATOR = "operator"

# name -> (kind, replacement, why): the why completes "did you mean `X`? ..."
NEAR_MISSES: dict[str, tuple[str, str, str]] = {}


def _add(kind: str, why: str, pairs: dict[str, str]) -> None:
    for wrong, right in pairs.items():
        NEAR_MISSES[wrong] = (kind, right, why)


_add(
    KEYWORD,
    "Booleans are written `True` and `False`, as in Python",
    {
        "true": "True",
        "false": "False",
        "TRUE": "True",
        "FALSE": "False",
    },
)
_add(
    KEYWORD,
    "an anonymous function is written `fn (%x) { ... }`",
    {
        "lambda": "fn",
        "func": "fn",
        "function": "fn",
        "fun": "fn",
    },
)
_add(KEYWORD, "a local binding is written `let %x = ...;`", {"var": "let", "val": "let", "const": "let"})
_add(KEYWORD, "`else if` continues an `if`", {"elif": "else if", "elsif": "else if", "elseif": "else if"})
_add(
    DTYPE,
    "dtypes are written in lower case, as numpy spells them",
    {
        "Float16": "float16",
        "Float32": "float32",
        "Float64": "float64",
        "Int8": "int8",
        "Int16": "int16",
        "Int32": "int32",
        "Int64": "int64",
        "UInt8": "uint8",
        "Uint8": "uint8",
        "UInt16": "uint16",
        "UInt32": "uint32",
        "UInt64": "uint64",
        "Bool": "bool",
        "Boolean": "bool",
        "BFloat16": "bfloat16",
    },
)
_add(
    DTYPE,
    "dtypes name their width, as numpy spells them",
    {
        "float": "float32",
        "double": "float64",
        "half": "float16",
        "int": "int32",
        "long": "int64",
        "short": "int16",
        "char": "int8",
        "byte": "uint8",
        "boolean": "bool",
        "f16": "float16",
        "f32": "float32",
        "f64": "float64",
        "i8": "int8",
        "i16": "int16",
        "i32": "int32",
        "i64": "int64",
        "u8": "uint8",
        "u16": "uint16",
        "u32": "uint32",
        "u64": "uint64",
    },
)
_add(
    OPERATOR,
    "that is Relay's name for this operator",
    {
        "flatten": "nn.batch_flatten",
        "batch_flatten": "nn.batch_flatten",
        "mul": "multiply",
        "sub": "subtract",
        "div": "divide",
        "neg": "negative",
        "pow": "power",
        "concat": "concatenate",
        "cat": "concatenate",
        "view": "reshape",
        "permute": "transpose",
        "unsqueeze": "expand_dims",
        "clamp": "clip",
        "fill": "full",
        "shape": "shape_of",
        "linear": "nn.dense",
        "matmul": "nn.matmul",
        "bmm": "nn.batch_matmul",
        "eq": "equal",
        "ne": "not_equal",
        "lt": "less",
        "gt": "greater",
        "le": "less_equal",
        "ge": "greater_equal",
        "and": "logical_and",
        "or": "logical_or",
        "not": "logical_not",
        "max_pool": "nn.max_pool2d",
        "avg_pool": "nn.avg_pool2d",
    },
)


def near_miss(name: str, near: Iterable[str], candidates: Iterable[str] = ()) -> tuple[str, str] | None:
    """The table's replacement for `name` and why, if it fits here (see the module docstring)."""
    hit = NEAR_MISSES.get(name)
    if hit is None:
        return None
    kind, right, why = hit
    if kind not in near:
        return None
    if kind == OPERATOR and right not in set(candidates):
        return None
    return right, why


def edit_distance(a: str, b: str, limit: int = 3) -> int:
    """Damerau-Levenshtein distance (adjacent swaps cost 1), capped at `limit + 1`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
        if min(prev) > limit:
            return limit + 1
    return prev[-1]


def close_names(name: str, candidates: Iterable[str], most: int = 3, near: Iterable[str] = (OPERATOR,)) -> list[str]:
    """The table's replacement when it fits (alone), else candidates within a
    small edit distance of `name`, closest first."""
    candidates = set(candidates)
    hit = near_miss(name, near, candidates)
    if hit is not None:
        return [hit[0]]
    limit = 1 if len(name) <= 3 else 2 if len(name) <= 7 else 3
    scored = []
    for cand in candidates:
        if cand == name:
            continue
        d = edit_distance(name.lower(), cand.lower(), limit)
        if d <= limit:
            scored.append((d, cand))
    scored.sort()
    return [c for _, c in scored[:most]]


def or_list(items: list[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]
