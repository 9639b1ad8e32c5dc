"""Operators under the names and attributes of older TVM releases, read as
their current forms."""
