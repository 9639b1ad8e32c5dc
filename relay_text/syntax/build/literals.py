"""The builder's literal layer: numbers, booleans, `Constant(...)`,
`meta[...]` references and attribute values.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.expr import (
    INVALID_ATTR,
    Constant,
    Expr,
    MetaRef,
    Var,
)
from ...ir.span import Span
from ...ir.ty import (
    canonical_dtype,
    is_dtype,
)
from ...text.suggest import KEYWORD, near_miss
from ..lexer import Tok
from ..literals import (
    LiteralError,
    check_digits,
    int_range,
    is_float_dtype,
    parse_float,
    parse_int,
    round_float,
)
from .raw import (
    NONE_ATTR,
    Children,
    comma_before,
    is_float_literal,
    unquote,
)
from .types import TypeRules


class LiteralRules(TypeRules):
    __slots__ = ()

    def _literal(self, text: str, span: Span, negate: bool = False) -> Constant:
        try:
            if is_float_literal(text):
                fvalue, dtype = parse_float(text, negate)
                return Constant(fvalue, dtype, (), None, span)
            ivalue, dtype = parse_int(text, negate)
            return Constant(ivalue, dtype, (), None, span)
        except LiteralError as exc:
            const = Constant(
                0.0 if is_float_literal(text) else 0, "float32" if is_float_literal(text) else "int32", (), None, span
            )
            # Kept aside: `-128i8` is fine although `128i8` alone is not.
            code = codes.RESOURCE_LIMIT if exc.limit else codes.INVALID_LITERAL
            self._literal_errors[id(const)] = self.error(code, str(exc), span, "too long" if exc.limit else "")
            return const

    def int_lit(self, c: Children) -> Constant:
        tok = c[0]
        return self._literal(tok.value, self.span(tok.start_pos, tok.end_pos))

    def float_lit(self, c: Children) -> Constant:
        tok = c[0]
        span = self.span(tok.start_pos, tok.end_pos)
        if self.version is not None and not tok.value.endswith(("f", "f16", "f32", "f64")):
            self.warn(
                codes.INVALID_LITERAL,
                f"TVM {self.version} reads `{tok.value}` as a malformed integer",
                span,
                "no `f` suffix",
            ).with_fix(f"write `{tok.value}f` for a float32 literal in a TVM-format file", span, f"{tok.value}f")
        return self._literal(tok.value, span)

    def bool_lit(self, c: Children) -> Constant:
        tok = c[0]
        return Constant(tok.value == "True", "bool", (), None, self.span(tok.start_pos, tok.end_pos))

    def meta_ref(self, c: Children) -> Expr:
        kw, kind_tok, index_tok, close = c
        span = self.span(kw.start_pos, close.end_pos)
        index = self._int_tok(index_tok)
        if kind_tok.value != "relay.Constant":
            # No value: it may end an operator call's arguments (`call`
            # takes it as the call's attributes); anywhere else it is an error.
            text = f"meta[{kind_tok.value}][{index}]"
            diag = self.error(codes.BAD_METADATA, f"`{text}` cannot be used as a value", span, "not a value").with_note(
                "only `meta[relay.Constant][i]` stands for a value; other entries of the metadata section"
                " (attributes) may only end the arguments of an operator call"
            )
            placeholder = Var(text, None, span)
            self._meta_args[id(placeholder)] = (MetaRef(kind_tok.value, index), diag)
            return placeholder
        const = Constant(None, None, None, index, span)
        self.meta_constants.append(const)
        return const

    def constant(self, c: Children) -> Constant:
        kw, value_tok, shape, dtype_tok, close = c
        span = self.span(kw.start_pos, close.end_pos)
        dtype = canonical_dtype(dtype_tok.value) or dtype_tok.value
        if not is_dtype(dtype):
            self.error(
                codes.UNKNOWN_TYPE, f"`{dtype}` is not a dtype", self.span(dtype_tok.start_pos, dtype_tok.end_pos)
            ).with_help("dtypes look like float32, int64, bool or int32x4")
            self.positions.lossy = True
            return Constant(0, "int32", shape, None, span)
        negate, text = value_tok if isinstance(value_tok, tuple) else (False, value_tok)
        value = self._fill_value(text, negate, dtype, span)
        return Constant(value, dtype, shape, None, span)

    def _fill_value(self, tok: Tok, negate: bool, dtype: str, span: Span) -> Any:
        text = tok.value
        if text in ("True", "False"):
            if dtype != "bool":
                self.error(codes.TYPE_MISMATCH, f"`{text}` is not a value of dtype {dtype}", span)
            return text == "True"
        try:
            value = parse_float(text, negate, "float64")[0] if is_float_literal(text) else parse_int(text, negate)[0]
        except LiteralError as exc:
            self.error(codes.RESOURCE_LIMIT if exc.limit else codes.INVALID_LITERAL, str(exc), span)
            return 0
        if dtype == "bool":
            if value not in (0, 1):
                self.error(codes.INVALID_LITERAL, f"`{text}` is not a bool (0 or 1)", span)
            return bool(value)
        if is_float_dtype(dtype):
            try:
                return round_float(float(value), dtype.split("x")[0], text)
            except LiteralError as exc:
                self.error(codes.INVALID_LITERAL, str(exc), span)
                return 0.0
        if isinstance(value, float):
            if not value.is_integer():  # (nan and inf are not)
                self.error(codes.INVALID_LITERAL, f"`{text}` is not an integer, as dtype {dtype} requires", span)
                return 0
            value = int(value)
        bounds = int_range(dtype.split("x")[0])
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            self.error(codes.INVALID_LITERAL, f"`{'-' if negate else ''}{text}` does not fit in {dtype}", span)
        return value

    def neg_number(self, c: Children) -> tuple[Any, ...]:
        return True, c[1]

    def const_shape(self, c: Children) -> tuple[int, ...]:
        return tuple(self._int_tok(t) for t in c if t is not None)

    def attr_number(self, c: Children) -> Any:
        return self._attr_number(c[0], False, c[0].start_pos)

    def attr_neg(self, c: Children) -> Any:
        return self._attr_number(c[1], True, c[0].start_pos)

    def _attr_number(self, tok: Tok, negate: bool, start: int) -> Any:
        value = self._attr_number_value(tok, negate, start)
        if value is not INVALID_ATTR:
            self._numbers.append((("-" if negate else "") + tok.value, value))
        return value

    def _attr_number_value(self, tok: Tok, negate: bool, start: int) -> Any:
        text = tok.value
        if (
            len(text) < 10 and text.isdigit() and text.isascii()
        ):  # (the most common: a plain int32 with nothing to check)
            return -int(text) if negate else int(text)
        try:
            check_digits(tok.value)
        except LiteralError as exc:
            self.error(codes.RESOURCE_LIMIT, str(exc), self.span(tok.start_pos, tok.end_pos), "too long")
            return INVALID_ATTR
        try:
            if is_float_literal(tok.value):
                return parse_float(tok.value, negate, "float64")[0]
            # range-checked: the suffix's range (`channels=-1u8`), int64 without one
            return parse_int(tok.value, negate)[0]
        except LiteralError as exc:  # `s=70000f16`
            self.error(codes.INVALID_LITERAL, str(exc), self.span(start, tok.end_pos))
            return INVALID_ATTR

    def attr_string(self, c: Children) -> str:
        return unquote(c[0].value)

    def attr_bool(self, c: Children) -> bool:
        return bool(c[0].value == "True")

    def attr_name(self, c: Children) -> Any:
        tok = c[0]
        if tok.value == "None" or tok.value == "nullptr":  # TVM reads both as no value
            return NONE_ATTR
        hit = near_miss(tok.value, (KEYWORD,))
        meant = hit[0] if hit is not None else f'"{tok.value}"'
        span = self.span(tok.start_pos, tok.end_pos)
        self.error(codes.SYNTAX_ERROR, f"`{tok.value}` is not an attribute value", span).with_fix(
            f"attribute values are numbers, strings, True, False, None or lists; did you mean `{meant}`?", span, meant
        )
        return INVALID_ATTR

    def attr_list(self, c: Children) -> Any:
        # A None in `c` is the placeholder of an empty list; `None` written
        # in the list arrives as NONE_ATTR.
        items = tuple(None if v is NONE_ATTR else v for v in c[:-1] if v is not None)
        close = c[-1]
        if close.type == "RPAR" and len(items) == 1 and not comma_before(self.source.text, close.start_pos):
            return items[0] if items[0] is not None else NONE_ATTR  # `(x)` is x, as TVM reads it; `(x,)` a list
        return items

    def attr_meta(self, c: Children) -> MetaRef:
        ref = MetaRef(c[1].value, self._int_tok(c[2]))
        self.meta_values.append((ref, self.span(c[0].start_pos, c[-1].end_pos)))
        return ref
