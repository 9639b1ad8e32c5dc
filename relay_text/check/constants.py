"""The types of constants: literals, and `meta[relay.Constant][i]`.

A literal's type is its shape and dtype, within the static limits
(`relay_text.limits`). A constant of the `#[metadata]` section has the type
the section records; without the section, or for an index past its table,
its type is an unknown that its uses may decide (a constant is one value:
that unknown is never generalized).
"""

from __future__ import annotations

from typing import Any

from .. import limits
from ..ir.expr import Constant
from ..ir.ty import Kind, TensorType
from . import messages
from .state import CheckState
from .types import ERROR, Hole


class Constants:
    """Types constants; keeps the type of each metadata constant, by index."""

    def __init__(self, state: CheckState) -> None:
        self.state = state
        self.meta_types: dict[int, Any] = {}
        self._meta_reported = False  # the section's own problems are reported once

    def type_of(self, c: Constant) -> Any:
        if c.meta_index is not None:
            return self._meta_type(c, c.meta_index)
        if c.dtype is None:
            return ERROR
        shape = c.shape if c.shape is not None else ()
        if shape and not self._fits(c, shape):
            return ERROR
        return TensorType(shape, c.dtype)

    def _fits(self, c: Constant, shape: tuple[Any, ...]) -> bool:
        """A constant's shape against the static limits (relay_text.limits)."""
        if len(shape) > limits.MAX_RANK:
            message = messages.constant_rank_over_limit(len(shape), limits.MAX_RANK)
        else:
            count = limits.elements(shape)
            if count <= limits.MAX_STATIC_ELEMENTS:
                return True
            message = messages.constant_elements_over_limit(count, limits.MAX_STATIC_ELEMENTS)
        self.state.error(messages.constant_too_large(message, c.span))
        return False

    def _meta_type(self, c: Constant, index: int) -> Any:
        st = self.state
        t = self.meta_types.get(index)
        written = c.type_annotation
        if t is None and st.module.metadata is not None:
            t = self._metadata_type(c, index)
            if t is not None:
                self.meta_types[index] = t
        if t is None:
            # A constant is one value: its type is never generalized (level 0).
            t = Hole(Kind.TYPE, 0, st.origin("meta", c.span, messages.meta_constant_text(index)))
            self.meta_types[index] = t
        if written is not None:
            st.expect(t, written, c.span, label=messages.THIS_CONSTANT)
        return t

    def _metadata_type(self, c: Constant, index: int) -> Any:
        """The type of a constant the `#[metadata]` section holds; its problems
        (a malformed section, an index past the table) are `bad-metadata`."""
        st = self.state
        assert st.module.metadata is not None
        table, problems = st.module.metadata.decoded()
        if not self._meta_reported:
            self._meta_reported = True
            for diag in problems:
                st.error(diag)
        count = len(table.constants) if table is not None else 0
        if table is not None and not 0 <= index < count:
            st.error(messages.meta_index_missing(index, count, c.span))
        if table is None:
            return ERROR
        t = table.constant_type(index)
        return t if t is not None else ERROR
