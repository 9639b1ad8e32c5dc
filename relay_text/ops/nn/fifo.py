"""`nn.fifo_buffer(data, buffer, axis=0)`: push `data` into a first-in,
first-out buffer along one axis.

The result has the buffer's type: the buffer's elements shifted toward the
start of `axis` by `data.shape[axis]`, the oldest dropped, and `data`
written at the end, i.e. `concatenate((buffer, data), axis)` sliced to the
last `buffer.shape[axis]` elements of that axis. Both tensors have one rank
and one dtype and agree on every other axis; as TVM's type relation
demands, the data is strictly shorter than the buffer along `axis`.
"""

from __future__ import annotations


from ...diagnostics import codes
from .._np import np, wrap
from ..registry import Attr, register
from ..relations import Relation, known_rank, normalize_axis, relation, shape_text
from ..types import Args, Attrs, Value


@relation("FIFOBuffer")
def fifo_buffer_rel(r: Relation) -> bool:
    """(data, buffer) -> buffer's type."""
    r.unify_dtypes(0, 1)
    data, buffer = r.tensor(0), r.tensor(1)
    if not (known_rank(data.shape) and known_rank(buffer.shape)):
        return False
    rank = len(buffer.shape)
    if len(data.shape) != rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`nn.fifo_buffer`: the data has rank {len(data.shape)} but the buffer has rank {rank}",
            arg=0,
        )
    if rank == 0:
        r.fail(codes.SHAPE_MISMATCH, "`nn.fifo_buffer` needs tensors of rank at least 1, found scalars", arg=1)
    axis = normalize_axis(r, r.attrs["axis"], rank)
    for i, (d, b) in enumerate(zip(data.shape, buffer.shape, strict=False)):
        if type(d) is not int or type(b) is not int:
            continue
        if i == axis and d >= b:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.fifo_buffer`: the data ({d} along axis {axis}) must be shorter than the buffer ({b})",
                arg=0,
                notes=[f"data {shape_text(data.shape)}, buffer {shape_text(buffer.shape)}"],
            )
        if i != axis and d != b:
            r.fail(
                codes.SHAPE_MISMATCH,
                f"`nn.fifo_buffer`: axis {i} has size {d} in the data but {b} in the buffer",
                arg=0,
                notes=[
                    f"data {shape_text(data.shape)}, buffer {shape_text(buffer.shape)}; only axis {axis} may differ"
                ],
            )
    r.set_result(buffer)
    return True


@register(
    "nn.fifo_buffer",
    inputs=2,
    relation=fifo_buffer_rel,
    attrs=(Attr("axis", "int", 0),),
    doc="Shift the buffer along axis by the data's length and append the data at its end.",
)
def fifo_buffer(args: Args, attrs: Attrs) -> Value:
    data, buffer = args
    axis = attrs["axis"] % buffer.ndim
    keep = buffer.shape[axis]
    both = np.concatenate((buffer, data), axis=axis)
    return wrap(np.take(both, np.arange(both.shape[axis] - keep, both.shape[axis]), axis=axis), buffer.dtype)
