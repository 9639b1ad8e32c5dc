"""The dataflow graph of a module, as `relay viz` draws it.

A `Graph` holds nodes (operator calls, calls of globals and closures,
constructor calls, tuples, projections, parameters, constants, pattern
variables, references to globals), groups (each global function; `if` with
its `then` and `else`; `match` with one group per clause; nested functions)
and edges. Every node sits in exactly one group; groups nest. An edge runs
from a node or a group (the value of an `if`, a `match` or a closure) to a
node or a group:

* role `arg`: an argument of a call (`index` is its position), a field of a
  tuple, the tuple a projection reads;
* role `callee`: the closure a call calls;
* role `cond` / `data`: the condition of an `if`, the value a `match` reads
  (to the group);
* role `result`: the value of a scope (a function body, a branch, a clause)
  to the group whose value it is.

A reference is an int: a node's id (>= 0), or `~gid` (< 0) for group `gid`
(`is_group`, `group_ref`, `group_id`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Node kinds
OP = "op"  # a primitive operator call
CALL = "call"  # a call of a global function or a closure
CONSTRUCTOR = "constructor"  # a constructor call (or a constructor as a value)
TUPLE = "tuple"
PROJECT = "project"  # `t.0`
PARAM = "param"  # a function parameter (or a `free_var`)
CONST = "const"
PATTERN = "pattern"  # a variable a match clause binds
GLOBAL = "global"  # a global function used as a value
REF = "ref"  # `ref`, `ref_read`, `ref_write`

# Group kinds
FUNCTION = "function"  # a global function (or the module's trailing expression)
FN = "fn"  # a function literal inside another
IF = "if"
THEN = "then"
ELSE = "else"
MATCH = "match"
CLAUSE = "clause"

# Edge roles
ARG = "arg"
CALLEE = "callee"
COND = "cond"
DATA = "data"
RESULT = "result"


def is_group(ref: int) -> bool:
    return ref < 0


def group_ref(gid: int) -> int:
    return ~gid


def group_id(ref: int) -> int:
    return ~ref


@dataclass(eq=False, slots=True)
class Where:
    """A place in the source: 1-based lines and columns, `end_column` one past the last character."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(eq=False, slots=True)
class Node:
    """One value of the program.

    `label` is what the box says first (`nn.conv2d`, `@f`, `Cons`, `%data`,
    `1f`); `name` the name the text gives the value (`%3` of a graph
    binding, `%x` of a let); `shape` the short text of its type's shape
    (`1×64×56×56`); `link` a global it calls or names (`@f`); `macs` the
    multiply-accumulates the operator performs, where they are counted."""  # noqa: RUF002 (the multiplication sign separates dimensions in the output)

    id: int
    kind: str
    label: str
    group: int
    name: str = ""
    op: str = ""
    attrs: list[tuple[str, str]] = field(default_factory=list)
    type: str = ""
    shape: str = ""
    dtype: str = ""
    caption: str = ""  # the box's second line: shape and dtype, or a short type
    where: Where | None = None
    link: str = ""  # `@f`, or `group:<id>` for a closure calling itself
    macs: int | None = None


@dataclass(eq=False, slots=True)
class Group:
    """A scope drawn as a box around its nodes: `label` is its title
    (`@main`, `if`, `case Cons(%h, %t)`, `fn %loop`); `parent` the group it
    sits in (-1: the top level, for global functions)."""

    id: int
    kind: str
    label: str
    parent: int
    name: str = ""  # a function's global name (`@main`), else empty
    type: str = ""
    where: Where | None = None
    depth: int = 0


@dataclass(eq=False, slots=True)
class Edge:
    src: int  # a node id, or ~group id
    dst: int
    index: int
    role: str


@dataclass(eq=False, slots=True)
class Graph:
    """What a module looks like as a dataflow graph; `source_name` is its
    file, `lines` the text of the source lines nodes point at."""

    nodes: list[Node] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    source_name: str = ""
    lines: dict[int, str] = field(default_factory=dict)
    entry: int = -1  # the group shown first (a function), -1: none

    def functions(self) -> list[Group]:
        """The top-level groups (global functions, the trailing expression), in source order."""
        return [g for g in self.groups if g.parent < 0]

    def function(self, name: str) -> Group | None:
        """The top-level group of global `name` (with or without `@`)."""
        want = name if name.startswith("@") else "@" + name
        for group in self.functions():
            if group.name == want:
                return group
        return None
