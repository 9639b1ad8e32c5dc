"""Where a sub-expression is written, for diagnostics.

A node's own span is where it was built. For most nodes that is also where
it is used, but not for shared ones: a variable's span is its binding site,
a global's its definition, a graph-bound node (`%1 = ...`) the right-hand
side of its binding. To underline the argument `%x` of a call, the checker
finds it in the text of the call: the call's span is known, and its
arguments are the comma-separated items of its last parenthesised group.

These functions only run when a diagnostic is being built; they scan the
source text of one node with a small bracket-aware scanner that skips
strings and comments.
"""

from __future__ import annotations

import re
from typing import Any

from ..ir.expr import Call, Constructor, Function, GlobalVar, If, Let, Match, Op, Tuple, TupleGetItem, Var
from ..ir.span import Span
from ..ir.ty import TypeVar

_OPEN = "([{"
_CLOSE = ")]}"
_NAME = re.compile(r"[%@]?[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*")
_SPACE = re.compile(r"\s*")


def _skip_comment(text: str, i: int) -> int:
    """If a comment starts at i, the offset after it; else i."""
    if text.startswith("//", i) or (text.startswith("#", i) and not text.startswith("#[", i)):
        j = text.find("\n", i)
        return len(text) if j < 0 else j
    if text.startswith("/*", i):
        depth = 0
        j = i
        while j < len(text):
            if text.startswith("/*", j):
                depth += 1
                j += 2
            elif text.startswith("*/", j):
                depth -= 1
                j += 2
                if depth == 0:
                    return j
            else:
                j += 1
        return len(text)
    return i


def _tokens(text: str, start: int, end: int):
    """(offset, char, depth before the char) for every significant character."""
    depth = 0
    i = start
    while i < end:
        j = _skip_comment(text, i)
        if j != i:
            i = j
            continue
        ch = text[i]
        if ch == '"':
            k = i + 1
            while k < end and text[k] != '"':
                k += 2 if text[k] == "\\" else 1
            yield i, ch, depth
            i = k + 1
            continue
        if ch in _OPEN:
            yield i, ch, depth
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            yield i, ch, depth
        else:
            yield i, ch, depth
        i += 1


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """The range without surrounding blanks and comments."""
    while start < end:
        j = _skip_comment(text, start)
        if j != start:
            start = j
            continue
        if text[start].isspace():
            start += 1
            continue
        break
    # trailing: drop blanks and trailing comments
    while end > start and text[end - 1].isspace():
        end -= 1
    while end > start and text.endswith("*/", 0, end):
        opener = text.rfind("/*", start, end)
        if opener < 0:
            break
        end = opener
        while end > start and text[end - 1].isspace():
            end -= 1
    return start, end


def _group_items(text: str, open_pos: int, end_limit: int) -> tuple[list[tuple[int, int]], int]:
    """Items of the bracket group opening at `open_pos`, split at its commas; and its end."""
    items = []
    item_start = open_pos + 1
    for pos, ch, depth in _tokens(text, open_pos + 1, end_limit):
        if depth == 0 and ch == ",":
            items.append(_trim(text, item_start, pos))
            item_start = pos + 1
        elif depth == -1 and ch in _CLOSE:
            last = _trim(text, item_start, pos)
            if last[1] > last[0]:
                items.append(last)
            return items, pos + 1
    return items, end_limit


def _own_span_inside(node: Any, span: Span) -> bool:
    s = getattr(node, "span", None)
    if s is None or isinstance(node, (Var, GlobalVar, Constructor)):
        return False
    return s.source is span.source and span.start <= s.start and s.end <= span.end


def _skip_spaces(text: str, i: int) -> int:
    while True:
        i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
        j = _skip_comment(text, i)
        if j == i:
            return i
        i = j


def call_arg_spans(call: Call) -> list[Span] | None:
    """Where each positional argument (then each attribute) of a call is written."""
    span = call.span
    if span is None:
        return None
    text = span.source.text
    callee = call.op
    if _own_span_inside(callee, span) and not isinstance(callee, Op):
        pos = callee.span.end  # type: ignore[union-attr]
    else:
        m = _NAME.match(text, span.start)
        pos = m.end() if m else span.start
    pos = _skip_spaces(text, pos)
    if text.startswith("<", pos):
        depth = 0
        while pos < span.end:
            if text.startswith("->", pos) or text.startswith("=>", pos):
                pos += 2
                continue
            if text[pos] == "<":
                depth += 1
            elif text[pos] == ">":
                depth -= 1
                if depth == 0:
                    pos += 1
                    break
            pos += 1
        pos = _skip_spaces(text, pos)
    if not text.startswith("(", pos):
        # A callee written as a parenthesised or other compound expression: use the last group.
        pos = _last_group(text, span.start, span.end)
        if pos is None:
            return None
    items, _ = _group_items(text, pos, span.end)
    return [Span(span.source, s, e) for s, e in items]


def _last_group(text: str, start: int, end: int) -> int | None:
    opener = None
    for pos, ch, depth in _tokens(text, start, end):
        if ch == "(" and depth == 0:
            opener = pos
    return opener


def _infix_operands(call: Call) -> list[Span] | None:
    """`a + b`: the operands around the operator token; `-a`: the one after it."""
    span, op = call.span, call.op
    op_span = getattr(op, "span", None)
    if span is None or op_span is None or not (span.start <= op_span.start and op_span.end <= span.end):
        return None
    text = span.source.text
    parts = []
    if len(call.args) == 2:
        parts.append(_trim(text, span.start, op_span.start))
    parts.append(_trim(text, op_span.end, span.end))
    return [Span(span.source, s, e) for s, e in parts]


def arg_span(call: Call, index: int) -> Span | None:
    """The written argument `index` of a call (falls back to the call)."""
    arg = call.args[index] if index < len(call.args) else None
    if arg is not None and call.span is not None and _own_span_inside(arg, call.span):
        return arg.span
    spans = _infix_operands(call) if call.infix is not None else call_arg_spans(call)
    if spans is not None and index < len(spans):
        return spans[index]
    return call.span


def attr_span(call: Call, key: str) -> Span | None:
    """Where `key=value` is written in a call (the key), or the call."""
    spans = call_arg_spans(call)
    if spans:
        text = call.span.source.text  # type: ignore[union-attr]
        for s in spans:
            if re.match(re.escape(key) + r"\s*=", text[s.start : s.end]):
                return Span(s.source, s.start, s.start + len(key))
    return call.span


def tuple_field_span(node: Tuple, index: int) -> Span | None:
    field = node.fields[index]
    if node.span is None:
        return None
    if _own_span_inside(field, node.span):
        return field.span
    text = node.span.source.text
    items, _ = _group_items(text, node.span.start, node.span.end)
    if index < len(items):
        return Span(node.span.source, *items[index])
    return node.span


def if_cond_span(node: If) -> Span | None:
    if node.span is None:
        return None
    if _own_span_inside(node.cond, node.span):
        return node.cond.span
    text = node.span.source.text
    pos = _skip_spaces(text, node.span.start + 2)
    if text.startswith("(", pos):
        items, _ = _group_items(text, pos, node.span.end)
        if items:
            return Span(node.span.source, *items[0])
    return node.span


def projected_span(node: TupleGetItem) -> Span | None:
    """The tuple part of `e.i`."""
    if node.span is None:
        return None
    if _own_span_inside(node.tuple_value, node.span):
        return node.tuple_value.span
    suffix = f".{node.index}"
    text = node.span.text
    if text.endswith(suffix):
        return Span(node.span.source, node.span.start, node.span.end - len(suffix))
    return node.span


def match_data_span(node: Match) -> Span | None:
    if node.span is None:
        return None
    if _own_span_inside(node.data, node.span):
        return node.data.span
    text = node.span.source.text
    pos = node.span.start + len("match")
    if text.startswith("?", pos):
        pos += 1
    for p, ch, depth in _tokens(text, pos, node.span.end):
        if ch == "{" and depth == 0:
            s, e = _trim(text, pos, p)
            return Span(node.span.source, s, e)
    return node.span


def let_value_span(node: Let) -> Span | None:
    if node.span is None:
        return None
    if _own_span_inside(node.value, node.span):
        return node.value.span
    text = node.span.source.text
    eq = None
    for p, ch, depth in _tokens(text, node.span.start, node.span.end):
        if depth == 0 and ch == "=" and eq is None and not text.startswith("==", p) and not text.startswith("=>", p) and text[p - 1] not in "=!<>":
            eq = p + 1
        elif depth == 0 and ch == ";" and eq is not None:
            s, e = _trim(text, eq, p)
            return Span(node.span.source, s, e)
    return node.span


def _block_tail(text: str, open_pos: int, source: Any) -> Span | None:
    """The trailing expression of the `{ ... }` block opening at `open_pos`."""
    items_end = None
    last_sep = open_pos + 1
    last_assign = None
    for p, ch, depth in _tokens(text, open_pos + 1, len(text)):
        if depth == 0 and ch == ";":
            last_sep = p + 1
            last_assign = None
        elif depth == 0 and ch == "=" and not text.startswith("==", p) and not text.startswith("=>", p) and text[p - 1] not in "=!<>":
            last_assign = p
        elif depth == -1 and ch == "}":
            items_end = p
            break
    if items_end is None:
        return None
    start = last_sep
    if last_assign is not None:
        newline = text.find("\n", last_assign, items_end)
        if newline >= 0:
            # `%1 = e` on one line, the result on a later one (bindings without `;`)
            start = newline
    s, e = _trim(text, start, items_end)
    if e <= s:
        return None
    return Span(source, s, e)


def body_result_span(func: Function) -> Span | None:
    """Where the value a function returns is written."""
    body = func.body
    while isinstance(body, Let):
        body = body.body
    if func.span is not None and _own_span_inside(body, func.span):
        return body.span
    if func.span is None:
        return getattr(body, "span", None)
    text = func.span.source.text
    for p, ch, depth in _tokens(text, func.span.start, func.span.end):
        if ch == "{" and depth == 0:
            return _block_tail(text, p, func.span.source) or func.span
    return func.span


def branch_span(node: If, which: int) -> Span | None:
    """The result expression of the then (0) or else (1) block."""
    branch = node.then_branch if which == 0 else node.else_branch
    inner = branch
    while isinstance(inner, Let):
        inner = inner.body
    if node.span is not None and _own_span_inside(inner, node.span):
        return inner.span
    if node.span is None:
        return getattr(inner, "span", None)
    text = node.span.source.text
    blocks = [p for p, ch, depth in _tokens(text, node.span.start, node.span.end) if ch == "{" and depth == 0]
    if which < len(blocks):
        return _block_tail(text, blocks[which], node.span.source) or node.span
    return node.span


def annotation_span(var: Var) -> Span | None:
    ann = var.type_annotation
    span = getattr(ann, "span", None)
    if span is not None and not isinstance(ann, TypeVar):
        return var.span.to(span) if var.span is not None else span
    return var.span


def signature_span(func: Function) -> Span | None:
    """`def @f(%x : T, ...)` or `fn (%x, ...)`: the head of a definition, up to its parameters' `)`."""
    span = func.span
    if span is None:
        return None
    text = span.source.text
    open_at = text.find("(", span.start, span.end)
    if open_at < 0:
        return span
    depth = 0
    for i in range(open_at, span.end):
        ch = text[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0:
                return Span(span.source, span.start, i + 1)
    return span


def callee_span(node: Call) -> Span | None:
    op = node.op
    span = node.span
    if span is None:
        return None
    if getattr(op, "span", None) is not None and not isinstance(op, (Var, GlobalVar, Constructor)):
        s = op.span
        if s.start >= span.start and s.end <= span.end:
            return s

    m = re.match(r"[%@]?[A-Za-z0-9_.]+", span.source.text[span.start : span.end])
    return Span(span.source, span.start, span.start + m.end()) if m else span


def inside(node: Any, span: Span) -> bool:
    s = getattr(node, "span", None)
    return s is not None and not isinstance(node, (Var, GlobalVar, Constructor)) and span.start <= s.start and s.end <= span.end
