"""A program that does not name the Prelude is read, checked and formatted
without loading it, with the same outcome as with it."""

from __future__ import annotations

import pytest

from relay_text import pipeline, std
from relay_text.formatter import _format_source, format_source
from relay_text.ir.span import Source
from tests.conftest import ROOT, corpus_files, sample_files

FILES = (
    sample_files()
    + sorted((ROOT / "samples" / "errors").glob("*.rly"))
    + sorted((ROOT / "tests" / "check" / "data").glob("*.rly"))
    + corpus_files()
)


OWN_DEFINITIONS = {
    "own_list": """data List<a> {
  Nil : () -> List
  Cons : (a, List[a]) -> List
}

def @length<a>(%l : List[a]) -> int32 {
  match (%l) {
    case Cons(_, %rest) { 1 + @length(%rest) }
    case Nil() { 0 }
  }
}

def @main() -> int32 {
  @length(Cons(1f, Cons(2f, Nil())))
}
""",
    "own_different_option": """data Optional<a> { None : () -> Optional  Some : (a, a) -> Optional }
def @main() { Some(1, 2) }
""",
    "own_map_of_another_type": "def @map(%x: int32) -> int32 { %x }\ndef @main() { @map(2) }\n",
    "own_list_prelude_map": """data List<a> {
  Nil : () -> List
  Cons : (a, List[a]) -> List
}
def @main() { @map(fn (%x: int32) { %x }, Cons(1, Nil)) }
""",
    "own_tree_prelude_list": "data Tree<a> { Rose : (a, List[Tree[a]]) -> Tree }\ndef @main() { Rose(1, Nil) }\n",
    "unused_unknown_type": "def @main(%x: Lst[int32]) { %x }\n",
}


def test_the_names_are_what_the_prelude_defines() -> None:
    loaded = std.prelude()
    assert set(loaded.globals) == std.GLOBALS
    assert set(std.TYPES) == set(loaded.adts)
    for name, constructors in std.TYPES.items():
        data = loaded.module.type_defs[loaded.adts[name]]
        assert constructors == tuple(c.name for c in data.constructors), name
    assert set(std.TYPE_ALIASES) <= set(std.TYPES)


@pytest.mark.parametrize(
    "text, named",
    [
        ("def @main() { @map(@id, Nil) }", True),
        ("def @f(%l: List[int32]) { %l }", True),
        ("def @f(%o: Option[int32]) { %o }", True),  # TVM's spelling of Optional
        ("def @main(%x: Tensor[(3,), float32]) { sum(%x) }", False),  # the operator, not @sum
        ("def @main(%map: int32) { %map }", False),
        ("def @main() { @mapping() }", False),
        ("def @main() { 1 } // uses a List", True),  # comments count: loading is always safe
        (OWN_DEFINITIONS["own_list"], False),  # defines all it names (a type's constructors with it)
        (OWN_DEFINITIONS["own_list_prelude_map"], True),
        (OWN_DEFINITIONS["own_tree_prelude_list"], True),
    ],
)
def test_may_use(text: str, named: bool) -> None:
    assert std.may_use(text) is named


def _outcome(checked: pipeline.Checked) -> list:
    return [(d.code, d.severity, d.message, d.span, d.notes, d.labels) for d in checked.diagnostics] + [
        checked.global_types
    ]


@pytest.mark.parametrize("path", FILES + sorted(OWN_DEFINITIONS), ids=lambda p: getattr(p, "name", p))
def test_same_outcome_with_and_without_loading_the_prelude(path) -> None:
    if isinstance(path, str):
        source = Source(f"{path}.rly", OWN_DEFINITIONS[path])
    else:
        source = Source(path.name, path.read_text(encoding="utf-8"))
    loaded = std.prelude()
    eager = pipeline._with_std(source, loaded)
    assert _outcome(pipeline.check_source(source)) == _outcome(eager)
    assert format_source(source).text == _format_source(source, "keep", 100, True, loaded.env()).text


def test_a_program_without_prelude_names_is_checked_without_it() -> None:
    checked = pipeline.check_source(Source("a.rly", "def @main(%x: int32) -> int32 { %x + 1 }"))
    assert checked.ok and checked.prelude is None
    assert checked.global_types == {"@main": "fn(Tensor[(), int32]) -> Tensor[(), int32]"}


def test_an_error_is_reported_as_with_the_prelude() -> None:
    """An unknown name may be a misspelt Prelude name: the suggestion needs it."""
    checked = pipeline.check_source(Source("a.rly", "def @main() { @mapp }"))
    assert checked.prelude is not None
    [diag] = checked.diagnostics
    assert diag.code == "unknown-global"
    assert "@map" in str(diag)
