"""Memory and virtual-machine operators (relay_text/ops/memory/memory.py):
TVM's relations (src/relay/op/memory/*.cc, op/vm/vm.cc, op/call/call.cc)
and their meaning on one CPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from relay_text.ops import KernelError
from relay_text.ops.memory.memory import Storage
from tests.ops.family import Family, T, same

FAMILY = Family(
    "memory.alloc_storage",
    "memory.alloc_tensor",
    "memory.kill",
    "vm.invoke_tvm_op",
    "vm.shape_of",
    "vm.reshape_tensor",
    "call_lowered",
)


def test_alloc_storage_and_tensor_types() -> None:
    """AllocStorageRel: int64 scalar size and alignment, a Storage result; AllocTensorRel:
    the rank of the shape vector, sizes from assert_shape."""
    call = "memory.alloc_tensor(memory.alloc_storage(%a, %b, %a), 0i64, %b, assert_shape=[2, 3])"
    assert FAMILY.result_type(call, [T("()", "int64"), T("(2)", "int64")]) == "Tensor[(2, 3), float32]"
    call = 'memory.alloc_tensor(memory.alloc_storage(%a, %b, %a), 0i64, %b, dtype="int8")'
    assert FAMILY.result_type(call, [T("()", "int64"), T("(3)", "int64")]) == "Tensor[(?, ?, ?), int8]"
    assert FAMILY.result_type("memory.alloc_storage(%a, %b, %a)", [T("()", "int64"), T("(2)", "int64")]) == "Storage"
    assert (
        FAMILY.result_type("memory.kill(memory.alloc_storage(%a, %b, %a))", [T("()", "int64"), T("(2)", "int64")])
        == "()"
    )


def test_alloc_tensor_rejections() -> None:
    diag = FAMILY.only_error("memory.alloc_storage(%a, %b, %a)", [T("(2)", "int64"), T("(2)", "int64")])
    assert (diag.code, diag.message, diag.span.text) == (
        "shape-mismatch",
        "`memory.alloc_storage` takes the size as a scalar, found a tensor of rank 1",
        "%a",
    )
    call = "memory.alloc_tensor(memory.alloc_storage(%a, %b, %a), 0i64, %b, assert_shape=[2, 3])"
    diag = FAMILY.only_error(call, [T("()", "int64"), T("(3)", "int64")])
    assert (diag.code, diag.message, diag.span.text) == (
        "shape-mismatch",
        "`assert_shape` has 2 dimensions, but the shape vector has 3",
        "%b",
    )
    diag = FAMILY.only_error("memory.alloc_tensor(%a, 0i64, %b)", [T("()", "int64"), T("(3)", "int64")])
    assert (diag.code, diag.span.text) == ("type-mismatch", "%a")


def test_memory_kernels() -> None:
    storage = FAMILY.run(
        "memory.alloc_storage", np.array(24, np.int64), np.array([2, 3], np.int64), np.array(64, np.int64)
    )
    assert isinstance(storage, Storage) and (storage.nbytes, storage.dtype) == (24, "float32")
    tensor = FAMILY.run(
        "memory.alloc_tensor", storage, np.array(0, np.int64), np.array([2, 3], np.int64), dtype="int16"
    )
    same(tensor, np.zeros((2, 3), np.int16))
    assert tensor.flags.writeable
    assert FAMILY.run("memory.kill", storage) == ()
    with pytest.raises(KernelError, match="negative size"):
        FAMILY.run("memory.alloc_tensor", storage, np.array(0, np.int64), np.array([-1], np.int64))


def test_invoke_tvm_op() -> None:
    """InvokeTVMOpRel: the inputs tuple is the function's parameter types, the
    outputs tuple its result (a tensor result is a 1-tuple); the call is ()."""
    params = ["fn (Tensor[(2), float32], Tensor[(2), float32]) -> Tensor[(2), float32]", T("(2)"), T("(2)")]
    assert FAMILY.result_type("vm.invoke_tvm_op(%a, (%b, %c), (%b,))", params) == "()"
    diag = FAMILY.only_error("vm.invoke_tvm_op(%a, (%b,), (%b,))", params)
    assert (diag.code, diag.span.text) == ("type-mismatch", "(%b,)")
    out = np.zeros(2, np.float32)
    assert (
        FAMILY.run(
            "vm.invoke_tvm_op", lambda x, y: x * y, (np.array([2, 3], np.float32), np.array([4, 5], np.float32)), (out,)
        )
        == ()
    )
    same(out, [8, 15])
    outs = (np.zeros(1, np.int32), np.zeros((), np.int32))
    FAMILY.run("vm.invoke_tvm_op", lambda x: (x + 1, x.sum()), (np.array([6], np.int32),), outs)
    same(outs[0], np.array([7], np.int32))
    same(outs[1], np.array(6, np.int32))
    with pytest.raises(KernelError, match="shape \\[3\\] for an output of shape \\[2\\]"):
        FAMILY.run("vm.invoke_tvm_op", lambda x: x, (np.zeros(3, np.float32),), (np.zeros(2, np.float32),))


def test_call_lowered() -> None:
    """CallLoweredRel: the arguments tuple is the parameter types; the result the function's."""
    params = ["fn (Tensor[(2), float32], int32) -> Tensor[(2), int32]", T("(2)"), "int32"]
    assert FAMILY.result_type("call_lowered(%a, (%b, %c))", params) == "Tensor[(2), int32]"
    diag = FAMILY.only_error("call_lowered(%b, (%b, %c))", params)
    assert (diag.code, diag.message, diag.span.text) == (
        "type-mismatch",
        "`call_lowered` calls a function, found a value that is not one",
        "%b",
    )
    same(
        FAMILY.run(
            "call_lowered", lambda x, k: (x * k).astype(np.int32), (np.array([1.5, 2], np.float32), np.int32(2))
        ),
        np.array([3, 4], np.int32),
    )


def test_vm_shape_and_reshape() -> None:
    assert FAMILY.result_type("vm.shape_of(%a)", [T("(2, 5, 3)")]) == "Tensor[(3), int64]"
    same(FAMILY.run("vm.shape_of", np.zeros((2, 5, 3), np.float32)), np.array([2, 5, 3], np.int64))
    assert (
        FAMILY.result_type("vm.reshape_tensor(%a, %b, newshape=[5, 6])", [T("(2, 5, 3)"), T("(2)", "int64")])
        == "Tensor[(5, 6), float32]"
    )
    diag = FAMILY.only_error("vm.reshape_tensor(%a, %b, newshape=[5, 6])", [T("(2, 5, 3)"), T("(3)", "int64")])
    assert (diag.code, diag.span.text) == ("shape-mismatch", "%b")
    same(
        FAMILY.run("vm.reshape_tensor", np.arange(6, dtype=np.int8), np.array([3, 2], np.int64), newshape=[3, 2]),
        np.arange(6, dtype=np.int8).reshape(3, 2),
    )
    with pytest.raises(KernelError, match="cannot reshape 6 elements"):
        FAMILY.run("vm.reshape_tensor", np.arange(6, dtype=np.int8), np.array([4, 2], np.int64), newshape=[4, 2])


def test_storage_needs_its_type() -> None:
    """The memory operators use the `Storage` type of TVM's core library; the Prelude declares it."""
    result = FAMILY.check("memory.alloc_storage(%a, %b, %a)", [T("()", "int64"), T("(2)", "int64")])
    ty = result.result.global_type("main").ret_type
    assert ty.func.name == "Storage" and ty.func is result.prelude.module.type_def("Storage").header


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
