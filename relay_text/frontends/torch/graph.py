"""Walking a `torch.export` program: its placeholders (parameters, buffers,
constants, user inputs), its ATen calls in order, its output.

The program is taken as `torch.export.export` gives it (ATen operators at
the level of `conv2d`, `linear`, `layer_norm`, `lstm`, ...). When it calls
an operator that has no converter, the program is decomposed to core ATen
(`ExportedProgram.run_decompositions()`) and walked again; only what is
still unsupported then is reported, at the node, in the program's listing
(one line per node, as torch.fx prints it).

Each converter gets its node's arguments by name (the operator's schema
fills in defaults), tensors as IR expressions and everything else as the
Python values the graph holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...diagnostics import Diagnostic, codes
from ...ir.expr import Call, Expr
from ...ir.span import Source, Span
from ...ir.ty import AnyDim, TensorType
from ..builder import Unsupported
from ..errors import ImportFailure
from ..onnx.graph import Names, OnnxBuilder
from . import table

DTYPES = {
    "torch.float32": "float32",
    "torch.float64": "float64",
    "torch.float16": "float16",
    "torch.bfloat16": "bfloat16",
    "torch.int8": "int8",
    "torch.int16": "int16",
    "torch.int32": "int32",
    "torch.int64": "int64",
    "torch.uint8": "uint8",
    "torch.bool": "bool",
}


def dtype_of(torch_dtype: Any) -> str:
    name = DTYPES.get(str(torch_dtype))
    if name is None:
        raise Unsupported(f"tensors of `{torch_dtype}` have no Relay dtype")
    return name


def op_name(target: Any) -> str:
    """`aten.conv2d.default` for an operator overload; `getitem`, `mul`, ...
    for Python's operators (on a node with several results, on sizes)."""
    if getattr(target, "__module__", None) in ("_operator", "operator"):
        return str(target.__name__)
    return str(target)


class Listing:
    """The program's nodes, one per line (what diagnostics point into)."""

    def __init__(self, name: str, graph: Any) -> None:
        lines = []
        self.spots: dict[Any, tuple[int, int]] = {}
        offset = 0
        for node in graph.nodes:
            text = node.format_node() or f"{node.op} {node.name}"
            text = " ".join(text.split())
            target = op_name(node.target) if node.op == "call_function" else ""
            at = text.find(target) if target else -1
            start = offset + (at if at >= 0 else 0)
            self.spots[node] = (start, start + (len(target) if at >= 0 else len(text)))
            lines.append(text)
            offset += len(text) + 1
        self.source = Source(name, "".join(line + "\n" for line in lines))

    def span(self, node: Any) -> Span | None:
        spot = self.spots.get(node)
        return Span(self.source, *spot) if spot else None


class Importer:
    """Converts one exported program (see the module docstring)."""

    def __init__(self, program: Any, source_name: str, input_shapes: dict[str, tuple[int, ...]] | None = None) -> None:
        self.program = program
        self.source_name = source_name
        self.input_shapes = input_shapes or {}
        self.b = OnnxBuilder()
        self.names = Names()
        self.notes: dict[Expr, str] = {}
        self.inputs: list[Any] = []
        self.params: list[Any] = []
        self.input_names: dict[Any, str] = {}

    def run(self) -> Expr:
        program = self.program
        missing = self._unsupported(program)
        if missing:
            program = program.run_decompositions()
            missing = self._unsupported(program)
            if missing:
                listing = Listing(self.source_name, program.graph)
                raise ImportFailure(
                    [
                        self._diagnostic(listing, node, f"the ATen operator `{op_name(node.target)}` is not supported")
                        for node in missing
                    ]
                )
        self.program = program
        self.listing = Listing(self.source_name, program.graph)
        return self._walk(program)

    def _unsupported(self, program: Any) -> list[Any]:
        seen, out = set(), []
        for node in program.graph.nodes:
            if node.op == "call_function":
                name = op_name(node.target)
                if table.lookup(name) is None and name not in seen:
                    seen.add(name)
                    out.append(node)
        return out

    def _diagnostic(self, listing: Listing, node: Any, message: str, notes: list[str] | None = None) -> Diagnostic:
        where = f"node `{node.name}` ({op_name(node.target)})"
        diag = Diagnostic(codes.IMPORT_UNSUPPORTED, message, listing.span(node), label=where)
        for n in notes or []:
            diag.with_note(n)
        return diag

    def _walk(self, program: Any) -> Expr:
        b = self.b
        sig = program.graph_signature
        params = {**sig.inputs_to_parameters, **sig.inputs_to_buffers}
        lifted = getattr(sig, "inputs_to_lifted_tensor_constants", {})
        state = program.state_dict
        constants = getattr(program, "constants", {})
        user = set(sig.user_inputs)
        env: dict[Any, Any] = {}
        outputs: Any = None
        for node in program.graph.nodes:
            if node.op == "placeholder":
                if node.name in params or node.name in lifted:
                    key = params.get(node.name) or lifted[node.name]
                    tensor = state[key] if key in state else constants[key]
                    array = _array(tensor)
                    v = b.var(self.names.fresh(key), TensorType(tuple(array.shape), _dtype(array)), value=array)
                    self.params.append(v)
                    self.input_names[v] = key
                    env[node] = v
                elif node.name in user:
                    env[node] = self._user_input(node)
                else:
                    raise ImportFailure(
                        [
                            Diagnostic(
                                codes.IMPORT_UNSUPPORTED,
                                f"the program input `{node.name}` is neither a tensor input nor a weight",
                                None,
                            )
                        ]
                    )
            elif node.op == "call_function":
                env[node] = self._call(node, env)
            elif node.op == "output":
                outputs = _lookup(node.args[0], env)
            elif node.op == "get_attr":
                array = _array(getattr(program.graph_module, node.target))
                b.origin = node.name
                env[node] = b.const(array)
        if isinstance(outputs, (list, tuple)):
            flat = [o for o in outputs if o is not None]
            return flat[0] if len(flat) == 1 else b.tuple(flat)
        result: Expr = outputs  # (an expression the converters made)
        return result

    def _user_input(self, node: Any) -> Any:
        val = node.meta.get("val")
        if val is None or not hasattr(val, "shape"):
            raise ImportFailure(
                [Diagnostic(codes.IMPORT_UNSUPPORTED, f"the program input `{node.name}` is not a tensor", None)]
            )
        try:
            dtype = dtype_of(val.dtype)
        except Unsupported as exc:
            raise ImportFailure(
                [Diagnostic(codes.IMPORT_UNSUPPORTED, f"the program input `{node.name}`: {exc.message}", None)]
            ) from None
        given = self.input_shapes.get(node.name)
        dims = [int(d) if _static(d) else None for d in val.shape]
        if given is not None:
            if len(given) != len(dims):
                raise ImportFailure(
                    [
                        Diagnostic(
                            codes.IMPORT_UNSUPPORTED,
                            f"`--input-shape {node.name}`: the input has {len(dims)} dimensions, {len(given)} were "
                            "given",
                            None,
                        )
                    ],
                    usage=True,
                )
            dims = list(given)
        v = self.b.var(
            self.names.fresh(node.name), TensorType(tuple(AnyDim() if d is None else d for d in dims), dtype)
        )
        self.inputs.append(v)
        self.input_names[v] = node.name
        return v

    def _call(self, node: Any, env: dict[Any, Any]) -> Any:
        name = op_name(node.target)
        entry = table.lookup(name)
        assert entry is not None
        b = self.b
        b.origin = node.name
        args = _arguments(node, env)
        try:
            result = entry(Ctx(self, node), args)
        except Unsupported as exc:
            raise ImportFailure([self._diagnostic(self.listing, node, exc.message, exc.notes)]) from None
        if isinstance(result, Call) and result not in self.notes:
            stack = node.meta.get("nn_module_stack") or {}
            where = list(stack.values())[-1][0] if stack else ""
            short = name.removeprefix("aten.").removesuffix(".default")
            self.notes[result] = f"{where + ': ' if where else ''}{short}"
        return result


class Ctx:
    """What a converter is given besides its arguments."""

    def __init__(self, importer: Importer, node: Any) -> None:
        self.importer = importer
        self.b = importer.b
        self.node = node

    def out_dtype(self, index: int | None = None) -> str:
        """The dtype PyTorch gives the node's result (its type promotion)."""
        val = self.node.meta.get("val")
        if isinstance(val, (list, tuple)):
            val = val[index or 0]
        return dtype_of(val.dtype)

    def out_shape(self) -> tuple[int | None, ...]:
        val = self.node.meta.get("val")
        return tuple(int(d) if _static(d) else None for d in val.shape)


def _arguments(node: Any, env: dict[Any, Any]) -> dict[str, Any]:
    """The node's arguments by name, with the schema's defaults."""
    args = [_lookup(a, env) for a in node.args]
    kwargs = {k: _lookup(v, env) for k, v in node.kwargs.items()}
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return {"args": args, **kwargs}
    out: dict[str, Any] = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(args) and not arg.kwarg_only:
            out[arg.name] = args[i]
        elif arg.name in kwargs:
            out[arg.name] = kwargs[arg.name]
        elif arg.has_default_value():
            out[arg.name] = arg.default_value
        else:
            out[arg.name] = None
    return out


def _lookup(value: Any, env: dict[Any, Any]) -> Any:
    if isinstance(value, (list, tuple)):
        return type(value)(_lookup(v, env) for v in value)
    if hasattr(value, "op") and hasattr(value, "target") and value in env:
        return env[value]
    return value


def _static(d: Any) -> bool:
    try:
        int(d)
    except Exception:
        return False
    return not hasattr(d, "node")


def _array(tensor: Any) -> np.ndarray:
    t = tensor.detach().cpu()
    if str(t.dtype) == "torch.bfloat16":
        import ml_dtypes

        return np.asarray(t.view(__import__("torch").int16).numpy().view(ml_dtypes.bfloat16))
    return np.asarray(t.numpy().copy())


def _dtype(array: np.ndarray) -> str:
    from ..builder import dtype_name

    return dtype_name(array.dtype)
