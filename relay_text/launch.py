"""The `relay` program: the common invocations of `relay check` and `relay
fmt` (file names and on/off flags) run without importing click; any other
goes to the click command group in `cli`, which reads every flag.

click and the modules it imports take about a fifth of the time of a
`relay check` on a small file, which editors and pre-commit hooks run on
every save; their arguments are nearly always file names and a flag or two.
Both routes call the same functions of `commands` with the same values, so
that what a user sees does not depend on which one ran
(tests/cli/test_launch.py runs invocations both ways and compares).
"""

from __future__ import annotations

import os
import sys
from typing import Any

# The flags read here, per command: flag -> (parameter of the `commands`
# function, its value). Any other flag, or an option with a value, sends the
# whole command line to click.
FLAGS: dict[str, dict[str, tuple[str, bool]]] = {
    "check": {
        "--types": ("show_types", True),
        "--fix": ("fix", True),
        "--diff": ("show_diff", True),
        "--unsafe-fixes": ("unsafe_fixes", True),
        "--warnings-as-errors": ("warnings_as_errors", True),
        "--no-warnings-as-errors": ("warnings_as_errors", False),
        "--force-exclude": ("force_exclude", True),
        "--cache": ("use_cache", True),
        "--no-cache": ("use_cache", False),
        "--debug": ("debug", True),
    },
    "fmt": {
        "--check": ("check_only", True),
        "--diff": ("show_diff", True),
        "--fast": ("fast", True),
        "--bind-operands": ("bind_operands", True),
        "--force-exclude": ("force_exclude", True),
        "--force": ("force", True),
        "--cache": ("use_cache", True),
        "--no-cache": ("use_cache", False),
        "--debug": ("debug", True),
    },
}

# Set by the shell's completion script: click answers it.
_COMPLETION = "_RELAY_COMPLETE"


def quick(args: list[str]) -> tuple[str, tuple[str, ...], dict[str, Any]] | None:
    """(command, paths, flags) when `args` is `check` or `fmt` followed by
    file names (at least one; `-` is standard input) and flags of `FLAGS`;
    None for anything else (help, an option with a value, an unknown flag,
    `--`, no file), which click reads, and reports if it is wrong."""
    if not args or args[0] not in FLAGS or _COMPLETION in os.environ:
        return None
    known = FLAGS[args[0]]
    paths: list[str] = []
    flags: dict[str, Any] = {}
    for arg in args[1:]:
        if arg == "-" or not arg.startswith("-"):
            paths.append(arg)
        elif arg in known:
            name, value = known[arg]
            flags[name] = value
        else:
            return None
    if not paths:
        return None
    return args[0], tuple(paths), flags


def main(args: list[str] | None = None, prog_name: str | None = None) -> None:
    """Run `relay ARGS` (sys.argv without arguments) and exit with its status."""
    try:
        _main(args, prog_name)
    except KeyboardInterrupt:
        # Ctrl-C while the command's modules load (click's take a tenth of a
        # second), before the command turns signals into a clean stop
        # (`commands.run_guarded`): the same word and status, no traceback.
        sys.stderr.write("interrupted\n")
        sys.exit(130)


def _main(args: list[str] | None, prog_name: str | None) -> None:
    found = quick(sys.argv[1:] if args is None else list(args))
    if found is None:
        from .cli import main as group

        group(args, prog_name=prog_name)
        return
    from . import commands

    name, paths, flags = found
    commands.start(owns_process=args is None)  # (as the click group does)
    debug = flags.pop("debug", False)
    body = commands.check if name == "check" else commands.fmt
    commands.run_guarded(lambda: body(paths, **flags), debug)
