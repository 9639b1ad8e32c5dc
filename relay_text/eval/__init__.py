"""The evaluator: a checked program compiled once into Python functions
that compute on numpy values.

    plan.py      where each expression is evaluated (regions, sharing)
    compile.py   a program (and the Prelude it uses) -> one Python module
    emit.py      the code of one function, region by region
    code.py      generated code as blocks of lines tied to IR nodes
    ops.py       operator call sites bound to the registry's kernels
    runtime.py   running deep recursion; errors as located diagnostics
    values.py    Data (constructor values), Ref, conversions
    show.py      values as text and JSON
    args.py      checking, converting and inventing argument values
    entry.py     entry point + arguments + compile + run, for CLI and API
"""
