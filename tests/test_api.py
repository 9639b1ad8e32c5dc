"""The Python API: parse, check, format and run, typed, with a py.typed marker."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import relay_text
from tests.conftest import ROOT, SAMPLES


def test_parse_knows_the_prelude_by_default() -> None:
    text = (SAMPLES / "tour.rly").read_text()
    module = relay_text.parse(text)
    assert "main" in {gv.name for gv in module.functions}
    assert "map" not in {gv.name for gv in module.functions}  # the Prelude's own definitions stay out
    with pytest.raises(relay_text.RelayError) as err:
        relay_text.parse(text, prelude=False)
    assert "unknown-global" in str(err.value)


def test_parse_raises_with_located_diagnostics() -> None:
    with pytest.raises(relay_text.RelayError) as err:
        relay_text.parse("def @main() { %x }\n", "m.rly")
    (diag,) = err.value.diagnostics
    assert (diag.code, diag.location()[:3]) == ("unbound-variable", ("m.rly", 1, 15))


def test_check_returns_diagnostics_and_global_types() -> None:
    ok = relay_text.check("def @id(%x) { %x }\n")
    assert ok.ok and ok.diagnostics == [] and ok.module is not None
    assert ok.global_types == {"@id": "fn<a>(a) -> a"}
    bad = relay_text.check("def @main() -> int32 { True }\n")
    assert not bad.ok and bad.errors == 1
    assert [d.code for d in bad.diagnostics] == ["type-mismatch"]
    broken = relay_text.check("def @main( { 1 }\n")
    assert broken.module is None and [d.code for d in broken.diagnostics] == ["syntax-error"]
    warned = relay_text.check("def @main(%x : int32) {\n  %0 = add(%x, 1);\n  %x\n}\n")
    assert (warned.ok, warned.warnings) == (True, 1)
    strict = relay_text.check("def @main(%x : int32) {\n  %0 = add(%x, 1);\n  %x\n}\n", warnings_as_errors=True)
    assert (strict.ok, strict.errors) == (False, 1)


def test_the_checker_package_stays_importable() -> None:
    from relay_text.check import check_module

    assert callable(relay_text.check) and not inspect.ismodule(relay_text.check)
    assert check_module(relay_text.parse("def @main() { 1 }\n", prelude=False)).ok


@pytest.mark.parametrize("name", relay_text.__all__)
def test_every_public_function_is_typed(name: str) -> None:
    obj = getattr(relay_text, name)
    if not inspect.isfunction(obj):
        return
    signature = inspect.signature(obj)
    untyped = [p.name for p in signature.parameters.values() if p.annotation is inspect.Parameter.empty]
    assert untyped == [] and signature.return_annotation is not inspect.Signature.empty


def test_the_package_is_marked_typed() -> None:
    assert (ROOT / "relay_text" / "py.typed").is_file()


def test_a_program_using_the_api_type_checks(tmp_path: Path) -> None:
    """mypy (when installed) sees the API's types through py.typed."""
    pytest.importorskip("mypy", reason="mypy is not installed")
    program = tmp_path / "use.py"
    program.write_text(
        "import relay_text\n"
        "module = relay_text.parse('def @main() { 1 }')\n"
        "result = relay_text.check('def @main() { 1 }')\n"
        "types: dict[str, str | None] = result.global_types\n"
        "ok: bool = result.ok\n"
        "text: str = relay_text.format('def @main() { 1 }')\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy"), str(program)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout
