"""ONNX's node conformance cases through relay-text and onnxruntime: the figures.

    python benchmarks/onnx_conformance.py [--jobs N] [--update-doc docs/import-onnx.md] [--list]

Every case the onnx wheel builds (`onnx.backend.test.case.node`, with the
expected outputs of ONNX's reference implementation) is run through
`relay_text.onnx_backend` and through an onnxruntime session, and compared
as ONNX's own runner compares (tests/frontends/onnx/conformance.py has the
rules). Each case ends as

* passed - every output within the case's tolerance;
* random - the case draws random numbers (Bernoulli), so no engine can
  give the reference's numbers: checked for shape, dtype, values 0 and 1,
  and exactly the reference's values where the probabilities are all 0 or
  all 1;
* failed - a wrong value, or an error while running;
* unsupported - the engine declined the model (relay-text: an
  `import-unsupported` diagnostic; onnxruntime: no session, or an operator
  it has not implemented).

The table gives the counts for all cases, for the cases of the operators
TVM's ONNX importer converted (any dtype), and for those of them whose
tensors all have a Relay dtype (the cases that must pass). `--list` prints
relay-text's failures and refusals by name; `--update-doc` writes the
table into the conformance section of the given page (between its
`<!-- conformance -->` markers). The run takes some minutes (`--jobs`
processes, default 2).
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

# The repository on the path (as _common does; worker processes import this
# file again), and not this folder: its onnx.py would hide the onnx package.
_HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(_HERE)
sys.path[:] = [ROOT] + [p for p in sys.path if os.path.abspath(p or ".") not in (_HERE, ROOT)]

OUTCOMES = ("passed", "random", "failed", "unsupported")
BEGIN, END = "<!-- conformance -->", "<!-- /conformance -->"


def _setup() -> Any:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from tests.frontends.onnx import conformance as C

    C.use_cache(Path(ROOT) / ".pytest_cache" / "d" / "onnx-node-cases")
    Path(ROOT, ".pytest_cache", "d", "onnx-node-cases").mkdir(parents=True, exist_ok=True)
    return C


def _kind(result: str) -> str:
    return {"pass": "passed", "random": "random", "unsupported": "unsupported"}.get(result, "failed")


def _one(name: str) -> tuple[str, str, str]:
    import warnings

    warnings.simplefilter("ignore")
    C = _setup()
    case = C.cases()[name]
    return name, C.outcome(case, "relay-text"), C.outcome(case, "onnxruntime")


def measure(jobs: int) -> dict[str, Any]:
    C = _setup()
    names = sorted(C.cases())
    results: dict[str, tuple[str, str]] = {}
    start = time.perf_counter()
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            for name, ours, theirs in pool.imap_unordered(_one, names, chunksize=8):
                results[name] = (ours, theirs)
    else:
        for name in names:
            _, ours, theirs = _one(name)
            results[name] = (ours, theirs)
    seconds = time.perf_counter() - start
    subsets = {
        "all cases": names,
        "operators TVM converted": [n for n in names if C.operators()[n] in C.TVM_OPERATORS],
        "of those, in Relay dtypes": [n for n in names if C.must_pass(n)],
    }
    table = {}
    for label, members in subsets.items():
        table[label] = {
            "cases": len(members),
            "relay-text": Counter(_kind(results[n][0]) for n in members),
            "onnxruntime": Counter(_kind(results[n][1]) for n in members),
        }
    import numpy
    import onnx
    import onnxruntime

    return {
        "results": results,
        "table": table,
        "seconds": seconds,
        "versions": f"onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}, numpy {numpy.__version__}",
        "operators": len({C.operators()[n] for n in names}),
        "tvm_operators": len({C.operators()[n] for n in subsets["operators TVM converted"]}),
    }


def markdown(m: dict[str, Any]) -> str:
    """The conformance section's table."""
    day = datetime.date.today().isoformat()
    lines = [
        BEGIN,
        f"Measured {day} with {m['versions']} (`python benchmarks/onnx_conformance.py`).",
        "",
        (
            "| cases | count | relay-text: passed | random | failed | unsupported | onnxruntime: passed | "
            "random | failed | unsupported |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, row in m["table"].items():
        cells = [label, f"{row['cases']:,}"]
        for engine in ("relay-text", "onnxruntime"):
            cells += [f"{row[engine][k]:,}" for k in OUTCOMES]
        lines.append("| " + " | ".join(cells) + " |")
    C = _setup()
    refused: dict[str, list[str]] = {}
    for name, reason in C.KNOWN_UNSUPPORTED.items():
        refused.setdefault(reason, []).append(name)
    lines += [
        "",
        (
            f"Of the cases in Relay dtypes of the operators TVM converted, relay-text refuses "
            f"{len(C.KNOWN_UNSUPPORTED)}, each with an"
        ),
        "`import-unsupported` diagnostic at the node:",
        "",
        "| refused because | cases |",
        "|---|---|",
    ]
    for reason, names in sorted(refused.items(), key=lambda kv: sorted(kv[1])[0]):
        lines.append(f"| {reason.replace('|', '/')} | {', '.join(f'`{n}`' for n in sorted(names))} |")
    lines.append(END)
    return "\n".join(lines)


def update_doc(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no {BEGIN} ... {END} section to update")
    path.write_text(pattern.sub(lambda _m: section, text), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="print relay-text's failures and refusals by name")
    parser.add_argument("--update-doc", type=Path, help="write the table into this page's conformance section")
    opts = parser.parse_args()
    load = os.getloadavg()[0]
    m = measure(opts.jobs)
    print(
        f"ONNX node conformance cases: {m['versions']}; {m['operators']} operators, {m['tvm_operators']} "
        f"of them converted by TVM"
    )
    print(f"{'':<37}{'relay-text':^48}{'onnxruntime':^48}")
    print(f"{'cases':<28}{'count':>7}  " + "".join(f"{k:>12}" for _ in range(2) for k in OUTCOMES))
    for label, row in m["table"].items():
        cells = "".join(f"{row[e][k]:>12,}" for e in ("relay-text", "onnxruntime") for k in OUTCOMES)
        print(f"{label:<28}{row['cases']:>7,}  {cells}")
    print(
        f"{m['seconds']:.0f} s with {opts.jobs} process(es); load average {load:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after"
    )
    C = _setup()
    refused = {n for n, (ours, _) in m["results"].items() if C.must_pass(n) and _kind(ours) == "unsupported"}
    if refused != set(C.KNOWN_UNSUPPORTED):
        print(
            f"warning: the refusals differ from KNOWN_UNSUPPORTED: new "
            f"{sorted(refused - set(C.KNOWN_UNSUPPORTED))}, gone "
            f"{sorted(set(C.KNOWN_UNSUPPORTED) - refused)}"
        )
    if opts.list:
        for name, (ours, _) in sorted(m["results"].items()):
            if _kind(ours) in ("failed", "unsupported"):
                where = (
                    "must pass"
                    if C.must_pass(name)
                    else ("TVM operator" if C.operators()[name] in C.TVM_OPERATORS else "other")
                )
                print(f"{_kind(ours):<12} {where:<13} {name}: {ours.splitlines()[0][:160]}")
    if opts.update_doc is not None:
        update_doc(opts.update_doc, markdown(m))
        print(f"wrote the table into {opts.update_doc}")


if __name__ == "__main__":
    main()
