"""The fuzzer (fuzz/): a short seeded run of every mode finds nothing, and the
harness does find, save and minimize a failure that is planted in it.

`python -m fuzz --minutes 30` is the long run (docs/development.md, "Fuzzing").
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from fuzz.harness import MODES, Campaign, Case
from fuzz.minimize import minimize
from fuzz.oracles import Failure, evaluate
from fuzz.worker import Worker

# Cases per mode: about ten seconds each on the project's machine.
CASES = {
    "mutate": 60,
    "grammar": 60,
    "typed": 150,
    "comments": 30,
    "metadata": 150,
    "operators": 400,
    "environment": 4,
    "lsp": 3,
}
SECONDS = 12.0


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_a_seeded_run_finds_nothing(mode: str, tmp_path: Path) -> None:
    with Campaign(
        seed=0, case_timeout=10.0, findings_dir=tmp_path, minimize_seconds=20.0, log=lambda _: None
    ) as campaign:
        counts = campaign.run_mode(mode, SECONDS, CASES[mode])
    assert counts.cases > 0
    found = {
        sig: f"{f.failure.line()} ({f.case.origin})\n--- minimized:\n{f.minimized}"
        for sig, f in campaign.findings.items()
    }
    assert found == {}


def _planted_error(text: str, reference: str | None, workdir: Path, stage, run: bool = True) -> list[Failure]:
    if "@main" in text:
        raise ZeroDivisionError("planted")
    return []


def _planted_hang(text: str, reference: str | None, workdir: Path, stage, run: bool = True) -> list[Failure]:
    stage("run")
    if "@main" in text:
        time.sleep(60)
    return []


def test_a_planted_internal_error_is_found_saved_and_minimized(tmp_path: Path) -> None:
    with Campaign(
        seed=0, findings_dir=tmp_path, target=_planted_error, minimize_seconds=30.0, log=lambda _: None
    ) as campaign:
        campaign.run_case("mutate", Case("def @f() { 1 }\n\ndef @main() {\n  @f()\n}\n", "planted"))
        campaign.run_case("mutate", Case("def @f() { 1 }\n", "planted"))
    assert campaign.counts["mutate"].cases == 2
    assert campaign.counts["mutate"].get("internal") == 1
    (finding,) = campaign.findings.values()
    assert finding.failure.kind == "internal" and finding.failure.command == "api"
    assert finding.failure.detail == "ZeroDivisionError: planted"
    assert finding.minimized == "@main"
    (folder,) = tmp_path.iterdir()
    assert (folder / "minimized.rly").read_text() == "@main"
    assert "python -m fuzz --replay" in (folder / "README.txt").read_text()


@pytest.mark.slow
def test_a_planted_hang_is_found_and_the_worker_restarted(tmp_path: Path) -> None:
    with Campaign(
        seed=0, case_timeout=1.0, findings_dir=tmp_path, target=_planted_hang, minimize_seconds=0, log=lambda _: None
    ) as campaign:
        hung = campaign.run_case("typed", Case("def @main() { 0 }", "planted"))
        after = campaign.run_case("typed", Case("def @f() { 0 }", "planted"))
    assert [(f.kind, f.command) for f in hung] == [("hang", "run")]
    assert after == []
    assert campaign.worker.restarts == 1


def _planted_spin(text: str, reference: str | None, workdir: Path, stage, run: bool = True) -> list[Failure]:
    stage("check")
    while "@main" in text:
        pass
    return []


@pytest.mark.slow
def test_a_hang_is_a_case_that_used_the_limit_in_cpu_time(tmp_path: Path) -> None:
    """A case that keeps a core busy is a hang once it has used the limit in
    CPU time; one that waits (as a case does on a busy machine) is given up to
    WALL_FACTOR times the limit in wall time."""
    from fuzz.worker import WALL_FACTOR

    with Worker(_planted_spin, case_timeout=1.0) as worker:
        failures, seconds = worker.evaluate("def @main() { 0 }")
    assert [(f.kind, f.command) for f in failures] == [("hang", "check")]
    assert seconds >= 1.0
    with Worker(_planted_hang, case_timeout=1.0) as worker:
        failures, seconds = worker.evaluate("def @main() { 0 }")
    assert [(f.kind, f.command) for f in failures] == [("hang", "run")]
    assert seconds >= WALL_FACTOR


def test_the_oracles_hold_for_a_program_that_runs(tmp_path: Path) -> None:
    assert evaluate("def @main() { 1 + 2 }\n", workdir=tmp_path) == []


def test_the_oracles_see_a_refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_text import formatter
    from relay_text.formatter import UnsafeFormat

    def refuse(*args, **kwargs):
        raise UnsafeFormat("planted", "", "")

    monkeypatch.setattr(formatter, "format_source", refuse)
    (failure,) = evaluate("def @main() { 1 + 2 }\n", workdir=tmp_path)
    assert (failure.kind, failure.command, failure.detail) == ("refusal", "fmt", "safe mode refused: planted")


def test_a_dotted_type_name_is_formatted(tmp_path: Path) -> None:
    """Found by the grammar mode: `type n.o {}` checks, and fmt refused it
    (the printer allowed no dot in a type name)."""
    assert evaluate("type n.o {}\ndef @main(%x: n.o) { %x }\n", workdir=tmp_path, run=False) == []
    assert evaluate("data n.o { A.b : () -> n.o }\n", workdir=tmp_path, run=False) == []


def test_the_minimizer_keeps_the_failure() -> None:
    assert minimize("a\nb\nxXy\nd\n", lambda t: "X" in t) == "X"
    assert minimize("keep all", lambda t: t == "keep all") == "keep all"


def test_the_fuzzer_is_not_in_the_wheel_but_in_the_sdist() -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    from tests.conftest import ROOT

    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]
    assert build["wheel"]["packages"] == ["relay_text"]
    assert "fuzz" in build["sdist"]["include"]
    assert "fuzz/findings/" in (ROOT / ".gitignore").read_text().splitlines()


def test_a_program_that_rightly_runs_long_is_stopped_by_its_own_timeout(tmp_path: Path) -> None:
    """`@ackermann(2, 65536)` makes billions of calls: the run's timeout stops
    it with a located `resource-limit` error, which is no failure."""
    from fuzz.oracles import RUN_TIMEOUT

    text = (
        "def @ack(%m: int32, %n: int32) -> int32 {\n"
        "  if (%m == 0) { %n + 1 } else if (%n == 0) { @ack(%m - 1, 1) } else { @ack(%m - 1, @ack(%m, %n - 1)) }\n"
        "}\n"
        "def @main() -> int32 { @ack(2, 65536) }\n"
    )
    with Worker(evaluate, case_timeout=3 * float(RUN_TIMEOUT)) as worker:
        failures, seconds = worker.evaluate(text)
    assert failures == []
    assert seconds >= float(RUN_TIMEOUT)


def _report_pid(text: str, reference: str | None, workdir: Path, stage, run: bool = True) -> list[Failure]:
    import os

    return [Failure("exit", "api", str(os.getpid()))]


def test_a_worker_process_is_replaced_after_a_series_of_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    from fuzz import worker as worker_module

    monkeypatch.setattr(worker_module, "CASES_PER_PROCESS", 2)
    with Worker(_report_pid, case_timeout=10.0) as worker:
        pids = [worker.evaluate("def @main() { 0 }")[0][0].detail for _ in range(3)]
    assert pids[0] == pids[1] != pids[2]
    assert worker.restarts == 0  # replaced, not killed


def test_operator_calls_cover_every_operator_and_the_extremes() -> None:
    """The `operators` mode calls each registered operator in time, with
    extreme attribute values among the ordinary ones, and a good share of
    its programs check (so that they are run, not only rejected)."""
    import random

    from fuzz.operators import EXTREME_INTS, operator_cases
    from relay_text.ops import registry
    from relay_text.pipeline import check_source
    from relay_text.ir.span import Source

    cases = operator_cases(random.Random(0))
    drawn = [next(cases) for _ in range(6000)]
    names = {origin.removeprefix("operators: ") for _, origin in drawn}
    assert names == {op.name for op in registry.all_ops() if op.inputs >= 0}
    assert any(f"={EXTREME_INTS[-1]}" in text or f", {EXTREME_INTS[-1]}" in text for text, _ in drawn)
    checking = sum(check_source(Source("case.rly", text)).ok for text, _ in drawn[:300])
    assert checking >= 50


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["environment", "lsp"])
def test_a_short_run_of_the_process_modes_finds_nothing(mode: str, tmp_path: Path) -> None:
    """(Also in the seeded run of every mode above; this one is shorter.)"""
    with Campaign(seed=3, findings_dir=tmp_path, log=lambda _: None) as campaign:
        counts = campaign.run_mode(mode, 600.0, 2)
    assert counts.cases == 2
    assert {sig: f.failure.line() for sig, f in campaign.findings.items()} == {}


def test_the_lsp_mode_sees_a_server_that_does_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    import random
    import sys

    from fuzz import lsp

    monkeypatch.setattr(lsp.Session, "command", [sys.executable, "-c", "import sys; sys.stdin.buffer.read()"])
    _origin, failures = lsp.run_session(
        random.Random(0), [("t.rly", "def @main() { 1 }\n")], steps=2, reply_seconds=0.5
    )
    assert [(f.kind, f.command) for f in failures] == [("hang", "lsp")]
    assert failures[0].detail == "no reply to `initialize` (exit None)"


def test_the_environment_mode_sees_a_lost_file_and_a_temporary_one(tmp_path: Path) -> None:
    import random

    from fuzz import environment

    (tmp_path / ".relay-fmt-1234.tmp").write_text("x")
    assert environment._temporaries(tmp_path) == [".relay-fmt-1234.tmp"]
    assert environment._at_startup(
        'Traceback (most recent call last):\n  File "<frozen site>", line 1\nKeyboardInterrupt\n'
    )
    assert not environment._at_startup(
        'Traceback ...\n  File "relay_text/batch.py", line 3, in run_tasks\nKeyboardInterrupt\n'
    )
    assert environment._at_startup(
        'Traceback ...\n  File "relay_text/__init__.py", line 13, in <module>\n  File "typing.py", line 9, '
        "in <genexpr>\nKeyboardInterrupt\n"
    )
    origin, failures = environment.run_scenario(random.Random(5), [("t.rly", "def @main(%a,%b){%a+%b}\n")])
    assert failures == [], origin
