"""`relay import MODEL`: a model file to Relay text (and its weights).

    relay import model.onnx                 -> model.rly + model.params.npz
    relay import model.onnx -o net.rly      -> net.rly + net.params.npz
    relay import model.onnx -o -            -> the text on standard output
    relay import model.onnx --embed-weights -> one file, weights in #[metadata]
    relay import model.pt2                  a torch.export program

The text is checked before anything is written: a model is either
imported to text that checks, or not written at all.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import click

from ..cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, Context, color_option, emit, guarded
from .errors import ImportFailure
from ..text.wording import counted


def _shape_option(values: tuple[str, ...]) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    for text in values:
        name, sep, dims = text.rpartition("=")
        if not sep or not name:
            raise click.BadParameter(
                f"expected NAME=D1,D2,... (such as data=1,3,224,224), got {text!r}", param_hint="--input-shape"
            )
        parts = dims.split(",") if dims.strip() else []
        try:
            shape = tuple(int(d) for d in parts)
        except ValueError:
            raise click.BadParameter(
                f"the dimensions of {name!r} must be whole numbers separated by commas, got {dims!r}",
                param_hint="--input-shape",
            ) from None
        if any(d < 0 for d in shape):
            raise click.BadParameter(
                f"the dimensions of {name!r} must not be negative, got {dims!r}", param_hint="--input-shape"
            )
        shapes[name] = shape
    return shapes


@click.command("import")
@click.argument("model", metavar="MODEL")
@click.option(
    "-o",
    "--output",
    "output",
    metavar="OUT.rly",
    help="Where to write the text (`-`: standard output)  [default: MODEL's name with .rly, here]",
)
@click.option(
    "--params", "params_path", metavar="FILE.npz", help="Where to write the weights  [default: OUT.params.npz]"
)
@click.option(
    "--embed-weights",
    is_flag=True,
    help="Put the weights in the text, as TVM's #[metadata] section, instead of a .npz file.",
)
@click.option(
    "--dialect",
    type=click.Choice(["tvm", "docs"]),
    default="tvm",
    show_default=True,
    help="TVM's 0.0.5 format, or the documented syntax.",
)
@click.option(
    "--input-shape",
    "input_shapes",
    multiple=True,
    metavar="NAME=D1,D2,...",
    help="Fix the shape of an input whose dimensions the model leaves open.",
)
@click.option(
    "--line-length",
    type=click.IntRange(min=20),
    default=100,
    show_default=True,
    help="Width of the text, as for relay fmt.",
)
@click.option(
    "--list-nodes", is_flag=True, help="Print the model's node listing (what diagnostics point into) and stop."
)
@color_option
@guarded
def import_command(
    model: str,
    output: str | None,
    params_path: str | None,
    embed_weights: bool,
    dialect: str,
    input_shapes: tuple[str, ...],
    line_length: int,
    list_nodes: bool,
    color: str | None,
) -> int:
    """Import an ONNX model (.onnx) or a torch.export program (.pt2) as Relay text."""
    ctx = Context([model], color)
    if not ctx.start():
        return EXIT_ERROR
    reporter = ctx.reporter
    shapes = _shape_option(input_shapes)
    if not os.path.exists(model):
        reporter.message(f"error: {model}: no such file", "bold red")
        return EXIT_ERROR
    kind = "torch" if model.endswith((".pt2", ".pt")) else "onnx"
    started = time.perf_counter()
    try:
        if kind == "onnx":
            from .onnx import from_onnx, load_model
            from .onnx.listing import Listing

            proto = load_model(model, mapped=True)
            if list_nodes:
                emit(Listing(model, proto).source.text)
                return EXIT_OK
            imported = from_onnx(proto, shapes, name=model, folder=os.path.dirname(os.path.abspath(model)))
        else:
            from .torch import from_pt2, listing_of

            if list_nodes:
                emit(listing_of(model))
                return EXIT_OK
            imported = from_pt2(model, shapes)
    except ImportFailure as exc:
        for d in exc.diagnostics:
            reporter.diagnostic(d)
        if exc.usage:
            return EXIT_ERROR
        count = len(exc.diagnostics)
        reporter.message(f"Could not import {model}: {count} problem{'s' if count != 1 else ''}", "bold red")
        return EXIT_FAIL
    text = imported.text(dialect, embed=embed_weights, width=line_length)
    weights = imported.weights(embed_weights)
    from .verify import verify_text

    problems = verify_text(text, imported, embed_weights)
    if problems:
        for d in problems:
            reporter.diagnostic(d)
        reporter.message(
            f"Nothing was written: the imported text of {model} does not check (a bug in relay-text's importer; "
            "please report it)",
            "bold red",
        )
        return EXIT_ERROR
    stem = os.path.splitext(os.path.basename(model))[0]
    out = output if output is not None else stem + ".rly"
    if params_path is None:
        base = out[:-4] if out.endswith(".rly") else out
        params_path = (stem if out == "-" else base) + ".params.npz"
    from ..writing import WriteRefused, write_output

    try:
        if weights:
            _save_npz(params_path, weights)
        if out == "-":
            emit(text)
        else:
            write_output(out, text.encode("utf-8"))
    except (OSError, WriteRefused) as exc:
        reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    elapsed = time.perf_counter() - started
    where = "standard output" if out == "-" else out
    size = sum(a.nbytes for a in weights.values())
    tail = f", weights in {params_path} ({counted(len(weights), 'tensor')}, {_bytes(size)})" if weights else ""
    reporter.message(f"Imported {model} -> {where}{tail} in {elapsed:.2f} s", "bold green")
    return EXIT_OK


def _save_npz(path: str, weights: dict[str, Any]) -> None:
    import numpy as np

    tmp = path + ".tmp.npz"
    np.savez(tmp, **weights)
    os.replace(tmp, path)


def _bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(import_command())
