"""Elementwise operators computed into a buffer that is no longer needed.

Where an elementwise call's argument is a tensor that the call reads last
(liveness over the compiled plan, see `emit`), that was made fresh by a
kernel which never returns a view of its inputs (the operator's `inplace`
property), that nothing else views, and that has the call's exact shape
and float dtype, the call writes its result into that argument's buffer (numpy's `out=`) instead of
allocating a new tensor. A chain of such calls (`conv -> bias -> relu`,
`x * y + z`) then runs in one buffer. Large tensors are cut along their
first long axis and the pieces computed on the kernel thread pool (numpy
releases the GIL in its loops).

The functions here are called directly with the call's arguments; each
returns the buffer it wrote.
"""

from __future__ import annotations

import contextlib
import functools
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from ..ops._np import np

if TYPE_CHECKING:
    from .ops import KernelArgs
from ..ops._threads import ranges, run_parts, split_axis, split_count
from ..ops.nn.nn import relu_into
from ..ops.tensor import _rows as rows
from . import bias_relu


def fresh(name: str) -> bool:
    """Whether an operator's result is always a new array owning its memory:
    never a view of (or the same object as) an argument (its `inplace`
    property)."""
    from ..ops import registry

    return registry.properties(name).inplace


FLOATS = frozenset({"float32", "float64"})


def _cut(x: Any, ndim: int, axis: int, a: int, b: int) -> Any:
    """The piece [a, b) along the output's `axis` of an operand broadcast
    against an output of `ndim` dimensions."""
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        return x
    ax = axis - (ndim - x.ndim)
    if ax < 0 or x.shape[ax] == 1:
        return x
    return x[(slice(None),) * ax + (slice(a, b),)]


BLOCK = 1 << 20  # elements a fused chain works on at a time (more blocks cost more calls than the cache saves)


def apply(fn: Callable[..., Any], out: Any, *operands: Any, blocked: bool = False) -> Any:
    """fn(out_piece, *operand_pieces) over `out`, in pieces on the pool when
    large; `blocked`: each piece further in cache-sized blocks (for a chain
    of steps, so that each block stays in cache through all of them)."""
    pieces = split_count(out.size)
    per = max(1, -(-out.size // (pieces * BLOCK))) if blocked else 1
    axis = split_axis(out.shape, pieces * per) if pieces * per > 1 else None
    if axis is None and per > 1:
        per = 1
        axis = split_axis(out.shape, pieces) if pieces > 1 else None
    if axis is None:
        fn(out, *operands)
        return out
    nd = out.ndim
    parts = []
    for a, b in ranges(out.shape[axis], pieces):
        blocks = [(lo + a, hi + a) for lo, hi in ranges(b - a, per)]
        parts.append((blocks,))

    def run(blocks: list[tuple[int, int]]) -> None:
        for lo, hi in blocks:
            fn(_cut(out, nd, axis, lo, hi), *(_cut(o, nd, axis, lo, hi) for o in operands))

    run_parts(run, parts)
    return out


def _writable(x: Any) -> Any:
    return x if x.flags.writeable else x.copy()


class InPlace:
    """An elementwise call computed into the buffer of argument `into`:
    `step(buffer_piece, *operand_pieces)` over the buffer, where `prepare`
    makes the operands from the call's other arguments. Steps of a chain
    of such calls can be fused (`Chain`)."""

    fusable = True

    def __init__(
        self,
        step: Callable[..., None],
        into: int,
        nargs: int,
        prepare: Callable[[KernelArgs], KernelArgs] | None = None,
        bias_axis: int | None = None,
    ) -> None:
        self.step = step
        self.into = into
        self.nargs = nargs
        self.prepare = prepare
        self.bias_axis = bias_axis  # `nn.bias_add`'s axis (see `Chain`)
        self.__name__ = getattr(step, "__name__", "inplace")

    def operands(self, others: KernelArgs) -> KernelArgs:
        """The step's operands from the call's arguments other than the buffer."""
        return self.prepare(others) if self.prepare is not None else others

    def bind(self, *args: Any) -> tuple[Any, Callable[..., None], KernelArgs]:
        """(the buffer, the step, its operands) of a call with `args`."""
        into = self.into
        others = args[:into] + args[into + 1 :]
        return _writable(args[into]), self.step, self.operands(others)

    def __call__(self, *args: Any) -> Any:
        buffer, step, operands = self.bind(*args)
        return apply(step, buffer, *operands)


class Chain:
    """Consecutive in-place calls, each writing into the buffer of the one
    before, as one pass: the arguments are the first call's, then each next
    call's arguments but the buffer."""

    fusable = True
    __name__ = "chain"

    def __init__(self, parts: list[InPlace]) -> None:
        self.parts = parts
        # `relu(bias_add(x, b))`, which a compiled loop may do in one pass
        first = parts[0]
        pair = len(parts) == 2 and parts[1].step is _relu
        self.bias_relu_axis = first.bias_axis if pair else None

    def _take(self, args: tuple[Any, ...]) -> tuple[Any, KernelArgs, list[int]]:
        """(the buffer, every part's operands in turn, how many each part has) of a call with `args`."""
        first = self.parts[0]
        n = first.nargs
        into = first.into
        buffer = _writable(args[into])
        operands = list(first.operands(args[:into] + args[into + 1 : n]))
        counts = [len(operands)]
        pos = n
        for part in self.parts[1:]:
            k = part.nargs - 1
            got = part.operands(tuple(args[pos : pos + k]))
            operands.extend(got)
            counts.append(len(got))
            pos += k
        return buffer, tuple(operands), counts

    def _fused(self, counts: list[int]) -> Callable[..., None]:
        """One step doing every part's, given how many operands each part has."""
        steps = list(zip([p.step for p in self.parts], counts, strict=False))

        def fused(o: Any, *ops: Any) -> None:
            i = 0
            for step, c in steps:
                step(o, *ops[i : i + c])
                i += c

        return fused

    def bind(self, *args: Any) -> tuple[Any, Callable[..., None], KernelArgs]:
        """(the buffer, one step doing every part's, their operands) of a call with `args`."""
        buffer, operands, counts = self._take(args)
        return buffer, self._fused(counts), operands

    def __call__(self, *args: Any) -> Any:
        buffer, operands, counts = self._take(args)
        if self.bias_relu_axis is not None and bias_relu.run(buffer, operands[0], self.bias_relu_axis):
            return buffer
        return apply(self._fused(counts), buffer, *operands, blocked=True)


def binary(ufunc: Any, into: int) -> InPlace:
    """`ufunc(a, b)` written into argument `into` (0 or 1); `maximum` and
    `minimum` against a single value by rows (`_rows.compute`)."""
    call = functools.partial(rows.compute, ufunc) if rows.handles(ufunc) else ufunc
    if into == 0:

        def first(o: Any, other: Any) -> None:
            call(o, other, out=o)

        first.__name__ = ufunc.__name__
        return InPlace(first, 0, 2)

    def second(o: Any, other: Any) -> None:
        call(other, o, out=o)

    second.__name__ = ufunc.__name__
    return InPlace(second, 1, 2)


def _relu(o: Any) -> None:
    relu_into(o, o)


def _sigmoid(o: Any) -> None:
    # 1 / (1 + e^-x): e^-x overflows to inf for very negative x, giving 0
    np.negative(o, out=o)
    np.exp(o, out=o)
    np.add(o, 1, out=o)
    np.reciprocal(o, out=o)


def _square(o: Any) -> None:
    np.multiply(o, o, out=o)


def _cube(o: Any) -> None:
    square = np.multiply(o, o)
    np.multiply(o, square, out=o)


def unary(step: Callable[[Any], None]) -> InPlace:
    return InPlace(step, 0, 1)


def _ufunc_step(ufunc: Any) -> Callable[[Any], None]:
    def step(o: Any) -> None:
        ufunc(o, out=o)

    step.__name__ = ufunc.__name__
    return step


def unary_step(name: str) -> Callable[[Any], None] | None:
    if name == "nn.relu":
        return _relu
    if name == "sigmoid":
        return _sigmoid
    if name in ("exp", "tanh", "sqrt", "negative"):
        return _ufunc_step(getattr(np, name))
    return None


BINARY_UFUNCS = {
    "add": "add",
    "subtract": "subtract",
    "multiply": "multiply",
    "divide": "true_divide",
    "maximum": "maximum",
    "minimum": "minimum",
}


def bias_add(axis: int, ndim: int) -> InPlace:
    """`nn.bias_add(x, b)` written into x."""
    axis %= ndim

    def step(o: Any, b: Any) -> None:
        np.add(o, b, out=o)

    step.__name__ = "bias_add"

    def prepare(others: KernelArgs) -> KernelArgs:
        (b,) = others
        shape = [1] * ndim
        shape[axis] = b.shape[0]
        return (b.reshape(shape),)

    return InPlace(step, 0, 2, prepare, bias_axis=axis)


def softmax(log: bool) -> Callable[[Any], Any]:
    # not an InPlace: it works along rows, so it is never cut into a chain
    """`nn.softmax` / `nn.log_softmax` over the last axis, written into x."""
    from ..ops.nn.nn import softmax_rows

    def run(x: Any) -> Any:
        x = _writable(x)
        if not x.flags.c_contiguous:
            x = np.ascontiguousarray(x)
        done = softmax_rows(x, -1, x, log)
        if done is not None:
            return done
        shifted = x - np.max(x, axis=-1, keepdims=True)
        if log:
            return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
        e = np.exp(shifted)
        return e / np.sum(e, axis=-1, keepdims=True)

    return run


class RowsAfter:
    """A (log) softmax over the last axis of the buffer an elementwise chain
    (an `InPlace` or a `Chain`) just wrote, perhaps reshaped keeping the
    last axis (`dense -> add bias -> reshape -> log_softmax`): the chain's
    steps run on each block of rows right before the softmax's passes, so
    the buffer is read from memory once instead of twice. Operands that are
    not rows (a per-channel scale), a small or non-contiguous buffer: the
    chain, then the softmax, as unfused."""

    fusable = False
    __name__ = "rows_softmax"

    def __init__(self, first: InPlace | Chain, log: bool, shape: tuple[int, ...]) -> None:
        self.first = first
        self.log = log
        self.shape = shape
        self.after = softmax(log)

    def __call__(self, *args: Any) -> Any:
        from ..ops.nn.nn import softmax_rows

        buffer, step, operands = self.first.bind(*args)
        width = self.shape[-1]
        rows = _row_operands(operands, width)
        if rows is not None and buffer.flags.c_contiguous and buffer.size:
            flat = buffer.reshape(-1, width)
            if softmax_rows(flat, -1, flat, self.log, lambda block: step(block, *rows)) is not None:
                return buffer.reshape(self.shape)
        apply(step, buffer, *operands, blocked=isinstance(self.first, Chain))
        return self.after(buffer.reshape(self.shape))


def _row_operands(operands: KernelArgs, width: int) -> list[Any] | None:
    """The operands as rows of `width` (scalars, or tensors varying along
    the last axis only), or None."""
    out = []
    for o in operands:
        if isinstance(o, np.ndarray) and o.ndim > 0:
            if o.shape[-1] not in (1, width) or any(d != 1 for d in o.shape[:-1]):
                return None
            o = o.reshape(o.shape[-1])
        out.append(o)
    return out


def fuse_softmax(emitter: Any, node: Any, key: tuple[Any, ...], target: str, block: Any) -> bool:
    """Emit an in-place softmax `node` (`key` from `inplace_call`) together
    with the in-place call emitted just before it, whose buffer it reads
    (directly or through a reshape keeping the last axis, see
    `FunctionEmitter.dead_view`), as one `RowsAfter` call; False where the
    plan does not have that shape. `emitter` is the `FunctionEmitter`."""
    from ..ir.expr import Call
    from ..ir.ty import TensorType

    last = emitter.last_inplace
    if key[0] not in ("nn.softmax", "nn.log_softmax") or last is None:
        return False
    home, index, prev, keys, parts, texts, names = last
    arg = emitter.resolve(node.args[0])
    if home is not block or arg is None:
        return False
    view = None
    if arg is not prev:
        if type(arg) is not Call or len(arg.args) != 1 or emitter.resolve(arg.args[0]) is not prev:
            return False
        before, after = emitter.c.type_of(prev), emitter.c.type_of(arg)
        if not (isinstance(before, TensorType) and isinstance(after, TensorType)):
            return False
        if not (isinstance(before.shape, tuple) and isinstance(after.shape, tuple) and before.shape and after.shape):
            return False
        if before.shape[-1] != after.shape[-1] or not emitter.dead_view(arg):
            return False
        view = arg
    at = None
    for j in range(index + 1, len(block.items)):
        item = block.items[j]
        if isinstance(item, tuple) and item[0].startswith("del "):
            continue
        if view is None or at is not None or not isinstance(item, tuple) or item[1] is not view:
            return False
        at = j
    if view is not None and at is None:
        return False
    result = emitter.c.type_of(node)
    if not isinstance(result, TensorType) or not isinstance(result.shape, tuple):
        return False
    shape = tuple(result.shape)
    first = parts[0] if len(parts) == 1 else Chain(parts)
    fused = ("rows", key[0], *keys, shape)
    ident = emitter.c.inplace_names.get(fused)
    if ident is None:
        ident = emitter.c.inplace_names[fused] = emitter.c.fresh("I")
        emitter.c.ns[ident] = RowsAfter(first, key[0] == "nn.log_softmax", shape)
    # every name of the chain (and the reshape) stays bound: each is released after its reader
    block.items[index] = (f"{target} = {ident}({', '.join(texts)})" + "".join(f"; {n} = {target}" for n in names), node)
    if at is not None:
        block.items[at] = (f"{emitter.c.ref(view)} = {target}", view)
    emitter.last_inplace = None
    return True


def power(exponent: float) -> InPlace | None:
    """`power(x, 2.0)` and `power(x, 3.0)` written into x."""
    if exponent == 2.0:
        return InPlace(_square, 0, 2, lambda others: ())
    if exponent == 3.0:
        return InPlace(_cube, 0, 2, lambda others: ())
    return None


_MALLOC_TUNED: list[bool] = []
_LIBC: list[Any] = []  # the C library, once `keep_freed_memory` has loaded it


def keep_freed_memory() -> None:
    """Ask the C allocator (glibc) to keep freed memory for the next tensors.

    By default glibc gives a megabyte-sized block back to the system when it
    is freed (memory mapped blocks, and a heap top beyond the trim
    threshold), and the next tensor of that size page-faults all of it in
    again, zeroed: measured at 2 ms of a 0.4 ms convolution, and at 65 of
    the 85 ms of a log_softmax over 46 MB. A tensor program frees and
    allocates tensors of the same sizes over and over, so the optimised
    evaluator changes this once per process: blocks come from the heap
    (glibc still maps memory when the heap cannot grow), and up to 512 MB
    of freed memory at its top is kept for the next tensors. Elsewhere
    (another C library) nothing changes."""
    if _MALLOC_TUNED:
        return
    _MALLOC_TUNED.append(True)
    try:
        import ctypes
        import ctypes.util
        import sys

        if not sys.platform.startswith("linux"):
            return
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = getattr(libc, "mallopt", None)
        if mallopt is None:
            return
        M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4
        mallopt(M_TRIM_THRESHOLD, 512 << 20)
        mallopt(M_MMAP_MAX, 0)
        _LIBC.append(libc)
    except (OSError, AttributeError, TypeError):
        pass


RELEASE_AFTER = 64 << 20
"""Growth of the process over a run (bytes) past which `release_memory`
collects the run's garbage and gives freed memory back."""


def release_memory(before: int) -> None:
    """Once a run is over: if the process holds `RELEASE_AFTER` more than
    the `before` it held when the run began, give memory back (see
    `give_back_memory`). Without this a process that runs several programs
    (the Python API, a test session) keeps the largest run's worth of
    memory for ever; small runs skip it, as the collection takes some tens
    of milliseconds in a large process."""
    from ..limits import resident

    if resident() - before >= RELEASE_AFTER:
        give_back_memory()


def give_back_memory() -> None:
    """Collect cyclic garbage (a compiled program refers to itself, so its
    folded constants wait for the cyclic collector) and give the free
    memory of the C allocator back to the system: glibc's `malloc_trim(0)`
    returns every free page of its heaps, not only the top, including what
    `keep_freed_memory` kept. Elsewhere only the collection happens."""
    import gc

    gc.collect()
    if not _LIBC:
        try:
            import ctypes
            import ctypes.util
            import sys

            if not sys.platform.startswith("linux"):
                return
            _LIBC.append(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"))
        except OSError:
            return
    trim = getattr(_LIBC[0], "malloc_trim", None)
    if trim is not None:
        with contextlib.suppress(OSError, TypeError):  # pragma: no cover - a libc without it
            trim(0)
