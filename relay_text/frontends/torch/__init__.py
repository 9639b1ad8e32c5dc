"""PyTorch programs in, as Relay: `torch.export` programs of ATen operators.

    from relay_text.frontends.torch import from_torch
    imported = from_torch(model.eval(), (torch.randn(1, 3, 224, 224),))
    imported.text(), imported.weights()

    relay import model.pt2          (a program saved by torch.export.save)

The converters (`table.py`; one module per family) cover the ATen operators
of torchvision-style CNNs, recurrent networks (LSTM, GRU, RNN) and
transformer blocks (layer norm, scaled dot-product attention, GELU), at
the level `torch.export` gives them; a program calling others is
decomposed to core ATen first. Parameters and buffers become `@main`'s
weights under their state-dict names (`conv1.weight`).

Needs PyTorch (`pip install 'relay-text[torch]'`).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import Diagnostic, codes
from ..emit import Imported
from ..errors import ImportFailure
from .graph import Importer

__all__ = ["ImportFailure", "from_exported", "from_pt2", "from_torch"]


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise ImportFailure(
            [
                Diagnostic(codes.IMPORT_INVALID, "importing PyTorch programs needs PyTorch", None).with_help(
                    "pip install 'relay-text[torch]'"
                )
            ]
        ) from None
    return torch


def from_exported(
    program: Any, input_shapes: dict[str, tuple[int, ...]] | None = None, name: str = "<program>"
) -> Imported:
    """Convert a `torch.export.ExportedProgram`."""
    importer = Importer(program, name, input_shapes)
    body = importer.run()
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


def from_torch(
    module: Any, example_inputs: tuple[Any, ...], input_shapes: dict[str, tuple[int, ...]] | None = None
) -> Imported:
    """Export `module` with `example_inputs` (torch.export.export) and convert
    the program; put the module in eval mode first for inference."""
    torch = _torch()
    program = torch.export.export(module, tuple(example_inputs))
    return from_exported(program, input_shapes, name=f"<{type(module).__name__}>")


def _load(path: str) -> Any:
    import logging

    torch = _torch()
    quiet = logging.getLogger("torch.export")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # torch logs a traceback before raising; the diagnostic says it
    try:
        program = torch.export.load(path)
    except FileNotFoundError:
        raise ImportFailure([Diagnostic(codes.IMPORT_INVALID, f"{path}: no such file", None)]) from None
    except Exception as exc:
        raise ImportFailure(
            [
                Diagnostic(
                    codes.IMPORT_INVALID, f"{path}: not a torch.export program ({type(exc).__name__}: {exc})", None
                )
            ]
        ) from None
    finally:
        quiet.setLevel(level)
    return program


def from_pt2(path: str, input_shapes: dict[str, tuple[int, ...]] | None = None) -> Imported:
    """Convert a program saved with `torch.export.save` (a `.pt2` file)."""
    return from_exported(_load(path), input_shapes, name=path)


def listing_of(path: str) -> str:
    """The node listing of a saved program (what diagnostics point into)."""
    from .graph import Listing

    return Listing(path, _load(path).graph).source.text
