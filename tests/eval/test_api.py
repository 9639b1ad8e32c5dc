"""`relay_text.run`: the evaluator as a Python function."""

from __future__ import annotations

import numpy as np
import pytest

import relay_text
from relay_text.eval.values import Data, to_python
from relay_text.std import prelude
from relay_text.syntax.parser import parse


def test_results_are_numpy_values() -> None:
    scalar, tensor, pair, lst = relay_text.run(
        "def @main() { (3, Constant(1.5, (2), float32), (True, 2i64), Cons(1, Nil())) }"
    )
    assert isinstance(scalar, np.generic) and scalar.dtype == np.int32 and int(scalar) == 3
    assert isinstance(tensor, np.ndarray) and tensor.tolist() == [1.5, 1.5]
    assert pair[1].dtype == np.int64
    assert isinstance(lst, Data) and lst.name == "Cons" and to_python(lst) == [1]


def test_arguments_and_entry() -> None:
    src = "def @scale(%x : Tensor[(2), float32], %k : float32) { %x * %k }\ndef @main() { 0 }"
    value = relay_text.run(src, np.array([1, 2], np.float32), 3.0, entry="scale")
    assert value.dtype == np.float32 and value.tolist() == [3.0, 6.0]
    with pytest.raises(relay_text.RelayError) as err:
        relay_text.run(src, 1, 2, 3, entry="@scale")
    assert err.value.diagnostics[0].message == "`@scale` takes 2 arguments, 3 were given"


def test_a_parsed_module_is_checked_before_it_runs() -> None:
    module = parse("def @main() -> int32 { True }", "m.rly", prelude().env()).module
    with pytest.raises(relay_text.RelayError) as err:
        relay_text.run(module)
    assert [d.code for d in err.value.diagnostics] == ["type-mismatch"]
    ok = parse("def @main() { @length(Cons(1, Nil())) }", "m.rly", prelude().env()).module
    assert int(relay_text.run(ok)) == 1


def test_errors_carry_located_diagnostics() -> None:
    with pytest.raises(relay_text.RelayError) as err:
        relay_text.run("def @main() -> int32 {\n  @hd(Nil())\n}")
    (d,) = err.value.diagnostics
    assert (d.code, d.location()[1:3]) == ("match-failure", (45, 3))
    assert (
        str(err.value) == "relay_text/std/prelude.rly:45:3: error[match-failure]: no clause matches the value `Nil()`"
    )


def test_without_the_prelude() -> None:
    with pytest.raises(relay_text.RelayError) as err:
        relay_text.run("def @main() { @length(Cons(1, Nil())) }", prelude=False)
    assert sorted(d.code for d in err.value.diagnostics) == [
        "unknown-constructor",
        "unknown-constructor",
        "unknown-global",
    ]


def test_a_large_run_gives_its_memory_back() -> None:
    """A run that held 240 MiB of tensors leaves the process holding about
    what it held before: the optimised evaluator keeps freed memory for the
    run's next tensors, and gives it back when the run is over (a process
    running many programs would otherwise keep the largest run's memory)."""
    import gc

    from relay_text.limits import resident

    text = """
    def @build(%i : int32, %x : Tensor[(512, 512), float32]) -> List[Tensor[(512, 512), float32]] {
      if (%i == 0) { Nil() } else { Cons(%x * 2f, @build(%i - 1, %x + 1f)) }
    }
    def @main(%x : Tensor[(512, 512), float32]) { @length(@build(120, %x)) }
    """
    gc.collect()
    before = resident()
    assert int(relay_text.run(text, np.zeros((512, 512), np.float32))) == 120
    assert resident() - before < 64 << 20
