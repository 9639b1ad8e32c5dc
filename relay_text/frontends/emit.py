"""From a converted graph to a Relay module, its text and its weights.

    imported = Imported(builder, inputs, params, body, notes)
    imported.module(embed=False)   the IR module (`@main`)
    imported.text(dialect="tvm")   the text, in the formatter's normal form
    imported.weights()             {parameter name: array} for OUT.params.npz

Weights follow TVM's `mod, params` convention by default: every tensor the
model holds (initializers, constant tensors, folded values) is a parameter
of `@main` after the model's inputs, named after the ONNX (or PyTorch)
tensor it comes from, and `weights()` gives their values, keyed by those
names, so `relay run OUT.rly --args OUT.params.npz` runs the model. With
`embed=True` they are `meta[relay.Constant][i]` constants instead, in a
`#[metadata]` section at the end of the text, and `@main` takes only the
model's inputs. Scalars are always literals.

Each converted node is remembered beside the call that computes its
result, as a comment TVM-style printers would have put there:

    %3 = nn.conv2d(%2, %conv1.weight, ...) /* conv1: Conv */;

The text is printed in TVM's 0.0.5 format (or converted to the documented
syntax by the formatter), so it is what `relay fmt` would write: `relay
fmt --check` leaves it alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.expr import Call, Constant, Expr, Function, GlobalVar, Var
from ..ir.module import Metadata, Module
from ..ir.span import Source, Span
from ..ir.visitor import ExprMutator, post_order
from .builder import Builder

TVM = "tvm"
DOCS = "docs"


class Imported:
    """A converted model (see the module docstring)."""

    def __init__(
        self,
        builder: Builder,
        inputs: list[Var],
        params: list[Var],
        body: Expr,
        notes: dict[Expr, str],
        names: Any,
        origins: dict[Expr, str] | None = None,
        source_names: dict[Var, str] | None = None,
    ) -> None:
        self.builder = builder
        self.inputs = inputs
        self.params = params  # parameters with values (initializers)
        self.body = body
        self.notes = notes
        self.names = names  # a Names allocator (fresh parameter names)
        self.origins = origins or {}
        self.source_names = source_names or {}  # Relay parameter -> the model's own name
        self._built: dict[bool, tuple[Module, dict[str, np.ndarray], dict[Expr, str]]] = {}

    # ---------------------------------------------------------------- the module

    def module(self, embed: bool = False) -> Module:
        return self._build(embed)[0]

    def weights(self, embed: bool = False) -> dict[str, np.ndarray]:
        """Parameter name -> value, for every parameter that is not an input."""
        return dict(self._build(embed)[1])

    def _build(self, embed: bool) -> tuple[Module, dict[str, np.ndarray], dict[Expr, str]]:
        got = self._built.get(embed)
        if got is not None:
            return got
        b = self.builder
        used = set(post_order(self.body))
        constants = [c for c in b.arrays if c in used]
        params = [p for p in self.params if p in used]
        weights: dict[str, np.ndarray] = {}
        replace: dict[Expr, Expr] = {}
        meta: list[np.ndarray] = []
        for c in constants:
            small = inline_constant(b.arrays[c])
            if small is not None:
                replace[c] = small
        constants = [c for c in constants if c not in replace]
        for p in params:  # a scalar weight (an epsilon, a loop bound) is a literal too
            value = b.known[p]
            if value.ndim == 0:
                literal = (
                    _literal(value.item(), _dtype(value)) if _dtype(value) != "bfloat16" else inline_constant(value)
                )
                if literal is not None:
                    replace[p] = literal
        params = [p for p in params if p not in replace]
        if embed:
            kept = set(params) | set(constants)
            order = [n for n in post_order(self.body) if n in kept]
            for node in order:
                array = b.arrays[node] if isinstance(node, Constant) else b.known[node]
                replace[node] = Constant(None, _dtype(array), tuple(array.shape), meta_index=len(meta))
                meta.append(array)
            entry_params = list(self.inputs)
        else:
            entry_params = list(self.inputs) + params
            for p in params:
                weights[p.name] = b.known[p]
            for c in constants:
                name = self.names.fresh(self.origins.get(c, "const"))
                v = Var(name, b.types[c])
                replace[c] = v
                weights[name] = b.arrays[c]
                entry_params.append(v)
        mutator = _Replace(replace)
        body = mutator.visit(self.body)
        notes = {mutator.memo.get(k, k): v for k, v in self.notes.items()}
        ret = b.types.get(self.body)
        func = Function(tuple(entry_params), body, ret_type=ret)
        gv = GlobalVar("main")
        module = Module(functions={gv: func}, order=[gv], version="0.0.5")
        if embed and meta:
            from ..syntax.metadata import encode_metadata

            text = encode_metadata(meta)
            module.metadata = Metadata("\n" + text, Span(Source("<import>", ""), 0, 0))
        self._built[embed] = (module, weights, notes)
        return self._built[embed]

    # ---------------------------------------------------------------- text

    def text(self, dialect: str = TVM, embed: bool = False, width: int = 100) -> str:
        """The module as text in the formatter's normal form, node names as comments."""
        from ..printer.comments import Attached, Comments
        from ..printer.trivia import Note
        from ..printer.render import render_module

        module, _, notes = self._build(embed)
        comments = Comments()
        k = 0
        for node, label in notes.items():
            if isinstance(node, Call):
                comments.by_key[node] = Attached(
                    after=[Note(k, f"/* {_comment_safe(label)} */", own_line=False, line=False, blank_before=False)]
                )
                k += 1
        comments.count = k
        text = render_module(module, TVM, width, comments if k else None).text
        if dialect == DOCS:
            from ..formatter import format as format_text

            text = format_text(text, dialect=DOCS, line_length=width)
        return text


# Tensor constants of at most this many elements are written in the text
# (`full(...)` when every element is the same, else `stack((...))`).
INLINE_MAX = 16


def inline_constant(array: np.ndarray) -> Expr | None:
    """A small constant as an expression of literals, or None."""
    from ..ir.expr import Op, Tuple

    dtype = _dtype(array)
    if array.size > INLINE_MAX:
        return None
    if dtype == "bfloat16":  # no bfloat16 literals: float32 ones, cast (exactly)
        inner = inline_constant(array.astype(np.float32))
        return None if inner is None else Call(Op("cast"), (inner,), (("dtype", "bfloat16"),))
    shape = tuple(int(d) for d in array.shape)
    flat = array.reshape(-1)
    rows = flat.view(np.uint8).reshape(flat.size, -1) if flat.size else flat
    if flat.size == 0 or bool((rows == rows[0]).all()):
        fill = flat[0].item() if flat.size else 0
        return Call(Op("full"), (_literal(fill, dtype),), (("shape", shape), ("dtype", dtype)))
    stacked: Expr = Call(Op("stack"), (Tuple(tuple(_literal(v.item(), dtype) for v in flat)),), (("axis", 0),))
    if array.ndim != 1:
        stacked = Call(Op("reshape"), (stacked,), (("newshape", shape),))
    return stacked


def _literal(value: Any, dtype: str) -> Constant:
    if dtype == "bool":
        value = bool(value)
    elif dtype.startswith(("int", "uint")):
        value = int(value)
    else:
        value = float(value)
    return Constant(value, dtype, ())


class _Replace(ExprMutator):
    def __init__(self, replace: dict[Expr, Expr]) -> None:
        super().__init__()
        self.replace = replace

    def visit_constant(self, node: Expr) -> Expr:
        return self.replace.get(node, node)

    def visit_var(self, node: Expr) -> Expr:
        return self.replace.get(node, node)


def _dtype(array: np.ndarray) -> str:
    from .builder import dtype_name

    return dtype_name(array.dtype)


def _comment_safe(text: str) -> str:
    """A name as it can stand inside `/* */` (which nest in Relay)."""
    return text.replace("/*", "/ *").replace("*/", "* /").replace("\n", " ")
