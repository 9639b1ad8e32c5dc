"""The standard library: the Prelude (`prelude.rly`), loaded once per process.

`prelude()` parses the Prelude the first time it is asked for and keeps the
result. `Prelude.env()` gives the parser the names the Prelude defines, so a
program can use `Cons`, `List[a]` or `@map` without defining them; a program
that defines a name itself shadows the Prelude's (see `Prelude.resolve`).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from collections.abc import Callable

from ..ir.expr import Constructor, Function, GlobalVar
from ..ir.module import Module
from ..ir.span import PRELUDE_SOURCE_NAME, Source
from ..ir.ty import GlobalTypeVar

if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes, for less at import
    from ..record import dataclass, field

if TYPE_CHECKING:
    from ..check.result import CheckResult
    from ..syntax.builder import Env

PRELUDE_FILE = Path(__file__).with_name("prelude.rly")
# How diagnostics name the Prelude: stable across installations.
SOURCE_NAME = PRELUDE_SOURCE_NAME

# Other spellings of Prelude types, as TVM's own prelude named them.
TYPE_ALIASES = {"Option": "Optional"}

_T = TypeVar("_T")

# What the Prelude defines, by name: its globals (written `@name` where
# they are used), and its types (with TVM's spellings) and their
# constructors. `tests/std/test_names.py` keeps these equal to what
# `prelude.rly` defines.
GLOBALS = frozenset(
    [
        "compose",
        "concat",
        "filter",
        "flip",
        "foldl",
        "foldr",
        "foldr1",
        "hd",
        "id",
        "iterate",
        "length",
        "map",
        "map_accuml",
        "map_accumr",
        "nth",
        "rev",
        "size",
        "sum",
        "tl",
        "tmap",
        "unfoldl",
        "unfoldr",
        "update",
        "zip",
    ]
)
TYPES = {"List": ("Nil", "Cons"), "Optional": ("None", "Some"), "Tree": ("Rose",), "Storage": ()}
TYPES.update({alias: TYPES[name] for alias, name in TYPE_ALIASES.items()})
TYPES_AND_CONSTRUCTORS = frozenset(TYPES) | {c for constructors in TYPES.values() for c in constructors}

_WORDS = "|".join(sorted(TYPES_AND_CONSTRUCTORS, key=len, reverse=True))
_GLOBAL_WORDS = "|".join(sorted(GLOBALS, key=len, reverse=True))
_USE = re.compile(rf"@({_GLOBAL_WORDS})\b|\b({_WORDS})\b")
_DEFINE = re.compile(rf"\bdef\s+@(\w+)|\b(?:data|type)\s+({_WORDS})\b")


def may_use(text: str) -> bool:
    """Whether a program may refer to the Prelude: whether its text names
    one of its globals, types or constructors (comments included) without
    defining it, as far as a look at the words can tell (a type's
    constructors count as defined with the type).

    A program that does not refer to it is read and checked alike without
    the Prelude, so the commands skip loading it. This look only saves
    work: they try without the Prelude first and fall back to it on any
    error, since a Prelude name used but not defined is one."""
    named = {g or w for g, w in _USE.findall(text)}
    if not named:
        return False
    for name, data_type in _DEFINE.findall(text):
        named.discard(name)
        named.discard(data_type)
        named.difference_update(TYPES.get(data_type, ()))
    return bool(named)


def with_prelude_if_needed(text: str, attempt: Callable[[Prelude | None], _T], succeeded: Callable[[_T], bool]) -> _T:
    """`attempt(None)` for a text that does not name the Prelude
    (`may_use`), if that succeeds; otherwise `attempt` with the Prelude
    (errors without it may be suggestions of its names to make)."""
    if not may_use(text):
        outcome = attempt(None)
        if succeeded(outcome):
            return outcome
    return attempt(prelude())


_LOCK = threading.Lock()
_CACHE: list[Prelude] = []


@dataclass(eq=False)
class Prelude:
    """The parsed Prelude: its module and the names it defines."""

    module: Module
    globals: dict[str, GlobalVar] = field(default_factory=dict)
    constructors: dict[str, Constructor] = field(default_factory=dict)
    adts: dict[str, GlobalTypeVar] = field(default_factory=dict)

    def env(self) -> Env:
        """Names for the parser of a program that uses the Prelude."""
        from ..syntax.builder import Env

        defs = {gtv.name: data for gtv, data in self.module.type_defs.items()}
        type_defs = {name: defs[gtv.name] for name, gtv in self.adts.items() if gtv.name in defs}
        return Env(set(self.globals), dict(self.constructors), dict(self.adts), type_defs)

    def resolve(self, program: Module, name: str) -> tuple[Module, GlobalVar] | None:
        """The definition a program's `@name` refers to: its own, else the Prelude's."""
        own = program.global_var(name)
        if own is not None:
            return program, own
        gv = self.globals.get(name)
        return (self.module, gv) if gv is not None else None

    def checked(self) -> CheckResult:
        """The Prelude's types (checked once, then cached)."""
        from ..check import prelude_result

        return prelude_result(self.module)

    def function(self, name: str) -> Function:
        return self.module.functions[self.globals[name]]


def prelude() -> Prelude:
    """The Prelude, parsed on first use (thread-safe)."""
    with _LOCK:
        if not _CACHE:
            _CACHE.append(_load())
        return _CACHE[0]


def _load() -> Prelude:
    from ..diagnostics import has_errors
    from ..diagnostics.render import render_text
    from ..syntax.parser import parse_source

    source = Source(SOURCE_NAME, PRELUDE_FILE.read_text(encoding="utf-8"))
    result = parse_source(source)
    if result.module is None or has_errors(result.diagnostics):
        details = "".join(render_text(d) for d in result.diagnostics)
        raise RuntimeError(f"the Prelude does not parse:\n{details}")
    module = result.module
    adts = {gtv.name: gtv for gtv in module.type_defs}
    for alias, name in TYPE_ALIASES.items():
        adts[alias] = adts[name]
    return Prelude(
        module=module,
        globals={gv.name: gv for gv in module.functions},
        constructors=module.constructors(),
        adts=adts,
    )


__all__ = [
    "GLOBALS",
    "PRELUDE_FILE",
    "TYPES",
    "TYPES_AND_CONSTRUCTORS",
    "TYPE_ALIASES",
    "Prelude",
    "may_use",
    "prelude",
    "with_prelude_if_needed",
]
