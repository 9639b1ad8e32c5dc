"""Relay IR to text, in the documented dialect or in TVM's 0.0.5 format.

    print_module(module, dialect=None, width=100)   a whole file
    print_expr(expr, dialect="docs", width=100)     one expression

There is one rule per IR class (`_call`, `_let`, `_if`, ...). A rule is a
generator: it yields the children it needs and receives their text, so it
reads like a recursive printer while `ExprFunctor.visit` drives all rules
from one explicit stack (a chain of 100,000 calls costs no Python
recursion). Printing a scope (`_scope`) is shared by the rules that open
one through `yield from`: one level per rule, never per nesting.

Sharing is decided beforehand by `sharing.Plan`: a bound node is printed
once, as `%n = ...` in the scope the plan chose, when a statement first
needs it; every use then prints `%n`. Bindings that came from the source are
emitted in source order. Comments, attached by `comments.attach`, are
printed around the element they belong to.

Names are settled while the document is laid out, in text order (the only
order in which scoping means anything): user names are kept; a binder that
would capture a variable used under it is renamed (`%x_1`); temporaries skip
every number that a user variable is called. In the documented dialect
temporaries are numbered in text order from `%0` in each definition; in the
TVM dialect they are numbered module-wide in the order TVM allocated them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from ..ir.expr import (
    Call,
    Constant,
    Expr,
    Function,
    If,
    Let,
    Match,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ir.pattern import PatternConstructor, PatternTuple, PatternVar, PatternWildcard
from ..ir.ty import FuncType
from ..ir.visitor import ExprFunctor
from ..syntax.spelling import attr_text
from ..syntax.symbols import BINARY, P_UNARY
from ..text.type_text import type_text
from .blocks import Blocks, StreamedStatements
from .comments import Attached, fn_attr, occurrence
from .dialects import DOCS, IDENT, TVM, PrintError, check_name, infix_symbol
from .layout import HARDLINE, LINE, Doc, Group, Nest, bracket
from .naming import POP, PUSH
from .sharing import is_atom
from .trivia import Note
from .state import P_ATOM, P_BLOCK, P_NEG, Block, Piece, Rule, condition, in_order
from .types import type_doc


class Expressions(Blocks, ExprFunctor[Any]):
    """One rule per IR class."""

    # Compound nodes are printed by generator rules that yield the children
    # they need (see ExprFunctor): one rule per IR class, no recursion.
    pre_order = frozenset({Function, Let, Call, Tuple, TupleGetItem, If, Match, RefCreate, RefRead, RefWrite})

    def _visit(self, node: Expr) -> Generator[Expr, Piece, Piece | Block]:
        """A compound node: its rule, then `_finish` binds it or returns it."""
        if node is self.scope_root:  # the file's trailing expression: a scope of its own
            self.scope_root = None
            assert self.plan is not None
            block = yield from self._scope(self.plan.root_scope, node, None)
            return block
        piece = yield from _RULES[type(node)](self, node)
        return self._finish(node, piece)

    visit_function = visit_let = visit_call = visit_tuple = visit_tuple_get_item = _visit
    visit_if = visit_match = visit_ref_create = visit_ref_read = visit_ref_write = _visit

    def _leaf(self, node: Expr) -> Piece:
        if type(node) is Constant and not is_atom(node):  # Constant(1, (2, 2), float32)
            return self._finish(node, self._constant(node))
        return self._atom(node)

    visit_var = visit_global_var = visit_op = visit_constructor = visit_constant = _leaf

    def _function(self, node: Function) -> Rule:
        tvm = self.tvm
        def_name = self.def_name if self.plan is not None and node is self.plan.root else None
        tparams = self._type_params_doc(node.type_params)
        head: Doc
        if def_name is not None:
            head = [f"def @{def_name}", tparams]
            fnotes = self._take(node)
        else:
            head = ["fn ", tparams] if tparams else "fn "
            fnotes = None
        params: list[Piece] = []
        for p in node.params:
            doc, term = self._binder_piece(p, node, self._take(p), binds=True)
            params.append((doc, P_ATOM, term))
        for key, value in node.attrs:
            piece: Piece = (f"{key}={self._attr(value, node)}", P_ATOM, None)
            notes = self._take(fn_attr(node, key)) if self.comments is not None else None
            if notes is not None:
                doc, term = self._around(piece[0], None, notes)
                piece = (doc, P_ATOM, term)
            params.append(piece)
        # The result type is inside the parameters' group: the parameters
        # break one a line before the result type breaks inside its brackets.
        ret: list[Doc] = []
        if node.ret_type is not None:
            ret += ["-> ", self._type_doc(node.ret_type)]
            if node.relations and type(node.ret_type) is FuncType:  # the `where` is the function's
                ret[1] = ["(", ret[1], ")"]
        if node.relations:
            where = "where " + ", ".join(r.name for r in node.relations)
            ret += [Group(Nest(2, [LINE, where]))] if ret else [where]
        if not ret:
            sig: list[Doc] = [head, PUSH, self._list("(", params, ")"), " "]
        elif params:
            sig = [head, PUSH, self._list("(", params, ")", after=[" ", ret]), " "]
        else:  # `()` cannot break: the result type moves to the next line
            sig = [head, PUSH, "()", Group(Nest(2, [LINE, ret])), " "]
        scope = self._scope_of(node, "fn")
        body_key = (node, len(node.params))
        stream = self.stream if def_name is not None else None
        if stream is not None:
            # A definition's body is laid out statement by statement as it is
            # printed: its document goes to the layout first, with a hole for
            # the statements (what `_render_block` gives a forced block).
            self.stream = None
            hole = stream.hole()
            body: Doc = ["{", PUSH, Nest(2, [HARDLINE, hole]), HARDLINE, POP, "}"]
            stream.put(self._around_function([Group([sig, body]), POP], node, fnotes))
            stream.flush()
            block = yield from self._scope(scope, node.body, body_key, streamed=StreamedStatements(hole))
            hole.put(self._tail(block, []))
            hole.close()
            stream.close()
            return ("", P_BLOCK, None)
        block = yield from self._scope(scope, node.body, body_key)
        force = def_name is not None or (tvm and self._broken(node))
        body = self._render_block(block, "{", "}", force=force, grouped=False)
        return (self._around_function([Group([sig, body]), POP], node, fnotes), P_BLOCK, None)

    def _around_function(self, fdoc: list[Doc], node: Function, fnotes: Attached | None) -> Doc:
        """A definition's document with the comments before and after it."""
        if fnotes is None:
            return fdoc
        lead = self._lead(fnotes.before, inline=False, blank_after=self._blank(node))
        return [lead, fdoc, self._trail(in_order(fnotes.after, fnotes.after_term))]

    def _let(self, node: Let) -> Rule:
        """A `let` standing where an expression is expected: a block."""
        plan = self.plan
        assert plan is not None
        scope = self._scope_of(node, "block")
        block = yield from self._scope(scope, node, None, block=True)
        if self.tvm:
            return (self._render_block(block, "(", ")", force=True), P_ATOM, None)
        return (self._render_block(block, "{", "}", force=bool(block.stmts)), P_BLOCK, None)

    def _call(self, node: Call) -> Rule:
        tvm = self.tvm
        infix = None if tvm and not self.keep_form else infix_symbol(node)
        ready = self.ready
        commented = self.comments is not None
        args: list[Piece] = []
        callee_notes: Attached | None = None
        op: Piece | None = None
        sym: Doc = ""
        if infix is not None:
            sym = self._symbol(node, infix)
        elif not tvm:
            op = ready(node.op)
            if op is None:
                op = yield node.op
            if self.aliases:
                op = self._alias(op, node, 0, node.op)
            if commented:
                if node.type_args:  # comments go around `@f<...>`, never inside it
                    callee_notes = self._take(occurrence(node, 0))
                else:
                    op = self.occ(op, node, 0)
        for i, a in enumerate(node.args):
            piece = ready(a)
            if piece is None:
                piece = yield a
            if self.aliases:
                piece = self._alias(piece, node, i + 1, a)
            args.append(self.occ(piece, node, i + 1) if commented else piece)
        if tvm and infix is None:  # TVM printed the arguments before a call's operator
            op = ready(node.op)
            if op is None:
                op = yield node.op
            if self.aliases:
                op = self._alias(op, node, 0, node.op)
            if commented:
                op = self.occ(op, node, 0)
        if infix is not None:
            prec = BINARY[infix][0] if len(args) == 2 else P_UNARY
            if len(args) == 1:
                operand = self._operand(args[0], P_UNARY, inline_term=False)
                space = " " if args[0][1] in (P_NEG, P_UNARY) else ""  # `- -1`, not `--1`
                return ([sym, space, operand], P_UNARY, args[0][2])
            lhs = self._operand(args[0], prec, inline_term=True)
            rhs_doc, rhs_prec, rhs_term = args[1]
            rhs = self._operand((rhs_doc, rhs_prec, None), prec + 1)
            return (Group([lhs, " ", sym, Nest(2, [LINE, rhs])]), prec, rhs_term)
        assert op is not None
        callee = self._postfix_base(op)
        if node.type_args:
            if not (is_atom(node.op) or node.op in self.plan.bound) or isinstance(node.op, Constant):  # type: ignore[union-attr]
                raise PrintError("explicit type arguments need a callee written as a name", node.span)
            # (a bare dtype here would be a BaseType argument, not a scalar type)
            texts = [type_text(t, TVM if self.tvm else DOCS, limit=None) for t in node.type_args]
            if texts[0][:1] in "%@-=<":  # (a number opens type arguments when `>(` closes them)
                raise PrintError(
                    f"the type argument `{texts[0]}` cannot open `<...>` (it reads as a comparison)", node.span
                )
            callee = [
                callee,
                bracket("<", [type_doc(t, TVM if self.tvm else DOCS, short=False) for t in node.type_args], ">"),
            ]
            if callee_notes is not None:
                callee, callee_term = self._around(callee, None, callee_notes)
                if callee_term:
                    callee = [callee, self._trail(callee_term)]
        items = args
        if node.attrs_ref is not None:  # written as a metadata reference: kept so
            items.append((attr_text(node.attrs_ref, self.tvm), P_ATOM, None))
        else:
            for key, value in node.attrs:
                items.append((self._attr_doc(key, value, node), P_ATOM, None))
        if type(callee) is str:
            return (self._list(callee + "(", items, ")"), P_ATOM, None)
        return ([callee, self._list("(", items, ")")], P_ATOM, None)

    def _symbol(self, node: Call, symbol: str) -> Doc:
        """An operator written as its symbol, with the comments around it."""
        doc: Doc = symbol
        term: list[Note] | None = None
        if self.comments is not None:
            for key in (node.op, occurrence(node, 0)):
                notes = self._take(key)
                if notes is not None:
                    doc, term = self._around(doc, term, notes)
        return [doc, self._trail(term)] if term else doc

    def _operand(self, piece: Piece, need: int, inline_term: bool = True) -> Doc:
        doc, prec, term = piece
        if term and inline_term:
            doc = [doc, self._trail(term)]
        if prec < need or prec == P_BLOCK:
            return ["(", doc, ")"]
        return doc

    def _postfix_base(self, piece: Piece) -> Doc:
        doc, prec, term = piece
        if term:
            doc = [doc, self._trail(term)]
        return doc if prec == P_ATOM else ["(", doc, ")"]

    def _tuple(self, node: Tuple) -> Rule:
        fields = []
        ready = self.ready
        for i, f in enumerate(node.fields):
            piece = ready(f)
            if piece is None:
                piece = yield f
            if self.aliases:
                piece = self._alias(piece, node, i, f)
            fields.append(self.occ(piece, node, i))
        trailing = "," if len(fields) == 1 else ""
        return (self._list("(", fields, ")", trailing), P_ATOM, None)

    def _tuple_get_item(self, node: TupleGetItem) -> Rule:
        piece = yield from self.operand(node, 0, node.tuple_value)
        base = self._postfix_base(piece)
        token = self._local_token(node.tuple_value)
        if token is not None and f"{token}.{node.index}" in self.names.dotted:
            base = ["(", base, ")"]
        return ([base, f".{node.index}"], P_ATOM, None)

    def _local_token(self, node: Expr) -> str | None:
        """The name a projection would glue to (`t` in `%t.0`), if any."""
        suffix = ""
        while type(node) is TupleGetItem and node not in self.plan.bound:  # type: ignore[union-attr]
            suffix = f".{node.index}" + suffix
            node = node.tuple_value
        if type(node) is Var:
            return node.name + suffix
        return None

    def _if(self, node: If) -> Rule:
        tvm = self.tvm
        cond = yield from self.operand(node, 0, node.cond)
        then = yield from self._scope(self._scope_of(node, "then"), node.then_branch, (node, 1))
        other = yield from self._scope(self._scope_of(node, "else"), node.else_branch, (node, 2))
        force = tvm and self._broken(node)
        then_doc = self._render_block(then, "{", "}", force=force, grouped=False)
        head = ["if ", condition(self._inline_term(cond)), " ", then_doc, " else "]
        tail = node.else_branch
        if (
            not tvm
            and not other.stmts
            and not other.after
            and not other.tail_term
            and type(tail) is If
            and tail not in self.plan.bound  # type: ignore[union-attr]
            and type(other.tail) is Group
        ):
            # `else if`: the whole chain breaks as one.
            return (Group([head, other.tail.doc]), P_BLOCK, None)
        return (Group([head, self._render_block(other, "{", "}", force=force, grouped=False)]), P_BLOCK, None)

    def _match(self, node: Match) -> Rule:
        tvm = self.tvm
        data = yield from self.operand(node, 0, node.data)
        clauses: list[Doc] = []
        for i, clause in enumerate(node.clauses):
            notes = self._take(clause)
            pattern = self._pattern(clause.pattern, clause)
            block = yield from self._scope(self._scope_of(node, "clause", i), clause.body, (node, i + 1))
            doc: list[Doc] = []
            if i:
                doc.append(HARDLINE)
            if notes is not None:
                doc.append(self._lead(notes.before, inline=False))
            if tvm:
                braces = self._braced(node, i + 1)
                comma = "," if i + 1 < len(node.clauses) or self._comma_after(clause.span) else ""
                if block.stmts or block.after or braces:
                    body = self._render_block(block, "{", "}", force=not braces or self._broken(braces))
                    doc += [PUSH, pattern, " => ", body, comma, POP]
                else:
                    doc += [PUSH, pattern, " => ", block.tail, comma, POP]
                    if block.tail_term:
                        doc.append(self._trail(block.tail_term))
            else:
                body = self._render_block(block, "{", "}", force=False)
                doc += [PUSH, "case ", pattern, " ", body, POP]
            if notes is not None:
                doc.append(self._trail(in_order(notes.after, notes.after_term)))
            clauses.append(doc)
        subject = self._inline_term(data)
        keyword = "match" if node.complete else "match?"
        head = [keyword, " ", subject] if self._bare_subject(node, keyword) else [keyword, " ", condition(subject)]
        if not clauses:
            return ([head, " {}"], P_BLOCK, None)
        doc = [head, " {", Nest(2, [HARDLINE, clauses]), HARDLINE, "}"]
        return (doc, P_BLOCK, None)

    def _pattern(self, pattern: Any, clause: Any) -> Doc:
        """A pattern; its variables are bound for the clause body."""
        tvm = self.tvm
        # Iterative post-order over the pattern tree.
        out: dict[int, Doc] = {}
        stack: list[tuple[Any, bool]] = [(pattern, False)]
        while stack:
            p, done = stack.pop()
            if isinstance(p, (PatternConstructor, PatternTuple)) and not done:
                stack.append((p, True))
                stack.extend((q, False) for q in reversed(p.patterns))
                continue
            if isinstance(p, PatternWildcard):
                doc: Doc = "_"
            elif isinstance(p, PatternVar):
                doc = self._binder(p.var, clause, self._take(p.var), binds=True)
            elif isinstance(p, PatternConstructor):
                check_name(p.constructor.name, IDENT, "constructor", p.span)
                parts = [out.pop(id(q)) for q in p.patterns]
                if parts:
                    doc = bracket(p.constructor.name + "(", parts, ")")
                elif tvm or (
                    self._own(p.span) and p.span is not None and not p.span.source.text.endswith(")", 0, p.span.end)
                ):
                    doc = p.constructor.name  # `Nil`, as TVM writes it (and the documents may)
                else:
                    doc = p.constructor.name + "()"
            else:
                parts = [out.pop(id(q)) for q in p.patterns]
                doc = bracket("(", parts, ")", trailing="," if len(parts) == 1 else "")
            out[id(p)] = doc
        return out[id(pattern)]

    def _ref_create(self, node: RefCreate) -> Rule:
        value = yield from self.operand(node, 0, node.value)
        return (["ref", self._list("(", [value], ")")], P_ATOM, None)

    def _ref_read(self, node: RefRead) -> Rule:
        ref = yield from self.operand(node, 0, node.ref)
        return (["ref_read", self._list("(", [ref], ")")], P_ATOM, None)

    def _ref_write(self, node: RefWrite) -> Rule:
        ref = yield from self.operand(node, 0, node.ref)
        value = yield from self.operand(node, 1, node.value)
        return (["ref_write", self._list("(", [ref, value], ")")], P_ATOM, None)


_RULES: dict[type[Expr], Callable[[Any, Any], Rule]] = {
    Function: Expressions._function,
    Let: Expressions._let,
    Call: Expressions._call,
    Tuple: Expressions._tuple,
    TupleGetItem: Expressions._tuple_get_item,
    If: Expressions._if,
    Match: Expressions._match,
    RefCreate: Expressions._ref_create,
    RefRead: Expressions._ref_read,
    RefWrite: Expressions._ref_write,
}
