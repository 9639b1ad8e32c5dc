"""The checker's texts about operator calls: unknown operators and
attributes, arities, and results a relation cannot give (too large, or with
a negative dimension). The rest of the checker's wording is in
`messages.py`; the same rules hold here."""

from __future__ import annotations

from typing import Any

from ..diagnostics import WARNING, Diagnostic, codes
from ..ir.span import Span
from ..text.suggest import or_list
from .messages import did_you_mean, plural_s, was_or_were


def result_elements_over_limit(op: str, count: int, limit: int) -> str:
    return f"`{op}` would produce a tensor of {count:,} elements, more than the limit of {limit:,} (2^40)"


def operator_type_arguments(name: str, span: Span | None) -> Diagnostic:
    return Diagnostic(codes.ARITY_MISMATCH, f"operator `{name}` takes no type arguments", span, label="not polymorphic")


def operator_arity(opdef: Any, got: int, span: Span | None, hint: str | None) -> Diagnostic:
    want = opdef.inputs
    message = f"`{opdef.name}` takes {want} argument{plural_s(want)}, but {got} {was_or_were(got)} given"
    diag = Diagnostic(codes.ARITY_MISMATCH, message, span, label=f"expected {want} argument{plural_s(want)}")
    diag.with_note(f"`{opdef.signature()}`: {opdef.doc}")
    if hint is not None:
        diag.with_help(hint)
    return diag


def first_of_uses(label: str, count: int) -> str:
    """The label of a problem reported once for `count` uses, at the first."""
    return f"{label} ({count} uses; this is the first)" if count > 1 else label


def renamed_operator(name: str, new_name: str, uses: int, span: Span | None) -> Diagnostic:
    message = f"`{name}` is the name an earlier TVM release gave `{new_name}`"
    return Diagnostic(codes.RENAMED_OPERATOR, message, span, label=first_of_uses("old name", uses)).with_note(
        f"read with its old attributes, as `{new_name}`; TVM 0.8 and later know only the new name"
    )


def old_operator_form(name: str, uses: int, span: Span | None) -> Diagnostic:
    """`nn.pad(%x, pad_width=..., pad_value=0f)`: the form TVM 0.7 and before had."""
    message = f"`{name}` with its pad value as an attribute is the form of TVM releases before 0.8"
    return (
        Diagnostic(codes.RENAMED_OPERATOR, message, span, label=first_of_uses("old form", uses))
        .with_note("read with its old attributes: the `pad_value` attribute (0 when omitted) is the value padded with")
        .with_help(f"TVM 0.8 and later take the value as the second argument: `{name}(%x, 0f, pad_width=[...])`")
    )


def attributes_without_metadata(names: list[str], calls: int, ref: Any, span: Span | None) -> Diagnostic:
    """Calls whose attributes are in the `#[metadata]` section a file lacks: said once."""
    ops = or_list([f"`{n}`" for n in names]).replace(" or ", " and ")
    what = "this call" if calls == 1 else f"{calls} calls"
    message = f"the attributes of {what} of {ops} are in a `#[metadata]` section this file does not have"
    return (
        Diagnostic(codes.BAD_METADATA, message, span, severity=WARNING, label=f"`meta[{ref.kind}][{ref.index}]`")
        .with_note(
            "their attributes are unknown: the results of those calls are not checked "
            "(their types are what their uses make them), and the file cannot be run"
        )
        .with_help(
            "print the module with its metadata (TVM's `astext(show_meta_data=True)`), "
            "or write the attributes as `key=value`"
        )
    )


def missing_attribute(problem: Any, opdef: Any, span: Span | None) -> Diagnostic:
    return Diagnostic(codes.MISSING_ATTRIBUTE, problem.message, span, label="in this call").with_help(
        f"the attribute takes {problem.expected}; the call looks like `{opdef.signature()}`"
    )


def unknown_attribute(problem: Any, opdef: Any, suggestions: list[str], span: Span | None) -> Diagnostic:
    """`span` is the attribute's key when it is known (else the call)."""
    diag = Diagnostic(codes.UNKNOWN_ATTRIBUTE, problem.message, span, label="unknown attribute")
    if suggestions:
        diag.with_choices(
            did_you_mean(suggestions), span if span is not None and span.text == problem.key else None, suggestions
        )
    elif opdef.attrs:
        diag.with_note(f"`{opdef.name}` takes {or_list([f'`{a.name}`' for a in opdef.attrs])}")
    else:
        diag.with_note(f"`{opdef.name}` takes no attributes")
    return diag


def attribute_type(problem: Any, opdef: Any, value: Any, span: Span | None) -> Diagnostic:
    return Diagnostic(codes.TYPE_MISMATCH, problem.message, span, label=f"found {_attr_value_text(value)}").with_note(
        f"`{opdef.name}` takes `{problem.key}` as {problem.expected}"
    )


def _attr_value_text(value: Any) -> str:
    if value is None:
        return "`None`"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, bool):
        return f"`{value}`"
    if isinstance(value, tuple):
        return "`[" + ", ".join(str(v) for v in value) + "]`"
    return f"`{value}`"


def unknown_constructor(
    name: str, span: Span | None, keyword: tuple[str, str] | None, suggestions: list[str]
) -> Diagnostic:
    diag = Diagnostic(codes.UNKNOWN_CONSTRUCTOR, f"unknown constructor `{name}`", span, label="not defined")
    named = span if span is not None and span.text == name else None
    if keyword is not None:
        diag.with_fix(near_miss_help(keyword), named, keyword[0])
    elif suggestions:
        diag.with_choices(did_you_mean(suggestions), named, suggestions)
    return diag


def unsupported_operator(name: str, reason: str, span: Span | None) -> Diagnostic:
    message = f"`{name}` is a TVM operator that cannot be checked or run here"
    return Diagnostic(codes.UNKNOWN_OPERATOR, message, span, label="not supported").with_note(reason)


def unknown_operator(name: str, span: Span | None) -> Diagnostic:
    return Diagnostic(codes.UNKNOWN_OPERATOR, f"unknown operator `{name}`", span, label="not an operator")


def near_miss_help(hit: tuple[str, str]) -> str:
    return f"did you mean `{hit[0]}`? {hit[1]}"


def dtype_call_help(dtype: str) -> str:
    """`float32(1)`: a proposal of the text format that was not adopted."""
    suffix = dtype.replace("float", "f").replace("uint", "u").replace("int", "i")
    literal = "`True` or `False`" if dtype == "bool" else f"`1{suffix}`"
    return f'a {dtype} literal is written {literal}; convert a value with `cast(x, dtype="{dtype}")`'


def global_sigil_help(name: str) -> str:
    return f"did you mean `@{name}`? Global functions are called with the `@` sigil"


def local_sigil_help(name: str) -> str:
    return f"did you mean `%{name}`? Local variables are written with the `%` sigil"


def global_suggestions(names: list[str]) -> str:
    return f"or the global {or_list([f'`@{s}`' for s in names])}?"


def operator_value_needs_attributes(name: str, problems: list[Any], signature: str, span: Span | None) -> Diagnostic:
    missing = ", ".join(f"`{p.key}`" if p.key else p.message for p in problems)
    message = f"operator `{name}` is used as a value, but it needs attributes ({missing})"
    return Diagnostic(codes.MISSING_ATTRIBUTE, message, span, label="not called").with_help(
        f"wrap the call in a function that gives them: `fn (...) {{ {signature} }}`"
    )


def operator_value_text(name: str) -> str:
    return f"`{name}` used as a value"


def operator_value_help(name: str) -> str:
    return (
        f"pass `{name}` where its argument types are known, or wrap it in a function "
        f"with annotated parameters: `fn (%x : Tensor[(), float32]) {{ {name}(%x, ...) }}`"
    )


def negative_result_dimension(op: str, shown: str) -> str:
    return f"`{op}` would produce `{shown}`, which has a negative dimension"


def negative_input_dimension(op: str, shown: str) -> str:
    return f"`{op}` would need `{shown}` here, which has a negative dimension"


CHECK_THE_ATTRIBUTES = "check the call's attributes (`channels`, sizes, axes)"


# ---- what a relation says (check/solver.py `Rel`) ------------------------------
# `{expected}` and `{found}` in a text are filled with the types by the solver.


def produces_a_tensor(op: str) -> str:
    return f"`{op}` produces a tensor, but a value of another type is expected here"


def expects_a_tensor(op: str, described: str, what: str = "") -> str:
    return (
        f"`{op}` expects {what} to be a tensor, not a {described}"
        if what
        else f"`{op}` expects a tensor, not a {described}"
    )


def input_mismatch(op: str) -> str:
    return f"`{op}` expects `{{expected}}` here, found `{{found}}`"


def result_mismatch(op: str) -> str:
    return f"`{op}` produces `{{found}}`, but `{{expected}}` is expected here"


def operand_dtypes(op: str, first: str, second: str) -> str:
    return f"`{op}` needs operands of one dtype, found `{first}` and `{second}`"


def this_is(dtype: str) -> str:
    return f"this is `{dtype}`"


def first_operand_dtype(dtype: str) -> str:
    return f'the first operand is `{dtype}`; convert one with `cast(x, dtype="...")`'


def undefined_core_type(op: str, name: str) -> str:
    return f"`{op}` needs the type `{name}`, which is not defined"


def core_type_note(name: str) -> str:
    return f"TVM declares it in its core library: `extern type {name}`"
