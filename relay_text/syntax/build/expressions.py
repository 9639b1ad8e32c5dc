"""The builder's expression layer: operators, calls and their arguments,
projections, tuples, `if` and references.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.expr import (
    Call,
    Constant,
    Expr,
    If,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
)
from ...ir.positions import META_ATTRS
from ...ir.span import Span
from ..lexer import Tok
from ..spelling import attr_text
from ..symbols import BINARY
from .bindings import BindingRules
from .raw import (
    NONE_ATTR,
    POSITIONAL_STRING_ATTRS,
    SIGNED_NUMBER,
    Children,
    Kw,
    StrArg,
    Use,
    unquote,
    unwrap,
)

BINARY_OPS = BINARY  # symbol -> (precedence, operator), shared with the printer


class ExpressionRules(BindingRules):
    __slots__ = ()

    def expr(self, c: Children) -> Expr | Use:
        # Flat `u op u op u ...`: order by precedence (all left-associative).
        operands: list[Any] = [c[0]]
        ops: list[Tok] = []
        for i in range(1, len(c), 2):
            tok, rhs = c[i], c[i + 1]
            prec = BINARY_OPS[tok.value][0]
            while ops and BINARY_OPS[ops[-1].value][0] >= prec:
                self._reduce_binary(operands, ops)
            ops.append(tok)
            operands.append(rhs)
        while ops:
            self._reduce_binary(operands, ops)
        result: Expr | Use = operands[0]
        return result

    def _reduce_binary(self, operands: list[Expr], ops: list[Tok]) -> None:
        tok = ops.pop()
        rhs = operands.pop()
        lhs = operands.pop()
        name = BINARY_OPS[tok.value][1]
        span = self._span(lhs).to(self._span(rhs))
        op = Op(name, self.span(tok.start_pos, tok.end_pos))
        call = Call(op, (unwrap(lhs), unwrap(rhs)), (), (), span, tok.value)
        self._note(call, (lhs, rhs), 1)
        operands.append(call)

    def neg(self, c: Children) -> Expr:
        tok, raw = c
        span = self.span(tok.start_pos, self._end(raw))
        operand = unwrap(raw)
        if isinstance(operand, Constant) and operand.is_scalar and operand.dtype != "bool" and operand.span is not None:
            literal = self.source.text[operand.span.start : operand.span.end]
            m = SIGNED_NUMBER.fullmatch(literal)
            # `-42` is a literal; so is `--42` written as one word (TVM's
            # tokenizer folds a run of `-` into the number: it is 42).
            if m and (not m.group(1) or tok.end_pos == operand.span.start):
                earlier = self._literal_errors.pop(id(operand), None)
                if earlier is not None:
                    self.diags.remove(earlier)
                return self._literal(m.group(2), span, negate=len(m.group(1)) % 2 == 0)
        call = Call(Op("negative", self.span(tok.start_pos, tok.end_pos)), (unwrap(raw),), (), (), span, "-")
        self._note(call, (raw,), 1)
        return call

    def call(self, c: Children) -> Expr:
        callee = c[0]
        type_args: tuple[Any, ...] = ()
        if c[1].type == "LANGLE":
            type_args = tuple(self.as_type_arg(t) for t in c[2])
            args = c[-2]
        else:
            args = c[-2]
        close = c[-1]
        positional: list[Any] = []
        attrs: list[tuple[str, Any]] = []
        seen: dict[str, Span] = {}
        for item in args or ():
            if isinstance(item, StrArg):
                item = self._positional_string(callee, item, len(positional))
            if isinstance(item, Kw):
                if item.key in seen:
                    self.error(
                        codes.DUPLICATE_DEFINITION,
                        f"attribute `{item.key}` is given twice",
                        item.span,
                        "given again here",
                    ).with_label(seen[item.key], "first given here")
                seen[item.key] = item.span
                attrs.append((item.key, item.value))
            else:
                if attrs:
                    self.error(codes.SYNTAX_ERROR, "positional arguments must come before attributes", self._span(item))
                positional.append(item)
        start = self._span(callee).start
        attrs_ref = None
        if positional and id(unwrap(positional[-1])) in self._meta_args:
            # `op(%x, meta[relay.attrs.DenseAttrs][0])`: the attributes, by reference
            attrs_ref, diag = self._meta_args.pop(id(unwrap(positional.pop())))
            self.diags.remove(diag)
            if diag.span is not None:
                seen[META_ATTRS] = diag.span
            if attrs:
                self.error(
                    codes.DUPLICATE_DEFINITION,
                    "the attributes are given twice: by keyword and by a metadata reference",
                    diag.span,
                )
        call = Call(
            unwrap(callee),
            tuple(unwrap(a) for a in positional),
            tuple(attrs),
            type_args,
            self.span(start, close.end_pos),
        )
        if attrs_ref is not None:
            call.attrs_ref = attrs_ref
            self.meta_attr_calls.append(call)
        self._note(call, (callee, *positional))
        keys = self.positions.attr_keys
        for key, span in seen.items():
            keys[(id(call), key)] = (span.start, span.end)
        for item in args or ():
            if isinstance(item, Kw) and item.spellings:
                self.positions.attr_spellings[(id(call), item.key)] = item.spellings
        return call

    def args(self, c: Children) -> list[Any]:
        return c

    def string_arg(self, c: Children) -> StrArg:
        tok = c[0]
        return StrArg(unquote(tok.value), self.span(tok.start_pos, tok.end_pos))

    def _positional_string(self, callee: Any, arg: StrArg, index: int) -> Kw | Var:
        """A string among the arguments: v0.0.4 wrote `cast(%x, "int16")` for
        `cast(%x, dtype="int16")`; anywhere else a string is no value."""
        op = unwrap(callee)
        if type(op) is Op and op.name in POSITIONAL_STRING_ATTRS and index == 1:
            return Kw(POSITIONAL_STRING_ATTRS[op.name], arg.value, arg.span)
        self.error(codes.SYNTAX_ERROR, "a string is not a value", arg.span, "a string").with_help(
            'strings are attribute values, written `key="..."` after the arguments (`cast(%x, dtype="int16")`)'
        )
        return Var(repr(arg.value), None, arg.span)  # a placeholder without type: no further errors

    def kwarg(self, c: Children) -> Kw:
        key, value = c
        numbers, self._numbers = self._numbers, []
        spellings = numbers if any(text != attr_text(v, self.version is not None) for text, v in numbers) else None
        return Kw(key.value, None if value is NONE_ATTR else value, self.span(key.start_pos, key.end_pos), spellings)

    def proj(self, c: Children) -> TupleGetItem:
        value, tok = c
        index = self._int_checked(tok.value[1:], self.span(tok.start_pos, tok.end_pos))
        node = TupleGetItem(unwrap(value), index, self.span(self._span(value).start, tok.end_pos))
        self._note(node, (value,))
        return node

    def unit(self, c: Children) -> Tuple:
        self.values.pop()
        return Tuple((), self.span(c[0].start_pos, c[-1].end_pos))

    def paren(self, c: Children) -> Use:
        self.values.pop()
        raw = c[1]
        if type(raw) is Use:
            pair = (raw.start, raw.end) if raw.bracketed else None
            return Use(raw.node, c[0].start_pos, c[2].end_pos, None, raw.name, True, pair, raw.start)
        return Use(raw, c[0].start_pos, c[2].end_pos, None, None, True, None, self._span(raw).start)

    def if_expr(self, c: Children) -> If:
        kw, cond, then, other = c
        node = If(unwrap(cond), unwrap(then), unwrap(other), self.span(kw.start_pos, self._end(other)))
        self._note(node, (cond, then, other))
        return node

    def ref_create(self, c: Children) -> RefCreate:
        node = RefCreate(unwrap(c[1]), self.span(c[0].start_pos, c[-1].end_pos))
        self._note(node, (c[1],))
        return node

    def ref_read(self, c: Children) -> RefRead:
        node = RefRead(unwrap(c[1]), self.span(c[0].start_pos, c[-1].end_pos))
        self._note(node, (c[1],))
        return node

    def ref_write(self, c: Children) -> RefWrite:
        node = RefWrite(unwrap(c[1]), unwrap(c[2]), self.span(c[0].start_pos, c[-1].end_pos))
        self._note(node, (c[1], c[2]))
        return node

    def tuple(self, c: Children) -> Tuple:
        self.values.pop()
        raws = [x for x in c[1:-1] if x is not None]
        node = Tuple(tuple(unwrap(x) for x in raws), self.span(c[0].start_pos, c[-1].end_pos))
        self._note(node, raws)
        return node
