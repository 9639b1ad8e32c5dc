"""What a family's test module uses: programs around one call, kernels by name,
and the record of which operators the module tests.

A family's tests live in `tests/ops/<group>/test_<module>.py`, beside the
operators' module `relay_text/ops/<group>/<module>.py` (tests/ops/
test_layout.py keeps the two trees alike), and start with

    FAMILY = Family("gather", "gather_nd", ...)

naming every operator the module covers. For each of them the module tests
the type relation both ways (`FAMILY.result_type(...)` gives the type a
call checks to; `FAMILY.only_error(...)` the one diagnostic a wrong call
gets) and the kernel against a reference: PyTorch through
`tests.reference.torch_reference()` where PyTorch has the operation,
otherwise a small independent implementation written in the test (numpy
or plain Python loops) or hand-computed values. `FAMILY.run(...)` calls a
kernel as the evaluator does.

The module ends with `test_every_operator_of_the_family_was_tested`
(`FAMILY.assert_complete()`): every named operator was typed and run above.
`tests/ops/test_coverage.py` checks that every registered operator belongs
to some family module.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from relay_text.ir.span import Source
from relay_text.ops import get
from relay_text.pipeline import Checked, check_source
from relay_text.text.type_text import type_text


def T(shape: str, dtype: str = "float32") -> str:
    """The text of a tensor type: `T("(2, 3)")` is `Tensor[(2, 3), float32]`."""
    return f"Tensor[{shape}, {dtype}]"


def program(call: str, types: list[str]) -> str:
    """`def @main(%a: ..., %b: ...) { <call> }`: parameters named a, b, c, ..."""
    params = ", ".join(f"%{chr(ord('a') + i)}: {t}" for i, t in enumerate(types))
    return f"def @main({params}) {{\n  {call}\n}}\n"


class Family:
    """The operators one test module covers, and which of them it typed and ran."""

    def __init__(self, *names: str) -> None:
        missing = [n for n in names if get(n) is None]
        assert not missing, f"not registered: {missing}"
        self.names = frozenset(names)
        self.typed: set[str] = set()
        self.ran: set[str] = set()

    # ---- relations -----------------------------------------------------------

    def check(self, call: str, types: list[str]) -> Checked:
        """`call` checked in a `@main` taking `types` (see `program`)."""
        for name in self.names:
            if re.search(r"(?<![\w.])" + re.escape(name) + r"\(", call):  # `one_hot(`, not `dyn.one_hot(`
                self.typed.add(name)
        return check_source(Source("t.rly", program(call, types)))

    def result_type(self, call: str, types: list[str]) -> str:
        """The type `call` checks to, in the documented syntax; it must check cleanly."""
        checked = self.check(call, types)
        assert [str(d) for d in checked.diagnostics] == []
        return type_text(checked.result.global_type("main").ret_type)

    def param_type(self, call: str, types: list[str], index: int) -> str:
        """The inferred type of parameter `index` (types may hold `_` holes)."""
        checked = self.check(call, types)
        assert [str(d) for d in checked.diagnostics] == []
        return type_text(checked.result.global_type("main").arg_types[index])

    def only_error(self, call: str, types: list[str]) -> Any:
        """The one diagnostic of a call that must not check."""
        checked = self.check(call, types)
        assert len(checked.diagnostics) == 1, [str(d) for d in checked.diagnostics]
        return checked.diagnostics[0]

    # ---- kernels ---------------------------------------------------------------

    def run(self, name: str, *args: Any, **attrs: Any) -> Any:
        """The kernel of `name` on `args` (numpy arrays, tuples of them) with
        `attrs` validated and completed as the evaluator does."""
        assert name in self.names, f"{name} is not one of this family's operators"
        self.ran.add(name)
        op = get(name)
        assert op is not None
        full, problems = op.normalize_attrs(attrs.items())
        assert not problems, [p.message for p in problems]
        return op.kernel(tuple(args), full)

    def assert_complete(self) -> None:
        """Every operator of the family was typed and run by the tests above."""
        assert sorted(self.names - self.typed) == [], "never type-checked"
        missing = sorted(self.names - self.ran)
        if missing:
            import importlib.util

            if importlib.util.find_spec("torch") is None:  # their reference tests were skipped
                import pytest

                from tests.reference import SKIP_REASON

                pytest.skip(f"{', '.join(missing)} run only in tests against PyTorch: {SKIP_REASON}")
        assert missing == [], "never run"


def same(x: Any, expected: Any, dtype: str | None = None, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    """`x` is a numpy array equal to `expected`, with its dtype and shape
    (dtype: `expected`'s own when it is an array, else float32)."""
    assert isinstance(x, np.ndarray), type(x)
    if dtype is None:
        dtype = str(expected.dtype) if isinstance(expected, np.ndarray) else "float32"
    expected = np.asarray(expected, dtype=dtype)
    assert x.dtype == expected.dtype, (x.dtype, expected.dtype)
    assert x.shape == expected.shape, (x.shape, expected.shape)
    if x.dtype.kind in "biu":
        np.testing.assert_array_equal(x, expected)
    else:
        np.testing.assert_allclose(x, expected, rtol=rtol, atol=atol)
