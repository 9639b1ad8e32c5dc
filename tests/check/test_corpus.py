"""The real corpus type-checks, and agrees with the types TVM printed in it.

Several corpus files carry TVM's own inferred type after each call
(`nn.conv2d(...) /* ty=Tensor[(1, 64, 111, 111), float32] */`); the checker
must infer exactly those.
"""

from __future__ import annotations

import pytest

from relay_text.check import check_module
from relay_text.ir.expr import Call
from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from relay_text.syntax.parser import parse, parse_type
from relay_text.text.type_text import type_text
from tests.conftest import corpus_files, needs_corpus

pytestmark = needs_corpus

FILES = corpus_files()


def _printed_types(text: str, module, result) -> list[tuple[str, str]]:
    """(TVM's type, ours) for every call followed by a `/* ty=... */` comment."""
    comments = {c.span.start: c for c in module.comments if c.text.startswith("/* ty=")}
    pairs = []
    for node, ty in result.types.items():
        if not isinstance(node, Call) or node.span is None:
            continue
        pos = node.span.end
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        comment = comments.get(pos)
        if comment is not None:
            written = parse_type(comment.text[2:-2].strip()[3:].strip())
            pairs.append((type_text(written), type_text(ty)))
    return pairs


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file_checks_without_errors(path) -> None:
    """Checked as `relay check` does, against the Prelude (TVM's `nat.rly`
    uses the Prelude's `List` and `@hd`)."""
    checked = check_source(Source(path.name, path.read_text()))
    assert [str(d) for d in checked.diagnostics if d.is_error] == []


def test_inferred_types_agree_with_the_types_tvm_printed() -> None:
    pairs = []
    for path in FILES:
        text = path.read_text()
        checked = check_source(Source(path.name, text))
        pairs += _printed_types(text, checked.module, checked.result)
    assert len(pairs) >= 180
    assert [p for p in pairs if p[0] != p[1]] == []


def test_resnet_constants_are_inferred_from_their_use() -> None:
    path = next(p for p in FILES if "resnet50" in p.name)
    result = check_module(parse(path.read_text(), path.name).module)
    assert not result.diagnostics
    assert type_text(result.meta_types[0]) == "Tensor[(3), float32]"  # batch norm on the 3-channel input
    assert type_text(result.meta_types[4]) == "Tensor[(64, 3, 7, 7), float32]"  # the first convolution's weight
    assert all("_" not in type_text(t) for t in result.meta_types.values())
    assert (
        type_text(result.global_type("main")) == "fn(Tensor[(1, 3, 224, 224), float32]) -> Tensor[(1, 1000), float32]"
    )
