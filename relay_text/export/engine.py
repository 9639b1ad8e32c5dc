"""`relay run --engine onnxruntime`: the entry point exported in memory and run on onnxruntime.

The arguments, constants and output are those of the numpy engine (the
run machinery of `eval.entry` prepares and checks them, then calls this
engine); the limits apply as far as onnxruntime lets them: `--timeout`
stops the session at the deadline (onnxruntime's terminate flag), and
`--max-memory` is checked before running against every tensor whose size
the checker knows (each, with the memory already held, must fit).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from ..diagnostics import Diagnostic, codes
from ..ir.span import Span


class MissingOnnxruntime(Exception):
    pass


def require_onnxruntime() -> None:
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        raise MissingOnnxruntime(
            "`--engine onnxruntime` needs the onnx and onnxruntime packages: pip install 'relay-text[onnxruntime]'"
        ) from None


def onnxruntime_engine(
    opset: int | None = None, timeout: float | None = None, threads: int | None = None, functions: bool = False
) -> Callable[..., Any]:
    """An engine for `RunRequest.engine`: export, then run on onnxruntime.

    `timeout` (seconds, counted from this call) bounds the whole run;
    `threads` sets onnxruntime's intra-op threads (default: its own);
    `functions` exports global functions as ONNX local functions."""
    started = time.monotonic()

    def engine(module: Any, entry: Any, args: tuple, constants: dict[int, Any], result: Any) -> Any:
        from ..eval.entry import RunFailed
        from .lower import ExportError
        from .model import build_model

        try:
            model, structure, graph = build_model(module, result, entry, constants, {}, opset, functions=functions)
        except ExportError as exc:
            raise RunFailed(exc.diagnostics) from None
        _check_memory(graph, entry.span)
        remaining = None if timeout is None else timeout - (time.monotonic() - started)
        outputs = run_model(model, flat_inputs(args), remaining, threads, entry.span)
        return _rebuild(structure, outputs)

    return engine


def flat_inputs(args: tuple) -> list[Any]:
    """The arguments' tensors in the order of the graph's inputs (tuples flattened depth first)."""
    import numpy as np

    out = []
    stack = list(reversed(args))
    while stack:
        v = stack.pop()
        if isinstance(v, tuple):
            stack.extend(reversed(v))
        else:
            out.append(np.asarray(v))
    return out


def run_model(model: Any, inputs: list[Any], timeout: float | None, threads: int | None, span: Span | None) -> list[Any]:
    """Run a model on onnxruntime's CPU provider; RunFailed for a timeout or a runtime failure."""
    import onnxruntime as ort

    from ..eval.entry import RunFailed
    from ..limits import RunTimeout

    if timeout is not None and timeout <= 0:
        raise RunFailed([_timeout(timeout, span)], ran=True)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if threads:
        options.intra_op_num_threads = threads
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime's own exception types
        raise RunFailed([Diagnostic(codes.RUNTIME_ERROR, f"onnxruntime could not load the exported model: {_first_line(exc)}", span)]) from None
    feeds = {i.name: v for i, v in zip(session.get_inputs(), inputs)}
    run_options = ort.RunOptions()
    timer = None
    if timeout is not None:
        timer = threading.Timer(timeout, lambda: setattr(run_options, "terminate", True))
        timer.daemon = True
        timer.start()
    try:
        return list(session.run(None, feeds, run_options))
    except RunTimeout as exc:
        raise RunFailed([_timeout(exc.seconds, span)], ran=True) from None
    except Exception as exc:  # noqa: BLE001 - onnxruntime's own exception types
        if run_options.terminate:
            raise RunFailed([_timeout(timeout, span)], ran=True) from None
        raise RunFailed([Diagnostic(codes.RUNTIME_ERROR, f"onnxruntime failed: {_first_line(exc)}", span, label="while running this")], ran=True) from None
    finally:
        if timer is not None:
            timer.cancel()


def _timeout(seconds: float | None, span: Span | None) -> Diagnostic:
    return Diagnostic(
        codes.RESOURCE_LIMIT,
        f"the run took longer than the limit of {seconds or 0:g} s (--timeout)",
        span,
        label="running here when the time ran out",
    ).with_note("the entry point ran on onnxruntime (--engine onnxruntime)")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _check_memory(graph: Any, span: Span | None) -> None:
    """Every tensor of known size must fit the memory limit, with what the process holds."""
    import numpy as np

    from .. import limits
    from ..eval.entry import RunFailed
    from ..eval.ops import numpy_dtype
    from .graph import static_shape

    sizes = []
    for name, ty in graph.types.items():
        shape = static_shape(ty)
        if shape is None:
            continue
        sizes.append((int(np.prod(shape, dtype=np.int64)), numpy_dtype(str(ty.dtype)).itemsize, name))
    sizes.sort(reverse=True, key=lambda s: s[0] * s[1])
    for count, itemsize, name in sizes[:1]:
        try:
            limits.check_allocation(count, itemsize, "this result")
        except limits.LimitExceeded as exc:
            where = graph.spans.get(name, span)
            raise RunFailed([Diagnostic(codes.RESOURCE_LIMIT, exc.message, where, label=exc.label)], ran=True) from None


def _rebuild(structure: Any, outputs: list[Any]) -> Any:
    from .values import rebuild

    return rebuild(structure, outputs)
