"""Memory and virtual-machine operators: the text TVM's VM compiler prints.

After memory planning TVM writes a function's tensors out explicitly:

    %0 = memory.alloc_storage(%size, %shape, %alignment, virtual_device=...);
    %1 = memory.alloc_tensor(%0, 0i64, %shape, const_shape=..., assert_shape=[...]);
    %2 = vm.invoke_tvm_op(%prim_fn, (%x, %y), (%1,));
    let %_ = memory.kill(%0);

* `memory.alloc_storage(size, shape, alignment, dtype="float32")` is a block
  of storage, of the type `Storage` (an `extern type` of TVM's core library,
  which the Prelude declares too);
* `memory.alloc_tensor(storage, offset, shape, dtype="float32", const_shape,
  assert_shape)` is a tensor of the shape held in the `shape` vector; its
  type has the rank of that vector and the sizes of `assert_shape` when given
  (`const_shape` names the shape constant itself, usually by a metadata
  reference whose values the checker does not read: its sizes are `?`);
* `vm.invoke_tvm_op(fn, inputs, outputs)` calls a (primitive) function on a
  tuple of inputs and writes its result into the tuple of output tensors; it
  evaluates to `()`;
* `vm.shape_of(x, dtype="int64")` is x's shape as a vector;
  `vm.reshape_tensor(x, shape, newshape=[...])` is x reshaped to the shape in
  the `shape` vector (typed by `newshape`);
* `call_lowered(fn, arguments)` calls a lowered function on a tuple of
  arguments;
* `memory.kill(x)` ends the life of a storage or tensor: `()`.

On one CPU with numpy, storage is only a record of its size: each tensor is
a fresh array, which is what a correct memory plan means (tensors sharing a
storage are never alive at the same time). The arrays of `alloc_tensor`
are the only mutable values of the evaluator: `invoke_tvm_op` fills them.
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, FuncType, TensorType, TupleType
from .._np import np
from ..annotation.annotation import ANY
from ..registry import Attr, KernelError, register
from ..relations import Relation, relation, static
from ..tensor.shapes import numpy_dtype, shape_of_rel
from ..types import Args, Attrs, Value

UNIT = TupleType(())


class Storage:
    """A block of storage allocated by `memory.alloc_storage`."""

    __slots__ = ("dtype", "nbytes")

    def __init__(self, nbytes: int, dtype: str) -> None:
        self.nbytes = nbytes
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"Storage({self.nbytes} bytes, {self.dtype})"


def _scalar_int(r: Relation, i: int, what: str) -> None:
    t = r.tensor(i)
    if t.shape != () and type(t.shape) is tuple:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}` takes {what} as a scalar, found a tensor of rank {len(t.shape)}", arg=i)


def _shape_vector_rank(r: Relation, i: int) -> int | None:
    """The length of the 1-d shape vector input i (None while unknown; 0 for a scalar)."""
    t = r.tensor(i)
    if type(t.shape) is not tuple:
        return None
    if len(t.shape) == 0:
        return 0
    if len(t.shape) != 1:
        r.fail(
            codes.SHAPE_MISMATCH, f"`{r.op}` takes a shape as a vector, found a tensor of rank {len(t.shape)}", arg=i
        )
    return static(t.shape[0])


# ---------------------------------------------------------------- storage and tensors


def _shape_vector(r: Relation, i: int, length: Any) -> None:
    """A shape vector still untyped that comes from a constant without
    metadata is taken to be int64 of the given length (TVM's shape dtype)."""
    t = r.tensor(i)
    if type(t.shape) is not tuple and r.from_metadata(i):
        r.refine(i, TensorType((length,), "int64"))


@relation("AllocStorage")
def alloc_storage_rel(r: Relation) -> bool:
    _scalar_int(r, 0, "the size")
    _shape_vector(r, 1, AnyDim())
    _scalar_int(r, 2, "the alignment")
    r.set_result(r.adt("Storage"))
    return True


@register(
    "memory.alloc_storage",
    inputs=3,
    relation=alloc_storage_rel,
    attrs=(Attr("dtype", "dtype", "float32"), Attr("virtual_device", ANY, None)),
    doc="A block of storage of the given size in bytes, to allocate tensors from.",
)
def alloc_storage(args: Args, attrs: Attrs) -> Value:
    return Storage(int(args[0]), attrs["dtype"])


@relation("AllocTensor")
def alloc_tensor_rel(r: Relation) -> bool:
    r.refine(0, r.adt("Storage"))
    _scalar_int(r, 1, "the offset")
    written = r.attrs["assert_shape"]
    if written is not None:
        _shape_vector(r, 2, len(written))
    rank = _shape_vector_rank(r, 2)
    if rank is None:
        if written:
            rank = len(written)
        else:
            return False
    if written and len(written) != rank:
        r.fail(
            codes.SHAPE_MISMATCH,
            f"`assert_shape` has {len(written)} dimensions, but the shape vector has {rank}",
            arg=2,
        )
    shape = tuple(written) if written else tuple(AnyDim() for _ in range(rank))
    r.set_result(TensorType(shape, r.attrs["dtype"]))
    return True


@register(
    "memory.alloc_tensor",
    inputs=3,
    relation=alloc_tensor_rel,
    attrs=(Attr("dtype", "dtype", "float32"), Attr("const_shape", ANY, None), Attr("assert_shape", "opt_ints", None)),
    doc="A tensor of the shape in the given vector, allocated from a storage at an offset.",
)
def alloc_tensor(args: Args, attrs: Attrs) -> Value:
    shape = tuple(int(d) for d in np.asarray(args[2]).reshape(-1))
    if any(d < 0 for d in shape):
        raise KernelError(codes.RUNTIME_ERROR, f"`memory.alloc_tensor`: the shape {list(shape)} has a negative size")
    return np.zeros(shape, dtype=numpy_dtype("memory.alloc_tensor", attrs["dtype"]))


@relation("Kill", inputs=1)
def kill_rel(r: Relation) -> bool:
    r.arg(0)
    r.set_result(UNIT)
    return True


@register("memory.kill", inputs=1, relation=kill_rel, doc="Ends the life of a storage or tensor; evaluates to ().")
def kill(args: Args, attrs: Attrs) -> Value:
    return ()


# ---------------------------------------------------------------- the VM's calls


def _function_type(r: Relation, i: int) -> FuncType | None:
    f = r.arg(i)
    if isinstance(f, FuncType):
        return f
    if isinstance(f, (TensorType, TupleType)):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` calls a function, found a value that is not one",
            arg=i,
            label="not a function",
        )
    return None


@relation("InvokeTVMOp")
def invoke_tvm_op_rel(r: Relation) -> bool:
    f = _function_type(r, 0)
    if f is None:
        return False
    r.unify(
        TupleType(f.arg_types), r.arg(1), arg=1, message=f"`{r.op}`: the inputs do not fit the function's parameters"
    )
    ret = f.ret_type
    outputs = ret if isinstance(ret, TupleType) else TupleType((ret,))
    r.unify(outputs, r.arg(2), arg=2, message=f"`{r.op}`: the outputs do not fit the function's result")
    r.set_result(UNIT)
    return True


def _write(out: Any, value: Any) -> None:
    if not isinstance(out, np.ndarray) or not out.flags.writeable:
        raise KernelError(
            codes.RUNTIME_ERROR, "`vm.invoke_tvm_op`: an output is not a tensor allocated by `memory.alloc_tensor`"
        )
    value = np.asarray(value)
    if value.shape != out.shape:
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`vm.invoke_tvm_op`: the function computed a tensor of shape {list(value.shape)} for an output of shape "
            f"{list(out.shape)}",
        )
    np.copyto(out, value)


@register(
    "vm.invoke_tvm_op",
    inputs=3,
    relation=invoke_tvm_op_rel,
    doc="Calls a function on a tuple of inputs and writes its result into a tuple of outputs; evaluates to ().",
)
def invoke_tvm_op(args: Args, attrs: Attrs) -> Value:
    fn, inputs, outputs = args
    result = fn(*inputs)
    results = result if isinstance(result, tuple) else (result,)
    if len(results) != len(outputs):
        raise KernelError(
            codes.RUNTIME_ERROR,
            f"`vm.invoke_tvm_op`: the function gave {len(results)} results for {len(outputs)} outputs",
        )
    for out, value in zip(outputs, results, strict=False):
        _write(out, value)
    return ()


@relation("CallLowered")
def call_lowered_rel(r: Relation) -> bool:
    f = _function_type(r, 0)
    if f is None:
        return False
    r.unify(
        TupleType(f.arg_types), r.arg(1), arg=1, message=f"`{r.op}`: the arguments do not fit the function's parameters"
    )
    r.set_result(f.ret_type)
    return True


@register(
    "call_lowered",
    inputs=2,
    relation=call_lowered_rel,
    attrs=(Attr("metadata", ANY, None),),
    doc="Calls a lowered function on a tuple of arguments.",
)
def call_lowered(args: Args, attrs: Attrs) -> Value:
    fn, arguments = args
    return fn(*arguments)


@register(
    "vm.shape_of",
    inputs=1,
    relation=shape_of_rel,
    attrs=(Attr("dtype", "dtype", "int64"),),
    doc="The shape of a tensor, as a vector (the VM's spelling of `shape_of`).",
)
def vm_shape_of(args: Args, attrs: Attrs) -> Value:
    x = args[0]
    return np.array(list(x.shape) if x.ndim else 0, dtype=np.int64).astype(numpy_dtype("vm.shape_of", attrs["dtype"]))


@relation("ReshapeTensor")
def reshape_tensor_rel(r: Relation) -> bool:
    x = r.tensor(0)
    rank = _shape_vector_rank(r, 1)
    newshape = r.attrs["newshape"]
    if rank is not None and rank != len(newshape):
        r.fail(
            codes.SHAPE_MISMATCH, f"`newshape` has {len(newshape)} dimensions, but the shape vector has {rank}", arg=1
        )
    r.set_result(TensorType(tuple(newshape), x.dtype))
    return True


@register(
    "vm.reshape_tensor",
    inputs=2,
    relation=reshape_tensor_rel,
    attrs=(Attr("newshape", "ints"),),
    doc="A tensor reshaped to the shape held in a vector (typed by `newshape`).",
)
def reshape_tensor(args: Args, attrs: Attrs) -> Value:
    x, shape = args
    target = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    if int(np.prod(target, dtype=np.int64)) != x.size:
        raise KernelError(
            codes.RUNTIME_ERROR, f"`vm.reshape_tensor`: cannot reshape {x.size} elements to shape {list(target)}"
        )
    return x.reshape(target)
