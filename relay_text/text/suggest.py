"""Close-name suggestions for "did you mean ...?" hints."""

from __future__ import annotations

from typing import Iterable


def edit_distance(a: str, b: str, limit: int = 3) -> int:
    """Damerau-Levenshtein distance (adjacent swaps cost 1), capped at `limit + 1`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
        if min(prev) > limit:
            return limit + 1
    return prev[-1]


def close_names(name: str, candidates: Iterable[str], most: int = 3) -> list[str]:
    """Candidates within a small edit distance of `name`, closest first."""
    limit = 1 if len(name) <= 3 else 2 if len(name) <= 7 else 3
    scored = []
    for cand in set(candidates):
        if cand == name:
            continue
        d = edit_distance(name.lower(), cand.lower(), limit)
        if d <= limit:
            scored.append((d, cand))
    scored.sort()
    return [c for _, c in scored[:most]]


def or_list(items: list[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]
