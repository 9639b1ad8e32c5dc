"""The evaluator: a checked program compiled once into Python functions
that compute on numpy values.

    plan.py      where each expression is evaluated (regions, sharing)
    compile.py   IR -> Python source -> functions
    ops.py       operator call sites bound to the registry's kernels
    runtime.py   running deep recursion; errors as located diagnostics
    values.py    Data (constructor values), Ref, conversions
    show.py      values as text and JSON
    args.py      checking, converting and inventing argument values
    entry.py     entry point + arguments + compile + run, for CLI and API
"""
