"""The operator symbols of the documented syntax: one table for the parser
and the printer.

Binary operators, loosest first (all left-associative):

    ||  <  &&  <  == !=  <  < <= > >=  <  + -  <  * /

and unary `-` binds tighter than all of them. Each symbol stands for an
operator call (`%a + %b` is `add(%a, %b)`); TVM's format writes the calls.
"""

from __future__ import annotations

# Precedence levels (higher binds tighter). The printer adds its own levels
# above these for what is not an operator (literals, blocks, atoms).
P_OR, P_AND, P_EQ, P_CMP, P_ADD, P_MUL, P_UNARY = 1, 2, 3, 4, 5, 6, 7

# symbol -> (precedence, operator)
BINARY: dict[str, tuple[int, str]] = {
    "||": (P_OR, "logical_or"),
    "&&": (P_AND, "logical_and"),
    "==": (P_EQ, "equal"),
    "!=": (P_EQ, "not_equal"),
    "<": (P_CMP, "less"),
    ">": (P_CMP, "greater"),
    "<=": (P_CMP, "less_equal"),
    ">=": (P_CMP, "greater_equal"),
    "+": (P_ADD, "add"),
    "-": (P_ADD, "subtract"),
    "*": (P_MUL, "multiply"),
    "/": (P_MUL, "divide"),
}
