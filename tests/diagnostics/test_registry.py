"""Every diagnostic code is complete: documented for `relay explain` with a
summary, an explanation (tests/architecture/test_codes.py) and an example,
listed by the JSON schema of `relay check --output-format json`, and given
by some stage. Each test names the codes it finds lacking."""

from __future__ import annotations

import io
import json
import tokenize
from pathlib import Path

from relay_text.diagnostics import codes
from relay_text.diagnostics.codes import REGISTRY, Code

PACKAGE = Path(codes.__file__).resolve().parents[1]
# A code that has no example, with the reason.
NO_EXAMPLE = {"internal-error": "a bug of the toolchain: no program should give it"}


def test_every_code_has_an_example() -> None:
    """Catches a code registered without the example `relay explain` shows:
    e.g. `Code("shape-overflow", "a shape is too large", "...")` with no
    fourth argument fails here, naming `shape-overflow`."""
    missing = sorted(name for name, code in REGISTRY.items() if not code.example.strip() and name not in NO_EXAMPLE)
    assert missing == []
    assert all(not REGISTRY[name].example for name in NO_EXAMPLE), (
        "a listed code has an example now: drop it from NO_EXAMPLE"
    )


def _used_names() -> set[str]:
    """The `codes.NAME` attributes the package refers to outside codes.py."""
    used: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if path == Path(codes.__file__).resolve():
            continue
        tokens = [
            t.string
            for t in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
            if t.type == tokenize.NAME
        ]
        used.update(tokens)
    return used


def test_every_code_is_given_by_some_stage() -> None:
    """Catches a code registered but never emitted (documented for users,
    impossible to get) and a code whose last use was removed: e.g. deleting
    the only `codes.DIVISION_BY_ZERO` from the evaluator leaves
    `division-by-zero` explained by `relay explain` yet unreachable; this
    test names it."""
    attributes = {code: name for name, code in vars(codes).items() if isinstance(code, Code)}
    used = _used_names()
    unused = sorted(str(code) for code in REGISTRY.values() if attributes[code] not in used)
    assert unused == []


def test_every_code_is_in_the_json_schema() -> None:
    """Catches a code missing from the schema of `relay check --output-format
    json` (relay_text/schemas/check.schema.json): a consumer validating the
    output would reject a document carrying it."""
    schema = json.loads((PACKAGE / "schemas" / "check.schema.json").read_text(encoding="utf-8"))
    assert sorted(set(REGISTRY) - set(schema["$defs"]["code"]["enum"])) == []


def test_a_diagnostic_takes_its_severity_from_its_code() -> None:
    """The registry is the one place a severity is stated: e.g.
    `Diagnostic(codes.UNREACHABLE_CLAUSE, "m", None)` is a warning without
    saying so, and `Diagnostic(codes.TYPE_MISMATCH, "m", None,
    severity=WARNING)` (an error code emitted as a warning at one call site)
    is refused, naming the code."""
    import pytest

    from relay_text.diagnostics import ERROR, WARNING, Diagnostic

    assert Diagnostic(codes.UNREACHABLE_CLAUSE, "m", None).severity == WARNING
    assert Diagnostic(codes.TYPE_MISMATCH, "m", None).severity == ERROR
    with pytest.raises(ValueError, match="'type-mismatch' is registered as 'error', not 'warning'"):
        Diagnostic(codes.TYPE_MISMATCH, "m", None, severity=WARNING)
    with pytest.raises(ValueError, match="'unreachable-clause' is registered as 'warning', not 'error'"):
        Diagnostic(codes.UNREACHABLE_CLAUSE, "m", None, severity=ERROR)
    # an error code's documented warning case, and a promoted warning
    assert Diagnostic(codes.BAD_METADATA, "m", None, severity=WARNING).severity == WARNING
    promoted = Diagnostic(codes.UNREACHABLE_CLAUSE, "m", None).as_error("counts as an error")
    assert (promoted.severity, promoted.notes) == (ERROR, ["counts as an error"])


def test_a_warning_case_of_an_error_code_is_documented() -> None:
    """Only an error code names a case in which it is a warning, and that
    case is a sentence for `relay explain`."""
    for name, code in REGISTRY.items():
        if code.warning_when:
            assert code.severity == "error", name
            assert code.warning_when[0].islower() and not code.warning_when.endswith("."), name
    assert sorted(n for n, c in REGISTRY.items() if c.warning_when) == [
        "bad-metadata",
        "invalid-literal",
        "unresolved-type",
    ]
