"""Declarations: data types and their constructors, and global functions.

The constructors of each data type get their function types first. A
global with a complete signature has that type before any body is
checked; the others are checked in strongly connected groups of the call
graph, callees first (`callgraph.py`), and generalized group by group, so
definition order does not matter. The bodies of the annotated globals are
checked last, against their signatures.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from ..ir.expr import Expr, Function, GlobalVar, Var
from ..ir.ty import FuncType, GlobalTypeVar, TypeCall
from . import messages
from .annotations import Annotations
from .callgraph import fully_annotated, global_refs, sccs
from .polymorphism import Polymorphism
from .state import CheckState
from .types import ERROR


class Declarations:
    """Types the module's data types and global functions."""

    def __init__(
        self, state: CheckState, annotations: Annotations, polymorphism: Polymorphism, visit: Callable[[Expr], Any]
    ) -> None:
        self.state = state
        self.annotations = annotations
        self.polymorphism = polymorphism
        self.visit = visit  # types a node and everything under it

    def prepare_adts(self) -> None:
        st = self.state
        for gtv, data in st.module.type_defs.items():
            st.type_data[gtv] = data
        st.solver.adt_named = self.adt_named
        for data in st.module.type_defs.values():
            st.owner = data
            params = data.type_params
            for ctor in data.constructors:
                inputs = []
                for t in ctor.inputs:
                    checked, errors = st.kinds.check(t, ctor.span)
                    for diag in errors:
                        st.error(diag)
                    inputs.append(checked if checked is not None else ERROR)
                ret = TypeCall(data.header, tuple(params))
                st.ctor_types[ctor] = FuncType(tuple(inputs), ret, tuple(params))
        st.owner = None

    def adt_named(self, name: str) -> GlobalTypeVar | None:
        """The ADT called `name`: the file's own definition, else the Prelude's."""
        own = self.state.module.type_def(name)
        if own is not None:
            return own.same_as or own.header
        for gtv in self.state.type_data:
            if gtv.name == name:
                return gtv
        return None

    def check_globals(self) -> None:
        st = self.state
        annotation = self.annotations.annotation
        functions = st.module.functions
        unannotated = []
        for gv, func in functions.items():
            if fully_annotated(func):
                st.owner = gv
                params = [annotation(p.type_annotation, p.span) for p in func.params]
                ret = annotation(func.ret_type)
                relations, templates = self.annotations.where_relations(func, params, ret)
                st.signatures[func] = (params, ret, relations, templates)
                ft = FuncType(tuple(params), ret, func.type_params, relations)
                if templates and func.type_params:
                    st.schemes[id(ft)] = (ft, templates, ())
                st.global_types[gv] = ft
            else:
                unannotated.append(gv)
        st.owner = None
        for group in sccs(unannotated, lambda gv: global_refs(functions[gv], functions)):
            st.level = 1
            for gv in group:
                st.global_types[gv] = st.fresh(origin=st.origin("binder", gv.span, messages.global_text(gv.name)))
            for gv in group:
                st.owner = gv
                self.visit(functions[gv])
                ft = st.memo[functions[gv]]
                mono = FuncType(ft.arg_types, ft.ret_type) if isinstance(ft, FuncType) else ft
                st.expect(mono, st.global_types[gv], gv.span)
            st.solver.solve()
            st.level = 0
            for gv in group:
                st.owner = gv
                st.global_types[gv] = self.polymorphism.generalize(
                    st.global_types[gv], functions[gv].type_params, st.memo.get(functions[gv])
                )
            st.owner = None
        for gv, func in functions.items():
            if func in st.signatures:
                st.owner = gv
                self.visit(func)
                st.solver.solve()
        st.owner = None

    def global_type(self, gv: GlobalVar, use: Any = None) -> Any:
        """The type of a global (`use`: where it is used, for an error)."""
        st = self.state
        t = st.global_types.get(gv)
        if t is not None:
            return t
        pt = st.prelude_globals.get(gv.name)
        if pt is not None:
            return pt
        self.unknown_global(gv, use)
        return ERROR

    def unknown_global(self, gv: GlobalVar, use: Any = None) -> None:
        """A global neither the module nor its prelude defines, once a name.
        (Parsing reports the names the text does not know; this is a module
        parsed knowing names that were not given to the checker, such as
        the Prelude's.)"""
        st = self.state
        if gv.name in st.unknown_names:
            return
        st.unknown_names.add(gv.name)
        st.error(messages.unknown_global(gv.name, use or gv.span))

    def definition(self, callee: Expr) -> Function | None:
        """The function a call calls, when it is written: a global's, a let-bound one, or a literal `fn`."""
        st = self.state
        if type(callee) is GlobalVar:
            func = st.module.functions.get(callee)
            if func is None:
                func = st.prelude_functions.get(callee.name)
            return func
        if type(callee) is Var:
            return st.fn_defs.get(callee)
        if type(callee) is Function:
            return callee
        return None
