"""Running a list of passes over one file: what `relay opt` does.

    optimize_source(source, "InferType,FoldConstant") -> Optimized

The file is read and checked as `relay check` does it (against the Prelude
when it names it); nothing runs if it has errors. Each pass then runs in
turn, and its result is type-checked before the next (as MLIR verifies
after each pass): a pass that leaves an ill-typed program is reported as
`pass-failed`, naming it. The result is printed (see `output`) and read
back; the text must parse to the same program.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, codes
from ..ir.expr import Expr
from ..ir.module import Module
from ..ir.span import Source
from .context import PassContext, PassFailed
from .registry import Pass, PipelineError, parse_pipeline


@dataclass
class Optimized:
    """The outcome of `relay opt` on one file."""

    source: Source
    text: str | None = None  # the program after the passes, None on errors
    module: Module | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    timings: list[tuple[str, float]] = field(default_factory=list)  # (pass, seconds)

    @property
    def ok(self) -> bool:
        return self.text is not None


def run_passes(
    module: Module,
    steps: list[tuple[Pass, dict[str, Any]]],
    ctx: PassContext,
    timings: list[tuple[str, float]] | None = None,
) -> Module:
    """Apply `steps` in order; each result is type-checked (PassFailed)."""
    result = ctx.check(module)
    module = _typed_constants(module, result.meta_types)
    for step, options in steps:
        ctx.pass_name = step.name
        start = time.perf_counter()
        module = step(module, ctx, **options)
        ctx.check(module)
        if timings is not None:
            timings.append((step.name, time.perf_counter() - start))
    return module


def optimize_source(
    source: Source,
    passes: str | list[tuple[Pass, dict[str, Any]]],
    dialect: str = "keep",
    entry: str | None = None,
    width: int = 100,
    use_prelude: bool = True,
) -> Optimized:
    """Read, check, transform and print one file (see the module docstring).
    A bad pass list raises PipelineError; problems of the program come back
    as diagnostics."""
    from ..pipeline import check_source
    from ..printer.dialects import PrintError

    steps = parse_pipeline(passes) if isinstance(passes, str) else passes
    out = Optimized(source)
    checked = check_source(source, use_prelude=use_prelude)
    out.diagnostics = list(checked.diagnostics)
    if checked.module is None or not checked.ok:
        return out
    std = checked.prelude
    ctx = PassContext(std.module if std is not None else None)
    ctx.entry = entry
    module = checked.module
    try:
        module = run_passes(module, steps, ctx, out.timings)
        if dialect == "tvm" and module.version is None:
            problem = _tvm_problem(module)
            if problem is not None:
                out.diagnostics.append(problem)
                return out
        text, printed = _render(module, ctx, dialect, width)
    except PassFailed as exc:
        out.diagnostics.extend(ctx.warnings)
        out.diagnostics.append(exc.diagnostic)
        return out
    except PrintError as exc:
        diag = Diagnostic(codes.UNFORMATTABLE, exc.message, exc.span, label="cannot be written")
        if exc.note:
            diag.with_note(exc.note)
        out.diagnostics.append(diag)
        return out
    from .output import rereads

    env = std.env() if std is not None else None
    problem_text = rereads(printed, text, env)
    if problem_text is not None:
        out.diagnostics.append(
            Diagnostic(codes.INTERNAL_ERROR, f"{problem_text}; this is a bug in relay-text, please report it", None)
        )
        return out
    out.diagnostics.extend(ctx.warnings)
    out.text = text
    out.module = printed
    return out


def _typed_constants(module: Module, meta_types: dict[int, Any]) -> Module:
    """Each `meta[relay.Constant][i]` that the file gives no data gets the
    type the checker inferred for it from its uses, as if written in a
    `/* ty=... */` comment: passes change those uses (a batch norm's
    variance becomes an operand of `add`), and the type must not be lost."""
    from ..ir.expr import Constant
    from ..ir.visitor import ExprMutator
    from ._module import map_functions
    from .context import roots

    section = module.metadata.decoded()[0] if module.metadata is not None else None
    have = len(section.constants) if section is not None else 0
    wanted = {
        n.meta_index
        for r in roots(module)
        for n in _nodes(r)
        if type(n) is Constant and n.meta_index is not None and n.meta_index >= have and n.type_annotation is None
    }
    if not wanted:
        return module

    class Annotate(ExprMutator):
        def visit_constant(self, node: Expr) -> Expr:
            assert type(node) is Constant  # the functor dispatches on the node's class
            ty = meta_types.get(node.meta_index) if node.meta_index in wanted and node.type_annotation is None else None
            if ty is None or not _closed(ty):
                return node
            return Constant(node.value, node.dtype, node.shape, node.meta_index, node.span, ty)

    def convert(gv: Any, fn: Any) -> Any:
        return Annotate().visit(fn)

    return map_functions(module, convert)


def _nodes(root: Any) -> list[Any]:
    from ..ir.visitor import post_order

    return post_order(root)


def _closed(ty: Any) -> bool:
    from ..ir.ty import AnyDim, IncompleteType, TensorType

    return (
        isinstance(ty, TensorType)
        and isinstance(ty.dtype, str)
        and type(ty.shape) is tuple
        and all(type(d) is int or (isinstance(d, AnyDim) and not isinstance(d, IncompleteType)) for d in ty.shape)
    )


def _render(module: Module, ctx: PassContext, dialect: str, width: int) -> tuple[str, Module]:
    from .output import render

    return render(module, ctx, dialect, width)


def _tvm_problem(module: Module) -> Diagnostic | None:
    from ..formatter import tvm_problems

    problems = tvm_problems(module)
    return problems[0] if problems else None


__all__ = ["Optimized", "PipelineError", "optimize_source", "run_passes"]
