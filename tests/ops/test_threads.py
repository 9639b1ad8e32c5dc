"""The kernel threads (relay_text.ops._threads): how many, how a step is cut
into pieces, and that pieces computed on the pool give the same result as
one call on the calling thread."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import Any
from collections.abc import Callable

import numpy as np
import pytest

from relay_text.ops import _threads
from relay_text.ops._threads import PARALLEL_MIN, parallel_copy, ranges, run_parts, split_axis, split_count
from tests.conftest import ROOT


@pytest.fixture
def no_thread_variables(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for var in _threads.THREAD_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_thread_count_first_variable_set_wins(no_thread_variables: pytest.MonkeyPatch) -> None:
    no_thread_variables.setenv("OPENBLAS_NUM_THREADS", "3")
    no_thread_variables.setenv("MKL_NUM_THREADS", "5")
    assert _threads.thread_count() == 3
    no_thread_variables.setenv("RELAY_NUM_THREADS", "1")
    assert _threads.thread_count() == 1


@pytest.mark.parametrize(("value", "expected"), [("200", 64), ("0", None), ("two", None), (" 2 ", 2)])
def test_thread_count_values(no_thread_variables: pytest.MonkeyPatch, value: str, expected: int | None) -> None:
    """At most 64; a value that is not a positive count is passed over (the cores decide, at most 4)."""
    no_thread_variables.setenv("RELAY_NUM_THREADS", value)
    count = _threads.thread_count()
    if expected is None:
        assert 1 <= count <= 4
    else:
        assert count == expected


def test_ranges_cover_in_order() -> None:
    assert ranges(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert ranges(2, 4) == [(0, 1), (1, 2)]
    assert ranges(0, 2) == []


def test_split_count_and_axis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "thread_count", lambda: 4)
    assert split_count(PARALLEL_MIN - 1) == 1
    assert split_count(2 * PARALLEL_MIN - 1) == 1
    assert split_count(3 * PARALLEL_MIN) == 3
    assert split_count(100 * PARALLEL_MIN) == 4
    assert split_axis((1, 3, 512), 4) == 2
    assert split_axis((1, 2, 3), 4) is None


def test_run_parts_uses_the_pool_and_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "thread_count", lambda: 2)
    seen: dict[int, str] = {}

    def part(i: int) -> None:
        seen[i] = threading.current_thread().name

    run_parts(part, [(0,), (1,)])
    assert seen[1] == threading.current_thread().name
    assert seen[0].startswith("relay-kernel")


def test_run_parts_reraises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "thread_count", lambda: 2)

    def part(i: int) -> None:
        if i == 0:
            raise ValueError("piece 0")

    with pytest.raises(ValueError, match="piece 0"):
        run_parts(part, [(0,), (1,)])


def test_parallel_copy_same_as_copyto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "thread_count", lambda: 2)
    src = np.random.default_rng(3).standard_normal((2, 3, PARALLEL_MIN // 3 + 5), dtype=np.float32)[:, :, ::-1]
    dst = np.empty(src.shape, dtype=np.float32)
    calls: list[int] = []
    counted = _threads.run_parts

    def counting(fn: Callable[..., Any], parts: list[tuple[Any, ...]]) -> None:
        calls.append(len(parts))
        counted(fn, parts)

    monkeypatch.setattr(_threads, "run_parts", counting)
    parallel_copy(dst, src)
    assert calls == [2]
    np.testing.assert_array_equal(dst, src)


_SHOW = (
    "import os, sys\n"
    "from relay_text.cli import main\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    "    loaded = 'numpy loaded' if 'numpy' in sys.modules else 'numpy not loaded'\n"
    "    print(loaded, os.environ.get('OPENBLAS_THREAD_TIMEOUT'))\n"
)


@pytest.mark.parametrize(("given", "expected"), [(None, "18"), ("6", "6")])
def test_relay_process_sets_blas_idle_time(given: str | None, expected: str) -> None:
    """The `relay` command sets OpenBLAS's idle wait before numpy loads, keeping a value the user set."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    env["PYTHONPATH"] = str(ROOT)
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    out = subprocess.run(
        [sys.executable, "-c", _SHOW, "--version"], capture_output=True, text=True, env=env, timeout=60, cwd=ROOT
    )
    assert out.stdout.splitlines()[-1] == f"numpy not loaded {expected}"


def test_library_use_leaves_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Called with arguments (a caller's process, as CliRunner does), the group changes no environment variable."""
    from click.testing import CliRunner

    from relay_text.cli import main

    monkeypatch.delenv("OPENBLAS_THREAD_TIMEOUT", raising=False)
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert "OPENBLAS_THREAD_TIMEOUT" not in os.environ
