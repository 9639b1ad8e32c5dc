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
        [
            sys.executable,
            "-m",
            "mypy",
            "--follow-imports=silent",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy"),
            str(program),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout


def test_the_documented_example_runs_and_prints_what_the_page_says(capsys: pytest.CaptureFixture[str]) -> None:
    """The Python API page's example (docs/python-api.md), run as written:
    its output is the block that follows it there."""
    section = (ROOT / "docs" / "python-api.md").read_text()
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```\n")]
    rest = section[section.index("prints\n\n```\n") + len("prints\n\n```\n") :]
    expected = rest[: rest.index("```\n")]
    exec(compile(code, "docs/python-api.md", "exec"), {"__name__": "documented_example"})
    assert capsys.readouterr().out == expected


def test_check_module_uses_the_prelude_or_reports_unknown_names() -> None:
    """A module that uses the Prelude's names is checked against it; checked
    alone, each name it does not define is an error, not a silent `_`."""
    from relay_text.check import check_module

    module = relay_text.parse((SAMPLES / "tour.rly").read_text())
    checked = check_module(module)
    assert checked.ok and checked.signature("main") == "fn() -> (List[Expr], List[Tensor[(), int32]])"
    alone = check_module(module, None)
    assert not alone.ok
    assert sorted((d.code, d.message, d.location()[1:3]) for d in alone.diagnostics) == [
        ("unknown-constructor", "unknown constructor `Cons`", (24, 57)),
        ("unknown-constructor", "unknown constructor `Nil`", (24, 79)),
        ("unknown-global", "unknown global `@map`", (24, 16)),
    ]


def test_global_type_takes_a_name_with_or_without_its_sigil() -> None:
    from relay_text.check import check_module

    checked = check_module(relay_text.parse("def @id(%x) { %x }"))
    assert str(checked.global_type("@id")) == str(checked.global_type("id")) == "fn<a>(a) -> a"
    assert checked.signature("@id") == "fn<a>(a) -> a"
    assert checked.global_type("@missing") is None


def test_python_lists_convert_for_list_parameters() -> None:
    from relay_text.eval.values import to_python

    text = "def @main(%l : List[(float32, List[int32])]) { @map(fn (%p : (float32, List[int32])) { %p.0 }, %l) }"
    value = relay_text.run(text, [(1, [2]), (2.5, [])])
    assert to_python(value) == [1.0, 2.5]
    assert int(relay_text.run("def @main(%l : List[int32]) { @sum(%l) }", [1, 2, 3])) == 6
    assert int(relay_text.run("def @main(%l : List[int32]) { @length(%l) }", list(range(100_000)))) == 100_000


def test_a_missing_argument_is_explained_in_python_to_a_python_caller() -> None:
    """`relay_text.run` with too few arguments says which positional argument
    is missing, not the command line's `--arg y=VALUE` option."""
    with pytest.raises(relay_text.RelayError) as raised:
        relay_text.run("def @main(%x: int32, %y: int32) { add(%x, %y) }", 1)
    (diag,) = raised.value.diagnostics
    assert (diag.code, diag.message) == ("bad-argument", "missing argument for parameter `%y : Tensor[(), int32]`")
    assert diag.helps == [
        "pass it as argument 2 after the program: `relay_text.run(program, *args)` "
        "takes one value per parameter of `@main`, in order (%x, %y)"
    ]
    assert "--arg" not in str(diag.helps)
