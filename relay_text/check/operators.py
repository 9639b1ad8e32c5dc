"""Operator calls: registry lookup, attributes, relations, and names that are no operator.

An operator call becomes a relation constraint over the argument types and
a fresh result. Attributes are validated against the operator's schema
first (`unknown-attribute` with close names, `type-mismatch` at the value,
`missing-attribute`). A name without sigil that is no operator is reported
as `unknown-operator` (or `unknown-constructor` when capitalised), with the
global, local or operator the author probably meant.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import WARNING, Diagnostic, codes
from ..ir.expr import Call, Function, Op
from ..ir.positions import META_ATTRS
from ..ir.ty import FuncType, TupleType, TypeRelation, TypeVar, canonical_dtype
from ..ops import registry
from ..ops import relations as rels
from ..ops.legacy import UNSUPPORTED, legacy_hint
from ..text.suggest import KEYWORD, OPERATOR, close_names, near_miss, or_list
from .polymorphism import Template
from .solver import Constraint, Site
from .types import ERROR, Hole, walk


def projection(r: Any) -> bool:
    """The relation of `e.i` when the type of `e` is not yet known."""
    t = r.arg(0)
    index = r.attrs["index"]
    if isinstance(t, Hole):
        return False
    if isinstance(t, TupleType):
        if index >= len(t.fields):
            r.fail(
                codes.TYPE_MISMATCH,
                f"this tuple has {len(t.fields)} field{'' if len(t.fields) == 1 else 's'}, so `.{index}` does not exist",
                arg=0,
            )
        r.set_result(t.fields[index])
        return True
    r.fail(codes.TYPE_MISMATCH, "only a tuple can be projected with `.{}`".format(index), arg=0, label="this is not a tuple")
    return False


class OperatorMixin:
    """Part of the Checker: calls of operators and `where` relations."""

    def _call_op(self, node: Call, op: Op) -> Any:
        arg_types = [self.use_type(a) for a in node.args]
        opdef = registry.get(op.name)
        if opdef is None:
            self._note_unknown_operator(op, node)
            return ERROR
        if node.attrs_ref is not None and self.module.metadata is None:
            self.attrs_not_found.setdefault(op.name, []).append(node)
        if node.type_args:
            self.error(
                Diagnostic(codes.ARITY_MISMATCH, f"operator `{op.name}` takes no type arguments", node.span, label="not polymorphic")
            )
        if len(arg_types) != opdef.inputs:
            want, got = opdef.inputs, len(arg_types)
            diag = Diagnostic(
                codes.ARITY_MISMATCH,
                f"`{op.name}` takes {want} argument{'' if want == 1 else 's'}, but {got} {'was' if got == 1 else 'were'} given",
                node.span,
                label=f"expected {want} argument{'' if want == 1 else 's'}",
            ).with_note(f"`{opdef.signature()}`: {opdef.doc}")
            hint = legacy_hint(op.name, got, {key for key, _ in node.attrs})
            if hint is not None:
                diag.with_help(hint)
            self.error(diag)
            return ERROR
        if opdef.renamed_to:
            self.renamed_ops.setdefault(op.name, []).append(node)
        attrs, problems = opdef.normalize_attrs(node.attrs)
        for problem in problems:
            self._attribute_error(node, opdef, problem)
        if problems:
            return ERROR
        out = self.fresh(origin=self.origin("result", node.span, f"the result of `{op.name}`"))
        self.op_types[op] = (arg_types, out)
        shown = node.infix or op.name
        site = Site(node, node.span, f"`{shown}`", self.owner, shown)
        self.solver.add(Constraint(opdef.relation, op.name, arg_types, out, attrs, site, self.level))
        return out

    def _report_per_operator(self) -> None:
        """Problems reported once per operator name rather than once per call
        (a model dump repeats a call hundreds of times): unknown operators,
        and attributes referred to in a metadata section the file lacks."""
        saved = self.owner
        for diag, owner, count in self.unknown_ops.values():
            if diag is None:
                continue
            if count > 1:
                diag.label = f"{diag.label} ({count} uses; this is the first)"
            self.owner = owner
            self.error(diag)
        self.owner = saved
        for name, calls in self.renamed_ops.items():
            opdef = registry.get(name)
            assert opdef is not None
            n = len(calls)
            self.error(
                Diagnostic(
                    codes.RENAMED_OPERATOR,
                    f"`{name}` is the name an earlier TVM release gave `{opdef.renamed_to}`",
                    calls[0].op.span,
                    severity=WARNING,
                    label="old name" + (f" ({n} uses; this is the first)" if n > 1 else ""),
                ).with_note(f"read with its old attributes, as `{opdef.renamed_to}`; TVM 0.8 and later know only the new name")
            )
        for name, calls in self.attrs_not_found.items():
            first = calls[0]
            ref = first.attrs_ref
            n = len(calls)
            self.error(
                Diagnostic(
                    codes.BAD_METADATA,
                    f"the attributes of {'this call' if n == 1 else f'{n} calls'} of `{name}` are in a `#[metadata]` section this file does not have",
                    self.spans.attr_span(first, META_ATTRS),
                    severity=WARNING,
                    label=f"`meta[{ref.kind}][{ref.index}]`",
                ).with_note(f"checked and run with the defaults of `{name}`'s attributes")
                .with_help("print the module with its metadata (TVM's `astext(show_meta_data=True)`), or write the attributes as `key=value`")
            )

    def _attribute_error(self, node: Call, opdef: Any, problem: Any) -> None:
        if not problem.key:
            self.error(
                Diagnostic(codes.MISSING_ATTRIBUTE, problem.message, node.span, label="in this call").with_help(
                    f"the attribute takes {problem.expected}; the call looks like `{opdef.signature()}`"
                )
            )
            return
        span = self.spans.attr_span(node, problem.key)
        if problem.key not in opdef.schema:
            diag = Diagnostic(codes.UNKNOWN_ATTRIBUTE, problem.message, span, label="unknown attribute")
            suggestions = close_names(problem.key, opdef.schema)
            if suggestions:
                diag.with_help(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?")
            elif opdef.attrs:
                diag.with_note(f"`{opdef.name}` takes {or_list([f'`{a.name}`' for a in opdef.attrs])}")
            else:
                diag.with_note(f"`{opdef.name}` takes no attributes")
            self.error(diag)
            return
        value = dict(node.attrs).get(problem.key)
        self.error(
            Diagnostic(codes.TYPE_MISMATCH, problem.message, span, label=f"found {_attr_value_text(value)}").with_note(
                f"`{opdef.name}` takes `{problem.key}` as {problem.expected}"
            )
        )

    def _note_unknown_operator(self, op: Op, call: Call | None) -> None:
        """Count a use of a name that is no operator; the first use's
        diagnostic (made now, while its scope is known) is reported at the end."""
        entry = self.unknown_ops.get(op.name)
        if entry is not None and entry[0] is not None:
            entry[2] += 1
            return
        diag = self._unknown_operator(op, call)
        self.unknown_ops[op.name] = [diag, self.owner, 1 if entry is None else entry[2] + 1]

    def _unknown_operator(self, op: Op, call: Call | None) -> Diagnostic | None:
        name = op.name
        span = op.span
        if name in self.typo_names:
            return None  # the pattern that meant to bind it is reported, with the fix
        if name[:1].isupper():
            diag = Diagnostic(codes.UNKNOWN_CONSTRUCTOR, f"unknown constructor `{name}`", span, label="not defined")
            known = [c.name for c in self.ctor_types]
            hit = near_miss(name, (KEYWORD,))
            suggestions = close_names(name, known)
            if hit is not None:
                diag.with_help(f"did you mean `{hit[0]}`? {hit[1]}")
            elif suggestions:
                diag.with_help(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?")
            return diag
        if name in UNSUPPORTED:
            return Diagnostic(
                codes.UNKNOWN_OPERATOR, f"`{name}` is a TVM operator that cannot be checked or run here", span, label="not supported"
            ).with_note(UNSUPPORTED[name])
        diag = Diagnostic(codes.UNKNOWN_OPERATOR, f"unknown operator `{name}`", span, label="not an operator")
        globals_ = {gv.name for gv in self.module.functions} | set(self.prelude_functions)
        hit = near_miss(name, (KEYWORD, OPERATOR), registry.names())
        dtype = canonical_dtype(name)
        if hit is not None:
            diag.with_help(f"did you mean `{hit[0]}`? {hit[1]}")
        elif dtype is not None and call is not None:
            # `float32(1)`: a proposal of the text format that was not adopted
            suffix = dtype.replace("float", "f").replace("uint", "u").replace("int", "i")
            literal = "`True` or `False`" if dtype == "bool" else f"`1{suffix}`"
            diag.with_help(f"a {dtype} literal is written {literal}; convert a value with `cast(x, dtype=\"{dtype}\")`")
        elif name in globals_:
            diag.with_help(f"did you mean `@{name}`? Global functions are called with the `@` sigil")
        elif name in self.locals:
            diag.with_help(f"did you mean `%{name}`? Local variables are written with the `%` sigil")
        else:
            suggestions = [n for n in registry.names() if n.rsplit(".", 1)[-1] == name and n != name]
            close = close_names(name, registry.names())
            if "." in name:  # `nn.sofmax`: a name of the same family first (not `qnn.softmax`)
                family = name.rsplit(".", 1)[0] + "."
                close = [n for n in close if n.startswith(family)] or close
            suggestions += [n for n in close if n not in suggestions]
            if suggestions:
                diag.with_help(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?")
            near_globals = close_names(name, globals_)
            if near_globals:
                diag.with_help(f"or the global {or_list([f'`@{s}`' for s in near_globals])}?")
        return diag

    def _op_value_type(self, op: Op) -> Any:
        """An operator used as a value (`@foldl(add, 0, %l)`): a function type
        from its relation. Its inputs and result are unknowns related by the
        operator's relation, which runs once the uses of the value tell what
        the inputs are (seed 002, "Operators": operators have function types)."""
        opdef = registry.get(op.name)
        if opdef is None:
            self._note_unknown_operator(op, None)
            return ERROR
        if opdef.renamed_to:
            self.renamed_ops.setdefault(op.name, []).append(Call(op, ()))
        attrs, problems = opdef.normalize_attrs(())
        if problems:
            missing = ", ".join(f"`{p.key}`" if p.key else p.message for p in problems)
            self.error(
                Diagnostic(
                    codes.MISSING_ATTRIBUTE,
                    f"operator `{op.name}` is used as a value, but it needs attributes ({missing})",
                    op.span,
                    label="not called",
                ).with_help(f"wrap the call in a function that gives them: `fn (...) {{ {opdef.signature()} }}`")
            )
            return ERROR
        origin = self.origin("operator", op.span, f"`{op.name}` used as a value")
        origin.help = (
            f"pass `{op.name}` where its argument types are known, or wrap it in a function "
            f"with annotated parameters: `fn (%x : Tensor[(), float32]) {{ {op.name}(%x, ...) }}`"
        )
        inputs = [self.fresh(origin=origin) for _ in range(opdef.inputs)]
        out = self.fresh(origin=self.origin("result", op.span, f"the result of `{op.name}`"))
        self.op_types[op] = (inputs, out)
        site = Site(None, op.span, f"`{op.name}`", self.owner, op.name)
        self.solver.add(Constraint(opdef.relation, op.name, list(inputs), out, attrs, site, self.level))
        return FuncType(tuple(inputs), out)

    def _relation_named(self, name: str, span: Any, inputs: int, what: str) -> Any:
        """The relation a `where` names, or None after reporting why it cannot be used."""
        fn = _named_relation(name)
        if fn is None:
            diag = Diagnostic(codes.UNKNOWN_RELATION, f"unknown relation `{name}`", span, label="not a relation")
            suggestions = close_names(name, _relation_names())
            if suggestions:
                diag.with_help(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?")
            else:
                diag.with_note(f"the relations a `where` clause can name are {or_list([f'`{s}`' for s in _relation_names()])}")
            self.error(diag)
            return None
        want = getattr(fn, "inputs", inputs)
        if want != inputs:
            self.error(
                Diagnostic(
                    codes.ARITY_MISMATCH,
                    f"`{name}` relates {want} input{'' if want == 1 else 's'} to a result, but {what} has {inputs} parameter{'' if inputs == 1 else 's'}",
                    span,
                    label="named here",
                )
            )
            return None
        return fn

    def annotated_relations(self, written: Any, ty: Any) -> None:
        """`fn(A, B) -> C where R` in an annotation (`written`, checked as
        `ty`): the relation must hold of A, B and C. It is checked here when
        the function type is monomorphic and mentions no type parameter;
        otherwise it is kept in the type (and shown) but not checked."""
        seen = self.__dict__.setdefault("_related_annotations", set())
        if id(written) in seen:
            return
        seen.add(id(written))
        for part in walk(ty):
            if type(part) is not FuncType or not part.type_constraints:
                continue
            generic = bool(part.type_params) or any(type(x) is TypeVar for x in walk(part))
            for rel in part.type_constraints:
                fn = self._relation_named(rel.name, rel.span, rel.num_inputs, "this function type")
                if fn is None or generic:
                    continue
                site = Site(None, rel.span, f"`{rel.name}`", self.owner, rel.name)
                self.solver.add(Constraint(fn, rel.name, list(rel.args[:-1]), rel.args[-1], {}, site, self.level))

    def _where_relations(self, node: Function, params: list, ret: Any) -> tuple[tuple, list[Template]]:
        """The relations of a `where` clause, as printed relations and as templates."""
        out = []
        templates = []
        for ref in node.relations:
            fn = self._relation_named(ref.name, ref.span, len(params), "this function")
            if fn is None:
                continue
            out.append(TypeRelation(ref.name, tuple(params) + (ret,), len(params)))
            templates.append(Template(fn, ref.name, {}, list(params), ret, ref.span))
        return tuple(out), templates


def _named_relation(name: str) -> Any:
    fn = rels.NAMED.get(name)
    if fn is not None:
        return fn
    for opdef in registry.all_ops():
        if getattr(opdef.relation, "relation_name", None) == name and not opdef.attrs:
            return opdef.relation
    return None


def _relation_names() -> list[str]:
    names = set(rels.NAMED)
    for opdef in registry.all_ops():
        rn = getattr(opdef.relation, "relation_name", None)
        if rn and not opdef.attrs:
            names.add(rn)
    return sorted(names)


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
