"""ONNX models in, as Relay.

    from relay_text.frontends.onnx import from_onnx
    imported = from_onnx("model.onnx", input_shapes={"data": (1, 3, 224, 224)})
    text = imported.text()             # TVM 0.0.5 text, node names as comments
    weights = imported.weights()       # {parameter name: array}

Every operator TVM's ONNX importer converted is converted here, for the
opsets it handled, onto the registered operators (`relay_text.ops`) with
TVM's mapping and ONNX's semantics (`table.py` holds the converters by
operator and opset; one module per family: `ops_elementwise`, `ops_nn`,
...). Failures raise `ImportFailure` with located diagnostics.

Needs the `onnx` package (`pip install 'relay-text[onnx]'`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...diagnostics import Diagnostic, codes
from ..emit import Imported
from ..errors import ImportFailure
from .external import EXTERNAL_DIR
from .graph import Importer, Options

if TYPE_CHECKING:
    from onnx import ModelProto

__all__ = ["ImportFailure", "Imported", "Options", "from_onnx", "load_model"]


def load_model(path: str, mapped: bool = False) -> ModelProto:
    """Read an ONNX model file; ImportFailure if it cannot be read. With
    `mapped`, weights of 1 KiB or more are not read: they stay records of
    where they lie, in the file or beside it, and `from_onnx` maps them
    given the file's folder (see `mapped.py` and `external.py`)."""
    try:
        import onnx
    except ImportError:
        raise ImportFailure(
            [
                Diagnostic(codes.IMPORT_INVALID, "reading ONNX models needs the `onnx` package", None).with_help(
                    "pip install 'relay-text[onnx]'"
                )
            ]
        ) from None
    from .mapped import read_mapped

    try:
        if not mapped:
            model = onnx.load(path)
        else:
            # weights are mapped from the model's file (mapped.py) and from files beside it (external.py)
            records = read_mapped(path)
            model = onnx.load_model_from_string(records) if records else onnx.load(path, load_external_data=False)
    except FileNotFoundError:
        raise ImportFailure([Diagnostic(codes.IMPORT_INVALID, f"{path}: no such file", None)]) from None
    except IsADirectoryError:
        raise ImportFailure([Diagnostic(codes.IMPORT_INVALID, f"{path}: is a directory", None)]) from None
    except Exception as exc:
        raise ImportFailure(
            [Diagnostic(codes.IMPORT_INVALID, f"{path}: not an ONNX model ({type(exc).__name__}: {exc})", None)]
        ) from None
    return inline_functions(model)


def inline_functions(model: ModelProto) -> ModelProto:
    """The model with the calls of its local functions (`model.functions`,
    which `relay export --functions` writes) replaced by the functions'
    nodes; the model itself when it has none."""
    if not model.functions:
        return model
    from onnx import inliner

    try:
        return inliner.inline_local_functions(model)
    except Exception as exc:
        raise ImportFailure(
            [
                Diagnostic(
                    codes.IMPORT_INVALID,
                    f"the model's local functions cannot be inlined ({type(exc).__name__}: {exc})",
                    None,
                )
            ]
        ) from None


def from_onnx(
    model: ModelProto,
    input_shapes: dict[str, tuple[int, ...]] | None = None,
    *,
    freeze: bool = False,
    name: str | None = None,
    options: Options | None = None,
    folder: str | None = None,
) -> Imported:
    """Convert an ONNX model (a ModelProto, or the path of a file).

    `input_shapes` fixes the dimensions of inputs (by ONNX name) that the
    model leaves open; `freeze` makes initializers constants of the program
    instead of parameters. Calls of the model's local functions are
    inlined first. Weights kept in files beside the model (external data)
    are read from `folder`, by default the folder of `model` given as a
    path (see `external.py`)."""
    if isinstance(model, str):
        name = name or model
        folder = folder or os.path.dirname(os.path.abspath(model))
        model = load_model(model, mapped=True)
    model = inline_functions(model)
    opts = options or Options()
    if input_shapes:
        opts.input_shapes = {k: tuple(int(d) for d in v) for k, v in input_shapes.items()}
    opts.freeze = freeze or opts.freeze
    importer = Importer(model, name or "<model>", opts)
    token = EXTERNAL_DIR.set(folder)
    try:
        body = importer.run()
    finally:
        EXTERNAL_DIR.reset(token)
    return Imported(
        importer.b,
        importer.inputs,
        importer.params,
        body,
        importer.notes,
        importer.names,
        importer.b.origins,
        importer.input_names,
    )
