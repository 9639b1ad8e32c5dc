"""The kernel threads take the caller's floating-point error handling: an
overflow in `exp` inside a run is no numpy RuntimeWarning (it leaked from
the elementwise steps split over the kernel threads, with numpy's install
path in it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from relay_text.ops import _threads
from tests.conftest import ROOT


def test_a_run_that_overflows_prints_no_warning(tmp_path: Path) -> None:
    prog = tmp_path / "p.rly"
    prog.write_text("def @main(%x: Tensor[(4000, 1000), float32]) {\n  sum(sigmoid(exp(%x * 100f)))\n}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "RELAY_NUM_THREADS": "2"}
    out = subprocess.run(
        [sys.executable, "-m", "relay_text", "run", "--random-args", str(prog)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert (out.returncode, out.stderr) == (0, "")


def test_pool_threads_raise_when_the_caller_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "thread_count", lambda: 2)
    big = np.full(1 << 19, 100.0, dtype=np.float32)
    parts = [(big[: 1 << 18],), (big[1 << 18 :],)]
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        _threads.run_parts(lambda a: np.exp(a, out=a), parts[:1] + parts[1:])
    with np.errstate(all="ignore"):
        _threads.run_parts(lambda a: np.exp(a, out=a), parts)
    assert np.isinf(big).all()
