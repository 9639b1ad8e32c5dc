"""A lean LALR(1) driver over the tables Lark computes from grammar/relay.lark.

Lark's own loop looks up each reduction's callback by `Rule` object (whose
hash and equality are Python methods) and checks invariants per token. Here
the table is flattened once into plain tuples, so a shift is two list
appends and a reduction one slice and one call: about twice as fast on large
files. The callbacks are Lark's (they apply the grammar's child filtering
and `?rule` inlining before calling the builder).
"""

from __future__ import annotations

from typing import Any, Iterable


class UnexpectedToken(Exception):
    """The parser met a token no rule allows here."""

    def __init__(self, token: Any, expected: set[str]) -> None:
        super().__init__(f"unexpected {token!r}")
        self.token = token
        self.expected = expected


class EndToken:
    """The end-of-input marker, placed at the end of the text."""

    __slots__ = ("type", "value", "start_pos", "end_pos")

    def __init__(self, pos: int) -> None:
        self.type = "$END"
        self.value = ""
        self.start_pos = self.end_pos = pos


class Driver:
    def __init__(self, lark: Any, start: str = "start") -> None:
        from lark.parsers.lalr_analysis import Shift

        lalr = lark.parser.parser  # lark.parsers.lalr_parser.LALR_Parser
        table = lalr._parse_table
        callbacks = lalr.parser.callbacks
        self.start_state = table.start_states[start]
        self.end_state = table.end_states[start]
        self.states: dict[Any, dict[str, tuple]] = {}
        for state, actions in table.states.items():
            row: dict[str, tuple] = {}
            for symbol, (action, arg) in actions.items():
                if action is Shift:
                    row[symbol] = (None, arg)
                else:
                    row[symbol] = (len(arg.expansion), arg.origin.name, callbacks[arg])
            self.states[state] = row

    def parse(self, tokens: Iterable[Any], text_length: int) -> Any:
        states = self.states
        state_stack = [self.start_state]
        value_stack: list[Any] = []
        push_state = state_stack.append
        push_value = value_stack.append
        for tok in tokens:
            kind = tok.type
            while True:
                action = states[state_stack[-1]].get(kind)
                if action is None:
                    raise UnexpectedToken(tok, self.expected(state_stack[-1]))
                size = action[0]
                if size is None:
                    push_state(action[1])
                    push_value(tok)
                    break
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                push_value(action[2](children))
                push_state(states[state_stack[-1]][action[1]][1])
        end = EndToken(text_length)
        end_state = self.end_state
        while True:
            action = states[state_stack[-1]].get("$END")
            if action is None:
                raise UnexpectedToken(end, self.expected(state_stack[-1]))
            size = action[0]
            assert size is not None, "the end marker is never shifted"
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            push_value(action[2](children))
            push_state(states[state_stack[-1]][action[1]][1])
            if state_stack[-1] == end_state:
                return value_stack[-1]

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

    def _feed(self, stack: list, kind: str, dry: bool = False) -> bool:
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
            if size:
                del stack[-size:]
            stack.append(states[stack[-1]][action[1]][1])
            if kind == "$END" and stack[-1] == self.end_state:
                return True
