"""The builder's type layer: type syntax read and resolved.

Types arrive as raw syntax (`raw.RawName`, `raw.RawParen`, dimensions):
`as_type`, `as_shape`, `as_dim`, `as_dtype` and `as_type_arg` resolve them
once the consuming rule knows what is meant. Type parameters bind in the
type scope of the definition being read.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.expr import (
    RelationRef,
)
from ...ir.span import Span
from ...ir.ty import (
    AnyDim,
    DimBinOp,
    FuncType,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    TypeCall,
    TypeRelation,
    TypeVar,
    canonical_dtype,
)
from ...text.suggest import DTYPE, near_miss, or_list
from ..lexer import Tok
from .raw import (
    RAW_DIMS,
    Children,
    IntDim,
    RawDimOp,
    RawName,
    RawParen,
)
from .state import BuildState

KINDS = {k.value: k for k in Kind}


class TypeRules(BuildState):
    __slots__ = ()

    def tensor_type(self, c: Children) -> TensorType:
        kw, shape, dtype, close = c
        return TensorType(self.as_shape(shape), self.as_dtype(dtype), self.span(kw.start_pos, close.end_pos))

    def paren_type(self, c: Children) -> RawParen:
        open_, close = c[0], c[-1]
        items = [x for x in c[1:-1] if x is not None and not isinstance(x, Tok)]
        trailing = any(isinstance(x, Tok) and x.type == "COMMA" for x in c[1:-1])
        return RawParen(items, trailing, self.span(open_.start_pos, close.end_pos))

    def fn_type_head(self, c: Children) -> Tok:
        self.types.push()
        tok: Tok = c[0]
        return tok

    def func_type(self, c: Children) -> FuncType:
        kw, tparams = c[0], c[1]
        ret, relations = c[-2], c[-1] or ()
        args = [self.as_type(t) for t in c[2:-4] if t is not None]
        ret_type = self.as_type(ret)
        end = relations[-1].span.end if relations else self._end(ret)
        # `where R` relates the argument types and the result, as a function's does
        constraints = tuple(TypeRelation(r.name, (*args, ret_type), len(args), r.span) for r in relations)
        result = FuncType(tuple(args), ret_type, tuple(tparams or ()), constraints, self.span(kw.start_pos, end))
        self.types.pop()
        return result

    def type_name(self, c: Children) -> Any:
        tok = c[0]
        span = self.span(tok.start_pos, tok.end_pos)
        if c[-1] is None:  # no `[...]`
            return RawName(tok.value, span)
        close = c[-1]
        args = [self.as_type_arg(t) for t in c[1:-1] if t is not None]
        return self._type_call(tok.value, tuple(args), self.span(tok.start_pos, close.end_pos))

    def incomplete_type(self, c: Children) -> IncompleteType:
        tok = c[0]
        return IncompleteType(Kind.TYPE, self.span(tok.start_pos, tok.end_pos))

    def type_args_list(self, c: Children) -> list[Any]:
        return c

    def dim_binop(self, c: Children) -> RawDimOp:
        lhs, tok, rhs = c
        return RawDimOp(tok.value, lhs, rhs, self._span(lhs).to(self._span(rhs)))

    def dim_int(self, c: Children) -> IntDim:
        tok = c[0]
        return IntDim(self._int_tok(tok), self.span(tok.start_pos, tok.end_pos))

    def dim_any(self, c: Children) -> AnyDim:
        tok = c[0]
        return AnyDim(self.span(tok.start_pos, tok.end_pos))

    def _type_call(self, name: str, args: tuple[Any, ...], span: Span) -> Any:
        tvar = self.types.lookup(name)
        if tvar is not None:
            return TypeCall(tvar, self._adt_args(args, None, span), span)
        gtv = self.adts.get(name) or self.env.adts.get(name)
        if gtv is not None:
            return TypeCall(gtv, self._adt_args(args, self.module.type_defs.get(gtv), span), span)
        if canonical_dtype(name) is not None or name == "Tensor":
            self.error(codes.SYNTAX_ERROR, f"`{name}` takes no type arguments in brackets", span).with_help(
                "a tensor type is written `Tensor[(shape), dtype]`"
            )
            return IncompleteType(Kind.TYPE, span)
        self._unknown_type(name, span)
        return IncompleteType(Kind.TYPE, span)

    @staticmethod
    def _adt_args(args: tuple[Any, ...], data: Any, span: Span) -> tuple[Any, ...]:
        """A bare dtype given to an ADT (`List[float32]`) is a scalar tensor
        type, unless the ADT's parameter there has kind BaseType."""
        params = data.type_params if data is not None else ()
        out = []
        for i, arg in enumerate(args):
            if isinstance(arg, str) and not (i < len(params) and params[i].kind == Kind.BASE_TYPE):
                arg = TensorType((), arg, span)
            out.append(arg)
        return tuple(out)

    def _unknown_type(self, name: str, span: Span, what: str = "type") -> None:
        diag = self.error(codes.UNKNOWN_TYPE, f"unknown {what} `{name}`", span)
        written = self.source.text[span.start : span.end]
        if what != "type" or "/" in written or "#" in written:
            self.positions.lossy = True  # its text is not kept (a dimension becomes `?`) or holds a comment
        hit = near_miss(name, (DTYPE,)) if what == "type" else None
        # The name itself (the span of `Name[args]` starts with it).
        named = Span(span.source, span.start, span.start + len(name)) if span.text.startswith(name) else None
        if hit is not None:
            diag.with_fix(f"did you mean `{hit[0]}`? {hit[1]}", named, hit[0])
            return
        candidates = list(self.types.names()) + list(self.adts) + list(self.env.adts)
        suggestions = self.suggest(name, candidates)
        if suggestions:
            diag.with_choices(f"did you mean {or_list([f'`{s}`' for s in suggestions])}?", named, suggestions)
        elif what == "type":
            diag.with_note(
                "a type is a dtype (float32), Tensor[...], a tuple, fn(...) -> T, an ADT or a type parameter"
            )

    def as_type(self, raw: Any) -> Any:
        """The type written as `raw`; nested parentheses (tuple types) are
        resolved with an explicit stack, so any depth works."""
        if not isinstance(raw, RawParen):
            return self._as_simple_type(raw)
        done: list[Any] = []
        work: list[Any] = [(raw, False)]
        while work:
            node, ready = work.pop()
            if ready:
                n = len(node.items)
                fields = done[len(done) - n :]
                del done[len(done) - n :]
                done.append(fields[0] if n == 1 and not node.trailing_comma else TupleType(tuple(fields), node.span))
            elif not isinstance(node, RawParen):
                done.append(self._as_simple_type(node))
            elif any(isinstance(x, RAW_DIMS) for x in node.items):
                self.error(codes.SYNTAX_ERROR, "a shape is not a type", node.span).with_help(
                    "write a tensor type as `Tensor[(shape), dtype]`"
                )
                done.append(IncompleteType(Kind.TYPE, node.span))
            else:
                work.append((node, True))
                work.extend((x, False) for x in reversed(node.items))
        return done[0]

    def _as_simple_type(self, raw: Any) -> Any:
        """A type that is not a parenthesised list."""
        if isinstance(raw, RawName):
            tvar = self.types.lookup(raw.name)
            if tvar is not None:
                return tvar
            dtype = canonical_dtype(raw.name)
            if dtype is not None:
                return TensorType((), dtype, raw.span)
            gtv = self.adts.get(raw.name) or self.env.adts.get(raw.name)
            if gtv is not None:
                return TypeCall(gtv, (), raw.span)
            self._unknown_type(raw.name, raw.span)
            return IncompleteType(Kind.TYPE, raw.span)
        if isinstance(raw, RAW_DIMS):
            self.error(codes.SYNTAX_ERROR, "a dimension is not a type", raw.span)
            return IncompleteType(Kind.TYPE, raw.span)
        return raw

    def as_shape(self, raw: Any) -> Any:
        if isinstance(raw, RawParen):
            return tuple(self.as_dim(x) for x in raw.items)
        if isinstance(raw, RawName):
            tvar = self.types.lookup(raw.name)
            if tvar is not None:
                return tvar
            self._unknown_type(raw.name, raw.span, "shape variable")
            return ()
        if isinstance(raw, IncompleteType):
            return IncompleteType(Kind.SHAPE, raw.span)
        self.error(codes.SYNTAX_ERROR, "expected a shape such as `(10, 10)` or `()`", getattr(raw, "span", None))
        return ()

    def as_dim(self, raw: Any) -> Any:
        if isinstance(raw, IntDim):
            return raw.value
        if isinstance(raw, AnyDim):
            return raw
        if isinstance(raw, RawDimOp):
            return DimBinOp(raw.op, self.as_dim(raw.lhs), self.as_dim(raw.rhs), raw.span)
        if isinstance(raw, RawName):
            tvar = self.types.lookup(raw.name)
            if tvar is not None:
                return tvar
            self._unknown_type(raw.name, raw.span, "dimension variable")
            diag = self.diags[-1]
            diag.with_help(f"declare it as a type parameter: `<{raw.name} : ShapeVar>`")
            return AnyDim(raw.span)
        if isinstance(raw, IncompleteType):
            return IncompleteType(Kind.SHAPE_VAR, raw.span)
        self.error(
            codes.SYNTAX_ERROR, "expected a dimension (an integer, `?` or a shape variable)", getattr(raw, "span", None)
        )
        return AnyDim()

    def as_dtype(self, raw: Any) -> Any:
        if isinstance(raw, RawName):
            tvar = self.types.lookup(raw.name)
            if tvar is not None:
                return tvar
            dtype = canonical_dtype(raw.name)
            if dtype is not None:
                return dtype
            diag = self.error(codes.UNKNOWN_TYPE, f"unknown dtype `{raw.name}`", raw.span)
            diag.with_note(
                "dtypes are bool, int8/16/32/64 (int is int32), uint8/16/32/64, "
                "float16/32/64 (float is float32), bfloat16, optionally with lanes (int32x4)"
            )
            return IncompleteType(
                Kind.BASE_TYPE, raw.span
            )  # a hole: no errors it would cause, and `relay fmt` keeps the name
        if isinstance(raw, IncompleteType):
            return IncompleteType(Kind.BASE_TYPE, raw.span)
        self.error(codes.SYNTAX_ERROR, "expected a dtype such as `float32`", getattr(raw, "span", None))
        return "float32"

    def as_type_arg(self, raw: Any) -> Any:
        """A type argument: a type, a dtype (str), a shape (tuple) or a dimension."""
        if isinstance(raw, RawName):
            dtype = canonical_dtype(raw.name)
            if self.types.lookup(raw.name) is None and dtype is not None:
                return dtype
            return self.as_type(raw)
        if isinstance(raw, RawParen):
            if raw.items and all(isinstance(x, RAW_DIMS) or self._is_dim_var(x) for x in raw.items):
                return tuple(self.as_dim(x) for x in raw.items)
            return self.as_type(raw)
        if isinstance(raw, RAW_DIMS):
            return self.as_dim(raw)
        return self.as_type(raw)

    def _is_dim_var(self, raw: Any) -> bool:
        if not isinstance(raw, RawName):
            return False
        tvar = self.types.lookup(raw.name)
        return tvar is not None and tvar.kind == Kind.SHAPE_VAR

    def type_params(self, c: Children) -> tuple[TypeVar, ...]:
        out = []
        seen: set[str] = set()
        for item in c:
            if isinstance(item, TypeVar):
                if item.name in seen:
                    self.error(codes.DUPLICATE_DEFINITION, f"type parameter `{item.name}` is declared twice", item.span)
                seen.add(item.name)
                self.types.bind(item.name, item)
                out.append(item)
        return tuple(out)

    def type_param(self, c: Children) -> TypeVar:
        name_tok, kind_tok = c
        kind = Kind.TYPE
        if kind_tok is not None:
            kind = KINDS.get(kind_tok.value)  # type: ignore[assignment]
            if kind is None:
                self.error(
                    codes.UNKNOWN_TYPE,
                    f"unknown kind `{kind_tok.value}`",
                    self.span(kind_tok.start_pos, kind_tok.end_pos),
                ).with_note("the kinds are Type, BaseType, Shape and ShapeVar")
                kind = Kind.TYPE
                self.positions.lossy = True
        return TypeVar(name_tok.value, kind, self.span(name_tok.start_pos, (kind_tok or name_tok).end_pos))

    def relation(self, c: Children) -> RelationRef:
        tok = c[0]
        return RelationRef(tok.value, self.span(tok.start_pos, tok.end_pos))

    def where(self, c: Children) -> tuple[RelationRef, ...]:
        return tuple(c[1:])

    def type_where(self, c: Children) -> tuple[RelationRef, ...]:
        return (c[1],)
