"""Building the IR while the parser reads: one callback per grammar rule.

The LALR driver (`lalr.py`) calls, on each reduction, the builder's method
named after the rule or its alias, bottom-up and without recursion, so a
deep program costs no Python stack. The callbacks live in layers, each a
module of `build/`, stacked on one shared state (`build/state.py`):

- `state`: the per-file state and the helpers every layer uses;
- `types`: type syntax, resolved once its use is known;
- `literals`: numbers, `Constant(...)`, `meta[...]`, attribute values;
- `patterns`: `match` clauses and patterns;
- `definitions`: the module, `def`, `fn`, parameters, data types;
- `bindings`: `let`, graph bindings, blocks and the uses of names;
- `expressions`: operators, calls, tuples, `if`, references.

A layer may call the layers below it. One `Builder` reads one file: make a
new one per parse (nothing is shared between parses, so threads parse at
the same time without a lock).
"""

from __future__ import annotations

from .build.expressions import BINARY_OPS, ExpressionRules
from .build.state import SUGGESTED_SITES, SUPPORTED_VERSIONS, Env
from .build.types import KINDS

__all__ = ["BINARY_OPS", "KINDS", "SUGGESTED_SITES", "SUPPORTED_VERSIONS", "Builder", "Env"]


class Builder(ExpressionRules):
    """The parser's callbacks for one file: `Builder(source, env, constructors, adts, version)`."""

    __slots__ = ()
