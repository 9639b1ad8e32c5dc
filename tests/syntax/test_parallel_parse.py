"""Parses running at once on several threads (as the language server's
do) each get their own builder: none sees another's names or diagnostics."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from relay_text.syntax.parser import parse


def _program(i: int) -> str:
    lets = "".join(f"  let %v{i}_{k} = add(%x, {k}f);\n" for k in range(200))
    return f"def @f{i}(%x: float32) -> float32 {{\n{lets}  %v{i}_199\n}}\n"


def test_threads_parse_at_once_without_mixing_their_files() -> None:
    texts = [_program(i) for i in range(8)] + ["def @bad() { %nowhere }"]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda t: parse(t[1], f"f{t[0]}.rly"), enumerate(texts * 3)))
    for n, result in enumerate(results):
        i = n % len(texts)
        assert result.module is not None
        if i == len(texts) - 1:
            assert [d.code for d in result.diagnostics] == ["unbound-variable"]
            assert result.diagnostics[0].span is not None and result.diagnostics[0].span.text == "%nowhere"
            continue
        assert result.ok, result.diagnostics
        assert [gv.name for gv in result.module.functions] == [f"f{i}"]
        assert result.module.source is not None and result.module.source.name == f"f{n}.rly"
