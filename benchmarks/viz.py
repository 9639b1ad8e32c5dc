"""`relay viz`: the time to lay out a graph and to open its page in Chromium.

    python benchmarks/viz.py [--repeat N] [--blocks 1164] [--model NAME]... [--screenshots docs/]

For every model of `../shared/corpus/` and a generated network of 25,000
nodes (`--blocks` residual blocks, tests/viz/helpers.py), it prints:

* check: parsing and type-checking (what every command pays first);
* graph, layers, page: extracting the graph, the layered layout (ranks,
  dummies, orders) and writing the HTML (its size in kB);
* lay out: those three together, what `relay viz` adds to checking;
* open: from asking headless Chromium to open the page to its first frame
  drawn (the page places every box itself, then draws what is in view);
* place, svg: the coordinates in Python and the SVG written (`-o x.svg`);
* frame: the time of a frame while panning the view (the page's first view,
  and the whole graph fitted to the window), in milliseconds.

Times are the best of `--repeat` runs (the page's, of as many loads). The
target is under 5 s for laying out, and for opening, each graph. The load
average is printed: the machine may be shared. `--screenshots DIR` also
writes the pictures of docs/commands/viz.md (`viz-resnet50.png`,
`viz-match.png`, into docs/).
Needs Playwright and the system's chromium (see tests/viz/browser.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

from _common import ROOT

CORPUS = ROOT.parent / "shared" / "corpus"


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def measure(name: str, text: str, page: Any, repeat: int, workdir: Path) -> dict[str, Any]:
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source
    from relay_text.viz import graph_of, quiet_gc
    from relay_text.viz.coords import place
    from relay_text.viz.html import write_html
    from relay_text.viz.layout import layered
    from relay_text.viz.svg import write_svg

    def quiet(fn: Callable[[], Any]) -> Callable[[], Any]:  # as the commands run them
        def run() -> Any:
            with quiet_gc():
                return fn()

        return run

    t_check, checked = best(lambda: check_source(Source(name, text)), repeat)
    t_graph, graph = best(lambda: graph_of(checked.module, checked.result), repeat)
    t_layers, layout = best(quiet(lambda: layered(graph)), repeat)
    t_page, html = best(quiet(lambda: write_html(layout)), repeat)
    t_place, placed = best(quiet(lambda: place(layout)), repeat)
    t_svg, _ = best(quiet(lambda: write_svg(graph, placed)), repeat)
    path = workdir / (Path(name).stem + ".html")
    path.write_text(html, encoding="utf-8")
    opens = []
    for _ in range(repeat):
        start = time.perf_counter()
        page.goto(path.as_uri())
        page.wait_for_function("document.body.dataset.state === 'complete'", timeout=120_000)
        opens.append(time.perf_counter() - start)
    frames = {}
    for label, setup in (("view", None), ("fit", "relayViz.fit()")):
        if setup:
            page.evaluate(setup)
        frames[label] = page.evaluate(
            """async () => {
              const v = relayViz.view();
              const frame = () => new Promise(r => requestAnimationFrame(r));
              await frame(); await frame();
              const start = performance.now();
              for (let i = 1; i <= 20; i++) { relayViz.setView(v.scale, v.tx + 7 * i, v.ty - 11 * i); await frame(); }
              return (performance.now() - start) / 20;
            }"""
        )
    return {
        "name": name,
        "nodes": len(graph.nodes),
        "check": t_check,
        "graph": t_graph,
        "layers": t_layers,
        "page": t_page,
        "kb": len(html.encode("utf-8")) // 1024,
        "layout": t_graph + t_layers + t_page,
        "open": min(opens),
        "place": t_place,
        "svg": t_svg,
        "frame_view": frames["view"],
        "frame_fit": frames["fit"],
    }


def screenshots(page: Any, out: Path, workdir: Path) -> None:
    """The pictures of the `relay viz` page: ResNet-50 with a convolution's details, and a
    program of pattern matches and closures."""
    from relay_text.ir.span import Source
    from relay_text.pipeline import check_source
    from relay_text.viz import graph_of, to_html

    out.mkdir(parents=True, exist_ok=True)
    shots = [
        (CORPUS / "apache-tvm-menangerie-resnet50.rly", "viz-resnet50.png", "relayViz.select(relayViz.find('%2'))"),
        (ROOT / "samples" / "rnn_bidirectional.rly", "viz-match.png", "relayViz.fit()"),
    ]
    for source, png, action in shots:
        checked = check_source(Source(source.name, source.read_text()))
        path = workdir / (source.stem + ".html")
        path.write_text(to_html(graph_of(checked.module, checked.result)), encoding="utf-8")
        page.set_viewport_size({"width": 1400, "height": 860})
        page.goto(path.as_uri())
        page.wait_for_function("document.body.dataset.state === 'complete'")
        page.evaluate(action)
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.screenshot(path=str(out / png))
        print(f"wrote {out / png}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--blocks", type=int, default=1164, help="residual blocks of the generated network (1,164: 25,027 nodes)"
    )
    parser.add_argument(
        "--model", action="append", help="only these corpus files (stem or name); 'generated' for the generated one"
    )
    parser.add_argument(
        "--screenshots", type=Path, help="write the screenshots of docs/commands/viz.md into this folder"
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from tests.viz.browser import chromium_path, launch
    from tests.viz.helpers import residual_model

    if chromium_path() is None:
        sys.exit("chromium is not installed (Debian: apt-get install chromium)")
    cases = [(p.name, p.read_text()) for p in sorted(CORPUS.glob("*.rly"))]
    cases.append((f"generated-{args.blocks}-blocks.rly", residual_model(args.blocks)))
    if args.model:
        cases = [c for c in cases if any(m in c[0] for m in args.model)]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="relay-viz-bench-") as tmp, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        for name, text in cases:
            rows.append(measure(name, text, page, args.repeat, Path(tmp)))
            r = rows[-1]
            print(
                f"{r['name'][:44]:44} {r['nodes']:>7,} nodes  check {r['check']:6.2f}  graph "
                f"{r['graph']:5.2f}  layers {r['layers']:5.2f}"
                f"  page {r['page']:5.2f} ({r['kb']:,} kB)  lay out {r['layout']:5.2f}  open {r['open']:5.2f}"
                f"  place {r['place']:5.2f}  svg {r['svg']:5.2f}  frame {r['frame_view']:5.1f} / "
                f"{r['frame_fit']:5.1f} ms",
                flush=True,
            )
        if args.screenshots:
            screenshots(page, args.screenshots, Path(tmp))
        browser.close()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    worst = max(rows, key=lambda r: max(r["layout"], r["open"]))
    print(
        f"slowest: {worst['name']}: lay out {worst['layout']:.2f} s, open {worst['open']:.2f} s (target: "
        f"each under 5 s)"
    )


if __name__ == "__main__":
    main()
