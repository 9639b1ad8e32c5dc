"""A lean LALR(1) driver over the tables compiled from grammar/relay.lark.

A shift is two list appends and a reduction one slice and one call. Each
rule's action filters the children the way Lark would for a transformer
(drops anonymous tokens, splices inlined `_rules`, inserts `None` for
missing `[optional]` parts, passes a lone child through for `?rule`s) and
then calls the builder's method named after the rule or its alias.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterable


class UnexpectedToken(Exception):
    """The parser met a token no rule allows here; `states` is the parser's
    state stack at that moment (for `Driver.recover`)."""

    def __init__(self, token: Any, expected: set[str], states: list[Any] | None = None) -> None:
        super().__init__(f"unexpected {token!r}")
        self.token = token
        self.expected = expected
        self.states = states or []


# Error recovery (see `Driver.recover`): where reading may start again, and
# what may be pretended to stand in the gap before it.
STATEMENT_ENDS = {"SEMICOLON", "RBRACE"}
TOP_LEVEL = {"DEF", "DATA", "TYPE", "EXTERN"}
_OPENERS = {"LPAR", "LSQB", "LBRACE"}
_CLOSERS = {"RPAR", "RSQB", "RBRACE"}
# What a state is entered by when it stands for an open bracket.
_OPEN_SYMBOLS = {"LPAR", "LSQB", "LBRACE", "lparen", "lbrace"}
_FILLERS: tuple[tuple[str, ...], ...] = ((), ("INT",), ("LOCAL",), ("IDENT",), ("INT", "RPAR"), ("IDENT", "RSQB"))
QUIET = 3  # tokens read after a recovery before another error is reported
# Trying resume points costs parser steps; recovery stops (reporting the
# errors found so far) after this many per token of the file, so that a file
# with an error deep inside a long block still fails in linear time.
RECOVERY_STEPS_PER_TOKEN = 40
RECOVERY_MIN_STEPS = 200_000


class EndToken:
    """The end-of-input marker, placed at the end of the text."""

    __slots__ = ("end_pos", "start_pos", "type", "value")

    def __init__(self, pos: int) -> None:
        self.type = "$END"
        self.value = ""
        self.start_pos = self.end_pos = pos


class Grammar:
    """The compiled tables (see `tables`) made ready for the driver, shared
    by every parse: a state's row is built on first use and never changes
    after, so threads may read the rows while others are added."""

    def __init__(self, tables: dict[str, Any], builder_class: type) -> None:
        self.start_state = tables["start"]
        self.end_state = tables["end"]
        # Each state's row is made ready for the loop below (a reduction as
        # (size, origin, action)) on first use: a small file visits a few
        # hundred of the states, and a command starts faster.
        self.states = _States(tables["states"], tables["rules"], builder_class)
        # The same rows in a list indexed by state (states are 0..n-1): the
        # driver's loop reads them from here, None until first built.
        self.rows: list[dict[str, Entry] | None] = [None] * (max(tables["states"], default=-1) + 1)
        self._accessing: dict[Any, str] | None = None
        # (state below, top state, lookahead) -> the top state after a chain
        # of unit reductions (`Driver._after_units`), filled as parses meet them
        self.units: dict[tuple[Any, Any, str], Any] = {}

    @property
    def accessing(self) -> dict[Any, str]:
        """The symbol each state is entered by (for error recovery)."""
        if self._accessing is None:
            accessing = {}
            for row in self.states.raw.values():
                for symbol, action in row.items():
                    if action[0] is None:
                        accessing[action[1]] = symbol
            self._accessing = accessing
        return self._accessing


class Driver:
    """One parse: runs the grammar's tables, calling `builder.<rule>` on reductions."""

    def __init__(self, grammar: Grammar, builder: Any = None) -> None:
        self.grammar = grammar
        self.states = grammar.states
        self.start_state = grammar.start_state
        self.end_state = grammar.end_state
        self.builder = builder  # the callbacks' object (None: only the states are run)
        self._steps = RECOVERY_MIN_STEPS  # what error recovery may still spend (see `recover`)

    @property
    def accessing(self) -> dict[Any, str]:
        return self.grammar.accessing

    def parse(self, tokens: Iterable[Any], text_length: int) -> Any:
        # The hot loop: the top state is kept in `state` and its row in
        # `row`; rows are read from a list indexed by state (built on first
        # use by the `_States` mapping). Every state on the stack has had its
        # row read while it was the top, so a goto reads the row below as it is.
        states = self.states
        rows = self.grammar.rows
        builder = self.builder
        units = self.grammar.units
        state = self.start_state
        row = rows[state] or self._row(state)
        state_stack = [state]
        value_stack: list[Any] = []
        push_state = state_stack.append
        push_value = value_stack.append
        for tok in tokens:
            kind = tok.type
            while True:
                action = row.get(kind)
                if action is None:
                    raise UnexpectedToken(tok, self.expected(state), list(state_stack))
                size = action[0]
                if size is None:
                    state = action[1]
                    push_state(state)
                    push_value(tok)
                    row = rows[state] or self._row(state)
                    break
                if size < 0:  # unit rules passing their one child on: only the top state changes
                    key = (state_stack[-2], state, kind)
                    top = units.get(key)
                    if top is None:
                        top = units[key] = self._after_units(key, action)
                    state = state_stack[-1] = top
                    row = rows[state] or self._row(state)
                    continue
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                push_value(action[2](builder, children))
                state = rows[state_stack[-1]][action[1]][1]
                push_state(state)
                row = rows[state] or self._row(state)
        end = EndToken(text_length)
        end_state = self.end_state
        while True:
            action = states[state_stack[-1]].get("$END")
            if action is None:
                raise UnexpectedToken(end, self.expected(state_stack[-1]), list(state_stack))
            size = action[0]
            assert size is not None, "the end marker is never shifted"
            if size < 0:
                state_stack[-1] = states[state_stack[-2]][action[1]][1]
                continue
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            push_value(action[2](builder, children))
            push_state(states[state_stack[-1]][action[1]][1])
            if state_stack[-1] == end_state:
                return value_stack[-1]

    def _row(self, state: int) -> dict[str, Entry]:
        """The row of `state`, built now (and kept for every later parse)."""
        row = self.grammar.rows[state] = self.states[state]
        return row

    def _after_units(self, key: tuple[Any, Any, str], action: Entry) -> Any:
        """The top state after the unit reductions that start with `action`
        in the top state `key[1]` above `key[0]` on the lookahead `key[2]`
        (a chain `expr -> or_expr -> ... -> atom`: each changes the top state
        only, so the state below and the lookahead decide where it ends)."""
        states = self.states
        below, _, kind = key
        top = states[below][action[1]][1]
        while True:
            following = states[top].get(kind)
            if following is None or following[0] is None or following[0] >= 0:
                return top
            top = states[below][following[1]][1]

    def expected(self, state: Any) -> set[str]:
        return {symbol for symbol in self.states[state] if symbol.isupper() or symbol == "$END"}

    def acceptable(self, tokens: Iterable[Any], failed: Any) -> set[str]:
        """The terminals that could stand where `failed` stands.

        LALR tables reduce on any lookahead that some context allows, so the
        state in which an error shows may list terminals that this context
        does not. Replay the parse (states only) up to `failed`, then keep
        the terminals that would really be shifted.
        """
        stack = [self.start_state]
        for tok in tokens:
            if tok.start_pos >= failed.start_pos and failed.type != "$END":
                break
            if not self._feed(stack, tok.type):
                break
        return {t for t in self.expected(stack[-1]) if self._feed(list(stack), t, dry=True)}

    def recover(self, tokens: list[Any], failed: int, stack: list[Any], text_length: int) -> list[tuple[Any, set[str]]]:
        """The syntax errors after the one at `tokens[failed]`, each as (the
        token, the terminals that could stand there), found by reading on.

        Panic mode, on the parser's states only (the builder is not called:
        a file with a syntax error has no module): skip to the next `;` or
        `}` that closes something opened before the error, or to the next
        top-level `def`, `data`, `type` or `extern`; drop states until one
        can go on there, pretending that a filler (an integer, a variable, a
        name, a closing bracket) stood in the gap; read on. An error within
        QUIET tokens of a recovery is taken to follow from the last one and
        is not reported.
        """
        errors: list[tuple[Any, set[str]]] = []
        stack = list(stack)
        i = failed
        n = len(tokens)
        self._steps = max(RECOVERY_MIN_STEPS, RECOVERY_STEPS_PER_TOKEN * n)
        if _unmatched_closer(tokens, failed):
            i += 1  # a stray `)`, `]` or `}` closes nothing: reading goes on after it
        while True:
            resumed = None
            j, exits = self._sync_point(tokens, i)
            while j is not None:
                resumed = self._resume(stack, tokens[j].type, exits)
                if resumed is not None:
                    break
                closed = 1 if tokens[j].type == "RBRACE" else 0  # a `}` passed over closes a bracket too
                j, more = self._sync_point(tokens, j + 1)
                exits += closed + more
            if resumed is None or j is None or self._steps <= 0:
                return errors  # nothing after the error could be read on from (or no time left to look)
            stack = resumed
            i = j + 1
            start = i
            while i < n and self._can_shift(stack, tokens[i].type):
                self._feed(stack, tokens[i].type)
                i += 1
            if i < n:
                if i - start >= QUIET:
                    errors.append((tokens[i], self._acceptable_here(stack)))
                continue
            if not self._can_shift(stack, "$END") and i - start >= QUIET:
                errors.append((EndToken(text_length), self._acceptable_here(stack)))
            return errors

    def _sync_point(self, tokens: list[Any], start: int) -> tuple[int | None, int]:
        """The index of the next token from `start` where reading may go on,
        and how many brackets opened before `start` were closed on the way."""
        depth = 0
        exits = 0
        for k in range(start, len(tokens)):
            kind = tokens[k].type
            if kind in TOP_LEVEL:
                return k, exits
            if kind in _OPENERS:
                depth += 1
            elif kind in _CLOSERS:
                if depth == 0 and kind == "RBRACE":
                    return k, exits
                if depth == 0:
                    exits += 1
                depth = max(0, depth - 1)
            elif kind == "SEMICOLON" and depth == 0:
                return k, exits
        return None, exits

    def _resume(self, stack: list[Any], kind: str, exits: int = 0) -> list[Any] | None:
        """The longest prefix of `stack` that, with a filler, can shift `kind`
        (then shifted), or None. The prefix leaves out the `exits` innermost
        open brackets: they were closed before the sync point."""
        fillers = ((),) if kind in TOP_LEVEL else _FILLERS
        limit = len(stack)
        for k in range(len(stack) - 1, 0, -1):
            if exits <= 0:
                break
            if self.accessing.get(stack[k]) in _OPEN_SYMBOLS:
                exits -= 1
                limit = k
        for depth in range(limit, 0, -1):
            if self._steps <= 0:
                return None
            for filler in fillers:
                if self._simulate(stack, depth, (*filler, kind)):
                    trial = stack[:depth]
                    for f in (*filler, kind):
                        self._feed(trial, f)
                    return trial
        return None

    def _acceptable_here(self, stack: list[Any]) -> set[str]:
        return {t for t in self.expected(stack[-1]) if self._can_shift(stack, t)}

    def _can_shift(self, stack: list[Any], kind: str) -> bool:
        return self._simulate(stack, len(stack), (kind,))

    def _simulate(self, stack: list[Any], base: int, kinds: tuple[str, ...]) -> bool:
        """Whether `kinds` can be shifted one after the other from the state
        stack `stack[:base]`, without changing `stack` (the reductions and
        shifts happen on an overlay above `base`)."""
        states = self.states
        extra: list[Any] = []
        steps = 0
        for kind in kinds:
            while True:
                steps += 1
                top = extra[-1] if extra else stack[base - 1]
                action = states[top].get(kind)
                if action is None:
                    self._steps -= steps
                    return False
                size = action[0]
                if size is None:
                    extra.append(action[1])
                    break
                size = abs(size)  # (-1: a unit rule)
                popped = min(size, len(extra))
                if popped:
                    del extra[-popped:]
                base -= size - popped
                top = extra[-1] if extra else stack[base - 1]
                extra.append(states[top][action[1]][1])
                if kind == "$END" and extra[-1] == self.end_state:
                    break
        self._steps -= steps
        return True

    def _feed(self, stack: list[Any], kind: str, dry: bool = False) -> bool:
        states = self.states
        while True:
            action = states[stack[-1]].get(kind)
            if action is None:
                return False
            size = action[0]
            if size is None:
                if not dry:
                    stack.append(action[1])
                return True
            size = abs(size)  # (-1: a unit rule)
            if size:
                del stack[-size:]
            stack.append(states[stack[-1]][action[1]][1])
            if kind == "$END" and stack[-1] == self.end_state:
                return True


def _unmatched_closer(tokens: list[Any], index: int) -> bool:
    """Whether `tokens[index]` is a closing bracket with no opening one of
    its kind left open before it."""
    kind = tokens[index].type
    if kind not in _CLOSERS:
        return False
    opener = _PAIRS[kind]
    depth = 0
    for tok in tokens[:index]:
        if tok.type == opener:
            depth += 1
        elif tok.type == kind:
            depth -= 1
    return depth <= 0


_PAIRS = {"RPAR": "LPAR", "RSQB": "LSQB", "RBRACE": "LBRACE"}


# A reduction's action: the builder of the parse and the rule's children in,
# the rule's value out (the builder's method, called unbound).
Action = Callable[[Any, list[Any]], Any]
# A row's entry: (None, next state) for a shift, (size, origin, action) for a reduction.
Entry = tuple[Any, ...]


class _States(dict[Any, dict[str, Entry]]):
    """state -> {symbol: (None, next state) | (size, origin, action)}, each
    row built from the compiled tables when first looked up."""

    def __init__(self, raw: dict[Any, dict[str, Entry]], rules: list[Rule], builder_class: type) -> None:
        super().__init__()
        self.raw = raw
        self.rules = rules
        self.builder_class = builder_class
        self.actions: dict[int, Action] = {}

    def __missing__(self, state: Any) -> dict[str, Entry]:
        row = self.raw[state]  # KeyError for a state that does not exist
        rules, actions = self.rules, self.actions
        flat: dict[str, Entry] = {}
        for symbol, action in row.items():
            if action[0] is None:
                flat[symbol] = action
            else:
                index = action[0]
                act = actions.get(index)
                if act is None:
                    act = actions[index] = _rule_action(rules[index], self.builder_class)
                origin, _, size = rules[index][:3]
                # A `?rule` of one symbol that keeps it returns that child
                # as it is: marked by size -1, the driver only changes state.
                flat[symbol] = (-1 if size == 1 and _is_unit(rules[index]) else size, origin, act)
        self[state] = flat
        return flat


# A compiled rule: (origin, alias, size, expand1, keep, append_none), `keep`
# a (position, splice, nones before) triple per child kept (see `tables`).
Rule = tuple[str, "str | None", int, bool, "list[tuple[int, bool, int]]", int]


def _is_unit(rule: Rule) -> bool:
    """Whether a rule of one symbol returns that symbol's value unchanged
    (a `?rule` or an inlined `_rule` whose one child passes through)."""
    _, _, size, expand1, keep, append_none = rule
    return size == 1 and bool(expand1) and append_none == 0 and tuple(map(tuple, keep)) == ((0, False, 0),)


def _children(builder: Any, children: list[Any]) -> list[Any]:
    """The action of a rule without a builder method: its children, as a list
    (a fresh one: the driver's slice of its stack)."""
    return children


def _rule_action(rule: Rule, builder_class: type) -> Action:
    origin, alias, size, expand1, keep, append_none = rule
    inline = origin.startswith("_")
    method = None if inline else getattr(builder_class, alias or origin, None)
    node: Action = method if method is not None else _children
    identity = (
        append_none == 0
        and len(keep) == size
        and all(pos == i and not splice and nones == 0 for i, (pos, splice, nones) in enumerate(keep))
    )
    if identity:
        if expand1:
            return lambda builder, children: children[0] if len(children) == 1 else node(builder, children)
        return node
    plain = tuple(pos for pos, _, _ in keep) if not any(s or n for _, s, n in keep) and not append_none else None
    if plain is not None:
        return _pick(node, plain, expand1)

    # A left-recursive repetition (`x ("," x)*` makes `__star: "," x | __star
    # "," x`) splices the list built so far into a new one at each step:
    # quadratic. The spliced list of an inline rule is a fresh list that only
    # the value stack holds, so it is extended in place instead, and an
    # inline rule's list is its value (not copied).
    grow = bool(keep) and keep[0][0] == 0 and keep[0][1] and not keep[0][2]
    rest = keep[1:] if grow else keep
    make: Action = _children if inline else node

    def general(builder: Any, children: list[Any]) -> Any:
        out: list[Any] = children[0] if grow else []
        for pos, splice, nones in rest:
            if nones:
                out.extend([None] * nones)
            if splice:
                out.extend(children[pos])
            else:
                out.append(children[pos])
        if append_none:
            out.extend([None] * append_none)
        if expand1 and len(out) == 1:
            return out[0]
        return make(builder, out)

    return general


def _pick(node: Action, plain: tuple[int, ...], expand1: bool) -> Action:
    """The action of a rule that keeps the children at `plain` (in order,
    none spliced, no `None` inserted): one of one, two or three children
    is picked without a loop, and a `?rule` keeping one child returns it."""
    if len(plain) == 1:
        (a,) = plain
        if expand1:
            return lambda builder, children: children[a]
        return lambda builder, children: node(builder, [children[a]])
    # (a `?rule` keeping two or more children always calls its node)
    if len(plain) == 2:
        a, b = plain
        return lambda builder, children: node(builder, [children[a], children[b]])
    if len(plain) == 3:
        a, b, c = plain
        return lambda builder, children: node(builder, [children[a], children[b], children[c]])
    return lambda builder, children: node(builder, [children[i] for i in plain])
