"""Operator call sites of a compiled program: the kernel each call binds
(shared by the sites of one operator with the same attributes), the
float16/bfloat16 widening around it, and the `--max-memory` guard on
results whose size is known before the kernel runs.

`Compiler` (see `compile`) takes these methods from `OperatorSites`; the
state they read is the compiler's own.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from .. import limits
from ..diagnostics import Diagnostic, codes
from ..ir.expr import Call, Expr, Op
from ..ir.module import Module
from ..ir.ty import TensorType, TupleType
from .code import Block
from .ops import (
    LOW_PRECISION,
    BoundOperator,
    KernelArgs,
    KernelAttrs,
    MissingExtra,
    NoKernel,
    Resolver,
    bfloat16,
    bind,
    keeps_low_precision,
    missing_bfloat16,
    numpy_dtype,
    uses_bfloat16,
    widen,
)


class OperatorSites:
    """The call-site methods of `Compiler` (see `compile.Compiler`)."""

    # the compiler's state these methods read and extend
    program: Module
    resolver: Resolver
    type_of: Callable[[Expr], Any] | None
    diagnostics: list[Diagnostic]
    ns: dict[str, Any]
    blocks: list[Block]
    function_names: dict[str, str]
    signatures: dict[str, Any]
    operator_names: dict[tuple[Any, ...], tuple[str, str | None]]
    missing_bfloat16: bool
    fresh: Callable[[str], str]

    def operator_value(self, op: Op) -> str:
        bound = self.bind_operator(op, {}, False)
        if bound is None:
            return "None"
        name = self.fresh("o")
        kname = self.fresh("K")
        aname = self.fresh("A")
        self.ns[kname] = bound.kernel
        self.ns[aname] = bound.attrs
        block = Block()
        block.line(f"def {name}(*args):")
        body = Block()
        body.line(f"return {kname}(tuple(TENSOR(a) for a in args), {aname})", op)
        block.nest(body)
        self.blocks.append(block)
        self.function_names[name] = op.name
        self.signatures[name] = op.name
        return name

    def all_scalar(self, call: Call) -> bool:
        """Whether the checker proved every argument of a call a scalar tensor."""
        if self.type_of is None or not call.args:
            return False
        for arg in call.args:
            t = self.type_of(arg)
            if not (isinstance(t, TensorType) and t.shape == () and isinstance(t.dtype, str)):
                return False
        return True

    def bind_operator(
        self, op: Op, attrs: KernelAttrs, all_scalar: bool, definition: Any = None
    ) -> BoundOperator | None:
        """`definition`: an older TVM form of the operator (`ops.legacy.renamed.legacy_form`)."""
        try:
            return bind(op.name, attrs, self.resolver if definition is None else (lambda _name: definition), all_scalar)
        except NoKernel:
            self.diagnostics.append(_no_kernel(op))
            return None

    def low_precision(self, op: Op, call: Call) -> tuple[tuple[bool, ...], Any] | None:
        """For a call with float16 or bfloat16 inputs (as the checker typed
        them): which arguments hold them, and the rounding plan of its
        result (see `ops.widen`); None for other calls, and for the
        operators that keep such tensors as they are."""
        if self.type_of is None or keeps_low_precision(op.name):
            return None
        flags = tuple(_has_low_precision(self.type_of(a)) for a in call.args)
        if not any(flags):
            return None
        return flags, _rounding_plan(self.type_of(call))

    def require_bfloat16(self, node: Expr) -> bool:
        """Whether bfloat16 tensors can be made (the `ml_dtypes` package);
        without it, one diagnostic at the first node that needs them."""
        try:
            bfloat16()
            return True
        except MissingExtra:
            if not self.missing_bfloat16:
                self.missing_bfloat16 = True
                self.diagnostics.append(missing_bfloat16(getattr(node, "span", None)))
            return False

    def operator_call(self, op: Op, call: Call) -> tuple[str, str | None] | None:
        """Names of the function a call site calls and of its attributes
        (None: it takes the arguments directly). Call sites of the same
        operator with the same attributes (and the same float16 inputs)
        share them."""
        if call.attrs_ref is not None and self.program is not None and self.program.metadata is None:
            self.diagnostics.append(_unknown_attributes(op, call))
            return None
        low = self.low_precision(op, call)
        if self.type_of is not None and any(uses_bfloat16(self.type_of(e)) for e in (call, *call.args)):
            self.require_bfloat16(call)
        all_scalar = self.all_scalar(call) and low is None
        size = _static_size(self.type_of(call)) if self.type_of is not None and not all_scalar else None
        if size is not None and size[1] < limits.GUARD_BYTES:
            size = None
        site = (op.name, len(call.args), call.attrs, all_scalar, low, size)
        key: tuple[Any, ...] | None = site
        try:
            names = self.operator_names.get(site)
        except TypeError:  # an attribute value that cannot be a key
            names, key = None, None
        if names is not None:
            return names
        from ..ops.legacy.renamed import legacy_form

        form = legacy_form(op.name, len(call.args), (k for k, _ in call.attrs), getattr(self.program, "version", None))
        bound = self.bind_operator(op, dict(call.attrs), all_scalar, form[0] if form is not None else None)
        if bound is None:
            return None
        if low is not None:
            bound = widen(bound, *low)
        if size is not None:
            bound = _guarded(bound, *size)
        # K: a kernel called with the arguments and attributes; S: the
        # scalar fast path (progress.py counts the calls of the first only).
        kname = self.fresh("S" if bound.direct is not None else "K")
        if bound.direct is not None:
            self.ns[kname] = bound.direct
            names = (kname, None)
        else:
            aname = self.fresh("A")
            self.ns[kname] = bound.kernel
            self.ns[aname] = bound.attrs
            names = (kname, aname)
        if key is not None:
            self.operator_names[key] = names
        return names


def _static_size(ty: Any) -> tuple[int, int] | None:
    """(elements, bytes) of a value of type `ty` when its shapes are all
    known (None otherwise)."""
    if isinstance(ty, TensorType):
        if (
            not isinstance(ty.dtype, str)
            or not isinstance(ty.shape, tuple)
            or not all(type(d) is int for d in ty.shape)
        ):
            return None
        try:
            itemsize = numpy_dtype(ty.dtype.split("x")[0]).itemsize
        except Exception:
            return None
        n = limits.elements(ty.shape)
        return n, n * itemsize
    if isinstance(ty, TupleType):
        total = [0, 0]
        for f in ty.fields:
            part = _static_size(f)
            if part is None:
                return None
            total[0] += part[0]
            total[1] += part[1]
        return total[0], total[1]
    return None


def _guarded(bound: BoundOperator, count: int, nbytes: int) -> BoundOperator:
    """The operator, checking its result's size against `--max-memory`
    before its kernel runs."""
    kernel = bound.kernel
    what = f"the result of `{bound.name}`"

    def guarded_kernel(args: KernelArgs, attrs: KernelAttrs) -> Any:
        limits.check_allocation(count, nbytes // max(count, 1), what)
        return kernel(args, attrs)

    return BoundOperator(bound.name, guarded_kernel, bound.attrs, None)


def _has_low_precision(ty: Any) -> bool:
    """Whether a value of type `ty` holds float16 or bfloat16 tensors."""
    if isinstance(ty, TensorType):
        return ty.dtype in LOW_PRECISION
    if isinstance(ty, TupleType):
        return any(_has_low_precision(f) for f in ty.fields)
    return False


def _rounding_plan(ty: Any) -> Any:
    """The dtype a call's float32 result is rounded to: a dtype name for a
    float16 or bfloat16 tensor, a tuple of plans for a tuple, else None."""
    if isinstance(ty, TensorType):
        return ty.dtype if ty.dtype in LOW_PRECISION else None
    if isinstance(ty, TupleType) and _has_low_precision(ty):
        return tuple(_rounding_plan(f) for f in ty.fields)
    return None


def _unknown_attributes(op: Op, call: Call) -> Diagnostic:
    """A call whose attributes are in the `#[metadata]` section the file lacks:
    running it with guessed attributes would give wrong values."""
    ref = call.attrs_ref
    assert ref is not None  # (only a call whose attributes are a metadata reference comes here)
    return Diagnostic(
        codes.BAD_METADATA,
        f"cannot run `{op.name}`: its attributes are in a `#[metadata]` section this file does not have",
        call.span,
        label=f"attributes `meta[{ref.kind}][{ref.index}]` unknown",
    ).with_help(
        "print the module with its metadata (TVM's `astext(show_meta_data=True)`), or write the attributes "
        "as `key=value`"
    )


def _no_kernel(op: Op) -> Diagnostic:
    """An operator call that cannot run. The text of `--arg` values is not
    type-checked, so a name that is no operator at all is met here."""
    from ..ops import registry
    from ..text.suggest import KEYWORD, OPERATOR, near_miss

    if registry.get(op.name) is not None:
        return Diagnostic(
            codes.UNKNOWN_OPERATOR,
            f"operator `{op.name}` has no kernel to run it",
            op.span,
            label="cannot be evaluated",
        )
    diag = Diagnostic(codes.UNKNOWN_OPERATOR, f"unknown operator `{op.name}`", op.span, label="not an operator")
    hit = near_miss(op.name, (KEYWORD, OPERATOR), registry.names())
    if hit is not None:
        diag.with_help(f"did you mean `{hit[0]}`? {hit[1]}")
    return diag
