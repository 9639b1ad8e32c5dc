"""`relay run --engine onnxruntime`: the entry point exported in memory and run on onnxruntime.

The arguments, constants and output are those of the numpy engine (the
run machinery of `eval.entry` prepares and checks them, then calls this
engine); the limits apply as far as onnxruntime lets them: `--timeout`
stops the session at the deadline (onnxruntime's terminate flag), and
`--max-memory` is checked twice. Before running, the largest tensor whose
size the checker knows must fit with the memory the process already holds.
While running, onnxruntime allocates the tensors it computes (intermediate
values and results) from an arena whose size is the limit less that memory
and twice the model's size (the weights, which onnxruntime keeps outside
the arena, serialized and loaded): an allocation that would pass it fails
before it is made, and the run stops with a `resource-limit` error at the
call that asked. Memory onnxruntime takes otherwise (thread stacks, some
libraries' own buffers) is not counted. The arena is registered for the
process (onnxruntime shares it between the sessions that use it): a run
replaces the previous run's.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

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

    def engine(module: Any, entry: Any, args: tuple[Any, ...], constants: dict[int, Any], result: Any) -> Any:
        import tempfile

        from ..eval.entry import RunFailed
        from .lower import ExportError
        from .model import build_model

        with tempfile.TemporaryDirectory(prefix="relay-onnxruntime-") as folder:
            beside = _Beside(folder)
            try:
                model, structure, graph = build_model(
                    module, result, entry, constants, {}, opset, functions=functions, weights=beside.open
                )
            except ExportError as exc:
                raise RunFailed(exc.diagnostics) from None
            finally:
                beside.close()
            _check_memory(graph, entry.span)
            source = beside.save(model)
            del model  # (onnxruntime reads the bytes or the file: the model need not be held beside them)
            remaining = None if timeout is None else timeout - (time.monotonic() - started)
            outputs = run_model(source, flat_inputs(args), remaining, threads, entry.span, graph.spans)
        return _rebuild(structure, outputs)

    return engine


class _Beside:
    """Weights too large for a model in memory (2 GiB), for the engine: the
    model is saved in a temporary folder with its weights in a file beside
    it, and onnxruntime loads it from there."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.file: Any = None

    def open(self, weights: int) -> Any:
        import os

        from .weights import DataFile, fits_in_model

        if fits_in_model(weights):
            return None
        stream = open(os.path.join(self.folder, "model.onnx.data"), "wb")  # noqa: SIM115 - closed by `close`
        self.file = DataFile(stream, "model.onnx.data")
        return self.file

    def close(self) -> None:
        if self.file is not None and not self.file.stream.closed:
            self.file.stream.close()

    def save(self, model: Any) -> bytes | str:
        """The model's bytes, or the path of the model saved beside its weights."""
        if self.file is None:
            data: bytes = model.SerializeToString()
            return data
        import os

        path = os.path.join(self.folder, "model.onnx")
        with open(path, "wb") as out:
            out.write(model.SerializeToString())
        return path


def flat_inputs(args: tuple[Any, ...]) -> list[Any]:
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


def _saved_size(path: str) -> int:
    """Bytes of a saved model and of its weights' file beside it."""
    import os

    weights = path + ".data"
    return os.path.getsize(path) + (os.path.getsize(weights) if os.path.exists(weights) else 0)


def run_model(
    model: Any,  # a ModelProto, its bytes, or the path of a saved model
    inputs: list[Any],
    timeout: float | None,
    threads: int | None,
    span: Span | None,
    spans: dict[str, Any] | None = None,
) -> list[Any]:
    """Run a model on onnxruntime's CPU provider within the run's memory
    limit; RunFailed for a timeout, the memory limit or a runtime failure
    (located at the call whose node failed, where `spans` knows it)."""
    import onnxruntime as ort

    from .. import limits
    from ..eval.entry import RunFailed
    from ..limits import RunTimeout

    if timeout is not None and timeout <= 0:
        raise RunFailed([_timeout(timeout, span)], ran=True)
    limit = limits.max_memory()
    held = limits.resident()  # (the model, as a message or as its bytes)
    data = model if isinstance(model, (bytes, str)) else model.SerializeToString()
    del model
    # onnxruntime keeps the weights outside its arena: they count twice (the
    # serialized model, and onnxruntime's copy of its initializers)
    size = len(data) if isinstance(data, bytes) else _saved_size(data)
    outside = held + 2 * size
    arena = limit - outside
    if arena <= 0:
        raise RunFailed(
            [
                _memory(
                    f"the process holds {limits.byte_text(held)} and the model takes {limits.byte_text(size)} "
                    "(twice while it loads): "
                    f"nothing is left for onnxruntime's tensors under the memory limit of {limits.byte_text(limit)} "
                    "(--max-memory)",
                    span,
                    "the entry point",
                )
            ],
            ran=True,
        )
    options = ort.SessionOptions()
    options.log_severity_level = 4
    if threads:
        options.intra_op_num_threads = threads
    info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
    ort.create_and_register_allocator(
        info, ort.OrtArenaCfg({"max_mem": arena, "arena_extend_strategy": 1})
    )  # 1: grow by what is asked
    options.add_session_config_entry("session.use_env_allocators", "1")
    try:
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise RunFailed(
            [
                Diagnostic(
                    codes.RUNTIME_ERROR, f"onnxruntime could not load the exported model: {_first_line(exc)}", span
                )
            ]
        ) from None
    del data
    feeds = {i.name: v for i, v in zip(session.get_inputs(), inputs, strict=False)}
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
    except Exception as exc:
        if run_options.terminate:
            raise RunFailed([_timeout(timeout, span)], ran=True) from None
        where = _failed_call(exc, spans) or span
        if _out_of_arena(exc):
            asked = re.search(r"requested bytes of (\d+)", str(exc))
            need = f"needs {limits.byte_text(int(asked.group(1)))}, more" if asked else "needs more memory"
            raise RunFailed(
                [
                    _memory(
                        f"this call {need} than onnxruntime may still take under the memory limit of "
                        f"{limits.byte_text(limit)} (--max-memory)",
                        where,
                        "too large",
                    ).with_note(
                        f"onnxruntime's tensors may take {limits.byte_text(arena)} in all: the limit less the "
                        f"{limits.byte_text(outside)} the process and the model's weights hold"
                    )
                ],
                ran=True,
            ) from None
        raise RunFailed(
            [
                Diagnostic(
                    codes.RUNTIME_ERROR, f"onnxruntime failed: {_first_line(exc)}", where, label="while running this"
                )
            ],
            ran=True,
        ) from None
    finally:
        if timer is not None:
            timer.cancel()


def _out_of_arena(exc: BaseException) -> bool:
    text = str(exc)
    return "BFCArena" in text or "Available memory of" in text


def _failed_call(exc: BaseException, spans: dict[str, Any] | None) -> Span | None:
    """The span of the call whose node onnxruntime names in `exc`."""
    if not spans:
        return None
    found = re.search(r"Name:'([^']*)'", str(exc))
    return spans.get(found.group(1)) if found else None


def _memory(message: str, span: Span | None, label: str = "running here when the memory ran out") -> Diagnostic:
    return Diagnostic(codes.RESOURCE_LIMIT, message, span, label=label).with_note(
        "the entry point ran on onnxruntime (--engine onnxruntime)"
    )


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
