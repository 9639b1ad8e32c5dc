"""What each dialect can write: the dialects' names, the file header, the
names each dialect accepts, infix operators, and `PrintError` for what a
dialect cannot express."""

from __future__ import annotations

import re

from ..ir.expr import Call, Constant, Op
from ..ir.module import Module
from ..ir.span import Span
from ..syntax.spelling import literal_text
from ..syntax.symbols import BINARY

DOCS = "docs"
TVM = "tvm"

NUMBER = re.compile(r"-*[0-9a-z][0-9A-Za-z_.]*(?:[eE][+-]?[0-9]+[a-z0-9]*)?")
GLOBAL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


class PrintError(Exception):
    """A program the chosen dialect cannot express (`unformattable`)."""

    def __init__(self, message: str, span: Span | None = None, note: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.note = note


def check_name(name: str, pattern: re.Pattern[str], what: str, span: Span | None) -> None:
    if not pattern.fullmatch(name):
        raise PrintError(f"the {what} name `{name}` cannot be written in Relay text", span)


def infix_symbol(node: Call) -> str | None:
    """The operator symbol to print a call with, if it was written with one."""
    sym = node.infix
    if sym is None or node.attrs or node.type_args or type(node.op) is not Op:
        return None
    if len(node.args) == 2:
        entry = BINARY.get(sym)
        return sym if entry is not None and entry[1] == node.op.name else None
    if len(node.args) == 1 and sym == "-" and node.op.name == "negative":
        arg = node.args[0]
        if type(arg) is Constant and arg.shape == () and arg.meta_index is None and arg.dtype != "bool":
            text = literal_text(arg.value, arg.dtype or "float32", False)
            if text is None or not text.startswith("-"):
                return None  # `-1` would read back as the literal -1
        return sym
    return None


def header_for(module: Module, dialect: str, keep: bool = True) -> str | None:
    """The first line of a file: none in the documented dialect; the TVM
    file's own header when kept (`v0.0.4` stays), else `#[version = "0.0.5"]`."""
    if dialect != TVM:
        return None
    if keep and module.version == "0.0.4":
        return "v0.0.4"
    return '#[version = "0.0.5"]'
