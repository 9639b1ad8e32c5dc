"""`relay export`: a checked program's entry point as an ONNX model.

    from relay_text.export import export_source
    exported = export_source(Source("m.rly", text), ExportRequest(random_consts=True))
    exported.model       # an onnx.ModelProto, or None with exported.diagnostics

The export works on the checked module: the checker's types give every
value's shape and dtype. Operators are converted by the table of
`convert/` (one module per family); `unsupported.py` lists the operators
that have no ONNX equivalent, with the reason. `engine.py` runs an exported
model on onnxruntime for `relay run --engine onnxruntime`. Needs the `onnx`
extra (`pip install 'relay-text[onnx]'`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, codes
from ..ir.span import Source


class MissingOnnx(Exception):
    """The `onnx` package is not installed."""


def require_onnx() -> None:
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise MissingOnnx("`relay export` needs the onnx package: pip install 'relay-text[onnx]'") from None


@dataclass
class ExportRequest:
    entry: str | None = None
    args_file: str | None = None  # --args PARAMS.npz: parameters with values become initializers
    random_consts: bool = False
    seed: int = 0
    opset: int | None = None
    use_prelude: bool = True
    warnings_as_errors: bool = False
    functions: bool = False  # global functions as ONNX local functions, not inlined
    # where the weights go when they do not stay in the model (see weights.BesideModel)
    weights: Any = None


@dataclass
class Exported:
    source: Source
    diagnostics: list[Diagnostic] = field(default_factory=list)
    model: Any = None

    @property
    def ok(self) -> bool:
        return self.model is not None

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)


def export_source(source: Source, request: ExportRequest | None = None) -> Exported:
    """Check `source`, then export its entry point (see `model.export_model`)."""
    from ..pipeline import check_source

    request = request or ExportRequest()
    checked = check_source(source, use_prelude=request.use_prelude)
    out = Exported(source, list(checked.diagnostics))
    if request.warnings_as_errors:
        from ..suppress import warnings_as_errors

        out.diagnostics = warnings_as_errors(out.diagnostics)
    if checked.module is None or any(d.is_error for d in out.diagnostics):
        return out
    try:
        out.model = export_checked(checked.module, checked.result, request)
    except _Failed as exc:
        out.diagnostics.extend(exc.diagnostics)
    return out


class _Failed(Exception):
    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("export failed")
        self.diagnostics = diagnostics


def export_checked(module: Any, result: Any, request: ExportRequest) -> Any:
    """The ONNX model of a checked module; raises `_Failed` with diagnostics."""
    from ..eval.args import ArgumentError, TypeDefs, describe_mismatch, load_npz
    from ..eval.entry import RunFailed, constant_values, find_entry
    from ..eval.plausible import roles
    from ..text.type_text import type_text
    from .lower import ExportError
    from .model import MIN_OPSET, export_model, max_opset

    opset = request.opset
    if opset is not None and not MIN_OPSET <= opset <= max_opset():
        raise _Failed(
            [
                Diagnostic(
                    codes.BAD_ARGUMENT,
                    f"--opset {opset} is outside the opsets the exporter writes ({MIN_OPSET} to {max_opset()})",
                    None,
                )
            ]
        )
    try:
        entry = find_entry(module, request.entry)
        defs = TypeDefs(module, None)
        type_of = result.types.get
        found = roles(module, type_of) if request.random_consts else {}
        constants = constant_values(module, result.meta_types, defs, found, request.random_consts, request.seed)
    except RunFailed as exc:
        raise _Failed(exc.diagnostics) from None
    bound: dict[str, Any] = {}
    if request.args_file is not None:
        try:
            arrays = load_npz(request.args_file)
        except ArgumentError as exc:
            raise _Failed([Diagnostic(codes.BAD_ARGUMENT, str(exc), None)]) from None
        params = {p.name: p for p in entry.params}
        diags = []
        for key, array in arrays.items():
            p = params.get(key)
            if p is None:
                names = ", ".join(f"%{n}" for n in params) or "none"
                diags.append(
                    Diagnostic(
                        codes.BAD_ARGUMENT,
                        f"{request.args_file} has an array named `{key}`, but `{entry.key}` has no parameter `%{key}`",
                        entry.span,
                    ).with_note(f"its parameters are: {names}")
                )
                continue
            ty = p.type_annotation if p.type_annotation is not None else result.types.get(p)
            problem = describe_mismatch(array, ty, defs, {})
            if problem is not None:
                diags.append(
                    Diagnostic(
                        codes.BAD_ARGUMENT,
                        f"argument `{key}` (from {request.args_file}) does not fit parameter `%{key} : "
                        f"{type_text(ty)}`: {problem}",
                        p.span,
                        label="this parameter",
                    )
                )
                continue
            bound[key] = array
        if diags:
            raise _Failed(diags)
    try:
        return export_model(
            module, result, entry, constants, bound, opset, functions=request.functions, weights=request.weights
        )
    except ExportError as exc:
        raise _Failed(exc.diagnostics) from None
    finally:
        # the values are in the model now: the exporter's objects refer to
        # each other, so without this they would wait for the collector
        constants.clear()
        bound.clear()
