"""The SVG, DOT and HTML a graph is written as."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from relay_text.viz import find_entry, folded, only, to_dot, to_html, to_svg
from relay_text.viz.dot import quote
from tests.conftest import CORPUS, needs_corpus
from tests.viz.helpers import PROGRAM, graph, graph_of_file

SVG = "{http://www.w3.org/2000/svg}"


def svg_tree(text: str) -> ET.Element:
    return ET.fromstring(text.encode("utf-8"))


def classes(el: ET.Element) -> list[str]:
    return el.get("class", "").split()


def test_svg_is_xml_with_a_box_per_node() -> None:
    g = graph(PROGRAM)
    root = svg_tree(to_svg(g))
    nodes = [el for el in root.iter(SVG + "g") if "node" in classes(el)]
    groups = [el for el in root.iter(SVG + "g") if "group" in classes(el)]
    assert len(nodes) == len(g.nodes) and len(groups) == len(g.groups)
    labels = [el.findall(SVG + "text")[0].text for el in nodes]
    assert labels == [n.label for n in g.nodes]
    # a call of a global links to its function's frame
    links = [a.get("href") for a in root.iter(SVG + "a")]
    assert links == ["#fn-f", "#fn-g"]
    assert {el.get("id") for el in groups if el.get("id")} == {"fn-f", "fn-main", "fn-g"}
    edges = [el for el in root.iter(SVG + "path") if "edge" in classes(el)]
    assert len(edges) >= len(g.edges)
    assert float(root.get("width")) > 100 and float(root.get("height")) > 100


def test_svg_of_one_function() -> None:
    g = graph(PROGRAM)
    text = to_svg(g, entry=find_entry(g, "g"))
    root = svg_tree(text)
    labels = [el.findall(SVG + "text")[0].text for el in root.iter(SVG + "g") if "node" in classes(el)]
    assert labels == ["%l", "%h", "%t", "@g", "add", "0"]
    sub, renumbered = only(g, find_entry(g, "@g"))
    assert [gr.label for gr in sub.groups] == ["@g", "match", "case Cons(%h, Cons(_, %t))", "case _"]
    assert sorted(renumbered.values()) == [0, 1, 2, 3]


def test_svg_with_folded_groups() -> None:
    g = graph(PROGRAM)
    root = svg_tree(to_svg(g, collapsed=folded(g, ["if", "fn"])))
    titles = [el.find(SVG + "text").text for el in root.iter(SVG + "g") if "group" in classes(el)]
    assert "if ▸" in titles and "fn %k(%y) ▸" in titles and "then" not in titles
    assert (
        len([el for el in root.iter(SVG + "g") if "node" in classes(el)]) == len(g.nodes) - 4
    )  # in the closure and in `then`


def test_svg_escapes_text() -> None:
    """Types (`fn<a>`), names and the file's name may hold `<` and `&`."""
    g = graph("def @id<a>(%x: a) -> a { %x }\ndef @main() { @id(@id) }\n", name="a<b&c>.rly")
    text = to_svg(g)
    root = svg_tree(text)
    assert root.find(SVG + "title").text == "a<b&c>.rly"
    tips = [el.find(SVG + "title").text for el in root.iter(SVG + "g") if "node" in classes(el)]
    assert tips == ["a", "fn(a) -> a", "fn<a>(a) -> a"]


def test_unknown_entry() -> None:
    from relay_text.viz import VizError

    g = graph(PROGRAM)
    with pytest.raises(VizError) as err:
        find_entry(g, "@mian")
    assert str(err.value) == "`@mian` is not a function of this file; did you mean `@main`?"
    with pytest.raises(VizError) as err:
        find_entry(g, "zzz")
    assert str(err.value) == "`@zzz` is not a function of this file; it defines `@f`, `@main`, `@g`"


def test_dot() -> None:
    g = graph(PROGRAM)
    text = to_dot(g)
    assert text.startswith('digraph "t.rly" {\n  compound=true;\n')
    assert text.count("subgraph cluster_g") == len(g.groups)
    assert text.count("{") == text.count("}")
    assert len(re.findall(r"^\s*n\d+ \[label=", text, re.M)) == len(g.nodes)
    assert len(re.findall(r"->", text)) == len(g.edges)
    assert "  g2 -> n" not in text  # an if's value goes out of its cluster: ltail
    assert "n4 -> g2 [lhead=cluster_g2, label=cond];" in text
    assert 'n6 [label="@f\\nint32"' in text
    one = to_dot(g, entry=find_entry(g, "@f"))
    assert one.count("subgraph cluster_g") == 1 and len(re.findall(r"->", one)) == 3


def test_dot_quoting() -> None:
    assert quote('a "b" \\ c\nd') == '"a \\"b\\" \\\\ c\\nd"'


def test_html_is_one_offline_file() -> None:
    g = graph(PROGRAM)
    page = to_html(g)
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)
    assert not re.search(r"url\((?!#)", page)  # no fetched resources in the style
    assert "https://" not in page.replace('"https://json-schema', "")
    data = json.loads(
        re.search(r'<script type="application/json" id="relay-graph">(.*?)</script>', page, re.S).group(1)
    )
    assert len(data["nodes"]["label"]) == len(g.nodes) and len(data["blocks"]) == len(g.groups)
    assert data["entry"] == g.entry and data["file"] == "t.rly"
    assert data["lines"]["3"] == "  %0 = @f(%x);"


def test_html_cannot_be_closed_by_the_program() -> None:
    """The source lines shown in the details go into the page: a comment
    that closes a script element stays text."""
    g = graph("def @main(%x: int32) {\n  %x + 1  // </script><b>&amp;\n}\n")
    page = to_html(g)
    assert page.count("</script>") == 2  # the data's and the viewer's
    data = json.loads(re.search(r'id="relay-graph">(.*?)</script>', page, re.S).group(1))
    assert data["lines"]["2"] == "  %x + 1  // </script><b>&amp;"


@needs_corpus
def test_svg_of_resnet50() -> None:
    g = graph_of_file(CORPUS / "apache-tvm-menangerie-resnet50.rly")
    root = svg_tree(to_svg(g))
    assert len([el for el in root.iter(SVG + "g") if "node" in classes(el)]) == 486
