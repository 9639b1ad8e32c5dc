"""Reporting what inference could not determine.

Each unknown left at the end is reported once, at the place that explains
it best (a parameter, a let binder, a constant, a type argument), and only
when its definition has no other error. Unknowns that are merely the
results of relations waiting for those are not reported again. Constants
without metadata (`meta[relay.Constant][i]` in TVM dumps) whose use does
not determine their type make one warning per definition: the program is
not wrong, the file just lacks the information.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import WARNING, Diagnostic, codes
from ..ir.expr import Call, Expr, Var
from ..ir.span import Span
from .explain import name_of
from .origin import Origin
from .solver import Constraint
from .types import Hole, holes


class UnresolvedMixin:
    """Part of the Checker: `unresolved-type` diagnostics."""

    def _report_unresolved(self, open_types: list[tuple[Expr, Any]]) -> None:
        """One `unresolved-type` per unknown left, at the place that explains it best."""
        blocked = self.solver.blocked()
        derived: dict[int, Constraint] = {}
        for c in blocked:
            for h in holes(c.out):
                derived.setdefault(h.uid, c)
        first_seen: dict[int, tuple[Hole, Expr]] = {}
        for node, t in open_types:
            for h in holes(t):
                if h.uid not in first_seen:
                    first_seen[h.uid] = (h, node)
        for t in self.meta_types.values():
            for h in holes(t):
                first_seen.setdefault(h.uid, (h, None))  # type: ignore[arg-type]
        by_owner: dict[int, list] = {}
        for uid, (h, node) in first_seen.items():
            origin = h.origin
            owner = origin.owner if origin is not None else None
            if id(owner) in self.error_owners:
                continue
            by_owner.setdefault(id(owner), []).append((h, node, uid in derived))
        for entries in by_owner.values():
            primary = [e for e in entries if not e[2]]
            metas = [e for e in primary if getattr(e[0].origin, "kind", None) == "meta"]
            if metas:
                self.diags.append(self._unresolved_constants([e[0] for e in metas]))
                primary = [e for e in primary if e not in metas]
                if not primary:
                    continue  # everything else unknown follows from the constants
            chosen = primary if primary else entries[:1]
            seen_spans: set = set()
            for h, node, is_derived in chosen:
                diag = self._unresolved(h, node, derived.get(h.uid))
                key = (diag.span.start if diag.span is not None else -1, diag.message)
                if key in seen_spans:
                    continue
                seen_spans.add(key)
                self.diags.append(diag)

    def _unresolved_constants(self, hs: list[Hole]) -> Diagnostic:
        """Constants without metadata whose use does not determine their type: one warning.

        The program is not wrong; the file just does not carry the
        information (TVM printed it without its metadata table).
        """
        indices = sorted({i for i, t in self.meta_types.items() for h in hs if any(x is h for x in holes(t))})
        origins = sorted((h.origin for h in hs), key=lambda o: o.span.start if o.span is not None else -1)
        first = origins[0]
        if len(indices) == 1:
            message = f"cannot infer the type of `meta[relay.Constant][{indices[0]}]`"
        else:
            message = f"cannot infer the types of {len(indices)} constants (`meta[relay.Constant][{indices[0]}]` and others)"
        diag = Diagnostic(codes.UNRESOLVED_TYPE, message, first.span, severity=WARNING, label="type unknown")
        if len(indices) > 1:
            diag.with_note(f"the constants are meta[relay.Constant][...] with indices {_ranges(indices)}")
        diag.with_note(
            "the file has no metadata for them, and how they are used does not determine their shapes; "
            "expressions computed from them have unknown types too"
        )
        diag.with_help("write a constant's type in a comment right after it: `meta[relay.Constant][0] /* ty=Tensor[(64), float32] */`")
        return diag

    def _unresolved(self, h: Hole, node: Expr | None, blocked_by: Constraint | None) -> Diagnostic:
        origin: Origin | None = h.origin
        if origin is not None:
            span, text, kind = origin.span, origin.text, origin.kind
        else:
            span = _node_span(node)
            text, kind = (_describe_node(node), "result")
        if kind == "meta":
            diag = Diagnostic(codes.UNRESOLVED_TYPE, f"cannot infer the type of {text}", span, label="type unknown")
            diag.with_note("the file has no `#[metadata]` section, and how the constant is used does not determine its type")
            diag.with_help("write its type in a comment right after it, e.g. `meta[relay.Constant][0] /* ty=Tensor[(64), float32] */`")
            return diag
        if blocked_by is not None and blocked_by.site.span is not None and kind == "result":
            diag = Diagnostic(
                codes.UNRESOLVED_TYPE,
                f"cannot infer the type of the result of {blocked_by.site.what}",
                blocked_by.site.span,
                label="type unknown",
            )
            if blocked_by.args:
                args = ", ".join(f"`{self.ty(a)}`" for a in blocked_by.args)
                diag.with_note(f"its inputs are {args}; more of them must be known")
            return diag
        partial = self.ty(node and self.memo.get(node)) if node is not None and self.memo.get(node) is not None else ""
        diag = Diagnostic(codes.UNRESOLVED_TYPE, f"cannot infer the type of {text}", span, label="type unknown")
        if partial and partial != "_":
            diag.with_note(f"what is known: `{partial}` (`_` marks the unknown parts)")
        if kind in ("param", "binder"):
            diag.with_help("add a type annotation, e.g. `%x : Tensor[(10, 10), float32]`")
        elif kind == "operator":
            diag.with_help(origin.help)
        elif kind == "instance":
            diag.with_help(origin.help if origin is not None and origin.help else "give the type arguments explicitly, e.g. `@f<Tensor[(), int32]>(...)`")
        elif kind == "return":
            diag.with_help("annotate the return type: `fn(...) -> T { ... }`")
        return diag


def _ranges(values: list[int]) -> str:
    """`0-5, 7, 9-10`."""
    out = []
    start = prev = values[0]
    for v in values[1:] + [None]:  # type: ignore[list-item]
        if v is not None and v == prev + 1:
            prev = v
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(out)


def _describe_node(node: Any) -> str:
    if isinstance(node, Var):
        return f"`%{node.name}`"
    if isinstance(node, Call):
        return f"the result of {name_of(node.op)}"
    return "this expression"


def _node_span(node: Any) -> Span | None:
    return getattr(node, "span", None)
