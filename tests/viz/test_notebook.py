"""Notebooks show a module, or a checked file, as its graph:
`_repr_html_` (the viewer, in an iframe of its own) and `_repr_svg_`."""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET

import relay_text
from tests.viz.helpers import PROGRAM


def viewer_data(frame: str) -> dict:
    m = re.fullmatch(r'<iframe srcdoc="(.*)" style="[^"]*" sandbox="allow-scripts"></iframe>', frame, re.S)
    assert m is not None, frame[:200]
    page = html.unescape(m.group(1))
    assert page.startswith("<!DOCTYPE html>")
    return json.loads(re.search(r'id="relay-graph">(.*?)</script>', page, re.S).group(1))


def test_a_module_in_a_notebook() -> None:
    module = relay_text.parse(PROGRAM)
    data = viewer_data(module._repr_html_())
    assert data["groups"]["label"][:2] == ["@f", "@main"]
    assert len(data["nodes"]["label"]) == 18
    assert data["nodes"]["type"] and data["strings"][data["nodes"]["type"][0]] == "Tensor[(), int32]"
    svg = ET.fromstring(module._repr_svg_())
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"


def test_a_module_that_uses_the_prelude() -> None:
    module = relay_text.parse("def @main(%l: List[int32]) { @length(%l) }")
    data = viewer_data(module._repr_html_())
    assert data["nodes"]["label"] == ["%l", "@length"]
    assert data["nodes"]["link"] == ["", "@length"]


def test_a_checked_file() -> None:
    checked = relay_text.check(PROGRAM)
    assert len(viewer_data(checked._repr_html_())["nodes"]["label"]) == 18
    assert checked._repr_svg_().startswith("<?xml")


def test_a_file_that_does_not_parse_shows_its_errors() -> None:
    checked = relay_text.check("def @main( {")
    assert checked._repr_html_().startswith("<pre>&lt;string&gt;:1:")
    assert checked._repr_svg_() is None


def test_a_module_with_type_errors_is_still_drawn() -> None:
    module = relay_text.parse("def @main(%x: int32) { %x + 1f }")
    data = viewer_data(module._repr_html_())
    assert data["nodes"]["label"] == ["%x", "1f", "add"]
