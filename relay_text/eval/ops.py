"""Operators for the evaluator: each call site is bound to its kernel once.

The operator registry (`relay_text.ops.registry`) defines every operator as
one unit with a numpy kernel, called as `kernel(args, attrs)` with the
arguments as a tuple (a scalar is a 0-d array) and the attributes as a
dict with defaults filled. A unit may also offer `scalar`, the same
operation on numpy scalars as positional arguments, which the compiled
program calls directly where the checker proved every argument a scalar
and the call leaves every attribute at its default.

`Resolver` is the seam between the two: `default_resolver` reads the
registry; tests may pass their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias
from collections.abc import Callable

Resolver = Callable[[str], Any | None]


# An operator's attributes by name, as kernels read them (values are the IR's AttrValues).
KernelAttrs: TypeAlias = dict[str, Any]
# A kernel's argument values. Any: arrays, scalars, tuples and ADT values alike.
KernelArgs: TypeAlias = tuple[Any, ...]


@dataclass(frozen=True)
class BoundOperator:
    """How the compiled program calls one operator at one call site.

    `direct` is called with the arguments themselves; otherwise `kernel` is
    called with the argument tuple and `attrs`."""

    name: str
    kernel: Callable[..., Any]
    attrs: KernelAttrs
    direct: Callable[..., Any] | None = None


class NoKernel(Exception):
    """The operator exists for the parser but nothing can run it."""


def default_resolver(name: str) -> Any | None:
    """The registry's definition of an operator, or None."""
    from ..ops import registry

    return registry.get(name)


def _filled_attrs(definition: Any, attrs: KernelAttrs) -> KernelAttrs:
    """The call's attributes with the schema's defaults filled in (the
    checker has already reported any that do not fit)."""
    normalize = getattr(definition, "normalize_attrs", None)
    if callable(normalize):
        filled, _errors = normalize(tuple(attrs.items()))
        return dict(filled)
    return dict(attrs)


def bind(name: str, attrs: KernelAttrs, resolver: Resolver, all_scalar: bool = False) -> BoundOperator:
    """Look an operator up and fix its attributes; raises NoKernel."""
    definition = resolver(name)
    if definition is None:
        raise NoKernel(name)
    kernel = getattr(definition, "kernel", None)
    if not callable(kernel):
        raise NoKernel(name)
    filled = _filled_attrs(definition, attrs)
    # The fast path computes the operation with its default attributes.
    direct = getattr(definition, "scalar", None) if all_scalar and not attrs else None
    return BoundOperator(name, kernel, filled, direct if callable(direct) else None)


# ---------------------------------------------------------------- float16 and bfloat16

LOW_PRECISION = frozenset({"float16", "bfloat16"})
"""Float dtypes that numpy has no fast arithmetic for (float16: no BLAS, each
element converted on the fly) or none at all (bfloat16, through ml_dtypes)."""


def keeps_low_precision(name: str) -> bool:
    """Whether an operator runs on float16 and bfloat16 tensors as they are
    (its `keeps_low_precision` property: bit patterns, conversions, pure
    data movement, shape reads), rather than in float32 (see `widen`)."""
    from ..ops import registry

    return registry.properties(name).keeps_low_precision


def widen(bound: BoundOperator, inputs: tuple[bool, ...], result: Any) -> BoundOperator:
    """The operator computing in float32 where its inputs are float16 or bfloat16.

    numpy has no fast float16 arithmetic (no float16 BLAS: a float16 matrix
    product is 25-75 times slower than a float32 one) and no bfloat16 at all.
    So at a call site whose inputs include float16 or bfloat16 tensors (as
    the checker typed them), the kernel runs on float32 copies of those
    inputs (exact: float32 holds every float16 and bfloat16 value) and each
    result the call declares float16 or bfloat16 is rounded to that dtype
    once (round to nearest even), when the kernel returns. That is the
    semantics: compute in float32, round once per operator. Elementwise operators
    give the same values either way (float32 holds an exact float16 sum or
    product before its one rounding); reductions, matrix products and
    convolutions are more accurate than float16 accumulation.

    `inputs` tells which arguments hold such tensors (a tuple argument is
    converted field by field); `result` is the declared result as a rounding
    plan: a dtype name, a tuple of plans for a tuple result, or None to
    leave a part as the kernel returns it. A read-only input (a constant of
    the program, such as a weight) is converted once, on its first use.
    Operators
    whose `keeps_low_precision` property is set (bit patterns, conversions,
    data movement) are never widened.
    """
    kernel = bound.kernel
    flags = tuple(inputs)
    # Read-only inputs (the program's constants: weights) are converted once.
    converted: dict[int, tuple[Any, Any]] = {}

    def to_float32(value: Any) -> Any:
        if type(value) is tuple:
            return tuple(to_float32(v) for v in value)
        dtype = getattr(value, "dtype", None)
        if dtype is None or dtype.name not in LOW_PRECISION:
            return value
        if value.flags.writeable or value.ndim == 0:
            return _float32(value)
        found = converted.get(id(value))
        if found is None or found[0] is not value:
            found = converted[id(value)] = (value, _float32(value))
        return found[1]

    def widened(args: KernelArgs, attrs: KernelAttrs) -> Any:
        return _round(
            kernel(tuple(to_float32(a) if f else a for a, f in zip(args, flags, strict=False)), attrs), result
        )

    widened.__name__ = getattr(kernel, "__name__", "kernel")
    widened.__qualname__ = widened.__name__
    return BoundOperator(bound.name, widened, bound.attrs, None)


def _float32(value: Any) -> Any:
    """A float16 or bfloat16 array as float32 (exact). float16 goes through
    a table of the 65,536 values (`ops._half.to_float32`); bfloat16 is the upper
    half of a float32's bits."""
    import numpy as np

    if value.ndim == 0:
        return value.astype(np.float32)
    if value.dtype.name == "bfloat16":
        return (value.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
    from ..ops._half import to_float32

    return to_float32(value)


def _round(value: Any, plan: Any) -> Any:
    if plan is None:
        return value
    if type(plan) is tuple:
        if type(value) is not tuple:
            return value
        return tuple(_round(v, p) for v, p in zip(value, plan, strict=False))
    if getattr(value, "dtype", None) is not None and value.dtype.name != plan:
        if plan == "float16" and value.dtype.name == "float32" and value.ndim:
            from ..ops._half import to_float16  # (numpy's rounding, faster where compiled)

            return to_float16(value)
        return value.astype(numpy_dtype(plan))
    return value


def numpy_dtype(name: str) -> Any:
    """numpy's dtype for a Relay dtype name (bfloat16 through `ml_dtypes`:
    MissingExtra without it; TypeError for a dtype numpy cannot hold)."""
    import numpy as np

    if name == "bfloat16":
        return bfloat16()
    if name not in NUMPY_DTYPES:  # ml_dtypes, once imported, also names uint1, int4, ...
        raise TypeError(f"data type {name!r} not understood")
    return np.dtype(name)


NUMPY_DTYPES = frozenset(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"]
)


def uses_bfloat16(ty: Any) -> bool:
    """Whether a type mentions bfloat16 tensors (in tuples and functions too)."""
    from ..ir.ty import FuncType, TensorType, TupleType

    stack = [ty]
    while stack:
        t = stack.pop()
        if isinstance(t, TensorType):
            if t.dtype == "bfloat16":
                return True
        elif isinstance(t, TupleType):
            stack.extend(t.fields)
        elif isinstance(t, FuncType):
            stack.extend(t.arg_types)
            stack.append(t.ret_type)
    return False


class MissingExtra(Exception):
    """An optional package the program needs is not installed."""


def bfloat16() -> Any:
    """numpy's dtype for bfloat16, from the `ml_dtypes` package (the optional
    extra `relay-text[bfloat16]`); MissingExtra without it."""
    try:
        import ml_dtypes
    except ImportError:
        raise MissingExtra(BFLOAT16_HELP) from None
    import numpy as np

    return np.dtype(ml_dtypes.bfloat16)


BFLOAT16_HELP = "bfloat16 tensors need the `ml_dtypes` package: pip install 'relay-text[bfloat16]'"


def missing_bfloat16(span: Any, label: str = "a bfloat16 tensor") -> Any:
    """The diagnostic for a bfloat16 value without `ml_dtypes`, at `span`."""
    from ..diagnostics import Diagnostic, codes

    return (
        Diagnostic(
            codes.RUNTIME_ERROR,
            "bfloat16 tensors need the `ml_dtypes` package, which is not installed",
            span,
            label=label,
        )
        .with_note("numpy has no bfloat16 of its own; `ml_dtypes` adds it")
        .with_help("install the optional extra: pip install 'relay-text[bfloat16]'")
    )
