"""TVM's program transformations, text to text (`relay opt`).

Each pass is one module of this package, registered by name in
`registry` (`relay opt --list` prints them with their summaries); a pass
takes a module and gives a new one. `pipeline.optimize_source` runs a list
of them over a file, type-checking after each, and `output` prints the
result in the file's dialect. Passes are written over the traversal base of
`relay_text.ir.visitor`, so deep programs cost no recursion.

The evaluator's own rewrites (`FoldAffine`, `FoldConstant`,
`DenseWeightLayout`) are passes of this registry too: `relay run` applies
them to each function before compiling it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["all_passes", "get", "optimize_source"]


def __getattr__(name: str) -> Any:
    if name == "optimize_source":
        from .pipeline import optimize_source

        return optimize_source
    if name in ("all_passes", "get"):
        from . import registry

        return getattr(registry, name)
    raise AttributeError(name)
