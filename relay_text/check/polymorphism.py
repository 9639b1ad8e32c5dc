"""Generalization and instantiation: polymorphic types and their relations.

`generalize` turns the type of a function value into its most general
type: unknowns created inside it (those above the current level) become
type parameters, and relation constraints over only those unknowns travel
along as `where` relations (kept as templates). A constraint that also
involves outside unknowns pins its unknowns instead. `instantiate` gives a
polymorphic type fresh unknowns (or the explicit type arguments of a call)
and re-creates its relations at the call site.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator

from ..ir.expr import Call, Expr
from ..ir.span import Span
from ..ir.ty import FuncType, TypeRelation, TypeVar
from ..text.type_text import type_text
from . import messages
from .explain import name_of
from .constraint import Constraint, Site
from .solver import Rel, is_dim_equation
from .types import Hole, find, holes, resolve, substitute, walk

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, for less at import
    from ..record import dataclass

if TYPE_CHECKING:
    from .annotations import Annotations
    from .state import CheckState


@dataclass(slots=True)
class Template:
    """A relation constraint carried by a polymorphic function type."""

    fn: Callable[[Any], bool]
    name: str
    attrs: dict[str, Any]
    args: list[Any]
    out: Any
    span: Span | None = None


class Polymorphism:
    """Generalizes the types of function values and instantiates them at each use."""

    def __init__(self, state: CheckState, annotations: Annotations) -> None:
        self.state = state
        self.annotations = annotations

    def generalize(self, t: Any, declared: tuple[Any, ...] = (), own: Any = None) -> Any:
        """The most general type of a function value whose unknowns above the current level are free.

        `own` is the type the function's definition gave it: the relations
        its `where` clause names over declared type parameters (which hold
        at each call, not at the definition) travel with the result."""
        t = resolve(t)
        if not isinstance(t, FuncType):
            return t
        st = self.state
        level = st.level
        self._settle_dimensions()
        t = resolve(t)
        candidates = {h.uid: h for h in holes(t) if h.level > level}
        touched: dict[int, Constraint] = {}
        frontier = list(candidates.values())
        visited = set(candidates)
        while frontier:
            h = frontier.pop()
            for c in h.triggers or ():
                if not c.done and id(c) not in touched:
                    touched[id(c)] = c
                    for ty in c.types():
                        for x in holes(ty):
                            if x.level > level and x.uid not in visited:
                                visited.add(x.uid)
                                frontier.append(x)
        # A constraint that also involves outside unknowns pins its unknowns here.
        changed = True
        involved = {id(c): [x for ty in c.types() for x in holes(ty)] for c in touched.values()}
        while changed:
            changed = False
            for hs in involved.values():
                if any(x.uid in candidates for x in hs) and not all(x.uid in candidates or x.level > level for x in hs):
                    for x in hs:
                        if x.uid in candidates:
                            del candidates[x.uid]
                            changed = True
                        x.level = min(x.level, level)
        # Unknowns created inside but not in the type itself still generalize
        # when a travelling constraint mentions them (e.g. an intermediate shape).
        for hs in involved.values():
            if hs and all(x.uid in candidates or x.level > level for x in hs):
                for x in hs:
                    candidates.setdefault(x.uid, x)
        taken = {p.name for p in declared}
        names = _fresh_names(taken)
        new_params = []
        mapping: dict[Any, Any] = {}
        order = {h.uid: i for i, h in enumerate(_holes_in_order(t))}
        for h in sorted(candidates.values(), key=lambda h: (order.get(h.uid, len(order)), h.uid)):
            tv = TypeVar(next(names), h.kind)
            mapping[h] = tv
            new_params.append(tv)
        templates: list[Template] = []
        relations = []
        for cid, c in touched.items():
            hs = involved[cid]
            if hs and all(x.uid in candidates for x in hs) and is_dim_equation(c):
                # A dimension equation nothing decided would become a condition
                # on every call that the type cannot show: an error.
                self._open_dimensions(c)
                st.solver.detach(c)
                continue
            if hs and all(x.uid in candidates for x in hs):
                args = [substitute(resolve(a), mapping) for a in c.args]
                out = substitute(resolve(c.out), mapping)
                shown = getattr(c.fn, "relation_name", c.name)
                template = Template(c.fn, c.name, c.attrs, args, out)
                same = next(
                    (
                        i
                        for i, tm in enumerate(templates)
                        if tm.attrs == c.attrs and _same_template(tm, shown, args, out)
                    ),
                    None,
                )
                if same is None:
                    templates.append(template)
                    relations.append(TypeRelation(shown, (*tuple(args), out), len(args)))
                elif c.site.call is not None:
                    # A `where` relation and an operator's relation over the same
                    # types: keep the operator's, the more specific of the two.
                    templates[same] = template
                st.solver.detach(c)
        entry = st.schemes.get(id(own)) if own is not None else None
        if entry is not None and entry[0] is own:
            for tm in entry[1]:
                args = [substitute(resolve(a), mapping) for a in tm.args]
                out = substitute(resolve(tm.out), mapping)
                templates.append(Template(tm.fn, tm.name, tm.attrs, args, out, tm.span))
                relations.append(TypeRelation(getattr(tm.fn, "relation_name", tm.name), (*tuple(args), out), len(args)))
        for h, tv in mapping.items():
            h.link = tv
        body = resolve(t)
        # Variables that only the travelling relations mention (an intermediate
        # shape, say) are instantiated with the rest but not shown.
        present = {id(x) for x in walk(body) if type(x) is TypeVar}
        visible = tuple(p for p in new_params if id(p) in present)
        hidden = tuple(p for p in new_params if p not in visible)
        scheme = FuncType(body.arg_types, body.ret_type, tuple(declared) + visible, tuple(relations))
        if templates:
            st.schemes[id(scheme)] = (scheme, templates, hidden)
        return scheme

    def _settle_dimensions(self) -> None:
        """Before generalizing: dimension equations still open over unknowns
        of this definition take the guess of `dims.match_structure` (the
        signature wrote the dimension as the callee did, `a * b` for `n * m`)."""
        solver, level = self.state.solver, self.state.level
        for c in solver.open_dim_equations():
            if any(h.level > level for ty in c.types() for h in holes(ty)):
                default = getattr(c.fn, "default", None)
                if default is not None and default(Rel(solver, c)):
                    solver.solve()

    def _open_dimensions(self, c: Constraint) -> None:
        """Report a dimension equation left open where its function is generalized."""
        st = self.state
        hs = _holes_in_order((c.args[0], c.out))
        names = {h: h.origin.name for h in hs if getattr(h.origin, "name", "")}
        lhs, rhs = (type_text(resolve(x), st.dialect, names) for x in (c.args[0], c.out))
        what: list[str] = []
        for h in hs:
            text = getattr(h.origin, "text", "")
            if text and text not in what:
                what.append(text)
        helps = [h.origin.help for h in hs if getattr(h.origin, "help", "")]
        diag = messages.open_dimensions(what, lhs, rhs, helps, c.site.span)
        st.error_in(c.site.owner if c.site.owner is not None else st.owner, diag)

    def instance(self, f: FuncType) -> FuncType:
        """A polymorphic function value used where a monomorphic function is
        expected (`@apply(fn [A](%x: A) { %x }, 1)`): a fresh instance."""
        return self.instantiate(f, (), None, f)

    def instantiate(self, f: FuncType, type_args: tuple[Any, ...], call: Call | None, node: Any) -> FuncType:
        st = self.state
        params = f.type_params
        span = call.span if call is not None else None
        name = name_of(node)
        mapping: dict[Any, Any] = {}
        if type_args:
            if len(type_args) != len(params):
                st.error(messages.type_argument_arity(name, params, len(type_args), span))
            else:
                for p, a in zip(params, type_args, strict=False):
                    value, errors = st.kinds.convert_type_arg(a, p, span)
                    for diag in errors:
                        st.error(diag)
                    if value is not None:
                        mapping[p] = self.annotations.holes_for_blanks(value)
        for p in params:
            if p not in mapping:
                origin = st.origin("instance", span, messages.type_argument_text(p.name, name))
                origin.help = messages.type_arguments_help(name, params, p)
                origin.name = p.name
                mapping[p] = Hole(p.kind, st.level, origin)
        inst = FuncType(
            tuple(substitute(a, mapping) for a in f.arg_types),
            substitute(f.ret_type, mapping),
        )
        scheme = st.schemes.get(id(f))
        if scheme is not None and scheme[0] is f:
            for p in scheme[2]:
                mapping[p] = st.fresh(p.kind)
            site = Site(call, span, name, st.owner)
            for tm in scheme[1]:
                c = Constraint(
                    tm.fn,
                    tm.name,
                    [substitute(a, mapping) for a in tm.args],
                    substitute(tm.out, mapping),
                    tm.attrs,
                    site,
                    st.level,
                )
                st.solver.add(c)
        if call is not None:
            st.type_args[call] = tuple(mapping[p] for p in params)
        return inst

    def no_type_params(self, node: Expr, call: Call | None, type_args: tuple[Any, ...]) -> None:
        self.state.error(messages.no_type_parameters(node, len(type_args), call.span if call is not None else None))


def _same_template(tm: Template, shown: str, args: list[Any], out: Any) -> bool:
    """The same relation (by the name it is shown with) over the same types."""
    return (
        getattr(tm.fn, "relation_name", tm.name) == shown
        and len(tm.args) == len(args)
        and all(a is b or a == b for a, b in zip(tm.args, args, strict=False))
        and (tm.out is out or tm.out == out)
    )


def _holes_in_order(t: Any) -> list[Hole]:
    """Unsolved holes of `t` in the order they are written (left to right)."""
    from .types import children

    out: list[Hole] = []
    seen: set[int] = set()
    done: set[int] = set()  # compound parts already walked: their holes are in `out`
    stack = [t]
    while stack:
        node = find(stack.pop())
        if type(node) is Hole:
            if node.uid not in seen:
                seen.add(node.uid)
                out.append(node)
            continue
        kids = children(node)
        if kids and id(node) not in done:
            done.add(id(node))
            stack.extend(reversed(kids))
    return out


def _fresh_names(taken: set[str]) -> Iterator[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    n = 0
    while True:
        base = letters[n % 26] + (str(n // 26) if n >= 26 else "")
        n += 1
        if base not in taken:
            yield base
