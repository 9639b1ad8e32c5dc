"""`python -m fuzz`: run a fuzzing campaign, or replay one input against the oracles."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .harness import FINDINGS, MODES, Campaign


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__)
    parser.add_argument("--minutes", type=float, default=30.0, help="total time, shared by the modes (default 30)")
    parser.add_argument("--mode", choices=(*MODES, "all"), default="all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--case-timeout", type=float, default=10.0, help="seconds before a case is a hang (default 10)")
    parser.add_argument("--cases", type=int, default=None, help="at most this many cases per mode")
    parser.add_argument("--findings", type=Path, default=FINDINGS, help=f"where reproducers go (default {FINDINGS})")
    parser.add_argument(
        "--minimize-seconds", type=float, default=60.0, help="time to minimize each new finding (0: none)"
    )
    parser.add_argument("--memory-gb", type=float, default=3.0, help="address-space limit of the worker (default 3)")
    parser.add_argument("--replay", type=Path, metavar="FILE", help="run the oracles on FILE and print what fails")
    parser.add_argument(
        "--reference", type=Path, metavar="FILE", help="with --replay: the text FILE must mean the same as"
    )
    args = parser.parse_args(argv)

    # Read the Prelude and the parser tables once: workers fork from here.
    import relay_text

    relay_text.check("def @main() { 0 }")
    memory = int(args.memory_gb * (1 << 30)) if args.memory_gb > 0 else None

    if args.replay:
        from .worker import Worker

        text = args.replay.read_text(encoding="utf-8", errors="surrogateescape")
        reference = args.reference.read_text(encoding="utf-8") if args.reference else None
        with Worker(case_timeout=args.case_timeout, memory_limit=memory) as worker:
            failures, seconds = worker.evaluate(text, reference)
        for failure in failures:
            print(failure.line())
        print(f"{len(failures)} failures in {seconds:.1f} s")
        return 1 if failures else 0

    modes = list(MODES) if args.mode == "all" else [args.mode]
    share = args.minutes * 60 / len(modes)
    print(
        f"fuzzing {', '.join(modes)} for {args.minutes:g} min (seed {args.seed}, case timeout {args.case_timeout:g} s)"
    )
    start = time.monotonic()
    with Campaign(args.seed, args.case_timeout, args.findings, None, args.minimize_seconds, memory) as campaign:
        for mode in modes:
            print(f"{mode}: {share:.0f} s", flush=True)
            campaign.run_mode(mode, share, args.cases)
        print(campaign.report())
    print(f"total {time.monotonic() - start:.0f} s")
    return 1 if campaign.findings else 0


if __name__ == "__main__":
    sys.exit(main())
