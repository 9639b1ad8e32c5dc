"""Small-file latency of `relay check` and `relay fmt --check`, and `relay fmt` throughput.

    python benchmarks/latency.py [--repeat N]

Latency: wall time of `relay check` and `relay fmt --check` on a 20-line
file (best and median of N runs, after a warm-up run that writes the
bytecode caches), the CPU time of the same runs, and what the command
imports (`python -X importtime`: the module count and the largest
imports). Targets: <= 60 ms wall, and <= 0.7x the wall time of
`black --check` on a 20-line Python file measured in the same run (the
runs of the three commands interleaved, so that the load weighs on each
alike; black comes from this interpreter's environment, `pip install
black`, and the ratio is left out without it).

Throughput: `relay fmt` with the safety checks on, in-process, in MB of
input per second, over comment-dense documented files (every sample program
of `samples/` and every code block of `../shared/seeds/` that formats,
concatenated), best of N: once as written (parse, print, parse the output
again, compare, print again) and once already formatted (parse and print:
unchanged text needs no verifying). Target: >= 1 MB/s.

Every figure is printed with the load average, since this machine is shared.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, TWENTY_LINES, relay_command

SEEDS = ROOT.parent / "shared" / "seeds"


def _env() -> dict[str, str]:
    # Bytecode caches allowed (some sandboxes turn them off, which would
    # make every run compile the package again).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def interleaved(commands: dict[str, list[str]], repeat: int) -> dict[str, tuple[float, float, float, float]]:
    """{name: (best wall, median wall, best CPU, median CPU)} seconds of each
    command, the commands run in turn `repeat` times (after one warm-up run
    each). CPU is user + system time of the process (microseconds, from
    getrusage): on a busy machine it moves less than the wall time."""
    env = _env()
    for cmd in commands.values():
        subprocess.run(cmd, capture_output=True, env=env, check=False)
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, cmd in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd, capture_output=True, env=env, check=False)
            walls[name].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[name].append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return {
        name: (min(walls[name]), statistics.median(walls[name]), min(cpus[name]), statistics.median(cpus[name]))
        for name in commands
    }


# A 20-line Python file for `black --check`, already in black's style.
TWENTY_PYTHON = (
    '"""Five small steps."""\n\n\n'
    + "".join(f"def step_{i}(a, b):\n    return a + b * {i}\n\n\n" for i in range(5))[:-2]
)


def black_command() -> list[str] | None:
    exe = Path(sys.executable).parent / "black"
    return [str(exe)] if exe.exists() else None


def imports(args: list[str]) -> tuple[int, float, list[tuple[float, str]]]:
    """(modules imported, total import seconds, the largest top-level imports)."""
    cmd = [sys.executable, "-X", "importtime", "-m", "relay_text", *args]
    err = subprocess.run(cmd, capture_output=True, text=True, env=_env(), check=False).stderr
    rows = []
    for line in err.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m.group(2)) / 1e6, len(m.group(3)), m.group(4)))
    top = [(t, name) for t, depth, name in rows if depth <= 3]
    total = sum(t for t, depth, _ in rows if depth <= 1)
    return len(rows), total, sorted(top, reverse=True)[:6]


_CODE = re.compile(
    r"\s*($|[#/%@{}()\[\]]|def |data |type |extern |fn\b|let |match|case |if\b|else|free_var|[0-9-]"
    r"|[A-Za-z_][\w.]*\s*(<[^>]*>)?\s*[:(\[={]|[A-Za-z_]\w*\s*$)"
)


def seed_blocks() -> list[str]:
    """The code blocks of ../shared/seeds (reStructuredText `.. code-block::`
    whose indentation the seeds lost: a block runs to the first line of prose)."""
    blocks: list[str] = []
    if not SEEDS.is_dir():
        return blocks
    for path in sorted(SEEDS.glob("*.txt")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith(".. code-block::") or lines[i].split("::", 1)[1].strip() not in ("", "relay"):
                i += 1
                continue
            i += 1
            body = []
            while i < len(lines) and _CODE.match(lines[i]) and not re.match(r"[A-Z][a-z]+ [a-z]", lines[i]):
                body.append(lines[i])
                i += 1
            if body:
                blocks.append("\n".join(body) + "\n")
    return blocks


def _renamed(text: str, module: object, k: int) -> str:
    """`text` with the globals, types and constructors it defines renamed
    apart (`@f` -> `@f_k`), so that programs can be concatenated."""
    names = [gv.name for gv in module.functions]  # type: ignore[attr-defined]
    words = []
    for gtv, data in module.type_defs.items():  # type: ignore[attr-defined]
        words.append(gtv.name)
        words += [c.name for c in data.constructors]
    for name in names:
        text = re.sub(rf"@{re.escape(name)}\b", f"@{name}_{k}", text)
    for word in words:
        text = re.sub(rf"(?<![%@\w.]){re.escape(word)}\b", f"{word}_{k}", text)
    return text


def corpus() -> str:
    """The comment-dense documented programs, concatenated: every sample of
    `samples/` and every code block of ../shared/seeds that formats alone, in
    the documented dialect (a TVM dump's header must come first), with the
    names each defines renamed apart."""
    from relay_text.formatter import UnsafeFormat, format_source
    from relay_text.ir.span import Source
    from relay_text.syntax.parser import parse_source

    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "samples").glob("*.rly"))]
    texts += seed_blocks()
    kept: list[str] = []
    for k, text in enumerate(texts):
        if "#[" in text or not text.lstrip().startswith(("def", "data", "type", "extern", "/", "#")):
            continue  # a TVM dump, or a bare expression (only one may end a file)
        try:
            if format_source(Source("<bench>", text), safe=True).text is None:
                continue  # not a program (a grammar sketch, an error on purpose)
            module = parse_source(Source("<bench>", text)).module
            renamed = _renamed(text, module, k)
            joined = "\n".join([*kept, renamed])
            if format_source(Source("<bench>", joined), safe=True).text is not None:
                kept.append(renamed)
        except (UnsafeFormat, RecursionError):
            continue
    return "\n".join(kept)


def throughput(text: str, repeat: int) -> float:
    """CPU seconds (best of `repeat`) of `relay fmt` (safe) on `text`."""
    from relay_text.formatter import format_source
    from relay_text.ir.span import Source

    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        result = format_source(Source("<bench>", text), safe=True)
        best = min(best, time.process_time() - start)
    assert result.text is not None
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--latency-only", action="store_true", help="skip the throughput measurement")
    options = ap.parse_args(argv)
    met = True
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "twenty.rly"
        path.write_text(TWENTY_LINES)
        lines = len(TWENTY_LINES.splitlines())
        py = Path(tmp) / "twenty.py"
        py.write_text(TWENTY_PYTHON)
        print(
            f"small-file latency ({lines}-line file; best / median wall of {options.repeat}, best CPU; "
            f"target <= 60 ms wall, <= 0.7x black --check)"
        )
        runs = {"check": ["check", str(path)], "fmt --check": ["fmt", "--check", str(path)]}
        commands = {name: [relay_command(), *args] for name, args in runs.items()}
        black = black_command()
        if black is not None:
            commands["black --check"] = [*black, "--check", "--quiet", str(py)]
        load = os.getloadavg()[0]
        times = interleaved(commands, options.repeat)
        load = f"load {load:.2f} -> {os.getloadavg()[0]:.2f}"
        if black is not None:
            b_best, b_median, b_cpu, b_cpu_median = times["black --check"]
            print(
                f"  {'black --check':22} best {b_best * 1000:5.0f} ms  median {b_median * 1000:5.0f} ms  "
                f"CPU {b_cpu * 1000:4.0f} ms  ({load})"
            )
        else:
            print("  black is not installed here (pip install black): no ratio")
        for name, args in runs.items():
            best, median, cpu, cpu_median = times[name]
            count, total, top = imports(args)
            ok = best <= 0.060
            met &= ok
            shown = "relay " + name + " FILE"
            print(
                f"  {shown:22} best {best * 1000:5.0f} ms  median {median * 1000:5.0f} ms  CPU {cpu * 1000:4.0f} ms"
                f"  {'met' if ok else 'MISSED'} (60 ms)  ({load})"
            )
            if black is not None:
                ratio_best, ratio_median = best / b_best, median / b_median
                ok = ratio_best <= 0.7
                met &= ok
                print(
                    f"  {'':22} vs black --check: best {ratio_best:.2f}x, median {ratio_median:.2f}x  "
                    f"{'met' if ok else 'MISSED'} (<= 0.7x)  (CPU: best {cpu / b_cpu:.2f}x, "
                    f"median {cpu_median / b_cpu_median:.2f}x)"
                )
            print(
                f"  {'':22} imports {count} modules, {total * 1000:.0f} ms: "
                + ", ".join(f"{n} {t * 1000:.0f}" for t, n in top)
            )
    if options.latency_only:
        return 0 if met else 1
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    from relay_text.formatter import format

    text = corpus()
    tidy = format(text)
    comments = sum(len(m.group(0)) for m in re.finditer(r"//[^\n]*|/\*.*?\*/", text, re.S)) / max(len(text), 1)
    print(
        f"relay fmt throughput (safety checks on; CPU, best; samples/ and ../shared/seeds code blocks concatenated, "
        f"{len(text.encode()) / 1e3:.0f} kB, {comments:.0%} comments; target >= 1 MB/s; load "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)"
    )
    # A file to reformat is parsed, printed, parsed and printed again; one
    # already in normal form (`relay fmt --check` in CI) is parsed and printed once.
    for label, sample in (("to reformat", text), ("already formatted", tidy)):
        rate = len(sample.encode()) / 1e6 / max(throughput(sample, max(3, options.repeat // 3)), 1e-9)
        ok = rate >= 1.0
        met &= ok
        print(f"  {label:18} {rate:.2f} MB/s  {'met' if ok else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
