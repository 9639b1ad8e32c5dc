"""A lean LALR(1) driver over the tables compiled from grammar/relay.lark.

A shift is two list appends and a reduction one slice and one call. Each
rule's action filters the children the way Lark would for a transformer
(drops anonymous tokens, splices inlined `_rules`, inserts `None` for
missing `[optional]` parts, passes a lone child through for `?rule`s) and
then calls the builder's method named after the rule or its alias.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable


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
    """Runs the compiled tables (see `tables`), calling `builder.<rule>` on reductions."""

    def __init__(self, tables: dict[str, Any], builder: Any) -> None:
        rules = tables["rules"]
        actions = [_rule_action(rule, builder) for rule in rules]
        self.start_state = tables["start"]
        self.end_state = tables["end"]
        self.states: dict[Any, dict[str, tuple]] = {}
        for state, row in tables["states"].items():
            flat: dict[str, tuple] = {}
            for symbol, action in row.items():
                if action[0] is None:
                    flat[symbol] = action
                else:
                    origin, _, size = rules[action[0]][:3]
                    flat[symbol] = (size, origin, actions[action[0]])
            self.states[state] = flat

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


def _rule_action(rule: tuple, builder: Any) -> Callable[[list], Any]:
    origin, alias, size, expand1, keep, append_none = rule
    inline = origin.startswith("_")
    method = None if inline else getattr(builder, alias or origin, None)
    node: Callable[[list], Any] = method if method is not None else list
    identity = (
        append_none == 0
        and len(keep) == size
        and all(pos == i and not splice and nones == 0 for i, (pos, splice, nones) in enumerate(keep))
    )
    if identity:
        if expand1:
            return lambda children: children[0] if len(children) == 1 else node(children)
        return node
    plain = tuple(pos for pos, _, _ in keep) if not any(s or n for _, s, n in keep) and not append_none else None
    if plain is not None:
        if expand1:

            def pick_expand(children: list) -> Any:
                out = [children[i] for i in plain]
                return out[0] if len(out) == 1 else node(out)

            return pick_expand

        def pick(children: list) -> Any:
            return node([children[i] for i in plain])

        return pick

    def general(children: list) -> Any:
        out: list = []
        for pos, splice, nones in keep:
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
        return node(out)

    return general
