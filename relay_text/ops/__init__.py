"""Operators: one registry unit each (see `registry`), grouped by family."""

from .registry import KernelError, OpDef, all_ops, get, names

__all__ = ["KernelError", "OpDef", "all_ops", "get", "names"]
