"""The ONNX operators `relay import` converts, by opset, and those it refuses.

    python -m relay_text.frontends.onnx.support docs/import-onnx.md          # rewrite
    python -m relay_text.frontends.onnx.support --check docs/import-onnx.md  # exit 1 if stale

Both lists are read from the converter table (`table.py`: the registrations
and `REFUSED`) and, for the operators ONNX defines that have no converter,
from the installed onnx package's operator schemas. `sections()` gives the
markdown of each; `update(text)` puts them into a page between its
`<!-- operators:NAME -->` and `<!-- /operators:NAME -->` markers and
leaves the rest of the page (prose, the conformance figures) as it is.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from . import table

NO_CONVERTER = "relay-text converts the operators TVM's ONNX importer converted, and this is not one of them"
DOMAIN_TITLES = {
    "": "ONNX (`ai.onnx`)",
    "ai.onnx.ml": "ONNX-ML (`ai.onnx.ml`)",
    "ai.onnx.preview.training": "training (`ai.onnx.preview.training`)",
    "com.microsoft": "onnxruntime's contrib operators (`com.microsoft`)",
    "org.pytorch.aten": "PyTorch's fallback (`org.pytorch.aten`)",
}


def _family(entries: list[table.Entry]) -> str:
    families = sorted({e.family for e in entries})
    return ", ".join(f"`{f}`" for f in families)


def supported_section() -> str:
    """One table per domain: operator, the opsets converted, the module."""
    by_domain: dict[str, list[tuple[str, list[table.Entry]]]] = {}
    for (domain, op), entries in table.all_entries().items():
        by_domain.setdefault(domain, []).append((op, entries))
    total = sum(len(v) for v in by_domain.values())
    lines = [
        f'{total} operators in {len(by_domain)} domains. "7+" means opset 7 and every later one; an operator\'s '
        "opset is the model's import of its domain."
    ]
    for domain in sorted(by_domain, key=lambda d: (d != "", d)):
        rows = by_domain[domain]
        lines += [
            "",
            f"### {DOMAIN_TITLES.get(domain, f'`{domain}`')} ({len(rows)})",
            "",
            "| operator | opsets | converter |",
            "|---|---|---|",
        ]
        for op, entries in sorted(rows, key=lambda r: r[0].lower()):
            lines.append(f"| `{op}` | {table.range_text(table.ranges(op, domain))} | {_family(entries)} |")
    return "\n".join(lines)


def refused_section() -> str:
    """The operators refused on purpose, with the reason the diagnostic gives."""
    table.all_entries()  # loads the families, and with them `refused`
    lines = ["| operator | domain | reason |", "|---|---|---|"]
    for (domain, op), reason in sorted(table.REFUSED.items(), key=lambda kv: (kv[0][0], kv[0][1].lower())):
        lines.append(f"| `{op}` | {f'`{domain}`' if domain else 'ONNX'} | {reason} |")
    return "\n".join(lines)


def unconverted_section() -> str:
    """The operators of the installed onnx package's standard domains that
    have neither a converter nor a reason of their own."""
    import onnx
    from onnx import defs

    entries = table.all_entries()
    names: dict[str, set[str]] = {}
    deprecated: set[tuple[str, str]] = set()
    for schema in defs.get_all_schemas_with_history():
        domain = table.canonical_domain(schema.domain)
        key = (domain, schema.name)
        if key in entries or key in table.REFUSED:
            continue
        names.setdefault(domain, set()).add(schema.name)
        if schema.deprecated:
            deprecated.add(key)
    count = sum(len(v) for v in names.values())
    lines = [
        f"With onnx {onnx.__version__}, {count} operators of ONNX's own domains have no converter; "
        f'the diagnostic names the operator and says: "{NO_CONVERTER}".',
        "",
    ]
    for domain in sorted(names, key=lambda d: (d != "", d)):
        ops = sorted(names[domain], key=str.lower)
        listed = ", ".join(f"`{op}`" + (" (deprecated)" if (domain, op) in deprecated else "") for op in ops)
        lines.append(f"- {DOMAIN_TITLES.get(domain, f'`{domain}`')}: {listed}")
    return "\n".join(lines)


def sections() -> dict[str, str]:
    return {"supported": supported_section(), "refused": refused_section(), "unconverted": unconverted_section()}


def _marker(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- operators:{name} -->)\n(?:.*?\n)?(<!-- /operators:{name} -->)", re.S)


def update(text: str, generated: dict[str, str] | None = None) -> str:
    """`text` with each generated section between its markers (ValueError
    for a section whose markers are missing)."""
    for name, body in (generated or sections()).items():
        pattern = _marker(name)
        if not pattern.search(text):
            raise ValueError(f"no <!-- operators:{name} --> ... <!-- /operators:{name} --> markers")
        text = pattern.sub(_between_markers(body), text)
    return text


def _between_markers(body: str) -> Callable[[re.Match[str]], str]:
    """A replacement putting `body` between a section's markers (a function,
    so that backslashes in `body` are not read as escapes)."""
    return lambda m: f"{m.group(1)}\n{body}\n{m.group(2)}"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    if len(paths) != 1:
        print("usage: python -m relay_text.frontends.onnx.support [--check] PAGE.md", file=sys.stderr)
        return 2
    path = Path(paths[0])
    try:
        old = path.read_text(encoding="utf-8")
        new = update(old)
    except (OSError, ValueError) as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return 2
    if check:
        if new != old:
            print(f"{path} is out of date: run `python -m relay_text.frontends.onnx.support {path}`", file=sys.stderr)
            return 1
        return 0
    if new != old:
        path.write_text(new, encoding="utf-8")
        print(f"rewrote the operator lists of {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
