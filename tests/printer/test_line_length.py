"""`relay fmt --line-length N`: no line of code is longer than N unless one
token on it is (a long name or string), at every width, on the samples,
the corpus and generated programs; and the output is stable at that width.

Comments are not code: a comment is kept as written, so a line with a
trailing comment may be longer (as with black and rustfmt).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from relay_text.formatter import format_source
from relay_text.ir.module import Module
from relay_text.ir.span import Source
from relay_text.printer.render import print_module
from tests.conftest import SAMPLES, corpus_files, examples, needs_corpus

from fuzz.programs import modules

WIDTHS = (40, 60, 100)
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"//.*$|#(?!\[).*$", re.M)
# a token, as the layout sees it: `key=value` of an attribute cannot break,
# nor can a metadata reference
_TOKEN = re.compile(r'(?:[\w.]+=)?(?:meta\[[^\]]*\]\[\d+\]|"(?:[^"\\]|\\.)*")|[^\s,()\[\]{};]+|[,()\[\]{};]')


def overlong(text: str, width: int) -> list[str]:
    """Lines whose code exceeds `width` though none of their tokens is that long."""
    code = text.split("#[metadata]")[0]
    code = _BLOCK_COMMENT.sub(lambda m: re.sub(r"[^\n]", "", m.group(0)), code)
    code = _LINE_COMMENT.sub("", code)
    bad = []
    for line in code.splitlines():
        line = line.rstrip()
        if len(line) <= width:
            continue
        indent = len(line) - len(line.lstrip())
        # `%name: Tensor[` may pass by the length of its name and the two
        # characters that open what follows
        if indent + max(len(t) for t in _TOKEN.findall(line)) + 2 >= width:
            continue
        bad.append(line)
    return bad


def formatted(path: Path, width: int) -> str:
    result = format_source(Source(str(path), path.read_text(encoding="utf-8")), line_length=width)
    assert result.text is not None, [str(d) for d in result.diagnostics]
    again = format_source(Source(str(path), result.text), line_length=width)
    assert again.text == result.text, f"{path} is not stable at width {width}"
    return result.text


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.rly")), ids=lambda p: p.name)
def test_samples_fit_the_line_length(path: Path, width: int) -> None:
    assert overlong(formatted(path, width), width) == []


@needs_corpus
@pytest.mark.parametrize("width", WIDTHS)
def test_corpus_files_fit_the_line_length(width: int) -> None:
    for path in corpus_files():
        assert overlong(formatted(path, width), width) == [], path.name


def test_the_check_sees_an_overlong_line() -> None:
    assert overlong("  let %x = f(%aaaaaaa, %bbbbbbb);", 20) == ["  let %x = f(%aaaaaaa, %bbbbbbb);"]
    assert overlong("  %a_very_long_parameter_name_here: Tensor[", 30) == []
    assert overlong("  %x  // a long comment after a short line of code", 20) == []


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(modules())
def test_generated_programs_fit_the_line_length(module: Module) -> None:
    text = print_module(module, "docs")
    for width in (40, 60):
        result = format_source(Source("gen.rly", text), line_length=width)
        assert result.text is not None, [str(d) for d in result.diagnostics]
        assert overlong(result.text, width) == [], result.text
