"""Whether `relay check`, `relay fmt` and `relay run` print exactly what another
revision prints, on every sample, corpus file and golden test program.

    python benchmarks/same_output.py --against main      # compare with a revision
    python benchmarks/same_output.py --dump OUT.json     # record this tree's outputs

For each file, `relay check --types`, `relay fmt -` (the file on standard
input) and `relay run --random-args --random-consts --seed 0` (and the same
with `--no-opt`) run in this process; their standard output, standard error
and exit status are recorded. With `--against REV` the same script runs on a
temporary checkout of REV (`git worktree add --detach`) with this
interpreter, and every output that differs is listed. Exit status 1 when
something differs.

Changes that must not alter behaviour (moving the evaluator's rewrites into
passes, reading operator properties instead of name lists) are checked with
it: `--against` the commit before them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ["RELAY_NO_CACHE"] = "1"  # (every run does its work: relay_text/cache.py)

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


def files() -> list[Path]:
    found = sorted((ROOT / "samples").glob("*.rly")) + sorted((ROOT / "samples" / "errors").glob("*.rly"))
    if CORPUS.is_dir():
        found += sorted(CORPUS.glob("*.rly"))
    found += sorted((ROOT / "tests" / "golden" / "fmt").glob("*.golden"))
    return found


COMMANDS = {
    "check": ["check", "--types", "--color", "never"],
    "fmt": ["fmt", "--color", "never", "-"],
    "run": ["run", "--random-args", "--random-consts", "--seed", "0", "--color", "never"],
    "run-no-opt": ["run", "--random-args", "--random-consts", "--seed", "0", "--no-opt", "--color", "never"],
}


def golden_input(path: Path) -> str:
    """A golden file's input part (before its `# output` marker)."""
    text = path.read_text(encoding="utf-8")
    marker = text.find("\n# output")
    return text[: marker + 1] if marker >= 0 else text


def record() -> dict[str, dict[str, object]]:
    from click.testing import CliRunner

    from relay_text.cli import main

    runner = CliRunner()
    out: dict[str, dict[str, object]] = {}
    for path in files():
        text = golden_input(path) if path.suffix == ".golden" else path.read_text(encoding="utf-8")
        with tempfile.NamedTemporaryFile("w", suffix=".rly", delete=False, encoding="utf-8") as tmp:
            tmp.write(text)
        name = str(path.relative_to(ROOT.parent if path.is_relative_to(ROOT.parent) else ROOT))
        try:
            for key, args in COMMANDS.items():
                argv = list(args) if key == "fmt" else [*args, tmp.name]
                result = runner.invoke(main, argv, input=text if key == "fmt" else None)
                out[f"{name} {key}"] = {
                    "exit": result.exit_code,
                    "stdout": result.stdout.replace(tmp.name, "FILE"),
                    "stderr": result.stderr.replace(tmp.name, "FILE"),
                }
        finally:
            os.unlink(tmp.name)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", metavar="REV", help="a git revision to compare with")
    parser.add_argument("--dump", metavar="FILE", help="write this tree's outputs to FILE (JSON)")
    options = parser.parse_args()
    mine = record()
    if options.dump:
        Path(options.dump).write_text(json.dumps(mine, indent=1, sort_keys=True), encoding="utf-8")
    if not options.against:
        print(f"{len(mine)} outputs recorded")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        checkout = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(checkout), options.against],
            check=True,
            capture_output=True,
        )
        try:
            dump = Path(tmp) / "base.json"
            env = {**os.environ, "PYTHONPATH": str(checkout)}
            subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--dump", str(dump)], check=True, env=env, cwd=checkout
            )
            theirs = json.loads(dump.read_text(encoding="utf-8"))
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(checkout)],
                check=False,
                capture_output=True,
            )
    differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    for key in differ:
        print(f"differs: {key}")
    print(f"{len(mine)} outputs, {len(differ)} differ from {options.against}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
