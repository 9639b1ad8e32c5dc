"""`relay fmt --fast` gives exactly the text the safe mode gives.

The safe mode verifies its output and, where the comments' places do not
survive a second pass, falls back to coarser placements; `--fast` must not
write a text that a later `relay fmt --check` (safe) would change.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzz.mutate import comment_slots, insert_comments
from relay_text.formatter import UnsafeFormat, format_source
from relay_text.ir.span import Source

from ..conftest import SAMPLES, examples

# A comment between the dimensions of a parameter's type, and a blank line
# around another: placed where they stand, the first output gained a blank
# line on a second pass; the safe mode then moves them before the definition.
UNSTABLE = """def @main(%a : Tensor[(1
// c3
, 1), float32]

// c4

, %b : float32) {
  %a
}
"""


def _both(text: str) -> tuple[str | None, str | None]:
    try:
        safe = format_source(Source("t.rly", text), safe=True).text
    except UnsafeFormat:
        safe = None  # the safe mode refuses: --fast may write its unchecked text
    fast = format_source(Source("t.rly", text), safe=False).text
    return safe, fast


def test_fast_keeps_the_fallback_placement_of_comments() -> None:
    safe, fast = _both(UNSTABLE)
    assert safe == fast == "// c3\n\n// c4\ndef @main(%a : Tensor[(1, 1), float32], %b : float32) {\n  %a\n}\n"
    again, _ = _both(fast)
    assert again == fast  # `relay fmt --check` after `relay fmt --fast` passes


def test_fast_without_comments_is_not_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_text import formatter

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("a text without comments is not verified with --fast")

    monkeypatch.setattr(formatter, "verify", fail)
    monkeypatch.setattr(formatter, "_same_program", fail)
    assert (
        format_source(Source("t.rly", "def @main(%a,%b){%a+%b}\n"), safe=False).text
        == "def @main(%a, %b) {\n  %a + %b\n}\n"
    )


_SEEDS = [p for p in sorted(SAMPLES.glob("*.rly")) if p.stat().st_size < 3000]
_TEXTS = [(p.name, p.read_text(encoding="utf-8")) for p in _SEEDS]
_SLOTS = {name: comment_slots(text) for name, text in _TEXTS}


@settings(max_examples=examples(60))
@given(st.sampled_from([t for t in _TEXTS if _SLOTS[t[0]]]), st.integers(0, 2**32 - 1))
def test_fast_equals_safe_on_comment_heavy_inputs(seed: tuple[str, str], draw: int) -> None:
    """Comments at random places between tokens (the fuzzer's `comments`
    mode): line, block, nested, `#` comments and blank lines around them."""
    name, text = seed
    commented = insert_comments(text, random.Random(draw), _SLOTS[name])
    safe, fast = _both(commented)
    if safe is not None:
        assert fast == safe, name
