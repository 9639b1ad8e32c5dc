"""Printing and formatting throughput, and the start-up time of `relay fmt`.

    python benchmarks/print.py [--quick]

For 10^3, 10^4 and 10^5 bindings, in both dialects, it reports:

- print: IR (parsed, comments attached) to text, in MB of output per second;
- format --fast: parse + print;
- format: parse + print + the safety checks (parse the output again,
  compare, print it again);

then the deep DAG (`%i = add(%i-1, %i-1)`, 10,000 deep: a tree would have
2^10000 nodes) and `relay fmt --check` on a 20-line file.

Targets: print >= 1 MB/s at 10^5 bindings, linear growth (exponent ~1.0);
`relay fmt --check` on a 20-line file <= 150 ms wall.
"""

from __future__ import annotations

import gc
import sys
import tempfile
from pathlib import Path

from _common import TWENTY_LINES, best_of, exponent, graph_program, let_program, relay_command, wall_time

from relay_text.formatter import format_source
from relay_text.ir.span import Source
from relay_text.printer.comments import attach
from relay_text.syntax.parser import parse
from relay_text.printer.render import render_module


def diamond_chain(n: int) -> str:
    lines = ['#[version = "0.0.5"]', "def @main(%x: Tensor[(10, 10), float32]) -> Tensor[(10, 10), float32] {"]
    lines.append("  %0 = add(%x, %x);")
    lines += [f"  %{i} = add(%{i - 1}, %{i - 1});" for i in range(1, n)]
    lines.append(f"  %{n - 1}\n}}\n")
    return "\n".join(lines)


def measure(name: str, text: str, repeat: int) -> tuple[float, float, float, int]:
    module = parse(text, "bench").module
    assert module is not None
    comments = attach(module)
    out = render_module(module, None, 100, comments).text
    gc.collect()
    t_print = best_of(lambda: render_module(module, None, 100, attach(module)), repeat)
    t_fast = best_of(lambda: format_source(Source("bench", text), safe=False), repeat)
    t_safe = best_of(lambda: format_source(Source("bench", text), safe=True), repeat)
    return t_print, t_fast, t_safe, len(out.encode())


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 100_000]
    repeat = 1 if quick else 3
    print(f"formatting throughput (best of {repeat}; MB of output per second)")
    for name, make in (("TVM dump (graph bindings)", graph_program), ("documented, lets + comments", let_program)):
        prints = []
        for n in sizes:
            text = make(n)
            t_print, t_fast, t_safe, size = measure(name, text, repeat)
            mb = size / 1e6
            prints.append(t_print)
            print(
                f"  {name:28} n={n:>7,}  {mb:5.2f} MB   print {t_print:6.3f} s {mb / t_print:5.2f} MB/s"
                f"   format --fast {t_fast:6.3f} s {mb / t_fast:5.2f} MB/s   format {t_safe:6.3f} s "
                f"{mb / t_safe:5.2f} MB/s"
            )
        print(
            f"  {'':28} print growth exponent {sizes[-2]:,} -> {sizes[-1]:,}: "
            f"{exponent(sizes, prints):.2f} (1.0 is linear)"
        )

    text = diamond_chain(10_000)
    module = parse(text, "bench").module
    t = best_of(lambda: render_module(module, None, 100, attach(module)), repeat)
    print(f"deep DAG: 10,000-deep diamond chain prints in {t * 1000:.0f} ms")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "twenty.rly"
        path.write_text(TWENTY_LINES)
        lines = len(TWENTY_LINES.splitlines())
        best, median = wall_time([relay_command(), "fmt", "--check", str(path)])
    print(
        f"relay fmt --check on a {lines}-line file: best {best * 1000:.0f} ms, median {median * 1000:.0f} "
        f"ms (target <= 150 ms)"
    )


if __name__ == "__main__":
    main()
