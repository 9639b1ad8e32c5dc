"""The imported text, checked as a user's `relay check` would check it.

Nothing is written unless this finds no error: the text must parse, check,
and take exactly the weights that go beside it."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic, codes


def verify_text(text: str, imported: Any, embed: bool) -> list[Diagnostic]:
    from ..ir.span import Source
    from ..pipeline import check_source

    checked = check_source(Source("<imported>", text), use_prelude=False)
    errors = [d for d in checked.diagnostics if d.is_error]
    if errors or checked.module is None:
        return errors or [Diagnostic(codes.INTERNAL_ERROR, "the imported text does not parse", None)]
    main = checked.module.global_var("main")
    if main is None:
        return [Diagnostic(codes.INTERNAL_ERROR, "the imported text has no @main", None)]
    names = [p.name for p in checked.module.functions[main].params]
    weights = imported.weights(embed)
    missing = [k for k in weights if k not in names]
    if missing:
        return [Diagnostic(codes.INTERNAL_ERROR, f"the weight `{missing[0]}` is no parameter of @main", None)]
    return []
