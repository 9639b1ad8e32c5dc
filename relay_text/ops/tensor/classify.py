"""`isnan`, `isinf`, `isfinite`: which elements are NaN, infinite, or neither.

TVM's relation (`IdentityCompRel`) takes a tensor of any dtype and gives a
bool tensor of its shape. Integer and bool elements are never NaN nor
infinite, so on those tensors `isnan` and `isinf` are all False and
`isfinite` all True, as TVM's lowering (src/tir/op/op.cc) decides from the
dtype alone.
"""

from __future__ import annotations

from typing import Any

from ...ir.ty import TensorType
from .._np import is_float, np, wrap
from ..registry import register
from ..relations import Relation, relation
from ..types import Args, Attrs, Value


@relation("IdentityCompRel", inputs=1)
def identity_comp(r: Relation) -> bool:
    """A tensor of any dtype; the result has its shape and dtype bool."""
    x = r.tensor(0)
    r.set_result(TensorType(x.shape, "bool"))
    return True


def _classify(name: str, fn: Any, on_integers: bool, doc: str) -> None:
    def kernel(args: Args, attrs: Attrs) -> Value:
        x = args[0]
        if is_float(x.dtype):
            return wrap(fn(x), "bool")
        return np.full(x.shape, on_integers, dtype=bool)

    kernel.__name__ = name
    register(name, inputs=1, relation=identity_comp, doc=doc)(kernel)


_classify("isnan", lambda x: np.isnan(x), False, "Elementwise test for NaN, as bool.")
_classify("isinf", lambda x: np.isinf(x), False, "Elementwise test for +inf or -inf, as bool.")
_classify("isfinite", lambda x: np.isfinite(x), True, "Elementwise test for a value neither NaN nor infinite, as bool.")
