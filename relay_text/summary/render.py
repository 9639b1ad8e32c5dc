"""`relay summary` output: rich tables, and the JSON document
(`relay_text/schemas/summary.schema.json`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .count import FunctionSummary, TensorInfo

_UNITS = ((10**12, "T"), (10**9, "G"), (10**6, "M"), (10**3, "k"))


def human(n: int) -> str:
    """A count in the units model cards use: 25.6 M, 4.09 G."""
    for size, unit in _UNITS:
        if n >= size:
            value = n / size
            digits = 2 if value < 10 else 1 if value < 100 else 0
            return f"{value:.{digits}f} {unit}"
    return str(n)


def human_bytes(n: int) -> str:
    for size, unit in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _macs_text(macs: int | None) -> str:
    if macs is None:
        return "?"
    return f"{macs:,}" if macs else "-"


def totals(summary: FunctionSummary) -> dict[str, Any]:
    return {
        "operators": len(summary.rows),
        "weights": summary.weight_count,
        "weight_tensors": len(summary.weights),
        "weight_bytes": summary.weight_bytes,
        "weights_complete": summary.weights_known,
        "macs": summary.macs,
        "macs_complete": summary.macs_known,
    }


def totals_line(t: dict[str, Any]) -> str:
    """`175 calls · 25,595,060 weights (25.6 M, 97.6 MiB) in 259 tensors · 4,089,184,256 MACs (4.09 G)`."""

    def count(n: int, unit: str) -> str:
        return f"{n:,} {unit}" + (f" ({human(n)})" if n >= 1000 else "")

    if t["weight_tensors"]:
        at_least = "" if t["weights_complete"] else "at least "
        big = (
            f" ({human(t['weights'])}, {human_bytes(t['weight_bytes'])})"
            if t["weights"] >= 1000
            else f" ({human_bytes(t['weight_bytes'])})"
        )
        weights = (
            f"{at_least}{t['weights']:,} weights{big} in {t['weight_tensors']} "
            f"tensor{'s' if t['weight_tensors'] != 1 else ''}"
        )
    else:
        weights = "no weights"
    macs = ("" if t["macs_complete"] else "at least ") + count(t["macs"], "MACs")
    calls = f"{t['operators']} call{'s' if t['operators'] != 1 else ''}"
    return f"{calls} · {weights} · {macs}"


def print_text(console: Any, summaries: list[FunctionSummary], group: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    for k, summary in enumerate(summaries):
        if k:
            console.print()
        head = Text()
        head.append(summary.name, style="bold")
        if summary.type:
            head.append("  " + summary.type, style="dim")
        console.print(head)
        for info in summary.inputs:
            console.print(Text(f"  input  {info.name}: {info.type}"))
        unknown = [w for w in summary.weights if w.count is None]
        if not summary.rows:
            console.print(Text("  (no calls)", style="dim"))
        elif group:
            console.print(_group_table(summary, Table))
        else:
            console.print(_row_table(summary, Table))
        console.print(Text("  " + totals_line(totals(summary))))
        if unknown:
            names = ", ".join(f"{w.name}: {w.type}" for w in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
            console.print(Text(f"  weights of unknown size: {names}", style="yellow"))
    if len(summaries) > 1:
        all_totals = module_totals(summaries)
        console.print()
        console.print(Text("Total: " + totals_line(all_totals), style="bold"))


def _row_table(summary: FunctionSummary, table_cls: Any) -> Any:
    from rich import box

    table = table_cls(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("name")
    table.add_column("operator", style="cyan")
    table.add_column("output")
    table.add_column("weights", justify="right")
    table.add_column("MACs", justify="right")
    for row in summary.rows:
        table.add_row(
            str(row.index),
            row.name,
            row.op,
            row.output,
            f"{row.weights:,}" if row.weights else "-",
            _macs_text(row.macs),
        )
    return table


def _group_table(summary: FunctionSummary, table_cls: Any) -> Any:
    from rich import box

    table = table_cls(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("operator", style="cyan")
    table.add_column("calls", justify="right")
    table.add_column("weights", justify="right")
    table.add_column("MACs", justify="right")
    table.add_column("of MACs", justify="right")
    total = summary.macs
    for g in sorted(summary.groups(), key=lambda g: (-g["macs"], -g["count"])):
        share = f"{100 * g['macs'] / total:.1f} %" if total and g["macs"] else "-"
        at_least = f"≥ {g['macs']:,}" if g["macs"] else "?"
        macs = _macs_text(g["macs"]) if g["macs_known"] else at_least
        table.add_row(g["op"], str(g["count"]), f"{g['weights']:,}" if g["weights"] else "-", macs, share)
    return table


def module_totals(summaries: list[FunctionSummary]) -> dict[str, Any]:
    parts = [totals(s) for s in summaries]
    return {
        "operators": sum(p["operators"] for p in parts),
        "weights": sum(p["weights"] for p in parts),
        "weight_tensors": sum(p["weight_tensors"] for p in parts),
        "weight_bytes": sum(p["weight_bytes"] for p in parts),
        "weights_complete": all(p["weights_complete"] for p in parts),
        "macs": sum(p["macs"] for p in parts),
        "macs_complete": all(p["macs_complete"] for p in parts),
    }


def _tensor_json(info: TensorInfo) -> dict[str, Any]:
    return asdict(info)


def summary_json(file: str, summaries: list[FunctionSummary]) -> dict[str, Any]:
    """The document `--output-format json` prints."""
    return {
        "file": file,
        "functions": [
            {
                "name": s.name,
                "type": s.type,
                "output": s.output,
                "inputs": [_tensor_json(i) for i in s.inputs],
                "weights": [_tensor_json(w) for w in s.weights],
                "calls": [asdict(r) for r in s.rows],
                "by_operator": s.groups(),
                "totals": totals(s),
            }
            for s in summaries
        ],
        "totals": module_totals(summaries),
    }
