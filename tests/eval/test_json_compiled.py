"""The compiled float32 JSON writer (`numbers_jit`, the `fast` extra): the
same text as the numpy path and the element-by-element reference, and the
numpy path whenever numba is missing or does not work."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from relay_text.compiled import Compiled
from relay_text.eval import numbers, numbers_jit
from relay_text.eval.show import write_value_json

from .test_json_output import _awkward_float32, _random_bits

pytest.importorskip("numba", reason="the compiled path needs the `fast` extra (numba)")


@pytest.fixture(autouse=True)
def _decided_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test decides availability afresh, and leaves the process's choice alone."""
    monkeypatch.setattr(numbers_jit, "KERNEL", Compiled(numbers_jit._checked))


def _compiled(x: np.ndarray) -> str:
    assert numbers_jit.available()
    return numbers_jit.block_text(x)


@pytest.mark.parametrize(
    "make",
    [
        lambda rng: _random_bits(rng, 100_000),
        lambda rng: rng.standard_normal(100_000).astype(np.float32),
        lambda rng: (rng.standard_normal(50_000) * 1e-4).astype(np.float32),
        lambda rng: (rng.standard_normal(50_000) * 1e-30).astype(np.float32),
        lambda rng: (rng.standard_normal(50_000) * 1e7).astype(np.float32),
        lambda rng: np.round(rng.standard_normal(50_000) * 1e4, 2).astype(np.float32),
        lambda rng: _awkward_float32(),
    ],
    ids=["bits", "normal", "small", "tiny", "large", "two-decimals", "awkward"],
)
def test_the_compiled_text_is_the_numpy_text(make) -> None:
    """Every class of float32 (random bit patterns with NaNs, infinities,
    subnormals and integers from 1e6 up, which are left to numpy's `str`;
    scaled values on both sides of the positional range; short decimals;
    powers of two and ten and their neighbours) gives the numpy path's text,
    which is the element-by-element reference's."""
    x = make(np.random.default_rng(5))
    text = _compiled(x)
    assert text == numbers._float32_block(x)
    assert text == numbers._slow_block(x)


def test_read_only_and_unaligned_tensors_need_no_second_compile() -> None:
    """A constant's tensor is read-only, one read from a buffer may be
    unaligned: both are written through the signature the loop was compiled
    for (no second compile, of seconds, in the middle of a run)."""
    assert numbers_jit.available()
    kernel = numbers_jit.KERNEL.get()
    compiled = len(kernel.signatures)
    values = np.random.default_rng(6).standard_normal((40, 25)).astype(np.float32)
    constant = values.copy()
    constant.flags.writeable = False
    unaligned = np.frombuffer(b"\0" + values.tobytes(), dtype=np.float32, offset=1).reshape(40, 25)
    assert not unaligned.flags.aligned
    for x in (constant, unaligned):
        assert numbers_jit.block_text(x) == numbers._float32_block(values)
    assert len(kernel.signatures) == compiled


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 1, 4), (1, 1, 1), (2, 3, 1, 2), (4, 1), (5, 7, 3)])
def test_nested_lists_in_pieces(shape: tuple, threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The brackets and separators of every shape, with the elements left to
    numpy (a subnormal, an integer of 1e6 and more) at the first and last
    places and where the threads' pieces meet."""
    monkeypatch.setattr(numbers, "THREADS", threads)
    x = np.random.default_rng(6).standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[0] = np.float32(1e-40)
    flat[-1] = np.float32(3e7)
    flat[flat.size // 2] = np.float32(-1e-42)
    assert _compiled(x) == numbers._slow_block(x)


def test_a_tensor_from_the_threshold_up_is_written_by_the_compiled_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """`write_tensor` decides once per tensor: float32 from MIN_ELEMENTS up
    through the compiled loop, smaller ones and other dtypes by numpy."""
    used: list[int] = []
    compiled = numbers_jit.block_text
    monkeypatch.setattr(numbers_jit, "block_text", lambda arr: used.append(arr.size) or compiled(arr))
    monkeypatch.setattr(numbers_jit, "MIN_ELEMENTS", 1000)
    x = np.random.default_rng(7).standard_normal((40, 50)).astype(np.float32)
    parts: list[str] = []
    numbers.write_tensor(parts.append, x, chunk=512)
    assert "".join(parts) == numbers._slow_block(x)
    assert used == [500, 500, 500, 500]  # (ten rows of 50 at a time)
    used.clear()
    numbers.write_tensor(parts.append, x[:10], chunk=512)  # 500 elements: below the threshold
    numbers.write_tensor(parts.append, x.astype(np.float64), chunk=512)
    assert used == []


def _json(x: np.ndarray) -> str:
    out = io.StringIO()
    write_value_json(x, out.write)
    return out.getvalue()


def test_without_numba_the_numpy_path_writes_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numbers_jit, "MIN_ELEMENTS", 10)
    x = np.random.default_rng(8).standard_normal((30, 7)).astype(np.float32)
    expected = _json(x)
    monkeypatch.setattr(numbers_jit, "KERNEL", Compiled(numbers_jit._checked))
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    assert not numbers_jit.available()
    assert _json(x) == expected


def test_a_compiler_that_fails_leaves_the_numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise RuntimeError("no code generated")

    monkeypatch.setattr(numbers_jit, "_compile", broken)
    assert not numbers_jit.available()


def test_a_loop_that_writes_another_text_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe block is compared with the numpy path before the loop is used."""
    monkeypatch.setattr(numbers_jit, "_text", lambda kernel, arr: "[[0.1]]")
    assert not numbers_jit.available()
