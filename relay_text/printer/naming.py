"""Names in printed text, settled in the order the text is read.

Shadowing and numbering only make sense in text order, so names are decided
while `doc.layout` walks the document: `Lazy` leaves ask for a variable's or
a temporary's name, `Mark`s say where scopes open and close and where
binders bind. A binder that would capture a variable used under it is
renamed (`%x_1`); the renaming is known only at the use, so the printer lays
the document out again when one happened (rare).
"""

from __future__ import annotations

import re
from typing import Any

from ..ir.expr import Expr, Var
from .trivia import Note
from .layout import Lazy, Mark

LOCAL_NAME = re.compile(r"[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*")
# TVM's format also reads `/` inside a name (`%conv1/weights`).
TVM_LOCAL_NAME = re.compile(r"[A-Za-z0-9_]+(?:[./][A-Za-z0-9_]+)*")
_LEADING_NUMBER = re.compile(r"([0-9]+)(?:\.|$)")

_PRIVATE_BASE = 0xF0000  # Unicode's supplementary private use area A
_PRIVATE_RANGE = 0xFFFE
_PLACEHOLDER = re.compile("%\x00*([\U000f0000-\U000ffffd]+)")

PUSH = Mark("push")  # a scope opens
POP = Mark("pop")  # ... and closes: what was bound in it is gone
RESET = Mark("reset")  # a definition starts: temporaries count from %0 again


def bind(var: Var, group: Any = None) -> Mark:
    """`var` is bound from here on; binders of one `group` (the parameters of
    one function, the variables of one pattern) must have distinct names."""
    return Mark("bind", (var, group))


class Names:
    """Settles names while the layout walks the text in order (the
    `Resolver` of `doc.layout`).

    Variables keep their names unless a binder would capture a variable used
    under it (the binder is renamed) or a name cannot be written; temporaries
    get numbers that no variable of the program is called.
    """

    def __init__(self, tvm: bool) -> None:
        self.tvm = tvm
        self.renames: dict[Var, str] = {}
        self.taken: set[str] = set()  # every variable name: fresh names avoid them
        self.reserved: set[int] = set()  # numbers a variable or a written binding is called (`%0`, `%4.10`)
        self.written: dict[int, str] = {}  # id(node) -> the name the source bound it to
        self.dotted: set[str] = set()  # `t.0`, `t.0.1`: names a projection could be read as
        self.reset()

    def learn(self, names: set[str]) -> None:
        """Record the variable names of the program being printed."""
        taken = self.taken
        taken.update(names)
        for name in names:
            m = _LEADING_NUMBER.match(name)
            if m:
                self.reserved.add(int(m.group(1)))
            if "." in name:
                parts = name.split(".")
                taken.add(parts[0])
                for i in range(2, len(parts) + 1):
                    self.dotted.add(".".join(parts[:i]))

    def fresh(self, base: str) -> str:
        """A name no variable of the program has: `x_1`, `x_2`, ..."""
        base = re.sub(r"[^A-Za-z0-9_]", "_", base.split(".")[0]) or "v"
        k = 1
        while True:
            candidate = f"{base}_{k}"
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
            k += 1

    def comment_text(self, note: Note) -> str:
        """A comment as printed: `#` comments become `//` in TVM text."""
        text = note.text
        if self.tvm and text.startswith("#"):
            return "//" + text[1:]
        return text

    def reset(self) -> None:
        self.env: dict[str, list[Var]] = {}
        self.frames: list[list[Var]] = [[]]
        self.groups: list[set[tuple[str, int]]] = [set()]
        self.counter = 0
        self.numbers: dict[Expr, int | str] = {}
        self.written_users: dict[str, Expr] = {}  # a written name -> the node that got it
        self.changed = False
        self.pending: list[Expr] = []  # TVM bindings printed before their number was known
        self.unsettled = False  # a stand-in left by `settle`
        self.comments_seen: list[int] = []

    # ---- names of variables --------------------------------------------------

    def name_of(self, var: Var) -> str:
        name = self.renames.get(var)
        if name is None:
            name = var.name
            if not name or not (TVM_LOCAL_NAME if self.tvm else LOCAL_NAME).fullmatch(name):
                name = self.fresh(name or "v")
            self.renames[var] = name
        return name

    def bind(self, var: Var, group: Any) -> None:
        name = self.name_of(var)
        if group is not None:
            tag = (name, id(group))
            if tag in self.groups[-1]:
                self._rename(var)
                name = self.name_of(var)
                tag = (name, id(group))
            self.groups[-1].add(tag)
        self.env.setdefault(name, []).append(var)
        self.frames[-1].append(var)

    def ref(self, var: Var) -> str:
        name = self.name_of(var)
        stack = self.env.get(name)
        if not stack or stack[-1] is var:
            return name
        position = next((i for i, v in enumerate(stack) if v is var), -1)
        for other in stack[position + 1 :]:
            self._rename(other)
        return name

    def _rename(self, var: Var) -> None:
        old = self.name_of(var)
        new = self.renames[var] = self.fresh(old)
        stack = self.env.get(old)
        if stack is not None:
            for i in range(len(stack) - 1, -1, -1):
                if stack[i] is var:
                    del stack[i]
                    break
            self.env.setdefault(new, []).append(var)
        self.changed = True

    # ---- the Resolver protocol -------------------------------------------------

    def text(self, lazy: Lazy) -> str:
        kind = lazy.kind
        if kind == "var":
            return "%" + self.ref(lazy.key)
        if kind == "binder":
            return "%" + self.name_of(lazy.key)
        if kind == "tmp":
            return "%" + str(self.number(lazy.key))
        if kind == "tmpdef":  # numbered at the end of its statement: patched afterwards
            return self.placeholder(lazy.key)
        if kind == "comment" or kind == "trailing":
            note = lazy.key
            self.comments_seen.append(note.index)
            return self.comment_text(note)
        raise TypeError(kind)

    def width(self, lazy: Lazy) -> int:
        kind = lazy.kind
        if kind == "var" or kind == "binder":
            return 1 + len(self.name_of(lazy.key))
        if kind == "tmp" or kind == "tmpdef":
            return 1 + len(self._expected_name(lazy.key))
        text = self.comment_text(lazy.key)
        if "\n" in text:
            return -1
        # A comment at the end of a line does not make its code break.
        return 0 if kind == "trailing" else len(text)

    def mark(self, mark: Mark) -> None:
        kind = mark.kind
        if kind == "bind":
            var, group = mark.arg
            self.bind(var, group)
        elif kind == "push":
            self.frames.append([])
            self.groups.append(set())
        elif kind == "pop":
            for var in self.frames.pop():
                stack = self.env.get(self.name_of(var))
                if stack:
                    for i in range(len(stack) - 1, -1, -1):
                        if stack[i] is var:
                            del stack[i]
                            break
            self.groups.pop()
        elif kind == "reset":
            self.counter = 0
            self.written_users = {}  # a definition's names are its own
        elif kind == "tmpdone":
            self.number(mark.arg)

    def placeholder(self, node: Expr) -> str:
        """A stand-in for a name not numbered yet, as wide as the estimate
        `width` gave: `%`, padding, then the slot in private-use characters."""
        slot = len(self.pending)
        self.pending.append(node)
        digits = ""
        while True:
            slot, rest = divmod(slot, _PRIVATE_RANGE)
            digits = chr(_PRIVATE_BASE + rest) + digits
            if not slot:
                break
        width = len(self._expected_name(node))
        return "%" + "\x00" * max(0, width - len(digits)) + digits

    def _expected_name(self, node: Expr) -> str:
        """The name a temporary has, or will most likely get (for widths)."""
        known = self.numbers.get(node)
        if known is None and self.written:
            written = self.written.get(id(node))
            if written is not None and self.written_users.get(written, node) is node:
                return written
        return str(known if known is not None else self.counter)

    def patch(self, text: str) -> str:
        """Replace the stand-ins by the numbers settled since."""
        if not self.pending:
            return text
        pending, numbers = self.pending, self.numbers

        def number(m: re.Match[str]) -> str:
            return "%" + str(numbers[pending[_slot(m.group(1))]])

        return _PLACEHOLDER.sub(number, text)

    def settle(self, text: str) -> str:
        """`patch` for a piece of the text: the stand-ins numbered so far
        are replaced (all of them once their definition is written), the
        others stay for `patch` (`unsettled` says whether any did)."""
        if not self.pending:
            return text
        pending, numbers = self.pending, self.numbers

        def number(m: re.Match[str]) -> str:
            n = numbers.get(pending[_slot(m.group(1))])
            if n is None:
                self.unsettled = True
                return m.group(0)
            return "%" + str(n)

        return _PLACEHOLDER.sub(number, text)

    def keep_written(self, written: dict[int, str]) -> None:
        """Bindings the source named keep their names (`%3` stays `%3`); fresh
        numbers for the other temporaries avoid them."""
        self.written = written
        for name in written.values():
            if name.isdigit():
                self.reserved.add(int(name))
            else:
                self.taken.add(name)

    def number(self, node: Expr) -> int | str:
        n = self.numbers.get(node)
        if n is None and self.written:
            name = self.written.get(id(node))
            if name is not None and self.written_users.setdefault(name, node) is node:
                self.numbers[node] = n = int(name) if name.isdigit() else name
                return n
        if n is None:
            reserved = self.reserved
            n = self.counter
            while n in reserved:
                n += 1
            self.counter = n + 1
            self.numbers[node] = n
        return n


def _slot(stand_in: str) -> int:
    """The pending temporary a stand-in names: its private-use characters
    read as the digits of a number in base `_PRIVATE_RANGE`."""
    slot = 0
    for ch in stand_in:
        slot = slot * _PRIVATE_RANGE + ord(ch) - _PRIVATE_BASE
    return slot
