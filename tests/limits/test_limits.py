"""The documented limits (relay_text/limits.py): each is a located
`resource-limit` error, in `check` where the size is known before running
and in `run` where it is not; never an internal error."""

from __future__ import annotations

import pytest

from relay_text import check, limits
from relay_text.eval.entry import RunRequest
from relay_text.ir.span import Source
from relay_text.pipeline import run_source


def where(d) -> tuple[int, int, int, int]:
    line, col = d.span.source.line_col(d.span.start)
    end_line, end_col = d.span.source.line_col(d.span.end)
    return line, col, end_line, end_col


def only_error(diags):
    errors = [d for d in diags if d.is_error]
    assert len(errors) == 1, [str(d) for d in errors]
    return errors[0]


def run(text: str, **request) -> object:
    return run_source(Source("prog.rly", text), RunRequest(**request))


# ---------------------------------------------------------------- literal digits


def test_an_integer_literal_of_4301_digits_is_a_resource_limit() -> None:
    text = "def @main() { " + "1" * 4301 + " }"
    d = only_error(check(text).diagnostics)
    assert d.code == "resource-limit"
    assert d.message == "a number literal of 4,301 digits is longer than the limit of 1,000 digits"
    assert where(d) == (1, 15, 1, 15 + 4301)
    assert d.label == "too long"


def test_the_digit_limit_is_exact_and_ignores_the_suffix() -> None:
    at_limit = "def @main() { " + "0" * (limits.MAX_LITERAL_DIGITS - 1) + "1i64 }"
    assert check(at_limit).ok
    over = "def @main() { " + "0" * limits.MAX_LITERAL_DIGITS + "1i64 }"
    d = only_error(check(over).diagnostics)
    assert (d.code, d.message) == (
        "resource-limit",
        "a number literal of 1,001 digits is longer than the limit of 1,000 digits",
    )


@pytest.mark.parametrize(
    "written, col",
    [
        ("Constant(0, (BIG, 2), float32)", 28),  # a constant's dimension
        ("(1, 2).BIG", 21),  # a projection
        ("let %t = (1, 2); %t.BIG", 35),  # a projection written into the variable
        ("BIG.5", 15),  # a float literal
        ("-BIG", 15),  # a negated literal (the digits, without the sign)
        ("fn (%x: Tensor[(BIG), float32]) { %x }", 31),  # a type's dimension
    ],
)
def test_every_place_a_number_is_written_has_the_digit_limit(written: str, col: int) -> None:
    big = "1" + "0" * 4999
    text = "def @main() { " + written.replace("BIG", big) + " }"
    d = only_error(check(text).diagnostics)
    assert d.code == "resource-limit"
    assert d.message.startswith("a number literal of 5,0")
    assert where(d)[:2] == (1, col)


def test_an_attribute_value_has_the_digit_limit() -> None:
    big = "1" + "0" * 4999
    text = '#[version = "0.0.5"]\ndef @main(%x: Tensor[(2, 2), float32]) { nn.softmax(%x, axis=-' + big + ".0) }"
    d = only_error(check(text).diagnostics)
    assert (d.code, d.message) == (
        "resource-limit",
        "a number literal of 5,001 digits is longer than the limit of 1,000 digits",
    )
    assert where(d) == (2, 63, 2, 63 + 5002)


# ---------------------------------------------------------------- constants, in check


def test_a_constant_of_64_dimensions_is_a_resource_limit_in_check() -> None:
    text = "def @main() { Constant(0, (" + ", ".join(["2"] * 64) + "), float32) }"
    d = only_error(check(text).diagnostics)
    assert d.code == "resource-limit"
    assert d.message == "a constant of 64 dimensions has more than the limit of 32"
    assert where(d) == (1, 15, 1, len(text) - 1)
    assert d.label == "too large"
    ran = run(text)
    assert not ran.ok and not ran.started
    assert [x.code for x in ran.diagnostics if x.is_error] == ["resource-limit"]


def test_a_constant_with_too_many_elements_is_a_resource_limit_in_check() -> None:
    text = "def @main() { Constant(0, (1048576, 1048576, 2), float32) }"
    d = only_error(check(text).diagnostics)
    assert d.code == "resource-limit"
    assert d.message == "a constant of 2,199,023,255,552 elements has more than the limit of 1,099,511,627,776 (2^40)"
    assert where(d) == (1, 15, 1, 58)


def test_a_constant_of_32_dimensions_within_the_element_limit_checks() -> None:
    assert check("def @main() { Constant(0, (" + ", ".join(["1"] * 32) + "), float32) }").ok


# ---------------------------------------------------------------- memory, in run


def test_a_constant_larger_than_max_memory_is_refused_before_running() -> None:
    text = "def @main() { Constant(1, (1024, 1024), float32) }"
    assert check(text).ok
    ran = run(text, max_memory=2**20)
    assert not ran.ok and not ran.started
    d = only_error(ran.diagnostics)
    assert d.code == "resource-limit"
    assert (
        d.message
        == "this constant needs 4 MiB (1,048,576 elements), more than the memory limit of 1 MiB (--max-memory)"
    )
    assert where(d) == (1, 15, 1, 49)
    # a limit far above what the test process holds (on Python 3.10 it holds
    # the stack pages deep runs of earlier tests touched: several GiB)
    assert run(text, max_memory=2**40).ok


def test_the_memory_limit_counts_what_the_run_already_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each tensor may fit the limit while all of them do not: the memory the
    process holds counts too (a 10 GiB constant, then its 10 GiB cast, would
    otherwise exhaust a 24 GiB machine)."""
    monkeypatch.setattr(limits, "resident", lambda: 6 * 2**20)
    text = 'def @main() {\n  zeros(shape=[1000, 1000], dtype="float32")\n}'
    ran = run(text, max_memory=8 * 2**20)
    d = only_error(ran.diagnostics)
    assert d.code == "resource-limit"
    assert d.message == (
        "the result of `zeros` needs 3.81 MiB (1,000,000 elements); with the 6 MiB the run already holds, "
        "that is more than the memory limit of 8 MiB (--max-memory)"
    )
    assert where(d) == (2, 3, 2, 45)
    monkeypatch.setattr(limits, "resident", lambda: 2 * 2**20)
    assert run(text, max_memory=8 * 2**20).ok


def test_an_operator_result_of_static_shape_is_checked_before_its_kernel_runs() -> None:
    text = 'def @main() {\n  zeros(shape=[100000, 100000, 100], dtype="float32")\n}'
    assert check(text).ok
    ran = run(text, max_memory=2**30)
    assert not ran.ok and ran.started
    d = only_error(ran.diagnostics)
    assert d.code == "resource-limit"
    assert d.message == (
        "the result of `zeros` needs 3.64 TiB (1,000,000,000,000 elements), more than the memory limit of "
        "1 GiB (--max-memory)"
    )
    assert where(d) == (2, 3, 2, 54)


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (100, "100 bytes"),
        (1536, "1.5 KiB"),
        (512 * 2**20, "512 MiB"),
        (int(999.4 * 2**20), "999 MiB"),
        (int(999.6 * 2**20), "1,000 MiB"),  # (not `1e+03 MiB`)
        (1069547520, "1,020 MiB"),
        (2**30, "1 GiB"),
        (4 * 10**15, "3,638 TiB"),
    ],
)
def test_sizes_in_messages(n: int, text: str) -> None:
    assert limits.byte_text(n) == text


def test_dyn_zeros_with_a_shape_computed_at_run_time() -> None:
    text = 'def @main(%n: int64) {\n  dyn.zeros(stack((%n, %n, %n), axis=0), dtype="float32")\n}'
    assert check(text).ok
    ran = run(text, arg_texts=[("n", "100000i64")], max_memory=2**30)
    assert not ran.ok and ran.started
    d = only_error(ran.diagnostics)
    assert d.code == "resource-limit"
    assert d.message == (
        "the result of `dyn.zeros` (shape [100000, 100000, 100000]) needs 3,638 TiB "
        "(1,000,000,000,000,000 elements), "
        "more than the memory limit of 1 GiB (--max-memory)"
    )
    assert where(d) == (2, 3, 2, 58)
    small = run(text, arg_texts=[("n", "3i64")], max_memory=2**30)
    assert small.ok and small.value.shape == (3, 3, 3)


def test_dyn_full_with_a_shape_computed_at_run_time() -> None:
    text = "def @main(%n: int64) {\n  dyn.full(1f, stack((%n, %n), axis=0))\n}"
    ran = run(text, arg_texts=[("n", "100000i64")], max_memory=2**30)
    d = only_error(ran.diagnostics)
    assert d.code == "resource-limit"
    assert d.message == (
        "the result of `dyn.full` (shape [100000, 100000]) needs 37.3 GiB (10,000,000,000 elements), "
        "more than the memory limit of 1 GiB (--max-memory)"
    )
    assert where(d) == (2, 3, 2, 40)


def test_arange_with_a_bound_computed_at_run_time() -> None:
    text = "def @main(%n: float32) {\n  arange(0f, %n, 1f)\n}"
    ran = run(text, arg_texts=[("n", "1e12")], max_memory=2**30)
    d = only_error(ran.diagnostics)
    assert d.code == "resource-limit"
    assert d.message == (
        "the result of `arange` needs 7.28 TiB (999,999,995,904 elements), more than the memory limit of 1 "
        "GiB (--max-memory)"
    )
    assert where(d) == (2, 3, 2, 21)


def test_the_default_memory_limit_is_half_the_machine() -> None:
    assert limits.default_max_memory() == int(limits.machine_memory() * 0.5)
    assert limits.machine_memory() > 2**20


@pytest.mark.parametrize(
    "text, n", [("512M", 512 * 2**20), ("2G", 2 * 2**30), ("1.5GiB", 3 * 2**29), ("1000000", 10**6), ("4kb", 4000)]
)
def test_sizes_are_read_with_units(text: str, n: int) -> None:
    assert limits.parse_bytes(text) == n


@pytest.mark.parametrize("text", ["", "M", "12Q", "-1G", "0", "nan", "inf"])
def test_a_malformed_size_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        limits.parse_bytes(text)


# ---------------------------------------------------------------- a let-bound function called in its own binding


def test_a_function_called_in_its_own_binding_is_an_unbound_variable() -> None:
    text = "def @main() { let %f = fn (%x: int32) -> int32 { %f(%x) }(1); %f }"
    d = only_error(check(text).diagnostics)
    assert d.code == "unbound-variable"
    assert d.message == "`%f` is used in its own value, before it is bound"
    assert where(d) == (1, 50, 1, 52)
    assert d.label == "not bound yet"
    ran = run(text)
    assert not ran.ok and not ran.started


def test_a_recursive_let_bound_function_still_runs() -> None:
    text = (
        "def @main() { let %f = /* c */ fn (%x: int32) -> int32 { if (%x > 0) { %f(%x - 1) + 1 } else { 0 } }; %f(5) }"
    )
    ran = run(text)
    assert ran.ok and int(ran.value) == 5


def test_a_random_argument_larger_than_max_memory_is_refused() -> None:
    text = "def @main(%x: Tensor[(100000, 100000, 100), float32]) { %x }"
    ran = run(text, random_args=True, max_memory=2**30)
    assert not ran.ok and not ran.started
    d = only_error(ran.diagnostics)
    assert d.code == "resource-limit"
    assert d.message == (
        "a random value for `x` needs 3.64 TiB (1,000,000,000,000 elements), more than the memory limit of "
        "1 GiB (--max-memory)"
    )
    assert where(d) == (1, 11, 1, 13)


def test_a_constant_the_system_cannot_allocate_is_a_resource_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Within `--max-memory`, the system may still refuse (a container's own
    limit): the constant is reported, not an internal error."""
    import numpy as np

    def refuse(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(np, "full", refuse)
    ran = run("def @main() { Constant(1, (1024, 1024), float32) }", max_memory=2**40)
    d = only_error(ran.diagnostics)
    assert (d.code, d.message) == (
        "resource-limit",
        "this constant needs 4 MiB, more memory than the system gives the run",
    )
    assert where(d) == (1, 15, 1, 49)


def test_a_nan_fill_value_for_an_integer_constant_is_an_invalid_literal() -> None:
    d = only_error(check("def @main() { Constant(nanf, (2), int32) }").diagnostics)
    assert (d.code, d.message) == ("invalid-literal", "`nanf` is not an integer, as dtype int32 requires")


# ---------------------------------------------------------------- the system refuses memory


def test_random_arguments_the_system_cannot_allocate_are_a_resource_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Within --max-memory, the system may still refuse (an address-space
    limit, a fragmented heap): that is a located `resource-limit` error."""
    import numpy as np

    class Refusing:
        def standard_normal(self, shape):  # type: ignore[no-untyped-def]
            raise MemoryError("Unable to allocate 8.00 MiB")

    monkeypatch.setattr(np.random, "default_rng", lambda seed=None: Refusing())
    ran = run("def @main(%x: Tensor[(1024, 1024), float32]) { %x }", random_args=True)
    d = only_error(ran.diagnostics)
    assert (d.code, d.message, d.label) == (
        "resource-limit",
        "a random value for `x` needs 4 MiB, more memory than the system gives the run",
        "too large",
    )
    assert where(d)[:2] == (1, 11)


def test_an_operator_the_system_cannot_give_memory_is_a_resource_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from relay_text.ops import registry

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise MemoryError

    op = registry.get("negative")
    assert op is not None
    monkeypatch.setitem(registry._OPS, "negative", dataclasses.replace(op, kernel=refuse))
    ran = run("def @main(%x: Tensor[(2), float32]) {\n  negative(%x)\n}", random_args=True, optimize=False)
    d = only_error(ran.diagnostics)
    assert (d.code, d.message) == ("resource-limit", "this needs more memory than the system gives the run")
    assert where(d) == (2, 3, 2, 15)
