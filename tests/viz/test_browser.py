"""The viewer in a real browser: headless Chromium driven by Playwright.

For every corpus model the page loads without a console error, draws a box
per node, shows a node's attributes and type when it is clicked, finds
nodes by name or operator, and is not blank; the browser places every box
and edge exactly where `coords` does (the SVG's positions), folded groups
and straight edges included. The SVG is drawn once too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

from relay_text.viz import folded, to_svg
from relay_text.viz.coords import place
from relay_text.viz.html import write_html
from relay_text.viz.layout import Layout, layered
from relay_text.viz.model import Graph
from tests.conftest import CORPUS, corpus_files, needs_corpus
from tests.viz.browser import Opened, chromium_path, launch, look, not_blank
from tests.viz.helpers import PROGRAM, graph, graph_of_file, residual_model

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is in the test extra: pip install -e '.[test]'"
)
if chromium_path() is None:
    pytest.skip("chromium is not installed (Debian: apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def opened(browser: Any) -> Iterator[Opened]:
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    yield Opened(page)
    page.close()


def write(tmp_path: Path, layout: Layout, name: str = "graph.html", **options: Any) -> Path:
    path = tmp_path / name
    path.write_text(write_html(layout, **options), encoding="utf-8")
    return path


def same_placement(
    opened: Opened, g: Graph, layout: Layout, collapsed: set[int] = frozenset(), orthogonal: bool = True
) -> None:  # type: ignore[assignment]
    """The browser's boxes and routes are the Python ones, to the last bit."""
    js = json.loads(opened.page.evaluate("relayViz.placed()"))
    py = place(layout, set(collapsed), orthogonal)
    shown = [i for i in range(len(g.nodes)) if py.shown_nodes[i]]
    assert [bool(v) for v in js["shownNodes"]] == py.shown_nodes
    assert [tuple(js["nodes"][4 * i : 4 * i + 4]) for i in shown] == [py.nodes[i] for i in shown]
    groups = [i for i in range(len(g.groups)) if py.shown_groups[i]]
    assert [tuple(js["groups"][4 * i : 4 * i + 4]) for i in groups] == [py.groups[i] for i in groups]
    assert [(e, list(zip(pts[::2], pts[1::2], strict=False)), arrow) for e, pts, arrow in js["routes"]] == [
        (e, pts, arrow) for e, pts, arrow in py.routes
    ]
    assert (js["width"], js["height"]) == (py.width, py.height)


def matches(g: Graph, query: str) -> list[int]:
    q = query.lower()
    return [n.id for n in g.nodes if q in n.label.lower() or q in n.name.lower() or q in n.op.lower()]


def stage_shot(opened: Opened) -> bytes:
    """The drawing area alone (the minimap and the help line hidden)."""
    opened.page.evaluate(
        "for (const id of ['minimap', 'help']) document.getElementById(id).style.visibility = 'hidden'"
    )
    png = opened.page.locator("#stage").screenshot()
    opened.page.evaluate("for (const id of ['minimap', 'help']) document.getElementById(id).style.visibility = ''")
    return png


# The two largest graphs (the LSTM's 16,000 bends of edges, GPT-2's 1,214
# nodes) take five seconds or more on a small machine: with --slow (CI).
SLOW_PAGES = {"glenside-lstm-for-pldi", "apache-tvm-menangerie-gpt2"}


@needs_corpus
@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW_PAGES else p for p in corpus_files()],
    ids=lambda p: p.stem,
)
def test_corpus_model_in_the_browser(opened: Opened, tmp_path: Path, path: Path) -> None:
    g = graph_of_file(path)
    layout = layered(g)
    opened.goto(write(tmp_path, layout))
    page = opened.page
    same_placement(opened, g, layout)
    if not g.nodes:
        assert page.locator("#empty").is_visible() and page.locator("#ln .node").count() == 0
        assert opened.errors == []
        return
    assert not_blank(page, stage_shot(opened))
    page.evaluate("relayViz.fit()")
    opened.frames()
    assert page.locator("#ln .node").count() == len(g.nodes)

    # click a node: its operator, attributes, type and source line
    node = (
        next((n for n in g.nodes if n.attrs), None) or next(n for n in g.nodes if n.kind == "op")
        if any(n.kind == "op" for n in g.nodes)
        else g.nodes[-1]
    )
    page.evaluate(f"relayViz.goToNode({node.id})")
    page.keyboard.press("Escape")
    assert page.locator("#details").is_hidden()
    page.locator(f'#ln .node[data-id="{node.id}"]').click()
    assert page.locator("#details").is_visible()
    assert page.locator("#info h2").inner_text() == node.label
    assert page.locator("#info td.type").inner_text() == node.type
    attrs = page.locator("#info table.attrs tr").all_inner_texts()
    assert [tuple(a.split("\t")) for a in attrs] == node.attrs
    if node.where is not None:
        assert page.locator("#info pre.line").inner_text() == g.lines[node.where.line]
    assert page.locator(f'#ln .node.sel[data-id="{node.id}"]').count() == 1

    # search: the count of matches, then Enter goes to the first
    query = node.label
    page.locator("#search").fill(query)
    found = matches(g, query)
    assert page.locator("#hits").inner_text() == (f"{len(found)} matches" if len(found) > 1 else "1 match")
    page.evaluate("relayViz.fit()")
    opened.frames()
    assert page.locator("#ln .node.hit").count() == len(found)
    page.locator("#search").press("Enter")
    assert page.locator("#hits").inner_text() == f"1 of {len(found)}"
    opened.frames()  # the view moved to the match: drawn in the next frame
    first = int(page.evaluate("document.querySelector('#ln .node.sel').dataset.id"))
    assert (first in found and g.nodes[first].label.lower().find(query.lower()) >= 0) or query.lower() in g.nodes[
        first
    ].name.lower()
    assert opened.errors == []


def test_folding_and_unfolding_a_group(opened: Opened, tmp_path: Path) -> None:
    g = graph(PROGRAM)
    layout = layered(g)
    opened.goto(write(tmp_path, layout))
    page = opened.page
    page.evaluate("relayViz.fit()")
    opened.frames()
    assert page.locator("#ln .node").count() == len(g.nodes)
    (if_group,) = [gr.id for gr in g.groups if gr.kind == "if"]
    page.locator(f'#lg .group[data-g="{if_group}"] .head').click()
    opened.frames()
    assert page.locator(f'#lg .group.folded[data-g="{if_group}"]').count() == 1
    assert page.locator("#lg .group").count() == len(g.groups) - 2  # then and else are inside
    same_placement(opened, g, layout, {if_group})
    page.evaluate("relayViz.fit()")
    opened.frames()
    assert page.locator("#ln .node").count() == len(g.nodes) - 2  # %2 and its sum, in `then`
    page.locator(f'#lg .group[data-g="{if_group}"] .head').click()
    opened.frames()
    same_placement(opened, g, layout)
    # folding everything, then the button that unfolds everything
    page.locator("#collapse").click()
    same_placement(opened, g, layout, folded(g, ["fn", "if", "match", "then", "else", "clause"]))
    page.locator("#expand").click()
    same_placement(opened, g, layout)
    page.locator("#edges").click()
    same_placement(opened, g, layout, orthogonal=False)
    assert opened.errors == []


def test_a_page_written_with_folded_groups(opened: Opened, tmp_path: Path) -> None:
    g = graph(PROGRAM)
    layout = layered(g)
    folds = folded(g, ["match", "fn"])
    opened.goto(write(tmp_path, layout, collapsed=folds, orthogonal=False))
    same_placement(opened, g, layout, folds, orthogonal=False)
    assert opened.errors == []


def test_links_and_details_of_groups(opened: Opened, tmp_path: Path) -> None:
    """A global call links to its function; a group shows its type and a
    fold switch; the inputs of a node lead to them."""
    g = graph(PROGRAM)
    opened.goto(write(tmp_path, layered(g)))
    page = opened.page
    call = next(n for n in g.nodes if n.label == "@f")
    page.evaluate(f"relayViz.select({call.id})")
    assert page.locator("#info a.golink").inner_text() == "@f"
    page.locator("#info a.golink").click()
    f = g.function("@f")
    assert (
        page.locator("#info h2").inner_text() == "@f" and page.locator(f'#lg .group.sel[data-g="{f.id}"]').count() == 1
    )
    assert page.locator("#info td.type").inner_text() == f.type
    page.evaluate(f"relayViz.select({call.id})")
    page.locator("#info ul.inputs a").first.click()
    assert page.locator("#info h2").inner_text() == "%x"
    page.locator("#functions").select_option(str(g.function("@g").id))
    assert page.locator("#info h2").inner_text() == "@g"
    assert opened.errors == []


@needs_corpus
def test_the_svg_in_the_browser(opened: Opened, tmp_path: Path) -> None:
    g = graph_of_file(CORPUS / "apache-tvm-menangerie-resnet50.rly")
    path = tmp_path / "resnet50.svg"
    path.write_text(to_svg(g), encoding="utf-8")
    opened.goto(path, complete=False)
    page = opened.page
    assert page.locator("g.node").count() == 486
    assert not_blank(page, page.screenshot())
    assert opened.errors == []


@pytest.mark.slow
def test_a_graph_of_25000_nodes(opened: Opened, tmp_path: Path) -> None:
    """Opens at its top, draws only what is in view, and from afar draws on a
    canvas; a click far out still finds the nearest box."""
    g = graph(residual_model(1164))
    assert len(g.nodes) >= 25_000
    layout = layered(g)
    opened.goto(write(tmp_path, layout))
    page = opened.page
    drawn = page.locator("#ln .node").count()
    assert 0 < drawn < 500
    assert not_blank(page, stage_shot(opened))
    page.evaluate("relayViz.fit()")
    opened.frames()
    assert page.evaluate("relayViz.view().far") and page.locator("#ln .node").count() == 0
    assert look(page, stage_shot(opened))["other"] > 0  # a thin column: the graph is 500 times taller than wide
    page.locator("#search").fill("sigmoid")
    assert page.locator("#hits").inner_text() == f"{len(matches(g, 'sigmoid'))} matches"
    page.locator("#search").press("Enter")
    assert page.locator("#info h2").inner_text() == "sigmoid"
    opened.frames()  # the view moved: drawn in the next frame
    assert 0 < page.locator("#ln .node").count() < 500
    assert opened.errors == []


def test_the_notebook_view_in_a_page(opened: Opened, tmp_path: Path) -> None:
    """`Module._repr_html_` as a notebook puts it in its output: the viewer
    runs inside its iframe."""
    import relay_text

    host = tmp_path / "notebook.html"
    host.write_text(f"<!DOCTYPE html><html><body><p>Out[1]:</p>{relay_text.parse(PROGRAM)._repr_html_()}</body></html>")
    opened.goto(host, complete=False)
    frame = opened.page.frame_locator("iframe")
    frame.locator("body[data-state=complete]").wait_for()
    assert frame.locator("#ln .node").count() > 0
    frame.locator("#search").fill("@f")
    assert frame.locator("#hits").inner_text() == "1 match"
    assert opened.errors == []
