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

from ..diagnostics import Diagnostic
from ..ir.expr import Expr
from ..ir.span import Span
from . import messages
from .origin import Origin
from .constraint import Constraint
from .state import CheckState
from .types import Hole, holes


class Unresolved:
    """Reports the unknowns left at the end, once each, where they are best explained."""

    def __init__(self, state: CheckState, meta_types: dict[int, Any]) -> None:
        self.state = state
        self.meta_types = meta_types  # the type of each `meta[relay.Constant][i]`

    def report(self, open_types: list[tuple[Expr, Any]]) -> None:
        """One `unresolved-type` per unknown left, at the place that explains it best."""
        st = self.state
        blocked = st.solver.blocked()
        derived: dict[int, Constraint] = {}
        for c in blocked:
            for h in holes(c.out):
                derived.setdefault(h.uid, c)
        first_seen: dict[int, tuple[Hole, Expr | None]] = {}
        for node, t in open_types:
            for h in holes(t):
                if h.uid not in first_seen:
                    first_seen[h.uid] = (h, node)
        for t in self.meta_types.values():
            for h in holes(t):
                first_seen.setdefault(h.uid, (h, None))
        by_owner: dict[int, list[tuple[Hole, Expr | None, bool]]] = {}
        for uid, (h, seen_at) in first_seen.items():
            origin = h.origin
            owner = origin.owner if origin is not None else None
            if id(owner) in st.error_owners:
                continue
            by_owner.setdefault(id(owner), []).append((h, seen_at, uid in derived))
        for entries in by_owner.values():
            # results of calls whose attributes are unknown (no `#[metadata]`):
            # already said, once, with what follows from them
            if any(getattr(e[0].origin, "kind", None) == "meta_attrs" for e in entries):
                entries = [e for e in entries if getattr(e[0].origin, "kind", None) != "meta_attrs"]
                if all(e[2] for e in entries):
                    continue
            primary = [e for e in entries if not e[2]]
            metas = [e for e in primary if getattr(e[0].origin, "kind", None) == "meta"]
            if metas:
                st.diags.append(self._unresolved_constants([e[0] for e in metas]))
                primary = [e for e in primary if e not in metas]
                if not primary:
                    continue  # everything else unknown follows from the constants
            chosen = primary if primary else entries[:1]
            seen_spans: set[tuple[int, str]] = set()
            for h, at, _ in chosen:
                diag = self._unresolved(h, at, derived.get(h.uid))
                key = (diag.span.start if diag.span is not None else -1, diag.message)
                if key in seen_spans:
                    continue
                seen_spans.add(key)
                st.diags.append(diag)

    def _unresolved_constants(self, hs: list[Hole]) -> Diagnostic:
        """Constants without metadata whose use does not determine their type: one warning.

        The program is not wrong; the file just does not carry the
        information (TVM printed it without its metadata table).
        """
        indices = sorted({i for i, t in self.meta_types.items() for h in hs if any(x is h for x in holes(t))})
        origins = sorted((h.origin for h in hs), key=lambda o: o.span.start if o.span is not None else -1)
        return messages.unresolved_constants(indices, origins[0].span)

    def _unresolved(self, h: Hole, node: Expr | None, blocked_by: Constraint | None) -> Diagnostic:
        st = self.state
        origin: Origin | None = h.origin
        if origin is not None:
            span, text, kind = origin.span, origin.text, origin.kind
        else:
            span = _node_span(node)
            text, kind = (messages.describe_node(node), "result")
        if kind == "meta":
            return messages.unresolved_constant(text, span)
        if blocked_by is not None and blocked_by.site.span is not None and kind == "result":
            inputs = [st.ty(a) for a in blocked_by.args]
            return messages.unresolved_result(blocked_by.site.what, inputs, blocked_by.site.span)
        known = st.memo.get(node) if node is not None else None
        partial = st.ty(known) if known is not None else ""
        return messages.unresolved(text, partial, kind, origin.help if origin is not None else "", span)


def _node_span(node: Any) -> Span | None:
    return getattr(node, "span", None)
