"""The `relay export` command (registered in `cli.STAGE_COMMANDS`)."""

from __future__ import annotations

import os
from typing import Any

import click

from ..text.wording import counted
from ..cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, Context, color_option, guarded, warnings_options


@click.command()
@click.argument("path")
@click.option("-o", "--output", "output_path", required=True, metavar="OUT.onnx", help="Where to write the ONNX model.")
@click.option(
    "--entry", metavar="@NAME", help="Function to export (default: the file's trailing expression, else @main)."
)
@click.option(
    "--opset",
    type=int,
    default=None,
    metavar="N",
    help="ONNX opset to write [default: 18, or the oldest that the program's operators need].",
)
@click.option(
    "--args",
    "args_file",
    metavar="FILE.npz",
    help="Values for parameters (weights): they become initializers, not inputs.",
)
@click.option(
    "--random-consts",
    is_flag=True,
    help="Fill meta[relay.Constant][i] that have no data with random values of their inferred types.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed for --random-consts (the values `relay run` uses with the same seed).",
)
@click.option(
    "--functions",
    is_flag=True,
    help="Write global functions as ONNX local functions (one per signature) instead of inlining their calls.",
)
@click.option(
    "--external-data",
    is_flag=True,
    help="Write the weights to OUT.onnx.data beside the model (done anyway when they take 2 GiB or more).",
)
@click.option("--no-prelude", is_flag=True, help="Do not load the Prelude.")
@warnings_options
@color_option
@guarded
def export(
    path: str,
    output_path: str,
    entry: str | None,
    opset: int | None,
    args_file: str | None,
    random_consts: bool,
    seed: int,
    functions: bool,
    external_data: bool,
    no_prelude: bool,
    warnings_as_errors: bool | None,
    warning_policy: str | None,
    color: str | None,
) -> int:
    """Type-check a Relay file and write its entry point as an ONNX model."""
    from ..files import InputError, read
    from ..ir.span import Source
    from . import ExportRequest, MissingOnnx, require_onnx
    from .weights import BesideModel, WeightsRefused

    ctx = Context([path], color)
    if not ctx.start():
        return EXIT_ERROR
    reporter = ctx.reporter
    try:
        require_onnx()
    except MissingOnnx as exc:
        reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    try:
        inp = read(path)
    except InputError as exc:
        reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    beside = BesideModel(output_path, always=external_data)
    problem = beside.problem() if external_data else None
    if problem is not None:
        reporter.message(f"error: {problem}", "bold red")
        return EXIT_ERROR
    request = ExportRequest(
        entry=entry,
        args_file=args_file,
        random_consts=random_consts,
        seed=seed,
        opset=opset,
        use_prelude=not no_prelude,
        functions=functions,
        warnings_as_errors=ctx.warnings_as_errors(warnings_as_errors, warning_policy),
        weights=beside.open,
    )
    try:
        return _export(ctx, Source(inp.name, inp.text), request, output_path, beside)
    except WeightsRefused as exc:
        reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    finally:
        beside.discard()


def _export(ctx: Context, source: Any, request: Any, output_path: str, beside: Any) -> int:
    """Export, check and write; the model is serialized once, and let go
    before it is checked (a model of a few GiB is held as little as can be)."""
    import onnx

    from ..eval.inplace import release_memory
    from ..limits import byte_text, resident
    from ..writing import WriteRefused, write_output
    from . import export_source
    from .weights import PROTOBUF_LIMIT

    reporter = ctx.reporter
    before = resident()
    exported = export_source(source, request)
    for diag in exported.diagnostics:
        reporter.diagnostic(diag)
    if not exported.ok:
        n = exported.errors
        reporter.message(f"Found {counted(n, 'error')}; nothing was exported", "bold red")
        return EXIT_FAIL
    model, exported.model = exported.model, None
    release_memory(before)  # the values the weights were made from (when they were large)
    graph = model.graph
    local = len(model.functions)
    summary = (
        f"wrote {output_path}: {counted(len(graph.node), 'node')}, {counted(len(graph.input), 'input')}, "
        f"{counted(len(graph.output), 'output')}, {counted(len(graph.initializer), 'initializer')}"
        + (f", {counted(local, 'local function')}" if local else "")
        + f" (opset {model.opset_import[0].version})"
    )
    size = model.ByteSize()  # (the weights written beside it are not in it)
    if size >= PROTOBUF_LIMIT:
        reporter.message(
            f"error: the model takes {byte_text(size)}: an ONNX model holds less than 2 GiB in one piece, "
            "and the weights inside its local functions cannot go to a file beside it "
            "(export without --functions)",
            "bold red",
        )
        return EXIT_ERROR
    if beside.file is not None:
        data = beside.commit(model)
        if beside.file.tensors:
            summary += f"; {counted(beside.file.tensors, 'weight')} ({byte_text(beside.file.offset)}) in {beside.path}"
    else:
        data = model.SerializeToString()
        del graph, model
        release_memory(before)
        onnx.checker.check_model(data, full_check=True)  # a failure here is a bug of the exporter
    try:
        write_output(output_path, data)
    except WriteRefused as exc:
        reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    except OSError as exc:
        reporter.message(f"error: {output_path}: cannot write ({exc.strerror})", "bold red")
        return EXIT_ERROR
    reporter.message(summary)
    if not (beside.file is not None and beside.file.tensors) and os.path.isfile(beside.path):
        reporter.message(
            f"note: {beside.path} is left from an earlier export; {output_path} does not use it "
            "(delete it unless something else does)"
        )
    return EXIT_OK
