"""ONNX's backend interface, implemented by importing to Relay and evaluating.

    import relay_text.onnx_backend as backend
    rep = backend.prepare(model)          # a ModelProto
    outputs = rep.run([x, y])             # numpy arrays, in the graph's output order
    backend.run_model(model, [x, y])

so that ONNX's own test suites run against relay-text unchanged
(`onnx.backend.test.BackendTest(relay_text.onnx_backend, __name__)`).

`prepare` checks that every operator of the model has a converter at the
model's opset (else `NotImplementedError` carrying the diagnostics, the
exception ONNX's runner expects from a backend that lacks an operator).
The model is imported when it is run, specialised to the shapes of the
inputs it is given (and to the lengths of input sequences), as TVM's own
tests of its ONNX importer did; each distinct set of input shapes is
imported and compiled once. Small inputs (at most 64 elements: axes,
shapes, repeat counts, `k` of TopK, the scales of Resize) are specialised
on too: the
importer may use their values as it would use an initializer's (they
stay parameters of the program, which is then imported again for other
values). Evaluation is relay-text's evaluator (numpy).

Needs the `onnx` package (`pip install 'relay-text[onnx]'`).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Sequence

import numpy as np
from onnx.backend.base import Backend, BackendRep

from .frontends.errors import ImportFailure

# Inputs of at most this many elements (axes, shapes, counts, scales) are
# specialised on: the import may use their values (see the module docstring).
SPECIALISED_SIZE = 64

__all__ = ["RelayBackend", "RelayRep", "Unsupported", "prepare", "run_model", "run_node", "supports_device"]


class Unsupported(NotImplementedError):
    """The model uses what cannot be imported; `.diagnostics` say what and where."""

    def __init__(self, diagnostics: list[Any]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics) or "unsupported")
        self.diagnostics = diagnostics


class RelayRep(BackendRep):
    """A prepared model: imported and compiled per set of input shapes."""

    def __init__(self, model: Any, check_only: bool = False) -> None:
        self.model = model
        graph = model.graph
        init = {t.name for t in graph.initializer} | {t.values.name for t in graph.sparse_initializer}
        self.input_infos = [vi for vi in graph.input if vi.name not in init]
        self._programs: dict[Any, Any] = {}
        if not check_only:
            from .frontends.onnx.graph import Importer, Options

            try:
                Importer(model, "<model>", Options())._check_operators(graph)
            except ImportFailure as exc:
                raise Unsupported(exc.diagnostics) from None

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if isinstance(inputs, dict):
            values = [inputs[vi.name] for vi in self.input_infos]
        elif isinstance(inputs, (list, tuple)):
            values = list(inputs)
        else:
            values = [inputs]
        values = [_array(v) for v in values]
        key, options = self._signature(values)
        program = self._programs.get(key)
        if program is None:
            program = self._programs[key] = self._import(options)
        imported, module, names = program
        args: list[Any] = []
        for vi, value in zip(self.input_infos, values, strict=False):
            if vi.name not in names:
                continue  # an input the outputs do not depend on, or an empty optional
            if isinstance(value, list):
                args.append(tuple(np.asarray(v) for v in value))
            else:
                args.append(np.asarray(value))
        weights = imported.weights()
        main = module.functions[module.global_var("main")]
        args += [weights[p.name] for p in main.params[len(args) :]]
        from . import run as run_relay

        result = run_relay(module, *args, prelude=False)
        outputs = self.model.graph.output
        if len(outputs) == 1:
            result = (result,)
        return tuple(_output(r) for r in result)

    def _signature(self, values: Sequence[Any]) -> tuple[Any, Any]:
        from .frontends.builder import dtype_name
        from .frontends.onnx.graph import Options
        from .ir.ty import TensorType

        opts = Options()
        key: list[Any] = []
        for vi, value in zip(self.input_infos, values, strict=False):
            kind = vi.type.WhichOneof("value")
            if kind == "optional_type":
                opts.optional_present[vi.name] = value is not None
            if isinstance(value, list) or (kind == "sequence_type" and value is not None):
                arrays = [np.asarray(v) for v in value]
                opts.sequence_types[vi.name] = [TensorType(tuple(a.shape), dtype_name(a.dtype)) for a in arrays]
                key.append(("seq", tuple((a.shape, a.dtype.str) for a in arrays)))
            elif kind == "optional_type":
                present = value is not None
                if present:
                    opts.input_shapes[vi.name] = tuple(np.asarray(value).shape)
                key.append(("opt", present, np.asarray(value).shape if present else None))
            else:
                array = np.asarray(value)
                opts.input_shapes[vi.name] = tuple(array.shape)
                if array.dtype.kind in "iufb" and array.size <= SPECIALISED_SIZE:
                    opts.known_inputs[vi.name] = array
                    key.append((array.shape, array.dtype.str, array.tobytes()))
                else:
                    key.append((array.shape, array.dtype.str))
        return tuple(key), opts

    def _import(self, options: Any) -> Any:
        from .frontends.onnx import from_onnx

        try:
            imported = from_onnx(self.model, options=options)
        except ImportFailure as exc:
            raise Unsupported(exc.diagnostics) from None
        module = imported.module()
        names = set(imported.source_names.get(v) for v in imported.inputs)
        return imported, module, names


def _array(value: Any) -> Any:
    """A TensorProto (as ONNX's test data may hold) as an array; lists stay lists."""
    import onnx

    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    if isinstance(value, list):
        return [_array(v) for v in value]
    return value


def _output(value: Any) -> Any:
    if isinstance(value, tuple):
        return [np.asarray(v) for v in value]
    return np.asarray(value)


class RelayBackend(Backend):
    """ONNX's `Backend` for relay-text (CPU only)."""

    @classmethod
    def is_compatible(cls, model: Any, device: str = "CPU", **kwargs: Any) -> bool:
        try:
            RelayRep(model)
        except Unsupported:
            return False
        return True

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> RelayRep:
        # (ONNX's base class would run onnx.checker, which refuses models that
        # onnxruntime runs, such as outputs declared without a shape; the
        # import checks what it relies on, and says where)
        return RelayRep(model)

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls, node: Any, inputs: Any, device: str = "CPU", outputs_info: Any = None, **kwargs: Any
    ) -> tuple[Any, ...]:
        import onnx
        from onnx import helper

        values = list(inputs.values()) if isinstance(inputs, dict) else list(inputs)
        names = [n for n in node.input if n]
        ins = [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.asarray(v).dtype), np.asarray(v).shape)
            for n, v in zip(names, values, strict=False)
        ]
        outs = [helper.make_empty_tensor_value_info(n) for n in node.output if n]
        graph = helper.make_graph([node], "node", ins, outs)
        opset = kwargs.get("opset_version", onnx.defs.onnx_opset_version())
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        return cls.run_model(model, values, device)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device.upper().startswith("CPU")


prepare = RelayBackend.prepare
run_model = RelayBackend.run_model
run_node = RelayBackend.run_node
supports_device = RelayBackend.supports_device
is_compatible = RelayBackend.is_compatible
