"""Global functions as ONNX local functions (`relay export --functions`).

Instead of inlining a call of a global function, the exporter can write
the function once as a `FunctionProto` of the model (domain
`relay_text.functions`) and call it with a node of that name. ONNX
functions carry no types, but the converters bake static shapes into the
nodes they write (a reshape's target, a slice's bounds), so a function is
written once per signature: per distinct list of argument types (a
polymorphic function called at two shapes becomes `f` and `f_1`). A
function has no initializers: its constants are `Constant` nodes. Calls
the form does not fit are inlined as without the option: calls passing or
returning functions, and recursive functions (loops).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .lower import Subst

from typing import Any, TypeAlias

import numpy as np

from ..ir.expr import Call, Function, GlobalVar
from ..ir.visitor import Delegate
from .graph import Graph, concrete
from .values import Tensor, flatten, rebuild

DOMAIN = "relay_text.functions"


# A call's argument types, flattened: (dtype, dimensions) per tensor.
Signature: TypeAlias = tuple[tuple[str, tuple[str, ...]], ...]
# A local function: the global function and the signature it is written for.
FunctionKey: TypeAlias = tuple[GlobalVar, Signature]


class FunctionGraph(Graph):
    """The body of a local function: its own names, constants as nodes."""

    def constant(self, value: Any, dtype: str | None = None, hint: str = "c") -> str:
        from onnx import numpy_helper

        array = np.asarray(value, dtype=dtype) if dtype is not None else np.asarray(value)
        key = None
        if array.size <= 16:
            key = (array.dtype.str, array.shape, array.tobytes())
            found = self._constants.get(key)
            if found is not None:
                return found
        name = self.fresh(hint)
        if array.dtype.name == "bfloat16":
            tensor = self.helper.make_tensor(name, 16, array.shape, array.view(np.uint16).tobytes(), raw=True)
        else:
            tensor = numpy_helper.from_array(np.array(array, order="C"), name)
        self.nodes.append(self.helper.make_node("Constant", [], [name], value=tensor))
        if key is not None:
            self._constants[key] = name
        return name

    def function(self, fname: str) -> Any:
        """The FunctionProto of this body."""
        return self.helper.make_function(
            DOMAIN,
            fname,
            [v.name for v in self.inputs],
            [v.name for v in self.outputs],
            self.nodes,
            [self.helper.make_opsetid("", self.opset), self.helper.make_opsetid(DOMAIN, 1)],
        )


class Functions:
    """The local functions of one export, by (global, signature)."""

    def __init__(self) -> None:
        self.protos: list[Any] = []
        self.names: dict[FunctionKey, str] = {}
        self.results: dict[FunctionKey, Any] = {}  # key -> the structure of the result (types of its tensors)
        self._used: set[str] = set()

    def fresh(self, base: str) -> str:
        name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in base) or "f"
        k = 0
        candidate = name
        while candidate in self._used:
            k += 1
            candidate = f"{name}_{k}"
        self._used.add(candidate)
        return candidate


def signature(args: list[Any]) -> Signature | None:
    """The argument types of a call, flattened; None if an argument is not
    all tensors of known type (then the call is inlined)."""
    out = []
    for a in args:
        for t in flatten(a):
            if not isinstance(t, Tensor) or not concrete(t.ty):
                return None
            out.append((str(t.ty.dtype), tuple(str(d) for d in t.ty.shape)))
    return tuple(out)


def call_function(
    lw: Any, node: Call, gv: GlobalVar, fn: Function, args: list[Any], subst: Subst, key: Signature
) -> Any:
    """A generator (run by the traversal): the call as a node calling the
    local function of `gv` at this signature, its body exported first if
    this is the signature's first call."""
    from .lower import Lowerer, unsupported

    ex = lw.ex
    functions: Functions = ex.functions
    fkey = (gv, key)
    if fkey not in functions.names:
        if gv in ex.inlining:
            raise unsupported(
                f"`@{gv.name}` calls itself through another function: ONNX graphs cannot recurse",
                node.span,
                "recursive call",
            )
        body = FunctionGraph(gv.name, opset=lw.graph.opset)
        inner = Lowerer(ex, body, Lowerer(ex, body), subst)
        for param, arg in zip(fn.params, args, strict=False):
            tensors = flatten(arg)
            names = []
            for i, t in enumerate(tensors):
                name = body.fresh(param.name if len(tensors) == 1 else f"{param.name}_{i}")
                body.add_input(name, t.ty)
                names.append(Tensor(name, t.ty))
            inner.bind(param, rebuild(arg, names))
        ex.inlining.add(gv)
        value = yield Delegate(inner, fn.body)
        ex.inlining.discard(gv)
        outs = flatten(value)
        if not all(isinstance(t, Tensor) for t in outs):
            raise unsupported(
                f"`@{gv.name}` returns a function: an ONNX function returns tensors", node.span, "a closure escapes"
            )
        for t in outs:
            body.add_output(body.node("Identity", [t.name]), t.ty)
        fname = functions.fresh(gv.name)
        functions.protos.append(body.function(fname))
        functions.names[fkey] = fname
        functions.results[fkey] = rebuild(value, [t.ty for t in outs])
    fname = functions.names[fkey]
    shape = functions.results[fkey]
    types = flatten(shape) if isinstance(shape, tuple) else [shape]
    inputs = [t.name for a in args for t in flatten(a)]
    outputs = [lw.graph.fresh(f"{fname}_result") for _ in types]
    lw.graph.multi_node(fname, inputs, outputs, domain=DOMAIN)
    results = []
    for n, ty in zip(outputs, types, strict=False):
        lw.graph.set_type(n, ty)
        results.append(Tensor(n, ty))
    return rebuild(shape, results)
