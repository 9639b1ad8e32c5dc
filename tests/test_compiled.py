"""`relay_text.compiled.Compiled`: an optional compiled loop, decided once per
process, falls back to numpy (None) on every kind of failure."""

from __future__ import annotations

import sys
import warnings

import pytest

from relay_text.compiled import Compiled


def test_the_loop_is_loaded_once_and_kept() -> None:
    pytest.importorskip("numba", reason="loading needs the `fast` extra (numba)")
    loads = []
    path = Compiled(lambda: loads.append(1) or "loop")
    assert not path.tried
    assert (path.get(), path.get(), path.available()) == ("loop", "loop", True)
    assert path.tried and loads == [1]


def test_a_loop_whose_check_fails_is_not_used_and_not_tried_again() -> None:
    pytest.importorskip("numba", reason="loading needs the `fast` extra (numba)")
    loads = []
    path: Compiled[str] = Compiled(lambda: loads.append(1) or None)
    assert (path.get(), path.available(), loads) == (None, False, [1])


def test_a_compiler_error_or_warning_leaves_numpy(recwarn: pytest.WarningsRecorder) -> None:
    pytest.importorskip("numba", reason="loading needs the `fast` extra (numba)")

    def broken() -> str:
        warnings.warn("cannot cache", RuntimeWarning, stacklevel=1)
        raise RuntimeError("no code generated")

    path = Compiled(broken)
    assert path.get() is None and path.tried
    assert len(recwarn) == 0  # (the compiler's warnings are not shown to the user)


def test_without_numba_nothing_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    loads = []
    path = Compiled(lambda: loads.append(1) or "loop")
    assert (path.get(), loads) == (None, [])


def test_a_decided_path_never_loads() -> None:
    assert Compiled.decided("loop").get() == "loop"
    assert Compiled.decided(None).tried and not Compiled.decided(None).available()


def test_a_warm_loop_is_loaded_once_numpy_did_that_much_work() -> None:
    """`after(work)` counts numpy's work until it reaches `warm` (the step
    that reaches it included), then loads; once decided it counts no more."""
    pytest.importorskip("numba", reason="loading needs the `fast` extra (numba)")
    loads = []
    path = Compiled(lambda: loads.append(1) or "loop", warm=100)
    assert [path.after(40), path.after(59)] == [None, None]
    assert (path.tried, path.numpy_work, loads) == (False, 99, [])
    assert path.after(1) == "loop"
    assert (path.tried, path.numpy_work, loads) == (True, 100, [1])
    assert path.after(10**9) == "loop" and path.numpy_work == 100


def test_without_warm_the_first_step_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)
    path = Compiled(lambda: "loop")
    assert (path.after(0), path.tried) == (None, True)
