"""The `relay export` command (registered in `cli.STAGE_COMMANDS`)."""

from __future__ import annotations

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
    no_prelude: bool,
    warnings_as_errors: bool | None,
    warning_policy: str | None,
    color: str | None,
) -> int:
    """Type-check a Relay file and write its entry point as an ONNX model."""
    from ..files import InputError, read
    from ..ir.span import Source
    from . import ExportRequest, MissingOnnx, export_source, require_onnx

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
    request = ExportRequest(
        entry=entry,
        args_file=args_file,
        random_consts=random_consts,
        seed=seed,
        opset=opset,
        use_prelude=not no_prelude,
        functions=functions,
        warnings_as_errors=ctx.warnings_as_errors(warnings_as_errors, warning_policy),
    )
    exported = export_source(Source(inp.name, inp.text), request)
    for diag in exported.diagnostics:
        reporter.diagnostic(diag)
    if not exported.ok:
        n = exported.errors
        reporter.message(f"Found {counted(n, 'error')}; nothing was exported", "bold red")
        return EXIT_FAIL
    import onnx

    from ..writing import WriteRefused, write_output

    onnx.checker.check_model(exported.model, full_check=True)  # a failure here is a bug of the exporter
    try:
        write_output(output_path, exported.model.SerializeToString())
    except WriteRefused as exc:
        reporter.message(f"error: {exc}", "bold red")
        return EXIT_ERROR
    except OSError as exc:
        reporter.message(f"error: {output_path}: cannot write ({exc.strerror})", "bold red")
        return EXIT_ERROR
    graph = exported.model.graph
    local = len(exported.model.functions)
    reporter.message(
        f"wrote {output_path}: {counted(len(graph.node), 'node')}, {counted(len(graph.input), 'input')}, "
        f"{counted(len(graph.output), 'output')}, {counted(len(graph.initializer), 'initializer')}"
        + (f", {counted(local, 'local function')}" if local else "")
        + f" (opset {exported.model.opset_import[0].version})"
    )
    return EXIT_OK
