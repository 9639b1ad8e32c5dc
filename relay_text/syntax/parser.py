"""Parsing a file: text in, a `Module` and diagnostics out.

`tables` compiles grammar/relay.lark into LALR tables once (cached on disk,
so a command only loads them); `lalr.Driver` runs them over the tokens of
`lexer.Tokens`, calling a `builder.Builder` made for the file at each
reduction. The tables are shared by every parse and the per-file state
lives in that file's builder and driver: threads (the language server's)
parse at the same time without waiting for each other.
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..diagnostics import WARNING, Diagnostic, codes, has_errors
from ..ir.adt import definition_difference
from ..ir.expr import Constant, Constructor, Function
from ..ir.module import Module
from ..ir.span import Source, Span
from ..ir.ty import GlobalTypeVar
from ..text.suggest import close_names, or_list
from .builder import SUPPORTED_VERSIONS, Builder, Env
from .errors import lex_error, syntax_error
from .lalr import Driver, Grammar, UnexpectedToken
from .lexer import LexError, Tok, Tokens, skip_trivia

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import
    from ..record import dataclass, field

_PARSER: tuple[Grammar, type[Builder], dict[str, str]] | None = None
_LOADING = threading.Lock()  # held only while the tables are loaded, once per process


def grammar_path() -> Path:
    """grammar/relay.lark: inside the installed package, or beside it in a checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "grammar" / "relay.lark", here.parent / "grammar" / "relay.lark"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("grammar/relay.lark is missing from the installation")


def _parser() -> tuple[Grammar, type[Builder], dict[str, str]]:
    """The grammar's tables (loaded on first use), the builder class and the
    lexer's literal kinds."""
    global _PARSER
    if _PARSER is None:
        with _LOADING:
            if _PARSER is None:
                from .tables import load

                tables = load(grammar_path().read_text())
                _PARSER = (Grammar(tables, Builder), Builder, tables["literals"])
    return _PARSER


def code_tokens(source: Source) -> list[str]:
    """The text of every token of a source, comments and blanks left out
    (what `relay fmt` must leave as it is: its layout may change, its tokens
    not). Raises `LexError` where the text has no token."""
    from .lexer import Tokens

    kinds = _parser()[2]
    return [tok.value for tok in Tokens(source, kinds) if tok.type != "$END"]


@dataclass
class ParseResult:
    """A parsed module (None if the text could not be read) and what the parser reported."""

    module: Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.module is not None and not has_errors(self.diagnostics)


# (`data` or `type` not inside a longer name; each lookbehind placed after
# the first letter, so that the search skips ahead to a `d` or a `t`)
_ADT_DEF = re.compile(r"(?:d(?<![%@\w.]d)ata|t(?<![%@\w.]t)ype)\s+[A-Za-z_]")


def _prescan(
    source: Source, kinds: dict[str, str], env: Env, same: frozenset[str] = frozenset(), tokens: Tokens | None = None
) -> tuple[dict[str, Constructor], dict[str, GlobalTypeVar], list[Tok] | None]:
    """Constructor and ADT names defined anywhere in the file, and the
    file's tokens if they had to be read for that (None otherwise, or when
    the file does not lex).

    A constructor may be used before its definition, and `Cons(...)` must
    become a constructor, not an operator call, when it is parsed. The
    names of a data type in `same` (defined as `env` defines it) keep
    denoting `env`'s type and constructors. `tokens` reads the file (and
    records its comments); the parse then reuses the list instead of
    reading the file a second time.
    """
    constructors = dict(env.constructors)
    adts = dict(env.adts)
    # Definitions precede a trailing `#[metadata]` section, which can be
    # hundreds of megabytes of base64: do not search it.
    end = source.text.find("#[metadata]")
    if not _ADT_DEF.search(source.text, 0, end if end >= 0 else len(source.text)):
        return constructors, adts, None
    try:
        toks = list(tokens if tokens is not None else Tokens(source, kinds))
    except LexError:
        return constructors, adts, None
    i = 0
    n = len(toks)
    while i < n:
        tok = toks[i]
        if tok.type in ("DATA", "TYPE") and i + 1 < n and toks[i + 1].type == "IDENT":
            keep = toks[i + 1].value in same
            if not keep:
                adts[toks[i + 1].value] = GlobalTypeVar(toks[i + 1].value)
            j = i + 2
            while j < n and toks[j].type != "LBRACE":
                j += 1
            depth = 0
            prev = None
            while j < n:
                t = toks[j]
                if t.type in ("LBRACE", "LPAR", "LSQB"):
                    depth += 1
                elif t.type in ("RBRACE", "RPAR", "RSQB"):
                    depth -= 1
                    if depth == 0:
                        break
                elif depth == 1 and t.type == "IDENT":
                    nxt = toks[j + 1].type if j + 1 < n else ""
                    is_ctor = (tok.type == "DATA" and nxt == "COLON") or (
                        tok.type == "TYPE" and prev in ("LBRACE", "COMMA")
                    )
                    if is_ctor and not keep:
                        constructors[t.value] = Constructor(t.value)
                prev = t.type
                j += 1
            i = j
        i += 1
    return constructors, adts, toks


def parse(text: str, name: str = "<string>", env: Env | None = None) -> ParseResult:
    """Parse one file of Relay text (either dialect)."""
    return parse_source(Source(name, text), env)


def parse_source(source: Source, env: Env | None = None) -> ParseResult:
    """Parse one file, resolving names against `env` (the Prelude's).

    A `data` definition identical to one of `env`'s (same name, type
    parameters, constructors and field types) denotes `env`'s type: the
    file is parsed a second time with the uses of those names bound to
    `env`'s definitions, so that the Prelude's functions accept its values
    (seed 000 defines `List` and then uses `@map`, `@foldl`, `@zip`)."""
    env = env or Env()
    result, meta_constants = _parse_once(source, env, frozenset())
    if env.type_defs and result.module is not None:
        same = _same_definitions(result.module, env)
        if same:
            result, meta_constants = _parse_once(source, env, same)
    if meta_constants and result.module is not None and result.module.comments:
        _read_type_comments(result.module, meta_constants)
    return result


def _parse_once(source: Source, env: Env, same: frozenset[str]) -> tuple[ParseResult, list[Constant]]:
    grammar, builder_class, kinds = _parser()
    tokens = Tokens(source, kinds)
    constructors, adts, read = _prescan(source, kinds, env, same, tokens)
    if read is None:
        tokens = Tokens(source, kinds)  # unread (or a lexing error half way: read again)
    version = _version_of(source)
    builder = builder_class(source, env, constructors, adts, version, same)
    result = _run(Driver(grammar, builder), builder, kinds, source, tokens, env, version, read)
    return result, builder.meta_constants


def _same_definitions(module: Module, env: Env) -> frozenset[str]:
    """The names of the data types `module` defines exactly as `env` does.

    Definitions that refer to each other (a `Tree` of `List`s) are the same
    when they are all the same: candidates are dropped until none refers to
    a dropped one in a way that differs."""
    counts: dict[str, int] = {}
    for gtv in module.type_defs:
        counts[gtv.name] = counts.get(gtv.name, 0) + 1
    # The same name: another spelling env accepts (TVM's `Option` for
    # `Optional`) names a type of the file's own.
    candidates = {
        gtv: data
        for gtv, data in module.type_defs.items()
        if counts[gtv.name] == 1 and gtv.name in env.type_defs and env.type_defs[gtv.name].header.name == gtv.name
    }
    while True:
        pairing = {gtv: env.type_defs[gtv.name].header for gtv in candidates}
        dropped = [
            gtv
            for gtv, data in candidates.items()
            if definition_difference(data, env.type_defs[gtv.name], pairing) is not None
        ]
        if not dropped:
            return frozenset(gtv.name for gtv in candidates)
        for gtv in dropped:
            del candidates[gtv]


def parse_type(text: str) -> Any:
    """A type written on its own (`Tensor[(2), float32]`), or None if it does not parse."""
    result = parse(f"fn (%x: {text}) {{ %x }}", "<type>")
    if not result.ok or result.module is None or not isinstance(result.module.expr, Function):
        return None
    params = result.module.expr.params
    return params[0].type_annotation if params else None


def _read_type_comments(module: Module, constants: list[Constant]) -> None:
    """`meta[relay.Constant][i] /* ty=T */`: TVM's printer wrote the constant's
    type after it; the constant carries it as `type_annotation`."""
    text = module.source.text if module.source is not None else ""
    comments = {c.span.start: c for c in module.comments if c.text.startswith("/*") and "ty=" in c.text}
    for const in constants:
        if const.span is None:
            continue
        pos = const.span.end
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        comment = comments.get(pos)
        if comment is None:
            continue
        body = comment.text[2:-2].strip()
        if body.startswith("ty="):
            const.type_annotation = parse_type(body[3:].strip())


def bidi_warnings(source: Source, comments: list[Any]) -> list[Diagnostic]:
    from .characters import bidi_warnings as warnings

    return warnings(source, comments)


# Parses running now (threads), and whether the cyclic collector was on
# when the first of them began.
_GC_PAUSE = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic collector while parsing: a parse allocates many
    objects and creates no cycles, and large files parse ~1.8x faster. The
    collector is paused by the first of the parses running at once and
    resumed (if it was on) by the last."""
    global _gc_pauses, _gc_was_enabled
    with _GC_PAUSE:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _GC_PAUSE:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


def _run(
    driver: Driver,
    builder: Builder,
    kinds: dict[str, str],
    source: Source,
    tokens: Tokens,
    env: Env,
    version: str | None,
    read: list[Any] | None = None,
) -> ParseResult:
    diags: list[Diagnostic] = []
    _check_version(source, version, diags)
    try:
        with _gc_paused():
            module: Module = driver.parse(read if read is not None else tokens, len(source.text))
    except LexError as exc:
        return ParseResult(None, [*diags, lex_error(source, exc)])
    except UnexpectedToken as exc:
        prev = _token_before(source, kinds, exc.token)
        expected = driver.acceptable(Tokens(source, kinds), exc.token) or exc.expected
        first = syntax_error(source, exc.token, expected, kinds, prev)
        return ParseResult(None, [*diags, first, *_later_syntax_errors(driver, source, kinds, exc)])
    module.comments = tokens.comments
    if module.positions is not None:
        module.positions.comment_sites = tokens.sites
        module.positions.blank_lines = tokens.blank_lines
        module.positions.blank_after_header = tokens.blank_after_header
    if tokens.version is not None:
        module.header = Span(source, tokens.version[1], tokens.version[2])
    unbound_names = {f"%{name}" for name, _, _ in builder.unbound}
    # A binding whose only use came too early is reported once, as that use.
    diags.extend(
        d
        for d in builder.diags
        if not (d.code == codes.UNUSED_BINDING and d.span is not None and d.span.text in unbound_names)
    )
    _check_globals(builder, env, diags)
    _explain_unbound(builder, diags)
    diags.extend(bidi_warnings(source, module.comments))
    return ParseResult(module, diags)


_HEADER = re.compile(r'\#\[\s*version\s*=\s*"([^"]*)"\s*\]|v(0\.0\.[0-9]+)\s')


def _version_of(source: Source) -> str | None:
    text = source.text
    m = _HEADER.match(text, skip_trivia(text, 0))
    if not m:
        return None
    return m.group(1) or m.group(2)


def _check_version(source: Source, version: str | None, diags: list[Diagnostic]) -> None:
    if version is not None and version not in SUPPORTED_VERSIONS:
        start = skip_trivia(source.text, 0)
        m = re.compile(r"\S*").match(source.text, start)
        end = m.end() if m else start
        diags.append(
            Diagnostic(
                codes.UNSUPPORTED_VERSION,
                f"unsupported format version `{version}`",
                Span(source, start, end),
                label="this header",
            ).with_note(
                f"this toolchain reads versions {or_list(list(SUPPORTED_VERSIONS))} "
                "and the documented syntax (no header)"
            )
        )


def _later_syntax_errors(
    driver: Driver, source: Source, kinds: dict[str, str], exc: UnexpectedToken
) -> list[Diagnostic]:
    """The independent syntax errors after the first one (`Driver.recover`),
    and a token the lexer cannot read after it."""
    if exc.token.type == "$END" or not exc.states:
        return []
    tokens: list[Tok] = []
    lex_problem = None
    try:
        for tok in Tokens(source, kinds):
            tokens.append(tok)
    except LexError as lex:
        lex_problem = lex
    index = {tok.start_pos: i for i, tok in enumerate(tokens)}
    failed = index.get(exc.token.start_pos)
    if failed is None:
        return []
    out = []
    for tok, expected in driver.recover(tokens, failed, exc.states, len(source.text)):
        if tok.type == "$END" and lex_problem is not None:
            continue  # the tokens stopped early, not the text
        at = index.get(tok.start_pos, len(tokens))
        prev = tokens[at - 1] if at > 0 else None
        out.append(syntax_error(source, tok, expected, kinds, prev))
    if lex_problem is not None:
        out.append(lex_error(source, lex_problem))
    return out


def _token_before(source: Source, kinds: dict[str, str], tok: Tok) -> Tok | None:
    prev = None
    try:
        for t in Tokens(source, kinds):
            if t.start_pos >= tok.start_pos:
                break
            prev = t
    except LexError:
        pass
    return prev


def _check_globals(builder: Builder, env: Env, diags: list[Diagnostic]) -> None:
    defined = {gv.name for gv in builder.module.functions}
    known = defined | env.globals
    used = {name for name, _ in builder.global_refs}
    unused = defined - used
    # Suggestions once per name: a file may use one name thousands of times.
    near: dict[str, list[str]] = {}
    for name, span in builder.global_refs:
        if name in defined:
            continue
        if name in known:
            if name not in near:
                near[name] = close_names(name, unused)
            _near_miss(name, span, near[name], diags)
            continue
        diag = Diagnostic(codes.UNKNOWN_GLOBAL, f"unknown global `@{name}`", span, label="not defined")
        if name not in near:
            near[name] = close_names(name, known)
        suggestions = near[name]
        if suggestions:
            diag.with_choices(
                f"did you mean {or_list([f'`@{s}`' for s in suggestions])}?", span, [f"@{s}" for s in suggestions]
            )
        diags.append(diag)


def _near_miss(name: str, span: Span, suggestions: list[str], diags: list[Diagnostic]) -> None:
    """A use of a name from outside the file (the Prelude) while the file
    defines, and never uses, a global with a name a typo away (`suggestions`):
    the shape of a misspelling."""
    if suggestions:
        diags.append(
            Diagnostic(
                codes.NEAR_MISS_GLOBAL,
                f"`@{name}` is the Prelude's function, not one of this file's",
                span,
                severity=WARNING,
                label="defined in the Prelude",
            )
            .with_note(f"this file defines {or_list([f'`@{s}`' for s in suggestions])} but never uses it")
            .with_choices(
                f"did you mean {or_list([f'`@{s}`' for s in suggestions])}?", span, [f"@{s}" for s in suggestions]
            )
        )


def _explain_unbound(builder: Builder, diags: list[Diagnostic]) -> None:
    for name, span, suggestions in builder.unbound:
        diag = Diagnostic(codes.UNBOUND_VARIABLE, f"unbound variable `%{name}`", span, label="not in scope")
        later = builder.graph_def(name)
        if later is not None and later.start > span.start:
            diag.with_label(later, "bound here, after its use")
            diag.with_note("a graph binding is visible only after its definition")
        elif suggestions:
            diag.with_choices(
                f"did you mean {or_list([f'`%{s}`' for s in suggestions])}?", span, [f"%{s}" for s in suggestions]
            )
        diags.append(diag)
