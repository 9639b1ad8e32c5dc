"""Show that a change of structure changed no behaviour.

Runs `relay check`, `relay fmt` (to standard output) and `relay run` on every
sample, every corpus file and every Relay program the tests hold, once with
the code of this checkout and once with the code of an earlier commit (a
temporary git worktree), and compares standard output, standard error and
exit status byte for byte:

    python benchmarks/same_behaviour.py --against v0.1.0

It prints one line per difference and a summary, and exits 1 when any output
differs. `--collect` prints the outputs of this checkout as JSON (what each
side runs).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ["RELAY_NO_CACHE"] = "1"  # (every run does its work: relay_text/cache.py)

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
COMMANDS = {
    "check": ["check"],
    "fmt": ["fmt", "-"],
    "run": ["run", "--random-args", "--random-consts", "--seed", "0", "--timeout", "60", "--max-memory", "4G"],
}


def programs(root: Path) -> list[Path]:
    """The files compared: samples, corpus, and the tests' Relay programs."""
    found = sorted((root / "samples").rglob("*.rly"))
    found += sorted(CORPUS.glob("*.rly")) if CORPUS.is_dir() else []
    found += sorted((root / "tests").rglob("*.rly"))
    found += sorted((root / "tests" / "eval" / "golden").glob("*.txt"))
    return found


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def collect(root: Path) -> dict[str, dict[str, list[object]]]:
    """Each file's (exit status, stdout digest, stderr digest) per command."""
    from click.testing import CliRunner

    from relay_text.cli import main

    outputs: dict[str, dict[str, list[object]]] = {}
    for path in programs(root):
        key = str(path.relative_to(CORPUS.parent) if path.is_relative_to(CORPUS) else path.relative_to(root))
        outputs[key] = {}
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        for name, args in COMMANDS.items():
            stdin = text if name == "fmt" else None
            argv = args if name == "fmt" else [*args, str(path)]
            result = CliRunner().invoke(main, argv, input=stdin, env={"NO_COLOR": "1", "COLUMNS": "100"})
            stdout = result.stdout.replace(str(path), "<FILE>")
            stderr = result.stderr.replace(str(path), "<FILE>")
            outputs[key][name] = [result.exit_code, _digest(stdout), _digest(stderr)]
    return outputs


def _collect_in(checkout: Path) -> dict[str, dict[str, list[object]]]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    run = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--collect", "--root", str(checkout)],
        env=env,
        capture_output=True,
        text=True,
        cwd=checkout,
        check=False,
    )
    if run.returncode != 0:
        raise SystemExit(f"collecting in {checkout} failed:\n{run.stderr}")
    return json.loads(run.stdout)


def compare(ref: str) -> int:
    with tempfile.TemporaryDirectory(prefix="relay-same-") as tmp:
        before_tree = Path(tmp) / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before_tree), ref],
            check=True,
            capture_output=True,
        )
        try:
            before = _collect_in(before_tree)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)], check=False)
    after = _collect_in(ROOT)
    differences = 0
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            print(f"{key}: only {'after' if key in after else 'before'} (a program added or removed)")
            continue
        for command in COMMANDS:
            if before[key][command] != after[key][command]:
                differences += 1
                print(f"{key}: `relay {command}` differs: before {before[key][command]}, after {after[key][command]}")
    compared = len(set(before) & set(after))
    print(f"{compared} programs x {len(COMMANDS)} commands compared with {ref}: {differences} differ")
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="v0.1.0", help="the commit or tag to compare with (default v0.1.0)")
    parser.add_argument("--collect", action="store_true", help="print this checkout's outputs as JSON")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.collect:
        sys.path.insert(0, str(options.root))
        print(json.dumps(collect(options.root)))
        return 0
    return compare(options.against)


if __name__ == "__main__":
    sys.exit(main())
