"""Delta debugging: the smallest text (lines, then characters) that still fails the same way."""

from __future__ import annotations

import time
from collections.abc import Callable


def _reduce(
    parts: list[str], joiner: str, fails: Callable[[str], bool], out_of_budget: Callable[[], bool]
) -> list[str]:
    """Remove chunks of `parts` (halves, quarters, ... single parts) while the text still fails."""
    n = 2
    while len(parts) >= 2 and not out_of_budget():
        chunk = max(1, len(parts) // n)
        removed = False
        start = 0
        while start < len(parts) and not out_of_budget():
            candidate = parts[:start] + parts[start + chunk :]
            if candidate and fails(joiner.join(candidate)):
                parts = candidate
                removed = True
            else:
                start += chunk
        if removed:
            n = max(2, n - 1)
        elif chunk == 1:
            break
        else:
            n = min(len(parts), n * 2)
    return parts


def minimize(text: str, fails: Callable[[str], bool], max_tests: int = 400, max_seconds: float = 60.0) -> str:
    """A smaller text for which `fails` still holds (`fails(text)` is assumed)."""
    deadline = time.monotonic() + max_seconds
    tests = 0

    def counted(candidate: str) -> bool:
        nonlocal tests
        tests += 1
        return fails(candidate)

    def out_of_budget() -> bool:
        return tests >= max_tests or time.monotonic() >= deadline

    lines = _reduce(text.split("\n"), "\n", counted, out_of_budget)
    text = "\n".join(lines)
    chars = _reduce(list(text), "", counted, out_of_budget)
    return "".join(chars)
