"""The builder's nested scopes: a name bound once, shadowed, restored."""

from __future__ import annotations

from relay_text.syntax.scopes import Scopes


def test_a_name_bound_once_is_found_and_leaves_with_its_frame() -> None:
    scopes: Scopes[str] = Scopes()
    scopes.push()
    scopes.bind("x", "outer")
    assert scopes.lookup("x") == "outer"
    assert scopes.names() == ["x"]
    scopes.pop()
    assert scopes.lookup("x") is None
    assert scopes.names() == []


def test_shadowing_is_undone_frame_by_frame() -> None:
    scopes: Scopes[str] = Scopes()
    scopes.bind("x", "a")
    scopes.push()
    scopes.bind("x", "b")
    scopes.push()
    scopes.bind("x", "c")
    scopes.bind("x", "d")  # bound twice in one frame: both leave with it
    assert scopes.lookup("x") == "d"
    assert scopes.depth == 3
    scopes.pop()
    assert scopes.lookup("x") == "b"
    scopes.pop()
    assert scopes.lookup("x") == "a"
    scopes.push()
    scopes.bind("x", "e")
    assert scopes.lookup("x") == "e"
    scopes.pop()
    assert scopes.lookup("x") == "a"


def test_bind_outermost_stays_under_the_bindings_in_scope() -> None:
    scopes: Scopes[str] = Scopes()
    scopes.bind_outermost("f", "global")
    assert scopes.lookup("f") == "global"
    scopes.push()
    scopes.bind("g", "local")
    scopes.bind_outermost("g", "global g")
    assert scopes.lookup("g") == "local"
    scopes.pop()
    assert scopes.lookup("g") == "global g"
    assert sorted(scopes.names()) == ["f", "g"]
