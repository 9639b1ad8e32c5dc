"""`relay fmt` changes layout, never the author's expressions: on every
corpus file and every sample, the formatted text has the same tokens as the
source (whitespace, line breaks and comment placement aside), and formatting
it again changes nothing. The lines it changes are counted and held to the
figures measured when this was written (long lines broken, indentation),
so that a change that rewrites more is seen.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from relay_text.formatter import format_source
from relay_text.ir.span import Source
from relay_text.syntax.parser import code_tokens
from tests.conftest import SAMPLES, corpus_files, needs_corpus

# Lines removed and added by `relay fmt` (keep dialect, line length 100).
CORPUS_CHANGES = {
    "apache-tvm-issue13031-broadcast-argmax": (1, 1),  # `%i0: T` -> `%i0 : T` (no header: the documented syntax)
    "apache-tvm-menangerie-gpt2": (13, 17),  # a 13-line result type, re-indented
    "apache-tvm-menangerie-resnet50": (104, 735),  # lines over 100 columns, one argument a line
    "calyx-squeezenet-anf": (100, 305),
    "glenside-lstm-for-pldi": (3, 86),
    "glenside-mobilenet": (55, 536),
    "masahi-torchscript-to-tvm-loop-readme": (1, 5),
    "tvm-std-core": (0, 0),
    "tvm-std-gradient": (5, 9),  # `fn(` -> `fn (`, long signatures broken
    "tvm-std-nat": (23, 23),  # four-space indentation -> two
    "tvm-std-prelude": (21, 21),
}


def changed_lines(before: str, after: str) -> tuple[int, int]:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    lines = [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    removed = sum(1 for line in lines if line[0] == "-")
    return removed, len(lines) - removed


def formatted(path: Path) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    result = format_source(Source(str(path), text))
    assert result.text is not None, [str(d) for d in result.diagnostics]
    return text, result.text


def assert_layout_only(path: Path, text: str, out: str) -> None:
    before, after = code_tokens(Source(str(path), text)), code_tokens(Source(str(path), out))
    if before != after:
        ops = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
        edits = [
            f"{tag}: {' '.join(before[i1:i2])!r} -> {' '.join(after[j1:j2])!r}"
            for tag, i1, i2, j1, j2 in ops
            if tag != "equal"
        ]
        pytest.fail(f"{path.name}: relay fmt changed tokens: " + "; ".join(edits[:5]))
    again = format_source(Source(str(path), out)).text
    assert again == out, f"{path.name}: formatting twice changes the text"


@needs_corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.stem)
def test_relay_fmt_changes_only_the_layout_of_a_corpus_file(path: Path) -> None:
    text, out = formatted(path)
    assert_layout_only(path, text, out)
    removed, added = changed_lines(text, out)
    assert (removed, added) <= CORPUS_CHANGES[path.stem], f"{path.name}: {removed} lines removed, {added} added"


def test_every_corpus_file_has_a_measured_count() -> None:
    assert {p.stem for p in corpus_files()} <= set(CORPUS_CHANGES)


SAMPLE_FILES = sorted(SAMPLES.rglob("*.rly"))


def test_relay_fmt_changes_only_the_layout_of_every_sample() -> None:
    """The samples are in normal form: no line changes. The documents'
    erroneous programs (samples/errors) that parse are formatted keeping
    their tokens, their errors included (a few lines re-indented); the
    others are syntax errors."""
    changed = []
    for path in SAMPLE_FILES:
        text = path.read_text(encoding="utf-8")
        result = format_source(Source(str(path), text))
        if result.text is None:
            assert path.parent.name == "errors", [str(d) for d in result.diagnostics]
            assert {str(d.code) for d in result.diagnostics} <= {"syntax-error"}, path.name
            continue
        assert_layout_only(path, text, result.text)
        if result.text != text:
            changed.append((path.name, changed_lines(text, result.text)))
    assert len(SAMPLE_FILES) > 50
    assert [name for name, _ in changed if not (SAMPLES / "errors" / name).exists()] == []
    assert sum(removed + added for _, (removed, added) in changed) <= 30, changed
