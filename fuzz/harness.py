"""A fuzzing campaign: modes of input, the oracles on each case, counts and findings."""

from __future__ import annotations

import hashlib
import random
import shlex
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .minimize import minimize
from .oracles import RUN_ARGS, Failure
from .worker import Target, Worker

MODES = ("mutate", "grammar", "typed", "comments", "metadata", "operators", "environment", "lsp")
# Modes whose cases are sessions with processes of their own (fuzz/environment.py,
# fuzz/lsp.py), not texts for the worker's oracles.
SCENARIO_MODES = ("environment", "lsp")
FINDINGS = Path(__file__).resolve().parent / "findings"


@dataclass
class Case:
    text: str
    origin: str  # what the case was made from, and how
    reference: str | None = None  # comments: the text without the inserted comments
    seed: str | None = None  # the seed file's text, for a case made from one


@dataclass
class Counts:
    cases: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    by_kind: dict[str, int] = field(default_factory=dict)

    def add(self, failures: list[Failure], seconds: float) -> None:
        self.cases += 1
        self.slowest = max(self.slowest, seconds)
        for kind in {f.kind for f in failures}:
            self.by_kind[kind] = self.by_kind.get(kind, 0) + 1

    def get(self, kind: str) -> int:
        return self.by_kind.get(kind, 0)

    def row(self, mode: str) -> str:
        other = sum(v for k, v in self.by_kind.items() if k not in ("internal", "hang", "refusal", "mismatch"))
        return (
            f"{mode:<9} {self.cases:>7} {self.get('internal'):>9} {self.get('hang'):>6} {self.get('refusal'):>9}"
            f" {self.get('mismatch'):>10} {other:>6} {self.seconds:>8.0f} {self.slowest:>8.1f}"
        )


HEADER = (
    f"{'mode':<9} {'cases':>7} {'internal':>9} {'hangs':>6} {'refusals':>9} {'mismatches':>10} {'other':>6} "
    f"{'seconds':>8} {'slowest':>8}"
)


@dataclass
class Finding:
    signature: str
    failure: Failure
    mode: str
    case: Case
    minimized: str
    path: Path | None = None


def _cases_mutate(rng: random.Random) -> Iterator[Case]:
    from .mutate import mutate, seed_texts

    seeds = seed_texts()
    while True:
        name, text = rng.choice(seeds)
        other = rng.choice(seeds)[1]
        mutated, how = mutate(text, rng, other)
        yield Case(mutated, f"{name}: {how}", seed=text)


def _cases_comments(rng: random.Random) -> Iterator[Case]:
    from .mutate import comment_slots, insert_comments, seed_texts

    seeds = [(name, text, comment_slots(text)) for name, text in seed_texts()]
    seeds = [s for s in seeds if s[2]]
    while True:
        name, text, slots = rng.choice(seeds)
        yield Case(insert_comments(text, rng, slots), f"{name}: comments", reference=text, seed=text)


def _cases_metadata(rng: random.Random) -> Iterator[Case]:
    from .mutate import metadata_seeds, mutate_metadata

    seeds = metadata_seeds()
    while True:
        name, text = rng.choice(seeds)
        mutated, how = text, []
        for _ in range(rng.choice([1, 1, 2, 3])):
            mutated, what = mutate_metadata(mutated, rng)
            how.append(what)
        yield Case(mutated, f"{name}: metadata {'+'.join(how)}", seed=text)


def _cases_operators(rng: random.Random) -> Iterator[Case]:
    from .operators import operator_cases

    for text, origin in operator_cases(rng):
        yield Case(text, origin)


RNG_MODES: dict[str, Callable[[random.Random], Iterator[Case]]] = {
    "mutate": _cases_mutate,
    "comments": _cases_comments,
    "metadata": _cases_metadata,
    "operators": _cases_operators,
}


class Campaign:
    """Runs modes against the oracles, counts, and saves each new finding once, minimized."""

    def __init__(
        self,
        seed: int = 0,
        case_timeout: float = 10.0,
        findings_dir: Path | None = FINDINGS,
        target: Target | None = None,
        minimize_seconds: float = 60.0,
        memory_limit: int | None = 3 << 30,
        log: Callable[[str], None] = print,
    ) -> None:
        from .oracles import evaluate

        self.seed = seed
        self.case_timeout = case_timeout
        self.findings_dir = findings_dir
        self.minimize_seconds = minimize_seconds
        self.worker = Worker(target or evaluate, case_timeout, memory_limit)
        self.log = log
        self.counts: dict[str, Counts] = {}
        self.findings: dict[str, Finding] = {}
        self.slow_seeds: dict[str, bool] = {}  # seed text's hash -> its own run is too slow to fuzz `run` with

    def runs(self, case: Case) -> bool:
        """Whether to `run` the case: not for a case made from a seed whose own
        run takes a third of the time limit or more (a model such as GPT-2 is
        slow, not hung; its mutants are still checked and formatted)."""
        if case.seed is None:
            return True
        key = hashlib.sha1(case.seed.encode("utf-8", "surrogatepass")).hexdigest()
        if key not in self.slow_seeds:
            _, seconds = self.worker.evaluate(case.seed, None)
            self.slow_seeds[key] = seconds >= self.case_timeout / 3
            if self.slow_seeds[key]:
                self.log(f"  a seed takes {seconds:.1f} s: its cases are not run ({case.origin.split(':')[0]})")
        return not self.slow_seeds[key]

    def close(self) -> None:
        self.worker.close()

    def __enter__(self) -> Campaign:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- one case

    def run_scenario(self, mode: str, rng: random.Random, seeds: list[tuple[str, str]]) -> list[Failure]:
        """One case of an environment or lsp mode: a scenario with its own processes."""
        start = time.monotonic()
        if mode == "environment":
            from .environment import run_scenario

            origin, failures = run_scenario(rng, seeds)
        else:
            from .lsp import run_session

            origin, failures = run_session(rng, seeds)
        counts = self.counts.setdefault(mode, Counts())
        counts.add(failures, time.monotonic() - start)
        for failure in failures:
            if failure.signature not in self.findings:
                self.log(f"  new finding [{mode}] {failure.line()}  ({origin})")
                finding = Finding(failure.signature, failure, mode, Case("", origin), "")
                self.findings[failure.signature] = finding
                if self.findings_dir is not None:
                    finding.path = self._save(finding)
        return failures

    def run_case(self, mode: str, case: Case) -> list[Failure]:
        run = self.runs(case)
        failures, seconds = self.worker.evaluate(case.text, case.reference, run=run)
        counts = self.counts.setdefault(mode, Counts())
        counts.add(failures, seconds)
        for failure in failures:
            if failure.signature not in self.findings:
                self._record(mode, case, failure, run)
        return failures

    def _record(self, mode: str, case: Case, failure: Failure, run: bool) -> None:
        signature = failure.signature
        self.log(f"  new finding [{mode}] {failure.line()}  ({case.origin})")
        small = case.text
        if self.minimize_seconds > 0 and case.reference is None:
            tries = 40 if failure.kind == "hang" else 400

            def fails(text: str) -> bool:
                found, _ = self.worker.evaluate(text, None, run=run)
                return any(f.signature == signature for f in found)

            small = minimize(case.text, fails, max_tests=tries, max_seconds=self.minimize_seconds)
        finding = Finding(signature, failure, mode, case, small)
        self.findings[signature] = finding
        if self.findings_dir is not None:
            finding.path = self._save(finding)

    def _save(self, finding: Finding) -> Path:
        digest = hashlib.sha1(finding.signature.encode()).hexdigest()[:10]
        folder = self.findings_dir / f"{finding.failure.kind}-{finding.failure.command}-{digest}"  # type: ignore[operator]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "original.rly").write_text(finding.case.text, encoding="utf-8", errors="surrogatepass")
        (folder / "minimized.rly").write_text(finding.minimized, encoding="utf-8", errors="surrogatepass")
        if finding.case.reference is not None:
            (folder / "reference.rly").write_text(finding.case.reference, encoding="utf-8", errors="surrogatepass")
        minimized = folder / "minimized.rly"
        command = {
            "check": f"relay check {shlex.quote(str(minimized))}",
            "run": "relay " + " ".join(RUN_ARGS) + f" {shlex.quote(str(minimized))}",
            "fmt": f"relay fmt --diff {shlex.quote(str(minimized))}",
        }.get(finding.failure.command, "")
        lines = [
            f"signature: {finding.signature}",
            f"failure:   {finding.failure.line()}",
            f"mode:      {finding.mode} (seed {self.seed})",
            f"from:      {finding.case.origin}",
            "reproduce:",
            f"    python -m fuzz --replay {shlex.quote(str(minimized))}",
        ]
        if finding.mode in SCENARIO_MODES:
            lines[5:] = [
                f"    python -m fuzz --mode {finding.mode} --seed {self.seed}  # (a scenario: run the mode again)"
            ]
        elif command:
            lines.append(f"    RELAY_DEBUG=1 {command}")
        if finding.case.reference is not None:
            lines.append(
                f"    relay check {shlex.quote(str(folder / 'reference.rly'))}  # the same text without the comments"
            )
        (folder / "README.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.log(f"    saved {folder}")
        return folder

    # ---- modes

    def run_mode(self, mode: str, seconds: float, max_cases: int | None = None) -> Counts:
        counts = self.counts.setdefault(mode, Counts())
        start = time.monotonic()
        deadline = start + seconds
        made = 0

        def handle(case: Case) -> bool:
            nonlocal made
            # (the first case always runs: making the generator may take a
            # mode's whole time on a busy machine)
            if (made and time.monotonic() >= deadline) or (max_cases is not None and made >= max_cases):
                return False
            made += 1
            self.run_case(mode, case)
            return True

        seed = self.seed * 1000 + MODES.index(mode)
        if mode in SCENARIO_MODES:
            from .environment import environment_seeds

            rng = random.Random(seed)
            seeds = environment_seeds()
            while (not made or time.monotonic() < deadline) and (max_cases is None or made < max_cases):
                made += 1
                self.run_scenario(mode, rng, seeds)
        elif mode in RNG_MODES:
            rng = random.Random(seed)
            for case in RNG_MODES[mode](rng):
                if not handle(case):
                    break
        else:
            from .generate import drive, grammar_programs, printed_programs

            strategy = grammar_programs() if mode == "grammar" else printed_programs()
            drive(strategy, seed, lambda text: handle(Case(text, f"{mode} #{made}")))
        counts.seconds += time.monotonic() - start
        return counts

    def report(self) -> str:
        rows = [HEADER] + [self.counts[m].row(m) for m in MODES if m in self.counts]
        rows.append(f"findings: {len(self.findings)} distinct")
        for finding in self.findings.values():
            where = f"  ({finding.path})" if finding.path else ""
            rows.append(f"  [{finding.mode}] {finding.failure.line()}{where}")
        return "\n".join(rows)
