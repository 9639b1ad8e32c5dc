"""Building the IR while Lark parses: one callback per grammar rule.

Lark's LALR parser calls these as it reduces, bottom-up and without
recursion, so a deep program costs no Python stack. Scopes are maintained
during the parse through small "head" rules that reduce before the body
they introduce (`def_head`, `fn_head`, `lbrace`, `let_head`, `case_head`,
...): a head pushes a frame and binds its names, the closing rule pops it.

Graph bindings (`%1 = e`) bind the name to the node `e` itself, so every use
shares it and the result is a DAG. Types are kept as raw syntax (`_Name`,
`_Paren`) until the rule that consumes them knows whether a type, a shape, a
dtype or a type argument is meant.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Iterable

from ..diagnostics import WARNING, Diagnostic, codes
from ..ir.adt import TypeData
from ..ir.expr import (
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    INVALID_ATTR,
    If,
    Let,
    Match,
    MetaRef,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    RelationRef,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ir.module import Metadata, Module
from ..ir.pattern import (
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    pattern_vars,
)
from ..ir.positions import META_ATTRS, Positions
from ..ir.schema import edges
from ..ir.span import Source, Span
from ..ir.ty import (
    AnyDim,
    DimBinOp,
    FuncType,
    GlobalTypeVar,
    IncompleteType,
    Kind,
    TensorType,
    TupleType,
    TypeCall,
    TypeRelation,
    TypeVar,
    canonical_dtype,
    is_dtype,
)
from ..text.suggest import DTYPE, KEYWORD, close_names, near_miss, or_list
from ..limits import MAX_LITERAL_DIGITS
from .lexer import Tok, skip_trivia
from .literals import (
    LiteralError,
    check_digits,
    int_range,
    is_float_dtype,
    is_int_text,
    parse_float,
    parse_int,
    round_float,
)
from .scopes import Scopes
from .spelling import attr_text
from .symbols import BINARY

BINARY_OPS = BINARY  # symbol -> (precedence, operator), shared with the printer

KINDS = {k.value: k for k in Kind}
SUPPORTED_VERSIONS = ("0.0.5", "0.0.4")
_DIGITS = re.compile(r"[0-9]+")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z.+-]*|(?:inf|nan)f[0-9]*")
_SIGNED_NUMBER = re.compile(r"(-*)(" + _NUMBER.pattern + ")")


# How many name errors of a file get a "did you mean" (see `Builder.suggest`).
SUGGESTED_SITES = 100


class Env:
    """Names defined outside the file being parsed (the Prelude)."""

    def __init__(
        self,
        globals: set[str] | None = None,
        constructors: dict[str, Constructor] | None = None,
        adts: dict[str, GlobalTypeVar] | None = None,
        type_defs: dict[str, TypeData] | None = None,
    ) -> None:
        self.globals = globals or set()
        self.constructors = constructors or {}
        self.adts = adts or {}
        # The definitions behind `adts`, by name: a file's identical
        # definition denotes the same type (see `parser.parse_source`).
        self.type_defs = type_defs or {}


# ---------------------------------------------------------------- raw type syntax


class _Name:
    """A bare name in type position: a dtype, type parameter or ADT."""

    __slots__ = ("name", "span")

    def __init__(self, name: str, span: Span) -> None:
        self.name = name
        self.span = span


class _Paren:
    """`( ... )` in type position: unit, tuple type, parenthesised type or shape."""

    __slots__ = ("items", "span", "trailing_comma")

    def __init__(self, items: list, trailing_comma: bool, span: Span) -> None:
        self.items = items
        self.trailing_comma = trailing_comma
        self.span = span


class _RawDimOp:
    __slots__ = ("lhs", "op", "rhs", "span")

    def __init__(self, op: str, lhs: Any, rhs: Any, span: Span) -> None:
        self.op, self.lhs, self.rhs, self.span = op, lhs, rhs, span


class _IntDim:
    __slots__ = ("span", "value")

    def __init__(self, value: int, span: Span) -> None:
        self.value, self.span = value, span


_RAW_DIMS = (_IntDim, _RawDimOp, AnyDim)


class _Use:
    """A use of a shared node (a variable, global or constructor) and where it is written.

    Variables are shared by all their uses, so their own span is the binding
    site; the builder passes uses around in this wrapper until a node is
    built from them, and `_u` unwraps.
    """

    __slots__ = ("bracketed", "content", "end", "inner", "name", "node", "pair", "start")

    def __init__(
        self,
        node: Expr,
        start: int,
        end: int,
        inner: tuple[int, int] | None = None,
        name: tuple[int, int] | None = None,
        bracketed: bool = False,
        pair: tuple[int, int] | None = None,
        content: int = -1,
    ) -> None:
        self.node, self.start, self.end = node, start, end
        self.inner = inner  # for a `{ ... }` block: where its result expression is written
        self.name = name  # the name token of a shared node, inside any brackets
        self.bracketed = bracketed  # written as `( ... )` or `{ ... }`
        self.pair = pair  # `( { ... } )`, `((...))`: the inner pair of brackets
        self.content = content  # in brackets: where the first token inside them is


def _u(x: Any) -> Any:
    return x.node if type(x) is _Use else x


_NONE_ATTR = object()  # `None` written as an attribute value, until it is stored


class _Str:
    """A string written as a positional call argument."""

    __slots__ = ("span", "value")

    def __init__(self, value: str, span: Span) -> None:
        self.value = value
        self.span = span


# Operators whose second positional argument v0.0.4 read as a string attribute
# (its parser called TVM's Python constructors, `relay.cast(data, dtype)`).
_POSITIONAL_STRING_ATTRS = {"cast": "dtype"}


class _Kw:
    """A keyword argument `key=value` in a call or parameter list."""

    __slots__ = ("key", "span", "spellings", "value")

    def __init__(self, key: str, value: Any, span: Span, spellings: list | None = None) -> None:
        self.key, self.value, self.span = key, value, span
        self.spellings = spellings  # the numbers of the value as written, if one differs from its printed form


# ---------------------------------------------------------------- the builder


class Builder:
    """The parser's callbacks; one instance per parser, `begin` resets it per file."""

    # ---- per-file state ----------------------------------------------------

    def begin(
        self,
        source: Source,
        env: Env,
        constructors: dict[str, Constructor],
        adts: dict[str, GlobalTypeVar],
        version: str | None,
        same_adts: frozenset[str] = frozenset(),
    ) -> None:
        self.source = source
        self.env = env
        # Data types the file defines exactly as `env` does: uses of their
        # names (and constructors) denote `env`'s; the definition keeps its own.
        self.same_adts = same_adts
        self.diags: list[Diagnostic] = []
        self.values: Scopes[Expr] = Scopes()
        self.types: Scopes[TypeVar] = Scopes()
        self.pending_lets: list[tuple[Var, int]] = []  # (var, end of its `=`)
        # `let %f = fn ...`: the uses of %f inside its own value, by id(var),
        # and where the `fn` starts (the value must be that function).
        self.self_uses: dict[int, tuple[int, list[Span]]] = {}
        self.fn_binds_let: list[bool] = []
        self.graph_uses: dict[int, int] = {}  # id(node) -> number of uses by name
        self.graph_defs: dict[str, Span] = {}
        # Every `%n` of the file, first binding first: a graph binding is not
        # scoped (one table per file, in both dialects, as TVM's parser keeps)
        self.graph_nodes: dict[str, Expr] = {}
        self._placeholders: set[int] = set()  # ids of the variables made for unbound names
        self.unbound: list[tuple[str, Span, list[str]]] = []
        self.globals: dict[str, GlobalVar] = {}
        self.global_refs: list[tuple[str, Span]] = []
        self.constructors = constructors
        self.adts = adts
        self.version = version
        self.module = Module(source=source, version=version)
        self.free_vars: list[Var] = []
        self._free_var_ids: set[int] = set()
        self._in_def: GlobalVar | None = None  # the `def` being read
        self.defined_ctor_names: set[str] = set()
        self._literal_errors: dict[int, Diagnostic] = {}
        self._meta_args: dict[int, tuple[MetaRef, Diagnostic]] = {}
        self.meta_attr_calls: list[Any] = []
        self.meta_constants: list[Constant] = []  # `meta[relay.Constant][i]`, for their `/* ty=... */` comments
        self.meta_values: list[tuple[MetaRef, Span]] = []  # `key=meta[...][i]` attribute values
        self.defining_adt: GlobalTypeVar = GlobalTypeVar("")
        self.same_headers: dict[GlobalTypeVar, GlobalTypeVar] = {}  # own header -> env's, for `same_adts`
        self.positions = Positions(source)
        self._suggested = 0
        self._numbers: list[tuple[str, Any]] = []  # the numbers of the attribute value being read

    def suggest(self, name: str, candidates: Iterable[str]) -> list[str]:
        """The names close to `name`, for an error's "did you mean". Each
        look goes through all the candidates (every name in scope): only the
        first SUGGESTED_SITES errors of a file get one, so that a file with
        thousands of them is still read in linear time."""
        if self._suggested >= SUGGESTED_SITES:
            return []
        self._suggested += 1
        return close_names(name, candidates)

    def end(self) -> None:
        """Drop per-file state, so the builder keeps nothing of the file alive."""
        self.values = self.types = None  # type: ignore[assignment]
        self.module = None  # type: ignore[assignment]
        self.positions = Positions()
        self.graph_uses, self.graph_nodes = {}, {}
        self.diags, self.unbound, self.global_refs = [], [], []

    def span(self, start: int, end: int) -> Span:
        return Span(self.source, start, end)

    def _note(self, parent: Any, raws: Any, first: int = 0) -> None:
        """Remember where the shared children of `parent` are written.

        `raws` are the children as parsed, in `visitor.children` order from
        index `first`; uses (`_Use`) of shared nodes and blocks are recorded
        in `positions`, other children carry their own span.
        """
        positions = self.positions
        uses = positions.uses
        for i, raw in enumerate(raws, first):
            if type(raw) is _Use:
                key = (id(parent), i)
                uses[key] = (raw.start, raw.end)
                if raw.inner is not None:
                    positions.results[key] = raw.inner
                if raw.name is not None:
                    positions.names[key] = raw.name
                if raw.pair is not None:
                    positions.brackets[key] = raw.pair

    def _binder(self, var: Any, start: int, name_end: int, ty: Any) -> None:
        """Remember where a declaration is written with its annotation."""
        end = self._span(ty).end if ty is not None else name_end
        self.positions.binders[id(var)] = (start, max(end, name_end))

    def error(self, code: str, message: str, span: Span | None, label: str = "") -> Diagnostic:
        diag = Diagnostic(code, message, span, label=label)
        self.diags.append(diag)
        return diag

    def _int_tok(self, tok: Any) -> int:
        """The value of an integer token (a dimension, an index); 0 after a
        `resource-limit` error when it has too many digits."""
        return self._int_checked(tok.value, self.span(tok.start_pos, tok.end_pos))

    def _int_checked(self, text: str, span: Span) -> int:
        try:
            check_digits(text)
        except LiteralError as exc:
            self.error(codes.RESOURCE_LIMIT, str(exc), span, "too long")
            return 0
        return _int_value(text)

    def warn(self, code: str, message: str, span: Span | None, label: str = "") -> Diagnostic:
        diag = Diagnostic(code, message, span, severity=WARNING, label=label)
        self.diags.append(diag)
        return diag

    def global_var(self, name: str) -> GlobalVar:
        gv = self.globals.get(name)
        if gv is None:
            gv = self.globals[name] = GlobalVar(name)
        return gv

    # ---- module ------------------------------------------------------------

    def start(self, c: list) -> Module:
        module = self.module
        metadata = c[-1]
        if metadata is not None:
            from .metadata import decode_metadata

            module.metadata = Metadata(metadata.value, self.span(metadata.start_pos, metadata.end_pos), decode_metadata)
        if (self.meta_attr_calls or self.meta_values) and module.metadata is not None:
            self._decode_meta_attrs(module.metadata)
        body = c[-2]
        if body is not None:
            module.expr = _u(body)
        module.free_vars = tuple(self.free_vars)
        module.positions = self.positions
        return module

    def _decode_meta_attrs(self, metadata: Metadata) -> None:
        """Fill the attributes of calls that refer to them in the metadata section."""
        from .metadata import read_metadata

        table, _problems = read_metadata(metadata)  # problems are the checker's to report
        if table is None:
            return
        for call in self.meta_attr_calls:
            ref = call.attrs_ref
            decoded = table.attrs(ref.kind, ref.index)
            if decoded is None:
                count = table.kinds.get(ref.kind, 0)
                where = self.positions.attr_key(call, META_ATTRS) or call.span
                self.error(
                    codes.BAD_METADATA,
                    f"`meta[{ref.kind}][{ref.index}]` is not in the metadata section",
                    where,
                    "no such entry",
                ).with_note(f"the section has {count} entr{'y' if count == 1 else 'ies'} of kind `{ref.kind}`")
                continue
            call.attrs = decoded
        for ref, span in self.meta_values:  # `virtual_device=meta[VirtualDevice][0]`, ...
            count = table.kinds.get(ref.kind, 0)
            if not 0 <= ref.index < count:
                self.error(
                    codes.BAD_METADATA,
                    f"`meta[{ref.kind}][{ref.index}]` is not in the metadata section",
                    span,
                    "no such entry",
                ).with_note(f"the section has {count} entr{'y' if count == 1 else 'ies'} of kind `{ref.kind}`")

    # ---- definitions -------------------------------------------------------

    def def_head(self, c: list) -> tuple:
        kw, name_tok = c
        name = name_tok.value[1:]
        gv = self.global_var(name)
        # `functions` is keyed by the (identity-hashed) GlobalVar, one per
        # name: a dictionary look-up, not a scan of every earlier definition.
        if gv in self.module.functions:
            prev = gv.span
            diag = self.error(
                codes.DUPLICATE_DEFINITION,
                f"`@{name}` is defined more than once",
                self.span(name_tok.start_pos, name_tok.end_pos),
                "defined again here",
            )
            if prev is not None:
                diag.with_label(prev, "first defined here")
        gv.span = gv.span or self.span(name_tok.start_pos, name_tok.end_pos)
        self._in_def = gv
        self.values.push()
        self.types.push()
        return gv, kw

    def fn_sig(self, c: list) -> tuple:
        type_params, params, close, ret_type, where = c
        if params is None:
            params = ([], [])
        ret = self.as_type(ret_type) if ret_type is not None else None
        return type_params or (), params, ret, where or (), close.end_pos

    def params(self, c: list) -> tuple[list[Var], list[_Kw]]:
        vars_, attrs = [], []
        seen: dict[str, Var] = {}
        for item in c:
            if isinstance(item, _Kw):
                attrs.append(item)
            elif isinstance(item, Var):
                if attrs:
                    self.error(codes.SYNTAX_ERROR, "parameters must come before attributes", item.span)
                if item.name in seen:
                    self.error(
                        codes.DUPLICATE_DEFINITION,
                        f"parameter `%{item.name}` is declared twice",
                        item.span,
                        "declared again here",
                    ).with_label(seen[item.name].span, "first declared here")
                seen[item.name] = item
                vars_.append(item)
        return vars_, attrs

    def param(self, c: list) -> Var:
        tok, attrs, ty = c
        var = Var(tok.value[1:], self.as_type(ty) if ty is not None else None, self.span(tok.start_pos, tok.end_pos))
        self._binder(var, tok.start_pos, tok.end_pos, None if attrs else ty)
        if attrs:
            var.attrs = attrs
        self.values.bind(var.name, var)
        return var

    def fn_attr(self, c: list) -> _Kw:
        key, value = c
        self._numbers = []
        return _Kw(key.value, None if value is _NONE_ATTR else value, self.span(key.start_pos, key.end_pos))

    param_attr = fn_attr

    def param_attrs(self, c: list) -> tuple:
        pairs: list[tuple[str, Any]] = []
        keys: set[str] = set()
        for kw in c[1:-1]:
            if isinstance(kw, _Kw):
                if kw.key in keys:
                    self.error(
                        codes.DUPLICATE_DEFINITION, f"attribute `{kw.key}` is given twice", kw.span, "given again here"
                    )
                    continue
                keys.add(kw.key)
                pairs.append((kw.key, kw.value))
        return tuple(pairs)

    def arrow(self, c: list) -> Tok:
        return c[0]

    def ret_type(self, c: list) -> Any:
        return c[1]

    def where(self, c: list) -> tuple[RelationRef, ...]:
        return tuple(c[1:])

    def type_where(self, c: list) -> tuple[RelationRef, ...]:
        return (c[1],)

    def relation(self, c: list) -> RelationRef:
        tok = c[0]
        return RelationRef(tok.value, self.span(tok.start_pos, tok.end_pos))

    def type_params(self, c: list) -> tuple[TypeVar, ...]:
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

    def type_param(self, c: list) -> TypeVar:
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

    def _function(self, c: list, start: int) -> Function:
        sig, body_tok = c[1], c[2]
        type_params, (params, attrs), ret, where, head_end = sig
        body = _u(body_tok)
        self.values.pop()
        self.types.pop()
        func = Function(
            tuple(params),
            body,
            ret,
            tuple(type_params),
            tuple(where),
            tuple((kw.key, kw.value) for kw in attrs),
            self.span(start, self._end(body_tok)),
        )
        self._note(func, (body_tok,), len(params))
        self.positions.heads[id(func)] = (start, head_end)
        if attrs:
            starts = [kw.span.start for kw in attrs] + [head_end - 1]
            self.positions.fn_attrs[id(func)] = [(kw.key, starts[i], starts[i + 1]) for i, kw in enumerate(attrs)]
        return func

    def def_fn(self, c: list) -> None:
        gv, kw = c[0]
        self._in_def = None
        func = self._function(c, kw.start_pos)
        if gv not in self.module.functions:
            self.module.functions[gv] = func
            self.module.order.append(gv)

    def fn_head(self, c: list) -> Tok:
        tok = c[0]
        self.values.push()
        self.types.push()
        # `let %f = fn ...`: the function may call itself through %f.
        if self.pending_lets:
            var, eq_end = self.pending_lets[-1]
            if skip_trivia(self.source.text, eq_end) == tok.start_pos:
                self.values.bind(var.name, var)
                self.self_uses.setdefault(id(var), (tok.start_pos, []))
        return tok

    def fn_expr(self, c: list) -> Function:
        return self._function(c, c[0].start_pos)

    # ---- ADT definitions ---------------------------------------------------

    def _adt_header(self, name_tok: Tok) -> GlobalTypeVar:
        name = name_tok.value
        if name in self.same_adts:
            gtv = GlobalTypeVar(name, span=self.span(name_tok.start_pos, name_tok.end_pos))
            self.same_headers[gtv] = self.env.adts[name]
            return gtv
        gtv = self.adts.get(name)
        if gtv is None or gtv in self.module.type_defs or gtv in self.env.adts.values():
            if gtv is not None and gtv in self.module.type_defs:
                self.error(
                    codes.DUPLICATE_DEFINITION,
                    f"type `{name}` is defined more than once",
                    self.span(name_tok.start_pos, name_tok.end_pos),
                )
            gtv = GlobalTypeVar(name)
            self.adts[name] = gtv
        gtv.span = self.span(name_tok.start_pos, name_tok.end_pos)
        return gtv

    def data_name(self, c: list) -> tuple:
        kw, name_tok = c
        self.types.push()
        self.defining_adt = self._adt_header(name_tok)
        return self.defining_adt, kw

    type_name_head = data_name

    def data_head(self, c: list) -> tuple:
        (gtv, kw), tparams = c
        return gtv, kw, tparams or ()

    type_head = data_head

    def extern_head(self, c: list) -> tuple:
        kw, name_tok = c
        self.types.push()
        return self._adt_header(name_tok), kw

    def extern_type(self, c: list) -> None:
        (gtv, kw), tparams = c
        self.types.pop()
        end = tparams[-1].span.end + 1 if tparams else gtv.span.end  # type: ignore[union-attr]
        self.module.type_defs[gtv] = TypeData(
            gtv, tparams or (), (), True, self.span(kw.start_pos, end), self.same_headers.get(gtv)
        )
        self.module.order.append(gtv)

    def _constructor(self, name_tok: Tok, inputs: tuple, gtv: GlobalTypeVar, tag: int) -> Constructor:
        name = name_tok.value
        span = self.span(name_tok.start_pos, name_tok.end_pos)
        ctor = self.constructors.get(name)
        if gtv in self.same_headers:
            ctor = Constructor(name)  # the definition's own; uses denote env's
        elif ctor is None or ctor in self.env.constructors.values():
            ctor = Constructor(name)
            self.constructors[name] = ctor
        if name in self.defined_ctor_names:
            self.error(codes.DUPLICATE_DEFINITION, f"constructor `{name}` is defined more than once", span)
            ctor = Constructor(name)
        self.defined_ctor_names.add(name)
        ctor.inputs = inputs
        ctor.belong_to = gtv
        ctor.tag = tag
        ctor.span = span
        return ctor

    def _finish_adt(self, c: list, ctor_items: list) -> None:
        gtv, kw, tparams = c[0]
        close = c[-1]
        ctors = tuple(self._constructor(tok, inputs, gtv, i) for i, (tok, inputs) in enumerate(ctor_items))
        self.types.pop()
        self.module.type_defs[gtv] = TypeData(
            gtv, tuple(tparams), ctors, False, self.span(kw.start_pos, close.end_pos), self.same_headers.get(gtv)
        )
        self.module.order.append(gtv)

    def ctor_sig(self, c: list) -> tuple:
        name_tok = c[0]
        ret = c[-1]
        inputs = tuple(self.as_type(t) for t in c[1:-2] if t is not None)
        # The result names the ADT being defined: `-> List` (or `-> List[a]`).
        adt = self.defining_adt
        ret_name = ret.name if isinstance(ret, _Name) else getattr(getattr(ret, "func", None), "name", None)
        if ret_name != adt.name:
            self.error(
                codes.TYPE_MISMATCH,
                f"constructor `{name_tok.value}` must return `{adt.name}`",
                self._span(ret),
                f"expected `{adt.name}`",
            )
        return name_tok, inputs

    def data_def(self, c: list) -> None:
        self._finish_adt(c, [x for x in c[1:-1] if isinstance(x, tuple)])

    def ctor_decl(self, c: list) -> tuple:
        name_tok = c[0]
        inputs = tuple(self.as_type(t) for t in c[1:] if t is not None and not isinstance(t, Tok))
        return name_tok, inputs

    def type_def(self, c: list) -> None:
        items = [x for x in c[1:-1] if isinstance(x, tuple)]
        self._finish_adt(c, items)

    def free_var(self, c: list) -> None:
        tok, ty = c[1], c[2]
        var = Var(tok.value[1:], self.as_type(ty) if ty is not None else None, self.span(tok.start_pos, tok.end_pos))
        self._binder(var, c[0].start_pos, tok.end_pos, ty)
        # As in TVM, a free variable is visible in the rest of the file,
        # under any binding of the same name that is in scope.
        self.values.bind_outermost(var.name, var)
        self.free_vars.append(var)
        self._free_var_ids.add(id(var))

    def free_var_expr(self, c: list) -> Expr:
        return c[-1]

    # ---- blocks ------------------------------------------------------------

    def let_start(self, c: list) -> tuple:
        kw, name_tok, ty, eq = c
        var = Var(
            name_tok.value[1:],
            self.as_type(ty) if ty is not None else None,
            self.span(name_tok.start_pos, name_tok.end_pos),
        )
        self._binder(var, name_tok.start_pos, name_tok.end_pos, ty)
        self.pending_lets.append((var, eq.end_pos))
        return var, kw

    def let_head(self, c: list) -> tuple:
        (var, kw), value = c
        self.pending_lets.pop()
        self._check_self_uses(var, _u(value))
        self.values.push()
        self.values.bind(var.name, var)
        return var, value, kw

    def _check_self_uses(self, var: Var, value: Expr) -> None:
        """`let %f = fn (...) { %f(...) }(1)`: the value is not the function
        but a call of it, so %f has no value yet where the function uses it."""
        entry = self.self_uses.pop(id(var), None)
        if entry is None:
            return
        start, uses = entry
        if type(value) is Function and value.span is not None and value.span.start == start:
            return
        for span in uses:
            self.error(
                codes.UNBOUND_VARIABLE,
                f"`%{var.name}` is used in its own value, before it is bound",
                span,
                "not bound yet",
            ).with_note(
                f"only a `let` whose value is a function (`let %{var.name} = fn ...`) may refer to itself; "
                f"this value is computed from the function, so `%{var.name}` has no value while it runs"
            )

    def let_expr(self, c: list) -> Let:
        (var, value, kw), body = c
        self.values.pop()
        let = Let(var, _u(value), _u(body), self.span(kw.start_pos, self._end(body)))
        self._note(let, (value, body), 1)
        return let

    def graph_head(self, c: list) -> tuple:
        tok, raw = c
        value = _u(raw)
        name = tok.value[1:]
        self.values.bind(name, value)
        self.positions.graph_names.setdefault(id(value), name)
        self.graph_uses[id(value)] = 0
        self.graph_defs[name] = self.span(tok.start_pos, tok.end_pos)
        if type(raw) is _Use:
            self.positions.graph_heads.setdefault(raw.start, tok.start_pos)
            if raw.bracketed:
                self.positions.graph_inner.setdefault(raw.content, tok.start_pos)
        elif raw.span is not None:
            self.positions.graph_heads.setdefault(raw.span.start, tok.start_pos)
        self.graph_nodes.setdefault(name, value)
        return tok, raw

    def graph_expr(self, c: list) -> Expr:
        (tok, raw), body = c
        value = _u(raw)
        if self.graph_uses.pop(id(value), 1) == 0:
            # An unused binding would vanish from the graph: keep it as `e;`.
            self.warn(
                codes.UNUSED_BINDING,
                f"graph binding `{tok.value}` is never used",
                self.span(tok.start_pos, tok.end_pos),
                "bound here",
            ).with_note("it is evaluated for its effects only, as `e;` would be")
            let = Let(
                Var("", None, self.span(tok.start_pos, tok.end_pos)),
                value,
                _u(body),
                self.span(tok.start_pos, self._end(body)),
            )
            self._note(let, (raw, body), 1)
            return let
        return body

    def seq_expr(self, c: list) -> Let:
        first, body = c
        span = self._span(first)
        let = Let(Var("", None, span), _u(first), _u(body), span.to(self._span(body)))
        self._note(let, (first, body), 1)
        return let

    def block(self, c: list) -> _Use:
        self.values.pop()
        raw = c[1]
        if type(raw) is _Use:
            inner = raw.inner or (raw.start, raw.end)
        else:
            span = self._span(raw)
            inner = (span.start, span.end)
        name = raw.name if type(raw) is _Use else None
        return _Use(_u(raw), c[0].start_pos, c[2].end_pos, inner, name, True, None, self._span(raw).start)

    def lbrace(self, c: list) -> Tok:
        self.values.push()
        return c[0]

    def lparen(self, c: list) -> Tok:
        self.values.push()
        return c[0]

    # ---- expressions -------------------------------------------------------

    def expr(self, c: list) -> Expr:
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
        return operands[0]

    def _span(self, x: Any) -> Span:
        """Where an expression (or a use of a shared node) is written."""
        if type(x) is _Use:
            return self.span(x.start, x.end)
        span = getattr(x, "span", None)
        return span if span is not None else self.span(0, 0)

    def _end(self, x: Any) -> int:
        return self._span(x).end

    def _reduce_binary(self, operands: list[Expr], ops: list[Tok]) -> None:
        tok = ops.pop()
        rhs = operands.pop()
        lhs = operands.pop()
        name = BINARY_OPS[tok.value][1]
        span = self._span(lhs).to(self._span(rhs))
        op = Op(name, self.span(tok.start_pos, tok.end_pos))
        call = Call(op, (_u(lhs), _u(rhs)), (), (), span, tok.value)
        self._note(call, (lhs, rhs), 1)
        operands.append(call)

    def neg(self, c: list) -> Expr:
        tok, raw = c
        span = self.span(tok.start_pos, self._end(raw))
        operand = _u(raw)
        if isinstance(operand, Constant) and operand.is_scalar and operand.dtype != "bool" and operand.span is not None:
            literal = self.source.text[operand.span.start : operand.span.end]
            m = _SIGNED_NUMBER.fullmatch(literal)
            # `-42` is a literal; so is `--42` written as one word (TVM's
            # tokenizer folds a run of `-` into the number: it is 42).
            if m and (not m.group(1) or tok.end_pos == operand.span.start):
                earlier = self._literal_errors.pop(id(operand), None)
                if earlier is not None:
                    self.diags.remove(earlier)
                return self._literal(m.group(2), span, negate=len(m.group(1)) % 2 == 0)
        call = Call(Op("negative", self.span(tok.start_pos, tok.end_pos)), (_u(raw),), (), (), span, "-")
        self._note(call, (raw,), 1)
        return call

    def call(self, c: list) -> Expr:
        callee = c[0]
        type_args: tuple = ()
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
            if isinstance(item, _Str):
                item = self._positional_string(callee, item, len(positional))
            if isinstance(item, _Kw):
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
        if positional and id(_u(positional[-1])) in self._meta_args:
            # `op(%x, meta[relay.attrs.DenseAttrs][0])`: the attributes, by reference
            attrs_ref, diag = self._meta_args.pop(id(_u(positional.pop())))
            self.diags.remove(diag)
            seen[META_ATTRS] = diag.span
            if attrs:
                self.error(
                    codes.DUPLICATE_DEFINITION,
                    "the attributes are given twice: by keyword and by a metadata reference",
                    diag.span,
                )
        call = Call(
            _u(callee), tuple(_u(a) for a in positional), tuple(attrs), type_args, self.span(start, close.end_pos)
        )
        if attrs_ref is not None:
            call.attrs_ref = attrs_ref
            self.meta_attr_calls.append(call)
        self._note(call, (callee, *positional))
        keys = self.positions.attr_keys
        for key, span in seen.items():
            keys[(id(call), key)] = (span.start, span.end)
        for item in args or ():
            if isinstance(item, _Kw) and item.spellings:
                self.positions.attr_spellings[(id(call), item.key)] = item.spellings
        return call

    def args(self, c: list) -> list:
        return c

    def string_arg(self, c: list) -> _Str:
        tok = c[0]
        return _Str(_unquote(tok.value), self.span(tok.start_pos, tok.end_pos))

    def _positional_string(self, callee: Any, arg: _Str, index: int) -> _Kw | Var:
        """A string among the arguments: v0.0.4 wrote `cast(%x, "int16")` for
        `cast(%x, dtype="int16")`; anywhere else a string is no value."""
        op = _u(callee)
        if type(op) is Op and op.name in _POSITIONAL_STRING_ATTRS and index == 1:
            return _Kw(_POSITIONAL_STRING_ATTRS[op.name], arg.value, arg.span)
        self.error(codes.SYNTAX_ERROR, "a string is not a value", arg.span, "a string").with_help(
            'strings are attribute values, written `key="..."` after the arguments (`cast(%x, dtype="int16")`)'
        )
        return Var(repr(arg.value), None, arg.span)  # a placeholder without type: no further errors

    def kwarg(self, c: list) -> _Kw:
        key, value = c
        numbers, self._numbers = self._numbers, []
        spellings = numbers if any(text != attr_text(v, self.version is not None) for text, v in numbers) else None
        return _Kw(key.value, None if value is _NONE_ATTR else value, self.span(key.start_pos, key.end_pos), spellings)

    def proj(self, c: list) -> TupleGetItem:
        value, tok = c
        index = self._int_checked(tok.value[1:], self.span(tok.start_pos, tok.end_pos))
        node = TupleGetItem(_u(value), index, self.span(self._span(value).start, tok.end_pos))
        self._note(node, (value,))
        return node

    def local(self, c: list) -> Expr:
        tok = c[0]
        full = tok.value[1:]
        value = self.values.lookup(full)
        if value is None:
            # A graph binding is not scoped: a `%n` bound anywhere earlier in
            # the file (inside an `if` branch, another block, another
            # definition) is that node, provided the variables its value
            # refers to are in scope here.
            value = self.graph_nodes.get(full)
            if value is not None:
                self._check_graph_scope(value, full, tok)
        if value is not None:
            if self._in_def is not None and id(value) in self._free_var_ids:
                self._free_var_in_def(value, tok)
            self._count_graph_use(value)
            if self.self_uses and id(value) in self.self_uses:
                self.self_uses[id(value)][1].append(self.span(tok.start_pos, tok.end_pos))
            return _Use(value, tok.start_pos, tok.end_pos, None, (tok.start_pos, tok.end_pos))
        # `%t.0.1`: the longest bound prefix, then projections.
        parts = full.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            if not all(_DIGITS.fullmatch(p) for p in parts[cut:]):
                break
            value = self.values.lookup(".".join(parts[:cut]))
            if value is not None:
                self._count_graph_use(value)
                pos = tok.start_pos + 1 + len(".".join(parts[:cut]))
                for index in parts[cut:]:
                    pos += 1 + len(index)
                    number = self._int_checked(index, self.span(pos - len(index), pos))
                    value = TupleGetItem(value, number, self.span(tok.start_pos, pos))
                return value
        span = self.span(tok.start_pos, tok.end_pos)
        self.unbound.append((full, span, self.suggest(full, self.values.names())))
        placeholder = Var(full, None, span)
        self._placeholders.add(id(placeholder))
        return _Use(placeholder, tok.start_pos, tok.end_pos, None, (tok.start_pos, tok.end_pos))

    def _check_graph_scope(self, node: Expr, name: str, tok: Tok) -> None:
        """A use of the graph binding `%name` outside the block that bound it:
        every variable its value refers to must be in scope here. The walk
        stops at graph bindings still in scope (their variables are)."""
        lookup = self.values.lookup
        names = self.positions.graph_names
        seen: set[tuple[int, frozenset[int]]] = set()
        stack: list[tuple[Expr, frozenset[int]]] = [(node, frozenset())]
        missing: list[Var] = []
        while stack:
            expr, inner = stack.pop()
            key = (id(expr), inner)
            if key in seen:
                continue
            seen.add(key)
            t = type(expr)
            if t is Var:
                if id(expr) not in inner and id(expr) not in self._placeholders and lookup(expr.name) is not expr:
                    if expr not in missing:
                        missing.append(expr)
                continue
            if expr is not node and not inner:
                bound_as = names.get(id(expr))
                if bound_as is not None and lookup(bound_as) is expr:
                    continue
            binders: list[Var] = []
            if t is Let:
                binders.append(expr.var)
            elif t is Function:
                binders.extend(expr.params)
            elif t is Match:
                for clause in expr.clauses:
                    binders.extend(pattern_vars(clause.pattern))
            scope = inner | {id(v) for v in binders} if binders else inner
            for edge in edges(expr):
                stack.append((edge[0], scope))
        for var in missing:
            diag = self.error(
                codes.UNBOUND_VARIABLE,
                f"`%{name}` refers to `%{var.name}`, which is not in scope here",
                self.span(tok.start_pos, tok.end_pos),
                f"`%{var.name}` is out of scope here",
            )
            if var.span is not None:
                diag.with_label(var.span, f"`%{var.name}` is bound here")
            defined = self.graph_defs.get(name)
            if defined is not None:
                diag.with_label(defined, f"`%{name}` is bound here")
            diag.with_note(
                "a graph binding may be used anywhere after it in the file, "
                "but only where the variables its value refers to are in scope"
            )

    def _free_var_in_def(self, var: Var, tok: Tok) -> None:
        assert self._in_def is not None
        diag = self.error(
            codes.FREE_VARIABLE_IN_GLOBAL,
            f"`@{self._in_def.name}` uses the free variable `%{var.name}`; a global function must be closed",
            self.span(tok.start_pos, tok.end_pos),
            "used here",
        )
        if var.span is not None:
            diag.with_label(var.span, "declared here")
        diag.with_note(
            f"make `%{var.name}` a parameter of `@{self._in_def.name}`, or use it in the file's main expression"
        )

    def _count_graph_use(self, value: Expr) -> None:
        key = id(value)
        if key in self.graph_uses:
            self.graph_uses[key] += 1

    def global_ref(self, c: list) -> _Use:
        tok = c[0]
        name = tok.value[1:]
        self.global_refs.append((name, self.span(tok.start_pos, tok.end_pos)))
        return _Use(self.global_var(name), tok.start_pos, tok.end_pos, None, (tok.start_pos, tok.end_pos))

    def ident(self, c: list) -> Expr:
        tok = c[0]
        ctor = self.constructors.get(tok.value)
        if ctor is not None:
            return _Use(ctor, tok.start_pos, tok.end_pos, None, (tok.start_pos, tok.end_pos))
        return Op(tok.value, self.span(tok.start_pos, tok.end_pos))

    def _literal(self, text: str, span: Span, negate: bool = False) -> Constant:
        try:
            if _is_float_literal(text):
                fvalue, dtype = parse_float(text, negate)
                return Constant(fvalue, dtype, (), None, span)
            ivalue, dtype = parse_int(text, negate)
            return Constant(ivalue, dtype, (), None, span)
        except LiteralError as exc:
            const = Constant(
                0.0 if _is_float_literal(text) else 0, "float32" if _is_float_literal(text) else "int32", (), None, span
            )
            # Kept aside: `-128i8` is fine although `128i8` alone is not.
            code = codes.RESOURCE_LIMIT if exc.limit else codes.INVALID_LITERAL
            self._literal_errors[id(const)] = self.error(code, str(exc), span, "too long" if exc.limit else "")
            return const

    def int_lit(self, c: list) -> Constant:
        tok = c[0]
        return self._literal(tok.value, self.span(tok.start_pos, tok.end_pos))

    def float_lit(self, c: list) -> Constant:
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

    def bool_lit(self, c: list) -> Constant:
        tok = c[0]
        return Constant(tok.value == "True", "bool", (), None, self.span(tok.start_pos, tok.end_pos))

    def unit(self, c: list) -> Tuple:
        self.values.pop()
        return Tuple((), self.span(c[0].start_pos, c[-1].end_pos))

    def paren(self, c: list) -> _Use:
        self.values.pop()
        raw = c[1]
        if type(raw) is _Use:
            pair = (raw.start, raw.end) if raw.bracketed else None
            return _Use(raw.node, c[0].start_pos, c[2].end_pos, None, raw.name, True, pair, raw.start)
        return _Use(raw, c[0].start_pos, c[2].end_pos, None, None, True, None, self._span(raw).start)

    def tuple(self, c: list) -> Tuple:
        self.values.pop()
        raws = [x for x in c[1:-1] if x is not None]
        node = Tuple(tuple(_u(x) for x in raws), self.span(c[0].start_pos, c[-1].end_pos))
        self._note(node, raws)
        return node

    def if_expr(self, c: list) -> If:
        kw, cond, then, other = c
        node = If(_u(cond), _u(then), _u(other), self.span(kw.start_pos, self._end(other)))
        self._note(node, (cond, then, other))
        return node

    def match_expr(self, c: list) -> Match:
        kw, data = c[0], c[1]
        clauses = tuple(x for x in c[2:-1] if isinstance(x, Clause))
        node = Match(_u(data), clauses, kw.value == "match", self.span(kw.start_pos, c[-1].end_pos))
        self._note(node, (data,))
        for table in (self.positions.uses, self.positions.results, self.positions.names, self.positions.brackets):
            for i, clause in enumerate(clauses, 1):
                at = table.pop((id(clause), 0), None)
                if at is not None:
                    table[(id(node), i)] = at
        return node

    def _bind_pattern(self, pattern: Any) -> None:
        self.values.push()
        seen: dict[str, Var] = {}
        for var in pattern_vars(pattern):
            if var.name in seen:
                self.error(
                    codes.DUPLICATE_DEFINITION, f"`%{var.name}` is bound twice in one pattern", var.span
                ).with_label(
                    seen[var.name].span,
                    "first bound here",  # type: ignore[arg-type]
                )
            seen[var.name] = var
            self.values.bind(var.name, var)

    def case_head(self, c: list) -> tuple:
        kw, pattern = c
        self._bind_pattern(pattern)
        return kw, pattern

    def case_clause(self, c: list) -> Clause:
        (kw, pattern), body = c
        self.values.pop()
        clause = Clause(pattern, _u(body), self.span(kw.start_pos, self._end(body)))
        self._note(clause, (body,))  # moved to the match when it is built
        return clause

    def arm_head(self, c: list) -> Any:
        pattern = c[0]
        self._bind_pattern(pattern)
        return pattern

    def arm(self, c: list) -> Clause:
        pattern, body = c
        self.values.pop()
        start = pattern.span.start if pattern.span is not None else 0
        clause = Clause(pattern, _u(body), self.span(start, self._end(body)))
        self._note(clause, (body,))  # moved to the match when it is built
        return clause

    def ref_create(self, c: list) -> RefCreate:
        node = RefCreate(_u(c[1]), self.span(c[0].start_pos, c[-1].end_pos))
        self._note(node, (c[1],))
        return node

    def ref_read(self, c: list) -> RefRead:
        node = RefRead(_u(c[1]), self.span(c[0].start_pos, c[-1].end_pos))
        self._note(node, (c[1],))
        return node

    def ref_write(self, c: list) -> RefWrite:
        node = RefWrite(_u(c[1]), _u(c[2]), self.span(c[0].start_pos, c[-1].end_pos))
        self._note(node, (c[1], c[2]))
        return node

    def meta_ref(self, c: list) -> Expr:
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

    def constant(self, c: list) -> Constant:
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
            if _is_float_literal(text):
                value = parse_float(text, negate, "float64")[0]
            else:
                value = parse_int(text, negate)[0]
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

    def neg_number(self, c: list) -> tuple:
        return True, c[1]

    def const_shape(self, c: list) -> tuple[int, ...]:
        return tuple(self._int_tok(t) for t in c if t is not None)

    # ---- patterns ----------------------------------------------------------

    def pat_wild(self, c: list) -> PatternWildcard:
        tok = c[0]
        return PatternWildcard(self.span(tok.start_pos, tok.end_pos))

    def pat_var(self, c: list) -> PatternVar:
        tok, ty = c
        span = self.span(tok.start_pos, tok.end_pos)
        var = Var(tok.value[1:], self.as_type(ty) if ty is not None else None, span)
        self._binder(var, tok.start_pos, tok.end_pos, ty)
        return PatternVar(var, span)

    def pat_ctor(self, c: list) -> Any:
        tok, fields = c
        name = tok.value
        end = fields[1] if fields is not None else tok.end_pos
        span = self.span(tok.start_pos, end)
        ctor = self.constructors.get(name)
        if ctor is None:
            diag = self.error(
                codes.UNKNOWN_CONSTRUCTOR,
                f"unknown constructor `{name}`",
                self.span(tok.start_pos, tok.end_pos),
                "not a constructor",
            )
            if name[:1].islower() and fields is None:
                diag.with_fix(f"to bind a variable, write `%{name}`", diag.span, f"%{name}")
            else:
                suggestions = self.suggest(name, self.constructors)
                if suggestions:
                    diag.with_choices(
                        f"did you mean {or_list([f'`{s}`' for s in suggestions])}?", diag.span, suggestions
                    )
            ctor = Constructor(name)
        return PatternConstructor(ctor, tuple(fields[0]) if fields is not None else (), span)

    def pat_fields(self, c: list) -> tuple:
        return [p for p in c[:-1] if p is not None], c[-1].end_pos

    def pat_tuple(self, c: list) -> PatternTuple:
        open_, close = c[0], c[-1]
        pats = [p for p in c[1:-1] if p is not None]
        return PatternTuple(tuple(pats), self.span(open_.start_pos, close.end_pos))

    # ---- attribute values --------------------------------------------------

    def attr_number(self, c: list) -> Any:
        return self._attr_number(c[0], False, c[0].start_pos)

    def attr_neg(self, c: list) -> Any:
        return self._attr_number(c[1], True, c[0].start_pos)

    def _attr_number(self, tok: Tok, negate: bool, start: int) -> Any:
        value = self._attr_number_value(tok, negate, start)
        if value is not INVALID_ATTR:
            self._numbers.append((("-" if negate else "") + tok.value, value))
        return value

    def _attr_number_value(self, tok: Tok, negate: bool, start: int) -> Any:
        span = self.span(start, tok.end_pos)
        try:
            check_digits(tok.value)
        except LiteralError as exc:
            self.error(codes.RESOURCE_LIMIT, str(exc), self.span(tok.start_pos, tok.end_pos), "too long")
            return INVALID_ATTR
        try:
            if _is_float_literal(tok.value):
                return parse_float(tok.value, negate, "float64")[0]
            # range-checked: the suffix's range (`channels=-1u8`), int64 without one
            return parse_int(tok.value, negate)[0]
        except LiteralError as exc:  # `s=70000f16`
            self.error(codes.INVALID_LITERAL, str(exc), span)
            return INVALID_ATTR

    def attr_string(self, c: list) -> str:
        return _unquote(c[0].value)

    def attr_bool(self, c: list) -> bool:
        return c[0].value == "True"

    def attr_name(self, c: list) -> Any:
        tok = c[0]
        if tok.value == "None" or tok.value == "nullptr":  # TVM reads both as no value
            return _NONE_ATTR
        hit = near_miss(tok.value, (KEYWORD,))
        meant = hit[0] if hit is not None else f'"{tok.value}"'
        span = self.span(tok.start_pos, tok.end_pos)
        self.error(codes.SYNTAX_ERROR, f"`{tok.value}` is not an attribute value", span).with_fix(
            f"attribute values are numbers, strings, True, False, None or lists; did you mean `{meant}`?", span, meant
        )
        return INVALID_ATTR

    def attr_list(self, c: list) -> Any:
        # A None in `c` is the placeholder of an empty list; `None` written
        # in the list arrives as _NONE_ATTR.
        items = tuple(None if v is _NONE_ATTR else v for v in c[:-1] if v is not None)
        close = c[-1]
        if close.type == "RPAR" and len(items) == 1 and not _comma_before(self.source.text, close.start_pos):
            return items[0] if items[0] is not None else _NONE_ATTR  # `(x)` is x, as TVM reads it; `(x,)` a list
        return items

    def attr_meta(self, c: list) -> MetaRef:
        ref = MetaRef(c[1].value, self._int_tok(c[2]))
        self.meta_values.append((ref, self.span(c[0].start_pos, c[-1].end_pos)))
        return ref

    # ---- types -------------------------------------------------------------

    def tensor_type(self, c: list) -> TensorType:
        kw, shape, dtype, close = c
        return TensorType(self.as_shape(shape), self.as_dtype(dtype), self.span(kw.start_pos, close.end_pos))

    def paren_type(self, c: list) -> _Paren:
        open_, close = c[0], c[-1]
        items = [x for x in c[1:-1] if x is not None and not isinstance(x, Tok)]
        trailing = any(isinstance(x, Tok) and x.type == "COMMA" for x in c[1:-1])
        return _Paren(items, trailing, self.span(open_.start_pos, close.end_pos))

    def fn_type_head(self, c: list) -> Tok:
        self.types.push()
        return c[0]

    def func_type(self, c: list) -> FuncType:
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

    def type_name(self, c: list) -> Any:
        tok = c[0]
        span = self.span(tok.start_pos, tok.end_pos)
        if c[-1] is None:  # no `[...]`
            return _Name(tok.value, span)
        close = c[-1]
        args = [self.as_type_arg(t) for t in c[1:-1] if t is not None]
        return self._type_call(tok.value, tuple(args), self.span(tok.start_pos, close.end_pos))

    def incomplete_type(self, c: list) -> IncompleteType:
        tok = c[0]
        return IncompleteType(Kind.TYPE, self.span(tok.start_pos, tok.end_pos))

    def type_args_list(self, c: list) -> list:
        return c

    def dim_binop(self, c: list) -> _RawDimOp:
        lhs, tok, rhs = c
        return _RawDimOp(tok.value, lhs, rhs, self._span(lhs).to(self._span(rhs)))

    def dim_int(self, c: list) -> _IntDim:
        tok = c[0]
        return _IntDim(self._int_tok(tok), self.span(tok.start_pos, tok.end_pos))

    def dim_any(self, c: list) -> AnyDim:
        tok = c[0]
        return AnyDim(self.span(tok.start_pos, tok.end_pos))

    # ---- resolving raw type syntax -----------------------------------------

    def _type_call(self, name: str, args: tuple, span: Span) -> Any:
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
    def _adt_args(args: tuple, data: Any, span: Span) -> tuple:
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
        if not isinstance(raw, _Paren):
            return self._as_simple_type(raw)
        done: list = []
        work: list = [(raw, False)]
        while work:
            node, ready = work.pop()
            if ready:
                n = len(node.items)
                fields = done[len(done) - n :]
                del done[len(done) - n :]
                done.append(fields[0] if n == 1 and not node.trailing_comma else TupleType(tuple(fields), node.span))
            elif not isinstance(node, _Paren):
                done.append(self._as_simple_type(node))
            elif any(isinstance(x, _RAW_DIMS) for x in node.items):
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
        if isinstance(raw, _Name):
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
        if isinstance(raw, _RAW_DIMS):
            self.error(codes.SYNTAX_ERROR, "a dimension is not a type", raw.span)
            return IncompleteType(Kind.TYPE, raw.span)
        return raw

    def as_shape(self, raw: Any) -> Any:
        if isinstance(raw, _Paren):
            return tuple(self.as_dim(x) for x in raw.items)
        if isinstance(raw, _Name):
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
        if isinstance(raw, _IntDim):
            return raw.value
        if isinstance(raw, AnyDim):
            return raw
        if isinstance(raw, _RawDimOp):
            return DimBinOp(raw.op, self.as_dim(raw.lhs), self.as_dim(raw.rhs), raw.span)
        if isinstance(raw, _Name):
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
        if isinstance(raw, _Name):
            tvar = self.types.lookup(raw.name)
            if tvar is not None:
                return tvar
            dtype = canonical_dtype(raw.name)
            if dtype is not None:
                return dtype
            diag = self.error(codes.UNKNOWN_TYPE, f"unknown dtype `{raw.name}`", raw.span)
            diag.with_note(
                "dtypes are bool, int8/16/32/64 (int is int32), uint8/16/32/64, float16/32/64 (float is float32), bfloat16, optionally with lanes (int32x4)"
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
        if isinstance(raw, _Name):
            dtype = canonical_dtype(raw.name)
            if self.types.lookup(raw.name) is None and dtype is not None:
                return dtype
            return self.as_type(raw)
        if isinstance(raw, _Paren):
            if raw.items and all(isinstance(x, _RAW_DIMS) or self._is_dim_var(x) for x in raw.items):
                return tuple(self.as_dim(x) for x in raw.items)
            return self.as_type(raw)
        if isinstance(raw, _RAW_DIMS):
            return self.as_dim(raw)
        return self.as_type(raw)

    def _is_dim_var(self, raw: Any) -> bool:
        if not isinstance(raw, _Name):
            return False
        tvar = self.types.lookup(raw.name)
        return tvar is not None and tvar.kind == Kind.SHAPE_VAR


# ---------------------------------------------------------------- helpers


def _is_float_literal(text: str) -> bool:
    return not is_int_text(text)


def _int_value(text: str) -> int:
    m = _DIGITS.match(text)
    if m is None or len(m.group(0)) > MAX_LITERAL_DIGITS:
        return 0  # (too long: reported by `_int_checked` or `parse_int`)
    return int(m.group(0))


def _comma_before(text: str, pos: int) -> bool:
    """Whether the last character before `pos`, blanks aside, is a comma."""
    return text[:pos].rstrip().endswith(",")


def _unquote(text: str) -> str:
    body = text[1:-1]
    if "\\" not in body:
        return body
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
