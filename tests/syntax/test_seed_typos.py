"""Golden diagnostics for the typos in the seed documents' code blocks.

shared/seeds/README.md lists them; samples/errors/ holds one program per
typo. Each must fail with exactly this first diagnostic: code, line,
column, message (and the labels that point at the cause).
"""

from __future__ import annotations

import pytest

from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from tests.conftest import SAMPLES

# file -> (code, line, column, message, [(label line, label column, label text)])
GOLDEN = {
    "foldr_unclosed_params.rly": (
        "syntax-error",
        7,
        59,
        "expected `)` or `,`, found `->`",
        [(7, 17, "unclosed `(`")],
    ),
    "concat_unclosed_call.rly": (
        "syntax-error",
        10,
        51,
        "mismatched closing delimiter `}`",
        [(10, 29, "unclosed `(`")],
    ),
    "flatten_unclosed_body.rly": (
        "syntax-error",
        18,
        4,
        "unexpected end of file: the `{` on line 14 is never closed",
        [(14, 49, "unclosed `{`")],
    ),
    "map_accumr_extra_paren.rly": ("syntax-error", 12, 49, "unmatched closing delimiter `)`", []),
    "type_argument_bracket.rly": (
        "syntax-error",
        3,
        67,
        "mismatched closing delimiter `)`",
        [(3, 58, "unclosed `[`")],
    ),
    "pattern_missing_sigil.rly": ("unknown-constructor", 11, 17, "unknown constructor `x`", []),
    "return_type_colon.rly": ("syntax-error", 7, 33, "expected `->`, `{` or `where`, found `:`", []),
    "misspelled_global.rly": ("unknown-global", 26, 3, "unknown global `@map_accuml`", []),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_seed_typo_diagnostic(name: str) -> None:
    # The seeds' code blocks are programs without the Prelude (they define
    # List, @foldl, ... themselves).
    path = SAMPLES / "errors" / name
    result = check_source(Source(str(path), path.read_text()), use_prelude=False)
    assert result.errors >= 1
    first = result.diagnostics[0]
    code, line, col, message, labels = GOLDEN[name]
    assert (first.code, *first.location()[1:3], first.message) == (code, line, col, message)
    assert [(*lab.span.start_line_col, lab.message) for lab in first.labels] == labels


def test_every_error_sample_is_pinned() -> None:
    on_disk = {p.name for p in (SAMPLES / "errors").glob("*.rly")}
    # The remaining files are type errors, pinned by the checker's tests.
    type_errors = {
        "call_arity.rly",
        "if_tensor_condition.rly",
        "global_missing_sigil.rly",
        "type_call_missing_sigil.rly",
        "adt_same_constructors.rly",
        "list_mixed_elements.rly",
        "list_of_lists_mixed.rly",
    }
    assert on_disk == set(GOLDEN) | type_errors


def test_misspelled_global_with_the_prelude_is_a_near_miss_warning() -> None:
    """With the Prelude, `@map_accuml` is the Prelude's function; the file's
    own `@map_accmul`, defined and never used, marks the likely typo."""
    path = SAMPLES / "errors" / "misspelled_global.rly"
    result = check_source(Source("misspelled_global.rly", path.read_text()))
    first = result.diagnostics[0]
    assert (first.code, first.severity, *first.location()[1:3]) == ("near-miss-global", "warning", 26, 3)
    assert first.message == "`@map_accuml` is the Prelude's function, not one of this file's"
    assert first.notes == ["this file defines `@map_accmul` but never uses it"]


def test_hints_for_known_mistakes() -> None:
    def helps(name: str) -> list[str]:
        path = SAMPLES / "errors" / name
        return check_source(Source(name, path.read_text())).diagnostics[0].helps

    assert helps("return_type_colon.rly") == ["a return type is introduced by `->`, not `:`"]
    assert helps("pattern_missing_sigil.rly") == ["to bind a variable, write `%x`"]
    assert helps("misspelled_global.rly") == ["did you mean `@map_accmul`?"]
    assert helps("foldr_unclosed_params.rly") == ["is a `)` missing before `->`?"]
    assert helps("map_accumr_extra_paren.rly") == ["remove it, or add the missing `(` earlier"]
