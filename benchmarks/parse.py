"""Parse throughput and start-up time of `relay check`.

    python benchmarks/parse.py

Targets: >= 1 MB/s at 10^5 bindings; `relay check` on a 20-line file
<= 0.15 s wall.
"""

from __future__ import annotations

import gc
import tempfile
from pathlib import Path

from _common import TWENTY_LINES, best_of, exponent, graph_program, let_program, relay_command, wall_time

from relay_text.syntax.parser import parse


def main() -> None:
    print("parse throughput (best of 3)")
    for name, make in (("graph bindings (TVM dump)", graph_program), ("let chain (documented)", let_program)):
        sizes, seconds = [], []
        for n in (1_000, 10_000, 100_000):
            text = make(n)
            parse(text)  # warm the grammar cache
            gc.collect()
            t = best_of(lambda text=text: parse(text, "bench"))
            mb = len(text.encode()) / 1e6
            sizes.append(n)
            seconds.append(t)
            print(f"  {name:28} n={n:>7,}  {mb:6.2f} MB  {t:7.3f} s  {mb / t:5.2f} MB/s")
        print(f"  {'':28} growth exponent 10^4 -> 10^5: {exponent(sizes, seconds):.2f} (1.0 is linear)")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "twenty.rly"
        path.write_text(TWENTY_LINES)
        lines = len(TWENTY_LINES.splitlines())
        best, median = wall_time([relay_command(), "check", str(path)])
    print(
        f"relay check on a {lines}-line file: best {best * 1000:.0f} ms, median {median * 1000:.0f} ms "
        f"(target <= 150 ms)"
    )


if __name__ == "__main__":
    main()
