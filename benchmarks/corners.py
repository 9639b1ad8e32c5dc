"""Inputs that once took quadratic time: nested block comments and the
outline (LSP `documentSymbol`) of a file with many definitions.

    python benchmarks/corners.py [--quick]

Prints the time of `relay check` and `relay fmt` (in-process) of a comment
nested 1,000 to 100,000 deep, and the time of `document_symbols` for 2,000,
16,000 and 80,000 definitions, each with its time per item, so that linear
growth shows as a flat column (it was 74 s to check depth 100,000 and no
answer in 300 s for 80,000 definitions).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def nested(depth: int) -> str:
    return "def @main() {\n  " + "/*" * depth + " deep " + "*/" * depth + "\n  1\n}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes only")
    args = parser.parse_args()

    from relay_text.formatter import format_source
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source

    check_source(Source("warm.rly", nested(10)))
    print("nested block comments")
    print(f"{'depth':>8} {'check s':>9} {'fmt s':>9} {'check us/level':>15} {'fmt us/level':>13}")
    for depth in (1_000, 10_000, 20_000) if args.quick else (1_000, 10_000, 20_000, 100_000):
        text = nested(depth)
        start = time.perf_counter()
        checked = check_source(Source("n.rly", text))
        check = time.perf_counter() - start
        start = time.perf_counter()
        formatted = format_source(Source("n.rly", text))
        fmt = time.perf_counter() - start
        assert checked.ok and formatted.text == text
        print(f"{depth:>8,} {check:>9.3f} {fmt:>9.3f} {check / depth * 1e6:>15.2f} {fmt / depth * 1e6:>13.2f}")

    try:
        from relay_text.lsp.document import Analysis
        from relay_text.lsp.symbols import document_symbols
    except ImportError:
        print("documentSymbol: needs pygls (pip install 'relay-text[lsp]')")
        return
    print("documentSymbol (the outline of a file)")
    print(f"{'defs':>8} {'analysis s':>11} {'symbols s':>10} {'us/def':>8}")
    for n in (2_000, 16_000) if args.quick else (2_000, 16_000, 80_000):
        text = "".join(f"def @f{i}(%x: int32) -> int32 {{ %x + {i} }}\n" for i in range(n))
        start = time.perf_counter()
        analysis = Analysis("file:///outline.rly", text)
        analysed = time.perf_counter() - start
        gc.collect()
        start = time.perf_counter()
        symbols = document_symbols(analysis)
        seconds = time.perf_counter() - start
        assert len(symbols) == n
        print(f"{n:>8,} {analysed:>11.2f} {seconds:>10.3f} {seconds / n * 1e6:>8.1f}")
        del analysis, symbols


if __name__ == "__main__":
    main()
