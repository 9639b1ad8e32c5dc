"""The checker's diagnostic texts, one named function per kind of problem.

The parts of the checker decide *that* something is wrong and where; the
functions here say it. A function returns either a whole `Diagnostic` or
the text of one (a message, label, note or help, or a template with
`{expected}`/`{found}` that `Explainer.mismatch` fills in), so that the
wording of every message can be read, and kept consistent, in one place.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import WARNING, Diagnostic, codes
from ..ir.span import Span
from ..ir.ty import Kind
from ..text.suggest import or_list
from .explain import kind_name, name_of, ordinal


def plural_s(n: int) -> str:
    return "" if n == 1 else "s"


def was_or_were(n: int) -> str:
    return "was" if n == 1 else "were"


def did_you_mean(names: list[str]) -> str:
    return f"did you mean {or_list([f'`{s}`' for s in names])}?"


# ---- origins: what an unknown stands for, and where an expectation came from

EXPECTED_BY_ANNOTATION = "expected because of this annotation"
EXPECTED_BY_RETURN_TYPE = "expected because of this return type"
THIS_EXPRESSION = "this expression"
THIS_FUNCTION = "this function"
THIS_FUNCTION_TYPE = "this function type"
BLANK_TEXT = "this `_`"
FUNCTION_RESULT_TEXT = "the result of this function"
CALL_RESULT_TEXT = "the result of this call"
PROJECTION_RESULT_TEXT = "this projection"


def quoted(name: str) -> str:
    """A name as messages show it: `add`."""
    return f"`{name}`"


def var_text(name: str) -> str:
    return f"`%{name}`"


def global_text(name: str) -> str:
    return f"`@{name}`"


def parameter_text(name: str) -> str:
    return f"parameter `%{name}`"


def parameter_declared_here(name: str) -> str:
    return f"parameter `%{name}` is declared here"


def defined_here(name: str) -> str:
    return f"`{name}` is defined here"


def result_of(what: str) -> str:
    """`what` is already quoted: "the result of `add`"."""
    return f"the result of {what}"


# ---- annotations and `where` relations --------------------------------------


def unknown_global(name: str, span: Span | None) -> Diagnostic:
    return Diagnostic(codes.UNKNOWN_GLOBAL, f"unknown global `@{name}`", span, label="not defined").with_note(
        "the module neither defines it nor has it from the prelude it was checked with"
    )


def unknown_constructor_value(name: str, span: Span | None) -> Diagnostic:
    return Diagnostic(codes.UNKNOWN_CONSTRUCTOR, f"unknown constructor `{name}`", span, label="not defined").with_note(
        "the module neither defines its data type nor has it from the prelude it was checked with"
    )


def unknown_relation(name: str, span: Span | None, suggestions: list[str], known: list[str]) -> Diagnostic:
    diag = Diagnostic(codes.UNKNOWN_RELATION, f"unknown relation `{name}`", span, label="not a relation")
    if suggestions:
        diag.with_choices(
            did_you_mean(suggestions), span if span is not None and span.text == name else None, suggestions
        )
    else:
        diag.with_note(f"the relations a `where` clause can name are {or_list([f'`{s}`' for s in known])}")
    return diag


def relation_arity(name: str, want: int, inputs: int, what: str, span: Span | None) -> Diagnostic:
    message = (
        f"`{name}` relates {want} input{plural_s(want)} to a result, "
        f"but {what} has {inputs} parameter{plural_s(inputs)}"
    )
    return Diagnostic(codes.ARITY_MISMATCH, message, span, label="named here")


# ---- calls -------------------------------------------------------------------


def attributes_on_function_call(callee: Any, key: str, span: Span | None) -> Diagnostic:
    diag = Diagnostic(
        codes.UNKNOWN_ATTRIBUTE,
        f"{name_of(callee)} is not an operator and takes no attributes",
        span,
        label=f"`{key}=` is an attribute",
    )
    diag.with_note("only operators (`nn.conv2d(..., padding=[1, 1])`) take `key=value` attributes")
    return diag.with_note('TVM also reads them on other calls when they include `attrs_type_key="..."`')


def not_a_function(callee: Any, type_text: str, span: Span | None) -> Diagnostic:
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"{name_of(callee)} is not a function; its type is `{type_text}`",
        span,
        label="called here",
    )


def call_arity(callee: Any, want: int, got: int, span: Span | None) -> Diagnostic:
    message = f"{name_of(callee)} takes {want} argument{plural_s(want)}, but {got} {was_or_were(got)} given"
    return Diagnostic(codes.ARITY_MISMATCH, message, span, label=f"expected {want} argument{plural_s(want)}")


DEFINED_HERE = "defined here"


def argument_mismatch(index: int, callee: Any) -> str:
    """A template: the `index`-th argument (from 0) has the wrong type."""
    return (
        f"mismatched types: the {ordinal(index + 1)} argument of {name_of(callee)} "
        "must be `{expected}`, found `{found}`"
    )


def literal_spelling(value: Any, dtype: str, dialect: str) -> tuple[str, str] | None:
    """How to write `value` as a scalar literal of `dtype`, when it was
    written with another: the help line and the literal."""
    if dtype.startswith("float"):
        number = repr(float(value))  # `1.0`, `2.5`
        if dtype != "float32":
            spelled = number + dtype.replace("float", "f")  # `2.5f64`
        elif dialect == "tvm":
            spelled = number + "f"
        else:
            spelled = number
        return f"write `{spelled}` for a {dtype} literal", spelled
    if dtype.startswith(("int", "uint")) and float(value).is_integer():
        suffix = "" if dtype == "int32" else dtype.replace("uint", "u").replace("int", "i")
        spelled = f"{int(value)}{suffix}"
        return f"write `{spelled}` for an {dtype} literal", spelled
    return None


def in_this_call_of(what: str) -> str:
    return f"in this call of {what}"


# ---- `if`, references, tuples, constants ------------------------------------

IF_BRANCHES_DIFFER = "`if` and `else` have different types: expected `{expected}`, found `{found}`"
THEN_BRANCH_TYPE = "the `then` branch has type `{expected}`"
HAS_TYPE_FOUND = "this has type `{found}`"
IF_CONDITION_NOT_BOOL = "the condition of `if` must be a single bool `{expected}`, found `{found}`"
REDUCE_CONDITION = "reduce it to one value first, e.g. `all(...)` or `any(...)`"
REF_READ_NEEDS_REF = "`ref_read` needs a reference, found `{found}`"
REF_WRITE_NEEDS_REF = "`ref_write` needs a reference, found `{found}`"
REF_WRITE_STORES = "`ref_write` stores `{found}` into a reference holding `{expected}`"


def elementwise_condition(shown: str) -> str:
    return f"`{shown}` compares tensors element by element, giving one bool per element"


def tuple_field_missing(fields: int, index: int) -> str:
    return f"this tuple has {fields} field{plural_s(fields)}, so `.{index}` does not exist"


def no_such_field(fields: int, index: int, tuple_text: str, span: Span | None) -> Diagnostic:
    return Diagnostic(
        codes.TYPE_MISMATCH, tuple_field_missing(fields, index), span, label=f"the tuple is `{tuple_text}`"
    ).with_note(f"fields are numbered from 0 to {fields - 1}" if fields else "the empty tuple `()` has no fields")


def not_a_tuple(index: int, type_text: str, span: Span | None) -> Diagnostic:
    message = f"only a tuple can be projected with `.{index}`, but this has type `{type_text}`"
    return Diagnostic(codes.TYPE_MISMATCH, message, span, label="not a tuple")


def projection_of_non_tuple(index: int) -> str:
    return f"only a tuple can be projected with `.{index}`"


THIS_IS_NOT_A_TUPLE = "this is not a tuple"


def projection_text(index: int) -> str:
    return f"`.{index}`"


def constant_too_large(message: str, span: Span | None) -> Diagnostic:
    return Diagnostic(codes.RESOURCE_LIMIT, message, span, label="too large")


def constant_rank_over_limit(rank: int, limit: int) -> str:
    return f"a constant of {rank} dimensions has more than the limit of {limit}"


def constant_elements_over_limit(count: int, limit: int) -> str:
    return f"a constant of {count:,} elements has more than the limit of {limit:,} (2^40)"


THIS_CONSTANT = "this constant"


def meta_constant_text(index: int) -> str:
    return f"`meta[relay.Constant][{index}]`"


def meta_index_missing(index: Any, count: int, span: Span | None) -> Diagnostic:
    return Diagnostic(
        codes.BAD_METADATA,
        f"`meta[relay.Constant][{index}]` is not in the metadata section",
        span,
        label="no such constant",
    ).with_note(
        f"the section has {count} constant{'s' if count != 1 else ''}"
        + (f": indices 0 to {count - 1}" if count else "")
    )


# ---- `match` -----------------------------------------------------------------

EMPTY_MATCH_TEXT = "this empty match"
FIRST_CLAUSE_TYPE = "the first clause has type `{expected}`"
CLAUSES_DIFFER = "the clauses of this `match` have different types: expected `{expected}`, found `{found}`"
CONSTRUCTOR_PATTERN_MISMATCH = (
    "this pattern matches values of type `{found}`, but the value matched has type `{expected}`"
)
TUPLE_PATTERN_MISMATCH = "this pattern matches a tuple `{found}`, but the value matched has type `{expected}`"


def constructor_builds(name: str) -> str:
    return f"`{name}` builds `{{found}}`"


def constructor_arity(name: str, want: int, got: int, span: Span | None, defined: Span | None) -> Diagnostic:
    message = f"`{name}` has {want} field{plural_s(want)}, but this pattern gives {got}"
    diag = Diagnostic(codes.CONSTRUCTOR_ARITY, message, span, label=f"expected {want} pattern{plural_s(want)} inside")
    if defined is not None:
        diag.with_label(defined, defined_here(name))
    return diag


def unreachable_clause(span: Span | None, covering: Span | None = None, covered: bool = False) -> Diagnostic:
    """`covering`: the clause above that matches all it matches, when `covered`."""
    message = "this clause can never be chosen: the clauses above it match every value it matches"
    diag = Diagnostic(codes.UNREACHABLE_CLAUSE, message, span, label="unreachable")
    if covered:
        diag.with_label(covering, "this clause matches them all")  # type: ignore[arg-type]
    return diag.with_note("clauses are tried in order and the first that matches is chosen")


def non_exhaustive_match(missing: str, span: Span | None) -> Diagnostic:
    return (
        Diagnostic(
            codes.NON_EXHAUSTIVE_MATCH,
            f"this `match` does not cover every value: `{missing}` is not matched",
            span,
            label=f"`{missing}` not covered",
        )
        .with_help(f"add a clause for `{missing}`, or a final `_` clause")
        .with_note("write `match?` for a match that is allowed to fail at run time")
    )


# ---- polymorphism --------------------------------------------------------------


def open_dimensions(what: list[str], lhs: str, rhs: str, helps: list[str], span: Span | None) -> Diagnostic:
    diag = Diagnostic(
        codes.UNRESOLVED_TYPE,
        f"cannot infer {' and '.join(what) if what else 'these dimensions'}: "
        f"nothing decides the dimensions in `{lhs} = {rhs}`",
        span,
        label=f"here `{lhs} = {rhs}`",
    ).with_note("a function's type cannot carry such an equation; its dimensions must be decided where it is defined")
    return diag.with_help(helps[0] if helps else "state the shapes in the signature, with shape variables if they vary")


def type_argument_arity(callee: str, params: tuple[Any, ...], given: int, span: Span | None) -> Diagnostic:
    want = len(params)
    message = f"{callee} takes {want} type argument{plural_s(want)}, but {given} {was_or_were(given)} given"
    return Diagnostic(codes.ARITY_MISMATCH, message, span, label=f"expected <{', '.join(p.name for p in params)}>")


def type_argument_text(param: str, callee: str) -> str:
    return f"type argument `{param}` of {callee}"


def type_arguments_help(callee: str, params: tuple[Any, ...], param: Any) -> str:
    """How to give the type arguments of `callee` (over `params`), for the unknown `param`."""
    return (
        f"give the type arguments explicitly, e.g. {_type_args_example(callee, params)} "
        f"(`{param.name}` is {kind_name(param.kind)})"
    )


# An argument of each kind, for examples of explicit type arguments.
_EXAMPLE_ARG = {Kind.TYPE: "Tensor[(), int32]", Kind.BASE_TYPE: "float32", Kind.SHAPE: "(10, 10)", Kind.SHAPE_VAR: "3"}


def _type_args_example(name: str, params: tuple[Any, ...]) -> str:
    """`@f<Tensor[(), int32], 3>(...)`: a call with an argument of the right kind for each parameter."""
    callee = name.strip("`") if name.startswith("`") else "@f"
    return f"`{callee}<{', '.join(_EXAMPLE_ARG[p.kind] for p in params)}>(...)`"


def no_type_parameters(callee: Any, given: int, span: Span | None) -> Diagnostic:
    message = f"{name_of(callee)} takes no type arguments, but {given} {was_or_were(given)} given"
    return Diagnostic(codes.ARITY_MISMATCH, message, span, label="not polymorphic").with_note(
        "only a function with type parameters (`fn<a>(...)`, `def @f<a>(...)`) "
        "or a constructor of a data type with parameters takes type arguments"
    )


# ---- what stayed unknown -------------------------------------------------------


def unresolved_constants(indices: list[int], span: Span | None) -> Diagnostic:
    if len(indices) == 1:
        message = f"cannot infer the type of `meta[relay.Constant][{indices[0]}]`"
    else:
        message = (
            f"cannot infer the types of {len(indices)} constants (`meta[relay.Constant][{indices[0]}]` and others)"
        )
    diag = Diagnostic(codes.UNRESOLVED_TYPE, message, span, severity=WARNING, label="type unknown")
    if len(indices) > 1:
        diag.with_note(f"the constants are meta[relay.Constant][...] with indices {_ranges(indices)}")
    diag.with_note(
        "the file has no metadata for them, and how they are used does not determine their shapes; "
        "expressions computed from them have unknown types too"
    )
    return diag.with_help(
        "write a constant's type in a comment right after it: `meta[relay.Constant][0] /* ty=Tensor[(64), float32] */`"
    )


def _ranges(values: list[int]) -> str:
    """`0-5, 7, 9-10`."""
    out = []
    start = prev = values[0]
    for v in [*values[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(out)


def unresolved_constant(text: str, span: Span | None) -> Diagnostic:
    diag = Diagnostic(codes.UNRESOLVED_TYPE, f"cannot infer the type of {text}", span, label="type unknown")
    diag.with_note("the file has no `#[metadata]` section, and how the constant is used does not determine its type")
    return diag.with_help(
        "write its type in a comment right after it, e.g. `meta[relay.Constant][0] /* ty=Tensor[(64), float32] */`"
    )


def unresolved_result(what: str, inputs: list[str], span: Span | None) -> Diagnostic:
    """`inputs`: the relation's input types, written out."""
    diag = Diagnostic(
        codes.UNRESOLVED_TYPE, f"cannot infer the type of the result of {what}", span, label="type unknown"
    )
    if inputs:
        diag.with_note(f"its inputs are {', '.join(f'`{t}`' for t in inputs)}; more of them must be known")
    return diag


def unresolved(text: str, partial: str, kind: str, origin_help: str, span: Span | None) -> Diagnostic:
    """`kind` is the origin's kind (`param`, `binder`, ...); `origin_help` its own advice, if any."""
    diag = Diagnostic(codes.UNRESOLVED_TYPE, f"cannot infer the type of {text}", span, label="type unknown")
    if partial and partial != "_":
        diag.with_note(f"what is known: `{partial}` (`_` marks the unknown parts)")
    if kind in ("param", "binder"):
        diag.with_help("add a type annotation, e.g. `%x : Tensor[(10, 10), float32]`")
    elif kind == "operator":
        diag.with_help(origin_help)
    elif kind == "instance":
        diag.with_help(origin_help or "give the type arguments explicitly, e.g. `@f<Tensor[(), int32]>(...)`")
    elif kind == "return":
        diag.with_help("annotate the return type: `fn(...) -> T { ... }`")
    return diag


def describe_node(node: Any) -> str:
    """What an expression is, for an unknown without an origin."""
    from ..ir.expr import Call, Var

    if isinstance(node, Var):
        return var_text(node.name)
    if isinstance(node, Call):
        return result_of(name_of(node.op))
    return THIS_EXPRESSION


# ---- kinds of types (check/kinds.py) -------------------------------------------

# What stands at a position of each kind.
_POSITION = {Kind.TYPE: "a type", Kind.SHAPE: "a shape", Kind.SHAPE_VAR: "a dimension", Kind.BASE_TYPE: "a dtype"}


def wrong_kind_of_parameter(var: Any, wanted: Kind, span: Span | None) -> Diagnostic:
    message = f"`{var.name}` is a type parameter of kind {var.kind.value}, but {_POSITION[wanted]} is expected here"
    diag = Diagnostic(codes.KIND_ERROR, message, span, label=f"{_POSITION[wanted]} is expected here")
    if var.span is not None:
        diag.with_label(var.span, f"`{var.name}` is declared here")
    return diag


def declare_kind_help(var: Any, wanted: Kind) -> str:
    if wanted != Kind.TYPE:
        return f"declare it as `{var.name} : {wanted.value}`"
    return f"declare it as `{var.name} : Type` (or just `{var.name}`)"


def parameter_kind_note(var: Any) -> str:
    return f"a {var.kind.value} parameter stands for {kind_name(var.kind)}"


def applied_type_parameter(name: str, span: Span | None) -> Diagnostic:
    message = f"`{name}` is a type parameter and cannot be applied to type arguments"
    return Diagnostic(codes.KIND_ERROR, message, span, label="applied here")


def not_a_type(described: str, span: Span | None) -> Diagnostic:
    return Diagnostic(codes.KIND_ERROR, f"{described} is not a type", span, label="a type is expected here").with_help(
        "a type is a dtype (`float32`), a tensor type `Tensor[(shape), dtype]`, a tuple, a function type or a data type"
    )


def data_type_arity(name: str, params: list[str], given: int, span: Span | None) -> Diagnostic:
    want = len(params)
    message = f"`{name}` takes {want} type argument{plural_s(want)}, but {given} {was_or_were(given)} given"
    return Diagnostic(codes.KIND_ERROR, message, span, label=f"expected `{name}[{', '.join(params)}]`")


def not_a_shape(span: Span | None) -> Diagnostic:
    return Diagnostic(codes.KIND_ERROR, "a shape is expected here", span, label="not a shape")


def not_a_dimension(span: Span | None, detailed: bool = False) -> Diagnostic:
    what = "a dimension (an integer, `?` or a ShapeVar)" if detailed else "a dimension"
    return Diagnostic(codes.KIND_ERROR, f"{what} is expected here", span)


def not_a_dtype(span: Span | None) -> Diagnostic:
    return Diagnostic(codes.KIND_ERROR, "a dtype is expected here", span)


def wrong_kind_of_argument(param: Any, described: str, span: Span | None) -> Diagnostic:
    message = f"type parameter `{param.name}` is {kind_name(param.kind)}, but {described} was given"
    diag = Diagnostic(codes.KIND_ERROR, message, span, label=f"expected {kind_name(param.kind)}")
    if param.span is not None:
        diag.with_label(param.span, f"`{param.name}` is declared here")
    return diag
