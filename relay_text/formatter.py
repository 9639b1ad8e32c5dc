"""Formatting Relay text: parse, print, and verify before the result is trusted.

    format(text, dialect="keep", line_length=100) -> str
    format_source(source, dialect="keep", line_length=100, safe=True) -> Formatted

`dialect` is "keep" (a file with a version header stays in TVM's format,
others in the documented syntax), "docs" or "tvm". Keeping a TVM file keeps
its header as written (`v0.0.4` stays `v0.0.4`); converting to "tvm" writes
`#[version = "0.0.5"]`.

Safety, as in black's safe mode: the output must parse, without errors, to a
program alpha-equivalent to the input, with the same comments in the same
order; and formatting the output again must give it back unchanged. If a
check fails nothing is returned as formatted: `UnsafeFormat` carries both
texts so that the caller can save them for a bug report. `safe=False` skips
the checks (`relay fmt --fast`) for a text without comments; one with
comments is checked all the same, since the checks choose where its
comments go (the same output as the safe mode).

Converting to the TVM dialect first checks that the program uses nothing
TVM 0.0.5 could not read (`where` clauses, kinds on type parameters,
explicit type arguments, `Constant(...)` tensors): each such construct is a
located `unformattable` error rather than something silently dropped.
`#` comments become `//` comments in TVM text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Iterator

from .diagnostics import Diagnostic, RelayError, codes
from .ir.expr import Call, Constant, Expr, Function, Let, Match, Var
from .ir.module import Module
from .ir.positions import Positions
from .ir.span import Source, Span
from .ir.ty import FuncType, Kind, TensorType, TupleType, TypeCall, TypeVar

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import (see relay_text/record.py)
    from .record import dataclass, field

KEEP, DOCS, TVM = "keep", "docs", "tvm"
DIALECTS = (KEEP, DOCS, TVM)

# Errors of names that do not resolve: formatting needs syntax, not names,
# so a file with these is formatted (a fragment, a file that relies on
# another, a file being written); `relay check` reports them.
UNRESOLVED = frozenset(
    {
        codes.UNBOUND_VARIABLE,
        codes.UNKNOWN_GLOBAL,
        codes.UNKNOWN_TYPE,
        codes.UNKNOWN_CONSTRUCTOR,
        codes.FREE_VARIABLE_IN_GLOBAL,
    }
)


def _name_error(diag: Diagnostic) -> tuple[str, str]:
    return (str(diag.code), diag.message)


class UnsafeFormat(Exception):
    """The printed text failed a safety check; both texts are kept."""

    def __init__(self, reason: str, original: str, output: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.original = original
        self.output = output


@dataclass
class Formatted:
    """The outcome of formatting one input."""

    source: Source
    text: str | None  # None when the input cannot be formatted
    diagnostics: list[Diagnostic] = field(default_factory=list)
    comment_order: list[int] = field(default_factory=list)
    # errors of names that do not resolve (`relay check` reports them; a
    # formatted text has the same ones)
    unresolved: list[Diagnostic] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.text is not None and self.text != self.source.text


def target_dialect(module: Module, dialect: str) -> str:
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {dialect!r}")
    if dialect == KEEP:
        return TVM if module.version is not None else DOCS
    return dialect


def format_source(
    source: Source,
    dialect: str = KEEP,
    line_length: int = 100,
    safe: bool = True,
    use_prelude: bool = True,
    bind_operands: bool = False,
) -> Formatted:
    """Format one input. Errors (syntax, or what the dialect cannot express)
    come back as diagnostics with `text` None; a failed safety check raises
    `UnsafeFormat`. As for `relay check`, the names of the Prelude (`List`,
    `Cons`, `@map`, ...) are known unless `use_prelude` is False (the Prelude
    is loaded only for a text that may name it: `std.with_prelude_if_needed`)."""
    from .printer.render import no_gc

    if line_length < 1:
        raise ValueError("the line length must be positive")
    with no_gc():  # many small objects, no cycles: collection passes only cost time
        if use_prelude:
            from .std import with_prelude_if_needed

            return with_prelude_if_needed(
                source.text,
                lambda std: _format_source(
                    source, dialect, line_length, safe, std.env() if std is not None else None, bind_operands
                ),
                lambda formatted: formatted.text is not None and not formatted.unresolved,
            )
        return _format_source(source, dialect, line_length, safe, None, bind_operands)


def _format_source(
    source: Source, dialect: str, line_length: int, safe: bool, env: Any, bind_operands: bool = False
) -> Formatted:
    from .printer.comments import attach
    from .syntax.parser import parse_source
    from .printer.dialects import PrintError, header_for
    from .printer.render import render_module

    result = parse_source(source, env)
    errors = [d for d in result.diagnostics if d.is_error]
    if (
        result.module is None
        or any(d.code not in UNRESOLVED for d in errors)
        or (errors and result.module.positions.lossy)
    ):
        return Formatted(source, None, errors)
    module = result.module
    target = target_dialect(module, dialect)
    converting = target != (TVM if module.version is not None else DOCS)
    if converting and target == TVM:
        problems = tvm_problems(module)
        if problems:
            return Formatted(source, None, problems)
    try:
        header = header_for(module, target, keep=dialect == KEEP)
        printed = render_module(module, target, line_length, attach(module), header, bind_operands)
    except PrintError as exc:
        diag = Diagnostic(codes.UNFORMATTABLE, exc.message, exc.span, label="cannot be written")
        if exc.note:
            diag.with_note(exc.note)
        return Formatted(source, None, [diag])
    formatted = Formatted(source, printed.text, [], printed.comment_order, errors)
    # Text that comes back unchanged is the same program with the same
    # comments, and printing it again gives it again: nothing to verify.
    # Without `safe` (`--fast`) a text with comments is verified all the
    # same: where the comments' places do not survive a second pass, the
    # coarser placements below give another text, and `--fast` must give
    # what the safe mode gives. A text without comments has no other
    # placement to fall back to, so only the safe mode verifies it.
    if formatted.changed and (safe or module.comments):
        first = formatted
        commented = bool(module.comments)
        # `program` holds the input's program from here on, and may let it go
        program: Module | None = module
        again: Module | None = None
        big = len(source.text) >= _RELEASE_ABOVE
        if big:
            # What the input is compared by is its program and its comments,
            # not where its nodes were written (more than half of a parsed
            # program's memory): that goes before the printed text is read,
            # so that one whole program and the other's tree are held, not
            # two whole programs (a coarser placement below reads the input
            # again).
            program = None
            module.positions = Positions()
        try:
            again = _same_program(module, formatted, target, env)
            # The fixed point needs only the printed program: the input's is
            # let go first, so that two programs are not held while the
            # printed one is formatted again (a parsed program holds no
            # reference cycle, nor does the printer once done: no collection
            # pass is needed, which would cost ~0.1 s per MB).
            del module, result
            _fixed_point(again, formatted, target, line_length, bind_operands)
        except UnsafeFormat as exc:
            again = None
            if not commented:
                raise
            if program is None:
                program = _reread(source, env)
            # The comments' precise places did not survive: each comment
            # inside a statement leads that statement instead (in order).
            for coarse in (True, "definition"):  # then each comment leads its definition
                printed = render_module(
                    program, target, line_length, attach(program, coarse=coarse), header, bind_operands
                )
                formatted = Formatted(source, printed.text, [], printed.comment_order, errors)
                try:
                    verify(program, formatted, target, line_length, env, bind_operands)
                    break
                except UnsafeFormat:
                    continue
            else:
                if safe:
                    raise exc
                formatted = first  # (the safe mode refuses this text; --fast writes it unchecked)
    return formatted


# Inputs from this size on let their parsed program go before the fixed-point
# check (a collection pass costs more than it saves on small inputs).
_RELEASE_ABOVE = 1 << 20


def _reread(source: Source, env: Any) -> Module:
    """The input's program again (it was let go to save memory)."""
    from .syntax.parser import parse_source

    module = parse_source(source, env).module
    assert module is not None  # (it parsed before)
    return module


def verify(
    module: Module, formatted: Formatted, target: str, line_length: int, env: Any = None, bind_operands: bool = False
) -> None:
    """Black's safe mode: same program, same comments, and a fixed point."""
    again = _same_program(module, formatted, target, env)
    _fixed_point(again, formatted, target, line_length, bind_operands)


def _same_program(module: Module, formatted: Formatted, target: str, env: Any = None) -> Module:
    """The formatted text parsed: it must be the same program as `module`,
    with the same comments in the same order. Returns its program."""
    from .ir.alpha import alpha_equal_module
    from .syntax.parser import parse_source

    original = formatted.source.text
    text = formatted.text
    assert text is not None
    again = parse_source(Source(formatted.source.name, text), env)
    if again.module is None or any(d.code not in UNRESOLVED for d in again.diagnostics if d.is_error):
        first = next((d for d in again.diagnostics if d.is_error), None)
        raise UnsafeFormat(f"the formatted text does not parse ({first})", original, text)
    # Names that did not resolve are still the same names, used as often
    unresolved = sorted(_name_error(d) for d in again.diagnostics if d.is_error)
    if unresolved != sorted(_name_error(d) for d in formatted.unresolved):
        raise UnsafeFormat("the names that do not resolve changed", original, text)
    if not alpha_equal_module(module, again.module):
        raise UnsafeFormat("the formatted text is a different program", original, text)
    before = module.comments
    expected = [_comment_for(before[i].text, target) for i in formatted.comment_order]
    if sorted(formatted.comment_order) != list(range(len(before))):
        raise UnsafeFormat("a comment was lost or repeated", original, text)
    if formatted.comment_order != sorted(formatted.comment_order):
        raise UnsafeFormat("comments changed their order", original, text)
    if [c.text for c in again.module.comments] != expected:
        raise UnsafeFormat("the comments of the formatted text differ", original, text)
    return again.module


def _fixed_point(again: Module, formatted: Formatted, target: str, line_length: int, bind_operands: bool) -> None:
    """Formatting the formatted text (`again`, its program) gives it back unchanged."""
    from .printer.comments import attach
    from .printer.dialects import PrintError
    from .printer.render import render_module

    original = formatted.source.text
    text = formatted.text
    assert text is not None
    try:
        second = render_module(again, target, line_length, attach(again), bind_operands=bind_operands).text
    except PrintError as exc:
        raise UnsafeFormat(f"the formatted text cannot be formatted again ({exc.message})", original, text) from None
    if second != text:
        raise UnsafeFormat("formatting is not stable: a second pass changes the text", original, text)


def _comment_for(text: str, target: str) -> str:
    return "//" + text[1:] if target == TVM and text.startswith("#") else text


def format(
    text: str,
    *,
    dialect: str = KEEP,
    line_length: int = 100,
    name: str = "<string>",
    safe: bool = True,
    bind_operands: bool = False,
) -> str:
    """Format Relay text and return the result.

    `bind_operands` binds every non-atomic operand to a `%n` temporary
    first, as TVM's printer did; otherwise what is nested stays nested.
    Raises `RelayError` (with `.diagnostics`) if the text has errors or uses
    something the target dialect cannot express, and `UnsafeFormat` if the
    result fails a safety check.
    """
    formatted = format_source(Source(name, text), dialect, line_length, safe, bind_operands=bind_operands)
    if formatted.text is None:
        raise RelayError(formatted.diagnostics)
    return formatted.text


# ---------------------------------------------------------------- what TVM cannot express


def tvm_problems(module: Module) -> list[Diagnostic]:
    """Constructs of a program that TVM's 0.0.5 text format has no syntax for."""
    from .ir.visitor import post_order
    from .syntax.spelling import literal_text

    problems: list[Diagnostic] = []

    def problem(message: str, span: Span | None, note: str) -> None:
        problems.append(
            Diagnostic(codes.UNFORMATTABLE, message, span, label="not expressible in TVM 0.0.5").with_note(note)
        )

    for data in module.type_defs.values():
        _kinded(data.type_params, data.span, problem)
        for ctor in data.constructors:
            for ty in ctor.inputs:
                _check_type(ty, ctor.span, problem)
    roots: list[Expr] = [module.functions[g] for g in module.order if g in module.functions]
    if module.expr is not None:
        roots.append(module.expr)
    for var in module.free_vars:
        if var.type_annotation is not None:
            _check_type(var.type_annotation, var.span, problem)
    seen: set[int] = set()
    for root in roots:
        for node in post_order(root):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, Function):
                _related(node.relations, node.span, "functions", problem)
                _kinded(node.type_params, node.span, problem)
                if node.ret_type is not None:
                    _check_type(node.ret_type, node.span, problem)
            elif isinstance(node, Call) and node.type_args:
                problem(
                    "explicit type arguments cannot be written in TVM's format",
                    node.span,
                    "TVM 0.0.5 infers type arguments; drop `<...>` or keep the documented syntax",
                )
            elif isinstance(node, Constant) and node.meta_index is None:
                if node.shape != () or literal_text(node.value, node.dtype or "float32", True) is None:
                    problem(
                        f"the constant `Constant(..., {node.dtype})` cannot be written in TVM's format",
                        node.span,
                        "TVM 0.0.5 writes tensor constants as `meta[relay.Constant][i]` entries "
                        "of its metadata section",
                    )
            elif isinstance(node, Var) and node.type_annotation is not None:
                _check_type(node.type_annotation, node.span, problem)
            elif isinstance(node, Match):
                for clause in node.clauses:
                    for var in _pattern_vars(clause.pattern):
                        if var.type_annotation is not None:
                            _check_type(var.type_annotation, var.span, problem)
            elif isinstance(node, Let) and node.var.type_annotation is not None:
                _check_type(node.var.type_annotation, node.var.span, problem)
        if len(problems) >= 20:
            break
    return problems


def _pattern_vars(pattern: Any) -> list[Var]:
    from .ir.pattern import pattern_vars

    return pattern_vars(pattern)


def _kinded(params: tuple[TypeVar, ...], span: Span | None, problem: Any) -> None:
    for p in params:
        if p.kind != Kind.TYPE:
            problem(
                f"the type parameter `{p.name} : {p.kind.value}` cannot be written in TVM's format",
                p.span or span,
                "TVM 0.0.5 type parameters (`[A]`) have no kinds",
            )


def _related(relations: tuple[Any, ...], span: Span | None, what: str, problem: Any) -> None:
    if relations:
        problem(
            "a `where` clause cannot be written in TVM's format",
            relations[0].span or span,
            f"TVM 0.0.5 {what} take no relations; remove the `where` clause or keep the documented syntax",
        )


def _types(ty: Any) -> Iterator[Any]:
    stack = [ty]
    while stack:
        t = stack.pop()
        yield t
        if isinstance(t, TupleType):
            stack.extend(t.fields)
        elif isinstance(t, FuncType):
            stack.extend(t.arg_types)
            stack.append(t.ret_type)
        elif isinstance(t, TypeCall):
            stack.extend(t.args)
        elif isinstance(t, TensorType) and isinstance(t.shape, TypeVar):
            yield t.shape


def _check_type(ty: Any, span: Span | None, problem: Any) -> None:
    for t in _types(ty):
        if isinstance(t, FuncType):
            _kinded(t.type_params, t.span or span, problem)
            _related(t.type_constraints, t.span or span, "function types", problem)


# ---------------------------------------------------------------- files


def write_atomic(path: str, text: str) -> None:
    """Replace a file's content in one step (`relay_text.writing.replace`:
    mode, owner, group and hard links kept, no temporary file left)."""
    from .files import write_atomic as write

    write(path, text)


def save_failure(name: str, error: UnsafeFormat) -> str:
    """Write both texts of a failed safety check to a temporary file; its path."""
    import tempfile

    fd, path = tempfile.mkstemp(prefix="relay-fmt-", suffix=".log")
    with open(fd, "w", encoding="utf-8") as handle:
        handle.write(f"relay fmt: {name}: {error.reason}\n")
        handle.write("==================== original ====================\n")
        handle.write(error.original)
        handle.write("\n==================== formatted ===================\n")
        handle.write(error.output)
    return path


def unified_diff(name: str, before: str, after: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"{name}", f"{name} (formatted)"
    )
    out = []
    for line in lines:
        if line.endswith("\r"):  # a line ended by a lone `\\r`
            out.append(line + "\n")
        else:
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def newline_style(text: str) -> str:
    """`\\r\\n` if the text's first line ends that way, else `\\n`."""
    end = text.find("\n")
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"
