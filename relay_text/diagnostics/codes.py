"""The registry of diagnostic codes: stable kebab-case names with a description.

A code is part of the interface: tests, editors and `--output-format json`
consumers key on it. Add a code here before emitting it.
"""

from __future__ import annotations

CODES: dict[str, str] = {
    # syntax and names
    "syntax-error": "the text does not follow the Relay grammar",
    "invalid-literal": "a number or string literal cannot be represented",
    "unsupported-version": "the version header names a format this toolchain does not read",
    "bad-metadata": "the #[metadata] section or a meta[...] reference is malformed",
    "unbound-variable": "a local variable is used where no binding of it is in scope",
    "unknown-global": "a global function is used but never defined",
    "near-miss-global": "a call resolves to the Prelude while the file defines a similar name it never uses",
    "unknown-constructor": "an ADT constructor is used but never defined",
    "unknown-type": "a type name is neither a dtype, a type parameter in scope nor an ADT",
    "unknown-operator": "a name without sigil is neither an operator nor a constructor",
    "duplicate-definition": "the same name is defined twice in one scope",
    "unused-binding": "a graph binding is never used (it is kept as a statement)",
    # types (relay check)
    "type-mismatch": "two types that must be equal differ",
    "shape-mismatch": "tensor shapes are incompatible",
    "arity-mismatch": "a call passes the wrong number of arguments",
    "constructor-arity": "a constructor pattern has the wrong number of fields",
    "occurs-check": "a type would have to contain itself",
    "kind-error": "a type parameter is used where its kind does not allow",
    "unresolved-type": "inference could not determine a type",
    "non-exhaustive-match": "a match does not cover every value of its type",
    "unreachable-clause": "a match clause can never be chosen",
    "unknown-attribute": "an operator call passes an attribute the operator does not have",
    "missing-attribute": "an operator call omits an attribute that has no default",
    "unknown-relation": "a where clause names a relation that does not exist",
    "renamed-operator": "an operator is called by the name an earlier TVM release gave it (a warning)",
    # evaluation (relay run)
    "recursion-limit": "evaluation recursed deeper than the configured limit",
    "match-failure": "no clause of a match accepted the value",
    "division-by-zero": "integer division or modulo by zero",
    "bad-argument": "an argument given on the command line does not fit the entry point",
    "runtime-error": "an operator failed while running",
    # formatter
    "unformattable": "the formatter cannot express the program in the requested dialect",
    "internal-error": "the toolchain failed; please report it",
}


def describe(code: str) -> str:
    return CODES[code]
