"""The operator registry: one unit per operator, shared by every stage.

An operator is registered once, in the module of its family
(any module of this package but `registry`, `relation`, `relations`,
`properties` and `types`: they are found, not listed), by decorating its
numpy kernel, typed with the aliases of `types`:

    @register("add", inputs=2, relation=broadcast, doc="Elementwise sum, numpy broadcasting.")
    def add(args: Args, attrs: Attrs) -> Value:
        return wrap(np.add(*args), args[0].dtype)

The unit holds everything the toolchain knows about the operator:

* `name` - as written in programs (`add`, `nn.conv2d`);
* `inputs` - how many positional arguments it takes;
* `attrs` - the attribute schema: TVM's attribute names, the kind of value
  each takes and its default (`REQUIRED` when a call must give it);
* `relation` - its type relation (see `relay_text.ops.relation` for the
  interface a relation is given), which computes the result type from the
  argument types and may also refine arguments from the result or from
  attributes (`nn.dense`'s weight from `units`);
* `relation_name` - the name its `@relation` decorator gives the relation
  (`Broadcast`), else the operator's own;
* `kernel` - the implementation over numpy;
* `scalar` - optionally, the same operation on numpy scalars, called with
  positional arguments: the evaluator's fast path for scalar code, used
  only where the checker proved every argument a scalar (see below);
* `doc` - one line for users;
* `properties` - what passes and the evaluator may assume about it (its
  fusion pattern, whether it is stateful, ...): its row of
  `relay_text.ops.properties`, attached here when it is registered.

Kernel contract (what the evaluator relies on)
----------------------------------------------
`kernel(args, attrs)` is called with

* `args`: a tuple of runtime values, one per positional input: tensors are
  numpy arrays of exactly the dtype the type checker inferred (a scalar is a
  0-d array, never a Python or numpy scalar); a tuple value is a Python
  tuple of such arrays;
* `attrs`: a dict holding every attribute of the schema, validated and
  normalised by `OpDef.normalize_attrs` (defaults filled in, a single int
  given for a list attribute widened to a one-element tuple, lists as
  tuples, dtypes as strings);

and returns a numpy array (0-d for a scalar result) of the dtype the type
relation states, or a Python tuple of arrays for operators whose result type
is a tuple (`split`, `nn.batch_norm`). Kernels never promote: float32 stays
float32, integer overflow wraps around (two's complement), integer division
truncates toward zero (`-7 / 2` is `-3`) and integer modulo takes the sign of
the dividend. A failure that depends on the values (integer division by
zero, an index out of range under `mode="fast"`) raises `KernelError` with a
diagnostic code; any other exception is a bug.

`scalar(*args)`, where given, takes numpy scalars (or 0-d arrays) of the
types the relation accepts, with the attributes at their defaults, and
returns a numpy scalar equal to `kernel(args, defaults)[()]`, with the same
dtype and the same `KernelError`s: it is the kernel's meaning without the
array machinery (about 20 times faster on scalars).

numpy is imported lazily (the first time a kernel runs), so that
`relay check` never pays for it.

Lookup: `get(name)` returns the unit or None; `all_ops()` lists every unit,
sorted by name; `names()` the registered names.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable

from ..ir.expr import has_invalid_attr
from ..ir.ty import canonical_dtype
from .properties import PROPERTIES, Pattern, Properties
from .relation import RelationFn, relation_name
from .types import Attrs, AttrValue, Kernel, ScalarKernel

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import
    from ..record import dataclass, field

if TYPE_CHECKING:
    from ..diagnostics.codes import Code


class KernelError(Exception):
    """A value-dependent failure of a kernel, carrying a diagnostic code."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

# Kinds of attribute values, as written in a program's text:
ATTR_KINDS = {
    "int": "an integer",
    "float": "a number",
    "bool": "True or False",
    "str": "a string",
    "dtype": 'a dtype string such as "float32"',
    "ints": "a list of integers",
    "int_or_ints": "an integer or a list of integers",
    "opt_int": "an integer or None",
    "opt_ints": "a list of integers or None",
    "opt_dtype": 'a dtype string such as "float32", or ""',
    "number_or_ints": "a number",
    "floats": "a list of numbers",
    "int_pairs": "a list of [before, after] pairs of integers",
    "opt_float": "a number or None",
}


# Kinds a family module adds for its own operators (see `attr_kind`).
_CONVERTERS: dict[str, Callable[[Any], Any]] = {}


def attr_kind(name: str, description: str, convert: Callable[[Any], Any]) -> str:
    """Add a kind of attribute value: `convert` takes the value as parsed
    (ints, floats, bools, strings, None, tuples of those, `MetaRef`s) and
    returns its normal form, or raises ValueError/TypeError when the value
    does not fit; `description` completes "attribute `x` takes ...".
    Returns `name`, for use in `Attr(...)`."""
    if name in ATTR_KINDS and _CONVERTERS.get(name) is not convert:
        raise ValueError(f"attribute kind {name!r} defined twice")
    ATTR_KINDS[name] = description
    _CONVERTERS[name] = convert
    return name


class AttrError(Exception):
    """An attribute value that does not fit the schema."""

    def __init__(self, key: str, message: str, expected: str = "", reported: bool = False) -> None:
        super().__init__(message)
        self.key = key
        self.message = message
        self.expected = expected
        self.reported = reported  # the reader has reported the value already


@dataclass(frozen=True, slots=True)
class Attr:
    """One attribute of an operator: TVM's name, the kind of value, the default."""

    name: str
    kind: str
    default: Any = REQUIRED

    def __post_init__(self) -> None:
        if self.kind not in ATTR_KINDS:
            raise ValueError(f"unknown attribute kind {self.kind!r}")

    def convert(self, value: Any) -> Any:
        """The value in normal form, or AttrError (already `reported` for
        a value the reader could not take)."""
        if has_invalid_attr(value):
            raise AttrError(self.name, "", reported=True)
        kind = self.kind
        custom = _CONVERTERS.get(kind)
        if custom is not None:
            if isinstance(value, list):
                value = tuple(value)
            try:
                return custom(value)
            except (TypeError, ValueError):
                raise AttrError(
                    self.name, f"attribute `{self.name}` takes {ATTR_KINDS[kind]}", ATTR_KINDS[kind]
                ) from None
        if kind.startswith("opt_") and value is None:
            return None
        if isinstance(value, list):  # from Python callers; the parser gives tuples
            value = tuple(value)
        if kind == "opt_dtype":
            kind = "dtype"
            if value == "":
                return ""
        elif kind.startswith("opt_"):
            kind = kind[4:]
        if kind == "int":
            if _is_int(value):
                return int(value)
        elif kind == "float":
            if _is_number(value):
                return self._float(value)
        elif kind == "bool":
            if isinstance(value, bool):
                return value
            if _is_int(value) and value in (0, 1):
                return bool(value)
        elif kind == "str":
            if isinstance(value, str):
                return value
        elif kind == "dtype":
            if isinstance(value, str) and canonical_dtype(value) is not None:
                return canonical_dtype(value)  # TVM's spellings: "int" is int32
            if isinstance(value, str):
                raise AttrError(self.name, f'`"{value}"` is not a dtype', ATTR_KINDS["dtype"])
        elif kind == "ints":
            if _is_int(value):
                return (int(value),)
            if isinstance(value, tuple) and all(_is_int(v) for v in value):
                return tuple(int(v) for v in value)
        elif kind == "int_or_ints":
            if _is_int(value):
                return int(value)
            if isinstance(value, tuple) and all(_is_int(v) for v in value):
                return tuple(int(v) for v in value)
        elif kind == "number_or_ints":
            if _is_number(value):
                return value
        elif kind == "floats":
            if _is_number(value):
                return (self._float(value),)
            if isinstance(value, tuple) and all(_is_number(v) for v in value):
                return tuple(self._float(v) for v in value)
        elif (
            kind == "int_pairs"
            and isinstance(value, tuple)
            and all(isinstance(p, (tuple, list)) and len(p) == 2 and all(_is_int(v) for v in p) for p in value)
        ):
            return tuple((int(p[0]), int(p[1])) for p in value)
        raise AttrError(self.name, f"attribute `{self.name}` takes {ATTR_KINDS[self.kind]}", ATTR_KINDS[self.kind])

    def _float(self, value: int | float) -> float:
        try:
            return float(value)
        except OverflowError:  # an integer beyond the largest float64
            raise AttrError(
                self.name, f"attribute `{self.name}` is too large for a float", ATTR_KINDS[self.kind]
            ) from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class OpDef:
    """Everything about one operator (see the module docstring)."""

    name: str
    inputs: int
    attrs: tuple[Attr, ...]
    relation: RelationFn
    kernel: Kernel
    doc: str
    relation_name: str = ""
    schema: dict[str, Attr] = field(default_factory=dict, compare=False, repr=False)
    scalar: ScalarKernel | None = field(default=None, compare=False, repr=False)
    # An older TVM name of an operator: the current name (see `legacy`).
    renamed_to: str = ""
    # Its row of `properties.PROPERTIES` (None only for an operator the
    # table lacks, which tests/ops/test_properties.py reports).
    properties: Properties | None = field(default=None, compare=False, repr=False)

    def normalize_attrs(self, given: Iterable[tuple[str, AttrValue]]) -> tuple[Attrs, list[AttrError]]:
        """Validate `key=value` pairs against the schema and fill in defaults.

        Returns the complete attribute dict and the problems found: an
        unknown key, a value of the wrong kind, a required attribute missing
        (reported with key "" and the missing name in the message).
        """
        out: Attrs = {}
        errors: list[AttrError] = []
        for key, value in given:
            attr = self.schema.get(key)
            if attr is None:
                errors.append(AttrError(key, f"`{self.name}` has no attribute `{key}`"))
                continue
            try:
                out[key] = attr.convert(value)
            except AttrError as exc:
                errors.append(exc)
        for attr in self.attrs:
            if attr.name not in out:
                if attr.default is REQUIRED:
                    if not any(e.key == attr.name for e in errors):
                        errors.append(
                            AttrError("", f"`{self.name}` needs the attribute `{attr.name}`", ATTR_KINDS[attr.kind])
                        )
                    out[attr.name] = None
                else:
                    out[attr.name] = attr.default
        return out, errors

    def signature(self) -> str:
        """`name(x1, x2, key=default, ...)` for documentation."""
        parts = [f"x{i + 1}" for i in range(self.inputs)]
        for attr in self.attrs:
            parts.append(attr.name if attr.default is REQUIRED else f"{attr.name}={attr.default!r}")
        return f"{self.name}({', '.join(parts)})"


_OPS: dict[str, OpDef] = {}
_MODULES: dict[str, str] = {}  # operator name -> the family module that registered it
_INDEX: dict[str, str] | None = None
_LOADED = False
# Modules of this package that define no operators; every other module is a family.
_NOT_FAMILIES = frozenset({"registry", "relation", "relations", "properties", "types"})


def families() -> list[str]:
    """The family modules of this package as paths below it, sorted: every
    module of a group package (`nn.conv`, `tensor.elementwise`) and any
    module at the top that is neither a helper (`_name`) nor one of the
    registry's own; found in the file system, nothing is imported."""
    import pkgutil
    from pathlib import Path

    here = Path(__file__).parent
    out: list[str] = []
    for module in pkgutil.iter_modules([str(here)]):
        if module.name.startswith("_") or module.name in _NOT_FAMILIES:
            continue
        if module.ispkg:
            inner = pkgutil.iter_modules([str(here / module.name)])
            out += [f"{module.name}.{m.name}" for m in inner if not m.name.startswith("_") and not m.ispkg]
        else:
            out.append(module.name)
    return sorted(out)


def register(
    name: str,
    *,
    inputs: int,
    relation: RelationFn,
    doc: str,
    attrs: Iterable[Attr] = (),
    scalar: ScalarKernel | None = None,
    renamed_to: str = "",
) -> Callable[[Kernel], Kernel]:
    """Decorator registering a kernel together with the rest of its unit."""

    def decorate(kernel: Kernel) -> Kernel:
        if name in _OPS:
            raise ValueError(f"operator {name!r} registered twice")
        _MODULES[name] = _registering_family()
        attr_tuple = tuple(attrs)
        _OPS[name] = OpDef(
            name,
            inputs,
            attr_tuple,
            relation,
            kernel,
            doc,
            relation_name(relation) or name,
            {a.name: a for a in attr_tuple},
            scalar,
            renamed_to,
            PROPERTIES.get(name),
        )
        return kernel

    return decorate


def _registering_family() -> str:
    """The family module whose import is registering an operator: the
    innermost frame running the body of a family module (so `acos`, which
    `trig` registers through a helper function of `elementwise`, belongs to
    `trig`); failing that, the innermost frame running any code of a family
    module (not `registry` or a `_helper` module that registers on a
    family's behalf)."""
    prefix = f"{__package__}."
    frame: FrameType | None = sys._getframe(2)
    fallback = ""
    while frame is not None:
        family = _family_of(frame.f_globals.get("__name__", ""), prefix)
        if family:
            if frame.f_code.co_name == "<module>":
                return family
            fallback = fallback or family
        frame = frame.f_back
    return fallback


def _family_of(module: str, prefix: str) -> str:
    """`nn.conv` for `relay_text.ops.nn.nn.conv`; "" for a module that is no family."""
    if not module.startswith(prefix):
        return ""
    short = module[len(prefix) :]
    parts = short.split(".")
    if any(p.startswith("_") for p in parts) or short in _NOT_FAMILIES:
        return ""
    return short


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib

    for family in families():
        importlib.import_module(f"{__package__}.{family}")


def _index() -> dict[str, str]:
    global _INDEX
    if _INDEX is None:
        try:
            from ._index import INDEX
        except ImportError:  # pragma: no cover - a broken installation
            INDEX = {}
        _INDEX = INDEX
    return _INDEX


def get(name: str) -> OpDef | None:
    """The operator called `name`, or None.

    Only the family module that defines it is imported (found in the
    generated index `_index.py`), so that checking a file that calls three
    operators does not import the ~300 others; a name the index does not
    know loads every family."""
    op = _OPS.get(name)
    if op is not None or _LOADED:
        return op
    family = _index().get(name)
    if family is not None:
        import importlib

        importlib.import_module(f"{__package__}.{family}")
        op = _OPS.get(name)
        if op is not None:
            return op
    _load()
    return _OPS.get(name)


def properties(name: str) -> Properties:
    """The properties of the operator called `name`; for a name that no
    registered operator (or no row of the table) has, the most cautious
    ones: opaque, stateful, not computational (never fused, folded, merged
    or dropped)."""
    op = get(name)
    found = op.properties if op is not None else None
    return found if found is not None else UNKNOWN


UNKNOWN = Properties(Pattern.OPAQUE, stateful=True, computational=False)


def all_ops() -> list[OpDef]:
    """Every registered operator, sorted by name."""
    _load()
    return [_OPS[k] for k in sorted(_OPS)]


def names() -> list[str]:
    _load()
    return sorted(_OPS)


def index_text() -> str:
    """The text of `_index.py`: every operator's name and the family module
    that registers it (`python -m relay_text.ops` rewrites it;
    tests/ops/test_index.py checks that it is current)."""
    _load()
    lines = [
        '"""Which family module registers each operator: generated by',
        "`python -m relay_text.ops` from the registry, checked by",
        'tests/ops/test_index.py. Do not edit."""',
        "",
        "INDEX = {",
    ]
    lines += [f"    {name!r}: {_MODULES[name]!r}," for name in sorted(_OPS)]
    lines.append("}")
    return "\n".join(lines) + "\n"
