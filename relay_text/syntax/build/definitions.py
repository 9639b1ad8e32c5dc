"""The builder's definition layer: the module, `def`, `fn`, parameters and
their attributes, `data`/`type`/`extern` definitions and free variables.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.adt import TypeData
from ...ir.expr import (
    Constructor,
    Expr,
    Function,
    Var,
)
from ...ir.module import Metadata, Module
from ...ir.positions import META_ATTRS
from ...ir.span import Span
from ...ir.ty import (
    GlobalTypeVar,
)
from ..lexer import Tok, skip_trivia
from .patterns import PatternRules
from .raw import (
    NONE_ATTR,
    Children,
    Kw,
    Use,
    RawName,
    unwrap,
)


class DefinitionRules(PatternRules):
    __slots__ = ()

    def start(self, c: Children) -> Module:
        module = self.module
        metadata = c[-1]
        if metadata is not None:
            from ..metadata import decode_metadata

            module.metadata = Metadata(metadata.value, self.span(metadata.start_pos, metadata.end_pos), decode_metadata)
        if (self.meta_attr_calls or self.meta_values) and module.metadata is not None:
            self._decode_meta_attrs(module.metadata)
        body = c[-2]
        if body is not None:
            module.expr = unwrap(body)
        module.free_vars = tuple(self.free_vars)
        module.positions = self.positions
        return module

    def _decode_meta_attrs(self, metadata: Metadata) -> None:
        """Fill the attributes of calls that refer to them in the metadata section."""
        from ..metadata import read_metadata

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

    def def_head(self, c: Children) -> tuple[Any, ...]:
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

    def fn_sig(self, c: Children) -> tuple[Any, ...]:
        type_params, params, close, ret_type, where = c
        if params is None:
            params = ([], [])
        ret = self.as_type(ret_type) if ret_type is not None else None
        return type_params or (), params, ret, where or (), close.end_pos

    def params(self, c: Children) -> tuple[list[Var], list[Kw]]:
        vars_, attrs = [], []
        seen: dict[str, Var] = {}
        for item in c:
            if isinstance(item, Kw):
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
                    ).with_label(seen[item.name].span or Span(self.source, 0, 0), "first declared here")
                seen[item.name] = item
                vars_.append(item)
        return vars_, attrs

    def param(self, c: Children) -> Var:
        tok, attrs, ty = c
        var = Var(tok.value[1:], self.as_type(ty) if ty is not None else None, self.span(tok.start_pos, tok.end_pos))
        self._binder(var, tok.start_pos, tok.end_pos, None if attrs else ty)
        if attrs:
            var.attrs = attrs
        self.values.bind(var.name, var)
        return var

    def fn_attr(self, c: Children) -> Kw:
        key, value = c
        self._numbers = []
        return Kw(key.value, None if value is NONE_ATTR else value, self.span(key.start_pos, key.end_pos))

    param_attr = fn_attr

    def param_attrs(self, c: Children) -> tuple[Any, ...]:
        pairs: list[tuple[str, Any]] = []
        keys: set[str] = set()
        for kw in c[1:-1]:
            if isinstance(kw, Kw):
                if kw.key in keys:
                    self.error(
                        codes.DUPLICATE_DEFINITION, f"attribute `{kw.key}` is given twice", kw.span, "given again here"
                    )
                    continue
                keys.add(kw.key)
                pairs.append((kw.key, kw.value))
        return tuple(pairs)

    def arrow(self, c: Children) -> Tok:
        tok: Tok = c[0]
        return tok

    def ret_type(self, c: Children) -> Any:
        return c[1]

    def _function(self, c: list[Any], start: int) -> Function:
        sig, body_tok = c[1], c[2]
        type_params, (params, attrs), ret, where, head_end = sig
        body = unwrap(body_tok)
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

    def def_fn(self, c: Children) -> None:
        gv, kw = c[0]
        self._in_def = None
        func = self._function(c, kw.start_pos)
        if gv not in self.module.functions:
            self.module.functions[gv] = func
            self.module.order.append(gv)

    def fn_head(self, c: Children) -> Tok:
        tok: Tok = c[0]
        self.values.push()
        self.types.push()
        # `let %f = fn ...`: the function may call itself through %f.
        if self.pending_lets:
            var, eq_end = self.pending_lets[-1]
            if skip_trivia(self.source.text, eq_end) == tok.start_pos:
                self.values.bind(var.name, var)
                self.self_uses.setdefault(id(var), (tok.start_pos, []))
        return tok

    def fn_expr(self, c: Children) -> Function:
        return self._function(c, c[0].start_pos)

    def _adt_header(self, name_tok: Tok) -> GlobalTypeVar:
        name = name_tok.value
        if name in self.same_adts:
            own = GlobalTypeVar(name, span=self.span(name_tok.start_pos, name_tok.end_pos))
            self.same_headers[own] = self.env.adts[name]
            return own
        known = self.adts.get(name)
        gtv: GlobalTypeVar
        if known is not None and known not in self.module.type_defs and known not in self.env.adts.values():
            gtv = known
        else:
            if known is not None and known in self.module.type_defs:
                self.error(
                    codes.DUPLICATE_DEFINITION,
                    f"type `{name}` is defined more than once",
                    self.span(name_tok.start_pos, name_tok.end_pos),
                )
            gtv = GlobalTypeVar(name)
            self.adts[name] = gtv
        gtv.span = self.span(name_tok.start_pos, name_tok.end_pos)
        return gtv

    def data_name(self, c: Children) -> tuple[Any, ...]:
        kw, name_tok = c
        self.types.push()
        self.defining_adt = self._adt_header(name_tok)
        return self.defining_adt, kw

    type_name_head = data_name

    def data_head(self, c: Children) -> tuple[Any, ...]:
        (gtv, kw), tparams = c
        return gtv, kw, tparams or ()

    type_head = data_head

    def extern_head(self, c: Children) -> tuple[Any, ...]:
        kw, name_tok = c
        self.types.push()
        return self._adt_header(name_tok), kw

    def extern_type(self, c: Children) -> None:
        (gtv, kw), tparams = c
        self.types.pop()
        end = tparams[-1].span.end + 1 if tparams else gtv.span.end
        self.module.type_defs[gtv] = TypeData(
            gtv, tparams or (), (), True, self.span(kw.start_pos, end), self.same_headers.get(gtv)
        )
        self.module.order.append(gtv)

    def _constructor(self, name_tok: Tok, inputs: tuple[Any, ...], gtv: GlobalTypeVar, tag: int) -> Constructor:
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

    def _finish_adt(self, c: list[Any], ctor_items: list[Any]) -> None:
        gtv, kw, tparams = c[0]
        close = c[-1]
        ctors = tuple(self._constructor(tok, inputs, gtv, i) for i, (tok, inputs) in enumerate(ctor_items))
        self.types.pop()
        self.module.type_defs[gtv] = TypeData(
            gtv, tuple(tparams), ctors, False, self.span(kw.start_pos, close.end_pos), self.same_headers.get(gtv)
        )
        self.module.order.append(gtv)

    def ctor_sig(self, c: Children) -> tuple[Any, ...]:
        name_tok = c[0]
        ret = c[-1]
        inputs = tuple(self.as_type(t) for t in c[1:-2] if t is not None)
        # The result names the ADT being defined: `-> List` (or `-> List[a]`).
        adt = self.defining_adt
        ret_name = ret.name if isinstance(ret, RawName) else getattr(getattr(ret, "func", None), "name", None)
        if ret_name != adt.name:
            self.error(
                codes.TYPE_MISMATCH,
                f"constructor `{name_tok.value}` must return `{adt.name}`",
                self._span(ret),
                f"expected `{adt.name}`",
            )
        return name_tok, inputs

    def data_def(self, c: Children) -> None:
        self._finish_adt(c, [x for x in c[1:-1] if isinstance(x, tuple)])

    def ctor_decl(self, c: Children) -> tuple[Any, ...]:
        name_tok = c[0]
        inputs = tuple(self.as_type(t) for t in c[1:] if t is not None and not isinstance(t, Tok))
        return name_tok, inputs

    def type_def(self, c: Children) -> None:
        items = [x for x in c[1:-1] if isinstance(x, tuple)]
        self._finish_adt(c, items)

    def free_var(self, c: Children) -> None:
        tok, ty = c[1], c[2]
        var = Var(tok.value[1:], self.as_type(ty) if ty is not None else None, self.span(tok.start_pos, tok.end_pos))
        self._binder(var, c[0].start_pos, tok.end_pos, ty)
        # As in TVM, a free variable is visible in the rest of the file,
        # under any binding of the same name that is in scope.
        self.values.bind_outermost(var.name, var)
        self.free_vars.append(var)
        self._free_var_ids.add(id(var))

    def free_var_expr(self, c: Children) -> Expr | Use:
        body: Expr | Use = c[-1]
        return body
