"""A module after passes, as text: the printer's, in the file's dialect.

Passes make new nodes, so the source's comments no longer have a place to
stand and are not carried over (as TVM's passes drop them). Two kinds of
comment are written instead, as TVM's printer writes them:

* `/* ty=T */` after a `meta[relay.Constant][i]` whose value the file does
  not hold (a model dump without a `#[metadata]` section): the type the
  checker inferred for it, which the reader takes back as that constant's
  type, so the output checks on its own however its uses changed;
* with `InferType{comments=true}`, `/* ty=T */` after every call and
  projection, TVM style.

Constants that passes computed (`FoldConstant`) become new entries of the
`#[metadata]` section (a scalar is written as a literal instead).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..ir.expr import Call, Constant, Expr, TupleGetItem
from ..ir.module import Metadata, Module
from ..ir.span import Source, Span
from ..ir.visitor import post_order
from .context import PassContext, roots


def with_section(module: Module, ctx: PassContext) -> Module:
    """The module with a `#[metadata]` section holding the constants that
    passes added and the program still uses (unchanged if there are none).
    The added ones are numbered anew, in order, after the file's own: a
    value computed on the way to another (`(c + c) * 2`) takes no entry."""
    table = ctx.constants
    used = sorted(
        {
            n.meta_index
            for r in roots(module)
            for n in post_order(r)
            if type(n) is Constant and n.meta_index in table.added
        }
    )
    if not used:
        if module.metadata is not None and any(module.metadata is m for m in table.produced):
            return _replace(module, metadata=table.file_metadata)  # the computed ones are no longer used
        return module
    first = table.section_size
    renumber = {old: first + i for i, old in enumerate(used)}
    if any(old != new for old, new in renumber.items()):
        module = _renumbered(module, renumber)
        values = {new: table.values[old] for old, new in renumber.items()}
        for old in table.added:
            table.values.pop(old, None)
        table.values.update(values)
        table.added = set(values)
        table.highest = max(values)
        used = sorted(values)
    from ..syntax.metadata import decode_metadata, encode_metadata, encode_ndarray

    if module.metadata is None:
        count = max(used) + 1
        arrays = []
        for i in range(count):
            value = table.values.get(i)
            if value is None:  # an index the program no longer uses: a placeholder keeps the numbering
                import numpy as np

                value = np.zeros((), np.float32)
            arrays.append(value)
        text = encode_metadata(arrays)
    else:
        doc = json.loads(module.metadata.text)
        nodes = doc["nodes"]
        root = nodes[doc["root"]]
        keys = root.get("keys")
        if keys is None or "relay.Constant" not in keys:
            array_index = len(nodes)
            nodes.append({"type_key": "Array", "data": []})
            if keys is None:
                root.setdefault("data", []).extend([_string_node(nodes, "relay.Constant"), array_index])
            else:
                keys.append("relay.Constant")
                root["data"].append(array_index)
        else:
            array_index = root["data"][keys.index("relay.Constant")]
        array = nodes[array_index]
        items = array.setdefault("data", [])
        blobs = doc.setdefault("b64ndarrays", [])
        for index in range(len(items), max(used) + 1):
            value = table.values.get(index)
            if value is None:
                import numpy as np

                value = np.zeros((), np.float32)
            nodes.append(
                {"type_key": "relay.Constant", "attrs": {"_checked_type_": "0", "data": str(len(blobs)), "span": "0"}}
            )
            items.append(len(nodes) - 1)
            blobs.append(base64.b64encode(encode_ndarray(value)).decode("ascii"))
        text = json.dumps(doc, indent=2)
    text = "\n" + text + "\n"  # as the reader keeps it: from the end of `#[metadata]` to the end of the file
    source = Source("<metadata>", text)
    metadata = Metadata(text, Span(source, 0, len(text)), decode_metadata)
    table.produced.append(metadata)
    return _replace(module, metadata=metadata)


def _renumbered(module: Module, renumber: dict[int, int]) -> Module:
    from ..ir.visitor import ExprMutator
    from ._module import map_functions

    class Renumber(ExprMutator):
        def visit_constant(self, node: Expr) -> Expr:
            assert type(node) is Constant  # the functor dispatches on the node's class
            new = renumber.get(node.meta_index) if node.meta_index is not None else None
            if new is None:
                return node
            return Constant(node.value, node.dtype, node.shape, new, node.span, node.type_annotation)

    def convert(gv: Any, fn: Any) -> Any:
        return Renumber().visit(fn)

    return map_functions(module, convert)


def _string_node(nodes: list[dict[str, Any]], text: str) -> int:
    nodes.append({"type_key": "runtime.String", "repr_str": text})
    return len(nodes) - 1


def _replace(module: Module, **changes: Any) -> Module:
    fields: dict[str, Any] = {
        "functions": module.functions,
        "type_defs": module.type_defs,
        "order": module.order,
        "expr": module.expr,
        "free_vars": module.free_vars,
        "version": module.version,
        "header": module.header,
        "metadata": module.metadata,
        "comments": [],
        "source": None,
    }
    fields.update(changes)
    return Module(**fields)


def type_comments(module: Module, ctx: PassContext) -> Any:
    """The comments to print: types of constants without data, and with
    `InferType{comments=true}` the type of every call and projection."""
    from ..printer.comments import Attached, Comments
    from ..printer.trivia import Note
    from ..text.type_text import type_text

    dialect = "tvm" if module.version is not None else "docs"
    types = ctx.types(module)
    section = module.metadata.decoded()[0] if module.metadata is not None else None
    have = len(section.constants) if section is not None else 0
    comments = Comments()
    count = 0
    seen: set[int] = set()
    from ..ir.expr import Match

    # a clause's value: its comment goes after the clause's `,`, where the
    # reader puts it back (so that the text is the formatter's normal form)
    clause_bodies = {id(c.body) for r in roots(module) for n in post_order(r) if type(n) is Match for c in n.clauses}
    for root in roots(module):
        for node in post_order(root):
            if id(node) in seen:
                continue
            seen.add(id(node))
            wanted = False
            if type(node) is Constant:
                wanted = node.meta_index is not None and (node.meta_index >= have or ctx.type_comments)
            elif ctx.type_comments:
                wanted = type(node) in (Call, TupleGetItem)
            if not wanted:
                continue
            ty = types.get(node)
            if ty is None:
                continue
            note = Note(count, f"/* ty={type_text(ty, dialect)} */", own_line=False, line=False, blank_before=False)
            comments.by_key[node] = Attached(after_term=[note]) if id(node) in clause_bodies else Attached(after=[note])
            count += 1
    comments.count = count
    return comments


def render(module: Module, ctx: PassContext, dialect: str = "keep", width: int = 100) -> tuple[str, Module]:
    """The module as text (see the module docstring), and the module printed
    (with its new `#[metadata]` section); PrintError for what the dialect
    cannot write."""
    from ..printer.dialects import header_for
    from ..printer.render import render_module

    target = dialect if dialect != "keep" else ("tvm" if module.version is not None else "docs")
    module = with_section(module, ctx)
    comments = type_comments(module, ctx)
    header = header_for(module, target, keep=dialect == "keep")
    # TVM's dialect is written as TVM's printer wrote a pass's result: every
    # non-atomic operand bound to a `%n` first. The documented dialect nests
    # what is used once.
    return render_module(module, target, width, comments, header, bind_operands=target == "tvm").text, module


def rereads(module: Module, text: str, env: Any) -> str | None:
    """None when `text` reads back as `module` (up to bound names), else a
    description of what differs (a bug of the printer or of a pass)."""
    from ..diagnostics import has_errors
    from ..ir.alpha import alpha_equal_module
    from ..syntax.parser import parse_source

    again = parse_source(Source("<output>", text), env)
    if again.module is None or has_errors(again.diagnostics):
        first = next((d for d in again.diagnostics if d.is_error), None)
        return f"the output does not parse: {first}"
    if not alpha_equal_module(module, again.module):
        return "the output reads back as a different program"
    return None
