"""docs/import-onnx.md: its operator lists are what the converter table
says, and its conformance figures agree with the harness's lists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from relay_text.frontends.onnx import support

PAGE = Path(__file__).resolve().parents[3] / "docs" / "import-onnx.md"


def _onnx_version_of_page(text: str) -> str:
    found = re.search(r"With onnx (\S+), \d+ operators", text)
    assert found, "the page names the onnx version of its list of unconverted operators"
    return found.group(1)


def test_the_lists_read_from_the_converter_table_are_current() -> None:
    """Rewrite with `python -m relay_text.frontends.onnx.support docs/import-onnx.md`."""
    text = PAGE.read_text(encoding="utf-8")
    generated = {"supported": support.supported_section(), "refused": support.refused_section()}
    assert support.update(text, generated) == text


def test_the_list_of_unconverted_operators_is_current() -> None:
    onnx = pytest.importorskip("onnx", reason="the onnx package is not installed (pip install 'relay-text[onnx]')")
    text = PAGE.read_text(encoding="utf-8")
    if _onnx_version_of_page(text) != onnx.__version__:
        pytest.skip(
            f"the page lists the operators of onnx {_onnx_version_of_page(text)}, onnx {onnx.__version__} is installed"
        )
    assert support.update(text, {"unconverted": support.unconverted_section()}) == text


def test_a_supported_row_gives_the_opsets_and_the_module() -> None:
    section = support.supported_section()
    assert "| `Softmax` | 1+ | `ops_norm` |" in section
    assert "| `Attention` | 23+ | `ops_attention` |" in section
    assert re.search(r"^\d+ operators in 5 domains\.", section)
    assert "### onnxruntime's contrib operators (`com.microsoft`)" in section


def test_a_refused_row_gives_the_reason() -> None:
    assert "| `StringSplit` | ONNX | it computes on strings, which have no Relay dtype |" in support.refused_section()


def test_check_fails_on_a_stale_page_and_rewriting_fixes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.md"
    text = PAGE.read_text(encoding="utf-8")
    page.write_text(
        text.replace("| `Softmax` | 1+ | `ops_norm` |", "| `Softmax` | 13+ | `ops_norm` |"), encoding="utf-8"
    )
    assert support.main(["--check", str(page)]) == 1
    assert "is out of date" in capsys.readouterr().err
    assert support.main([str(page)]) == 0
    assert support.main(["--check", str(page)]) == 0
    assert "| `Softmax` | 1+ | `ops_norm` |" in page.read_text(encoding="utf-8")


def test_a_page_without_the_markers_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.md"
    page.write_text("# nothing here\n", encoding="utf-8")
    assert support.main(["--check", str(page)]) == 2
    assert "no <!-- operators:supported --> ... <!-- /operators:supported --> markers" in capsys.readouterr().err


def test_the_conformance_figures_agree_with_the_harness() -> None:
    """The must-pass row: none failed, the random and refused cases those
    the harness lists (benchmarks/onnx_conformance.py measures the rest)."""
    pytest.importorskip("onnx", reason="the onnx package is not installed (pip install 'relay-text[onnx]')")
    from tests.frontends.onnx import conformance as C

    text = PAGE.read_text(encoding="utf-8")
    row = re.search(
        r"^\| of those, in Relay dtypes \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|", text, re.M
    )
    assert row, "the conformance table has its must-pass row"
    count, passed, random, failed, unsupported = (int(g.replace(",", "")) for g in row.groups())
    assert (random, failed, unsupported) == (len(C.RANDOM_CASES), len(C.KNOWN), len(C.KNOWN_UNSUPPORTED))
    assert passed == count - random - failed - unsupported
