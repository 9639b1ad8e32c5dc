"""The oracles: what `relay check`, `relay fmt` and `relay run` must do with any input.

`evaluate(text)` runs the three commands in-process on one input and
returns the failures it sees:

- internal  an internal error: the CLI's "internal error" (exit 2), an
            exception escaping the command or the API (fmt's safe mode is
            called through the API: `format_source`)
- exit      an exit status other than 0, 1 or 2
- refusal   fmt (safe mode) refuses a file that checks
- mismatch  fmt's output of a file that checks does not check, or checks to
            other global types
- meaning   (with a reference text, as comment insertion gives) the input
            checks differently from the reference: a comment changed what the
            text means

Hangs (`hang`) and dead workers (`crash`) are seen by the worker that runs
`evaluate` under a time limit (fuzz/worker.py).

With `RELAY_DEBUG=1` (the worker sets it) the CLI prints the traceback of
an internal error; its innermost frame in relay_text becomes part of the
failure's signature, so that one bug counts as one finding.
"""

from __future__ import annotations

import json
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHECK_ARGS = ["check", "--output-format", "json", "--color", "never"]
# A program may rightly run for ever (`@ackermann(2, 65536)`): the run has a
# timeout of its own, well inside the case's limit, and stopping there with
# a located `resource-limit` error is a correct outcome. A hang is the
# toolchain not stopping.
RUN_TIMEOUT = "4"
RUN_ARGS = [
    "run",
    "--random-args",
    "--random-consts",
    "--seed",
    "0",
    "--max-depth",
    "100000",
    "--timeout",
    RUN_TIMEOUT,
    "--color",
    "never",
]

KINDS = ("internal", "exit", "hang", "crash", "refusal", "mismatch", "meaning")

_FRAME = re.compile(r'File "([^"]*)", line (\d+), in (\S+)')


@dataclass(frozen=True)
class Failure:
    kind: str  # one of KINDS
    command: str  # check, fmt, run, api
    detail: str  # one line: what went wrong
    where: str = ""  # the innermost frame in relay_text (internal errors), if known

    @property
    def signature(self) -> str:
        """What stays the same when one bug is met again: the kind, the command,
        the place (else the message, its numbers and names blurred)."""
        if self.where:
            return f"{self.kind}:{self.command}:{self.where}"
        detail = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", "Q", self.detail)
        detail = re.sub(r"\d+", "N", detail)[:80]
        return f"{self.kind}:{self.command}:{detail}"

    def line(self) -> str:
        where = f" at {self.where}" if self.where else ""
        return f"{self.kind} in {self.command}{where}: {self.detail}"


def innermost(trace: str) -> str:
    """`path:function` of the innermost relay_text frame of a traceback ('' if none)."""
    found = ""
    for path, _line, func in _FRAME.findall(trace):
        if "relay_text" in path:
            found = f"{path[path.rindex('relay_text') :]}:{func}"
    return found


def _invoke(args: list[str], stdin: str | None = None) -> tuple[int, str, str, BaseException | None, str]:
    """Run the `relay` command in-process: (exit status, stdout, stderr, escaped exception, its traceback)."""
    from click.testing import CliRunner

    from relay_text.cli import main

    result = CliRunner().invoke(main, args, input=stdin, catch_exceptions=True)
    exc = result.exception
    trace = ""
    if exc is not None and not isinstance(exc, SystemExit):
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    else:
        exc = None
    return result.exit_code, result.stdout, result.stderr, exc, trace


def _command(name: str, args: list[str], failures: list[Failure]) -> tuple[int, str, str]:
    code, out, err, exc, trace = _invoke(args)
    if exc is not None:
        failures.append(Failure("internal", name, f"{type(exc).__name__}: {_first_line(str(exc))}", innermost(trace)))
    elif "internal error" in err:
        line = next((ln for ln in err.splitlines() if ln.startswith("internal error")), "internal error")
        failures.append(Failure("internal", name, line[len("internal error: ") :], innermost(err)))
    elif code not in (0, 1, 2):
        failures.append(Failure("exit", name, f"exit status {code}: {_first_line(err)}"))
    return code, out, err


def _first_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[0][:200] if lines else ""


def _globals(out: str) -> dict[str, str] | None:
    try:
        doc = json.loads(out)
    except ValueError:
        return None
    return doc.get("globals") if isinstance(doc, dict) else None


Stage = Callable[[str], None]


def evaluate(
    text: str, reference: str | None = None, workdir: Path = Path("."), stage: Stage | None = None, run: bool = True
) -> list[Failure]:
    """Check, format and (unless `run` is False) run `text`; the failures of the oracles (none: all held)."""
    from relay_text.formatter import UnsafeFormat, format_source
    from relay_text.ir.span import Source

    def at(name: str) -> None:
        if stage is not None:
            stage(name)

    failures: list[Failure] = []
    case = workdir / "case.rly"
    case.write_text(text, encoding="utf-8", errors="surrogatepass")

    at("check")
    code, out, _err = _command("check", [*CHECK_ARGS, str(case)], failures)
    checks = code == 0
    types = _globals(out) if checks else None

    if reference is not None:
        at("check")
        ref = workdir / "reference.rly"
        ref.write_text(reference, encoding="utf-8", errors="surrogatepass")
        ref_code, ref_out, _ = _command("check", [*CHECK_ARGS, str(ref)], failures)
        ref_types = _globals(ref_out) if ref_code == 0 else None
        if (ref_code, ref_types) != (code, types):
            failures.append(
                Failure(
                    "meaning",
                    "check",
                    f"the reference gives exit {ref_code}, the commented text exit {code}, or other types",
                )
            )

    at("fmt")
    formatted: str | None = None
    try:
        result = format_source(Source(str(case), text), "keep", 100, safe=True)
        formatted = result.text
        if formatted is None and checks:
            codes = sorted({d.code for d in result.diagnostics})
            failures.append(Failure("refusal", "fmt", f"no output for a file that checks ({', '.join(codes)})"))
    except UnsafeFormat as exc:
        if checks:
            failures.append(Failure("refusal", "fmt", f"safe mode refused: {exc.reason}"))
    except Exception as exc:
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        failures.append(Failure("internal", "fmt", f"{type(exc).__name__}: {_first_line(str(exc))}", innermost(trace)))

    if checks and formatted is not None:
        at("check")
        out_file = workdir / "formatted.rly"
        out_file.write_text(formatted, encoding="utf-8", errors="surrogatepass")
        fcode, fout, ferr = _command("check", [*CHECK_ARGS, str(out_file)], failures)
        if fcode != 0:
            failures.append(Failure("mismatch", "fmt", f"the formatted text does not check: {_first_line(ferr)}"))
        elif _globals(fout) != types:
            failures.append(Failure("mismatch", "fmt", "the formatted text checks to other global types"))

    if run:
        at("run")
        _command("run", [*RUN_ARGS, str(case)], failures)
    return failures


def describe(failures: list[Failure]) -> Any:
    return [f.line() for f in failures]
