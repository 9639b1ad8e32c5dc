"""Values as `relay run` prints them: text, JSON and .npz contents."""

from __future__ import annotations

import json

import numpy as np
import pytest

from relay_text.eval.show import flatten_tensors, scalar_text, value_json, value_text
from relay_text.eval.values import Data, Ref, to_python
from relay_text.std import prelude

P = prelude()
NIL, CONS, SOME = P.constructors["Nil"], P.constructors["Cons"], P.constructors["Some"]


def lst(*items: object) -> Data:
    value = Data(NIL)
    for item in reversed(items):
        value = Data(CONS, (item, value))
    return value


@pytest.mark.parametrize(
    "value, text",
    [
        (np.int32(11), "11"),
        (np.int32(-3), "-3"),
        (np.int64(11), "11i64"),
        (np.uint8(7), "7u8"),
        (np.int8(-7), "-7i8"),
        (np.float32(2.5), "2.5"),
        (np.float32(0.1), "0.1"),
        (np.float32(3), "3.0"),
        (np.float32(1e20), "1e+20"),
        (np.float64(0.1), "0.1f64"),
        (np.float16(0.5), "0.5f16"),
        (np.float32(np.inf), "inf"),
        (np.float32(-np.inf), "-inf"),
        (np.float32(np.nan), "nan"),
        (np.bool_(True), "True"),
        (np.asarray(False), "False"),
        (np.asarray(5, dtype=np.int32), "5"),
    ],
)
def test_scalars_print_as_literals(value: object, text: str) -> None:
    assert scalar_text(value) == text
    assert value_text(value) == text


def test_composite_values_on_one_line() -> None:
    assert value_text((np.int32(1), (np.bool_(True), ()))) == "(1, (True, ()))"
    assert value_text((np.int32(1),)) == "(1,)"
    assert value_text(lst(np.int32(1), np.int32(2))) == "Cons(1, Cons(2, Nil()))"
    assert value_text(Data(SOME, (Ref(np.int32(0)),))) == "Some(ref(0))"


def test_tensor_has_a_header_and_a_numpy_body() -> None:
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert value_text(value) == "Tensor[(2, 3), float32]\n[[0. 1. 2.]\n [3. 4. 5.]]"
    assert value_text(np.array([1, 2], dtype=np.int64)) == "Tensor[(2), int64]\n[1 2]"


def test_large_tensors_are_summarised_unless_full() -> None:
    value = np.arange(2000, dtype=np.int32)
    short = value_text(value)
    assert short.splitlines()[0] == "Tensor[(2000), int32]"
    assert "..." in short and "1000" not in short
    full = value_text(value, full=True)
    assert "..." not in full and " 1999]" in full


def test_composite_holding_a_tensor_spreads_over_lines() -> None:
    value = (np.zeros((2, 2), np.float32), Data(SOME, (np.ones(2, np.int32),)))
    assert value_text(value) == (
        "(\n  Tensor[(2, 2), float32]\n  [[0. 0.]\n   [0. 0.]],\n  Some(\n    Tensor[(2), int32]\n    [1 1],\n  ),\n)"
    )


@pytest.mark.slow
def test_printing_a_million_element_list_needs_no_recursion() -> None:
    value = lst(*([np.int32(1)] * 1_000_000))
    text = value_text(value, full=True)
    assert text.startswith("Cons(1, Cons(1, ") and text.endswith("Nil()" + ")" * 1_000_000)
    assert value_text(value) == "Cons(1, " * 10 + "...999,990 more elements" + ")" * 10  # without --full
    text = value_json(value)
    assert text == "[" + ", ".join(['{"tensor": 1, "dtype": "int32", "shape": []}'] * 1_000_000) + "]"
    assert len(json.loads(text)) == 1_000_000  # a flat array: no nesting for the reader either


def test_json_forms() -> None:
    assert json.loads(value_json(np.int32(11))) == {"tensor": 11, "dtype": "int32", "shape": []}
    assert json.loads(value_json(np.float32(2.5))) == {"tensor": 2.5, "dtype": "float32", "shape": []}
    assert json.loads(value_json(np.bool_(True))) == {"tensor": True, "dtype": "bool", "shape": []}
    assert json.loads(value_json(np.arange(4, dtype=np.int64).reshape(2, 2))) == {
        "tensor": [[0, 1], [2, 3]],
        "dtype": "int64",
        "shape": [2, 2],
    }
    assert json.loads(value_json((np.int32(1), ()))) == {
        "tuple": [{"tensor": 1, "dtype": "int32", "shape": []}, {"tuple": []}]
    }
    assert json.loads(value_json(Data(SOME, (np.int32(2),)))) == {
        "constructor": "Some",
        "fields": [{"tensor": 2, "dtype": "int32", "shape": []}],
    }
    assert json.loads(value_json(Ref(np.int32(0)))) == {"ref": {"tensor": 0, "dtype": "int32", "shape": []}}
    one = {"tensor": 1, "dtype": "int32", "shape": []}
    assert json.loads(value_json(lst(np.int32(1), np.int32(1)))) == [one, one]
    assert json.loads(value_json(Data(NIL))) == []
    assert json.loads(value_json(lst(lst(np.int32(1)), lst()))) == [[one], []]
    assert json.loads(value_json(Data(SOME, (lst(np.int32(1)),)))) == {"constructor": "Some", "fields": [[one]]}


def test_json_floats_are_exact_for_their_dtype_and_special_values_are_strings() -> None:
    value = np.array([0.1, np.inf, -np.inf, np.nan], dtype=np.float32)
    assert value_json(value) == '{"tensor": [0.1, "inf", "-inf", "nan"], "dtype": "float32", "shape": [4]}'
    assert json.loads(value_json(np.zeros((2, 0), np.float32)))["tensor"] == [[], []]
    assert json.loads(value_json(np.zeros((0, 2), np.float32)))["tensor"] == []


def test_npz_keys() -> None:
    a, b, c = np.zeros(1), np.ones(2), np.int32(3)
    assert list(flatten_tensors(a)) == ["out0"]
    assert list(flatten_tensors((a, (b, c)))) == ["out0", "out1_0", "out1_1"]
    with pytest.raises(ValueError, match="out1 is a constructor value"):
        flatten_tensors((a, lst()))


def test_to_python() -> None:
    value = (
        np.int32(3),
        lst(np.float32(0.5), np.float32(1.5)),
        np.arange(3, dtype=np.int8),
        Data(SOME, (np.bool_(True),)),
    )
    assert to_python(value) == (3, [0.5, 1.5], [0, 1, 2], ("Some", [True]))
    assert len(to_python(lst(*([np.int32(0)] * 1_000_000)))) == 1_000_000


def test_a_closure_keeps_its_signature_when_an_equal_program_is_collected() -> None:
    """Two runs of the same text compile to equal code objects; when the
    first run's code is collected, the second's closures still print with
    their Relay signature (they printed as `fn g1_f` once the first was gone)."""
    import gc

    from relay_text.ir.span import Source
    from relay_text.pipeline import run_source

    text = "def @f(%x: int32) -> int32 { %x }\ndef @main() { @f }\n"
    first = run_source(Source("a.rly", text))
    assert value_text(first.value) == "@f(%x : Tensor[(), int32]) -> Tensor[(), int32]"
    second = run_source(Source("a.rly", text))
    del first
    gc.collect()
    assert value_text(second.value) == "@f(%x : Tensor[(), int32]) -> Tensor[(), int32]"


def test_a_compiled_program_is_collected_once_nothing_uses_it() -> None:
    """The signatures of a program's closures live in the program's own
    namespace: a table beside it (keyed by code object, holding the
    compiler that computes a signature) kept every compiled program, with
    its folded constants, alive for the life of the process."""
    import gc
    import weakref

    from relay_text.eval.compile import compile_program
    from relay_text.eval.runtime import execute
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source

    checked = check_source(
        Source("a.rly", "def @f(%x: int32) -> int32 { %x }\ndef @main() { @f }\n"), use_prelude=False
    )
    module = checked.module
    program = compile_program(module, globals_=[module.global_var("main")], type_of=checked.result.type_of)
    closure = execute(program, "@main")
    assert value_text(closure) == "@f(%x : Tensor[(), int32]) -> Tensor[(), int32]"
    main = weakref.ref(program.function("@main"))
    del program, closure
    gc.collect()
    assert main() is None
