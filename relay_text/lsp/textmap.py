"""Offsets of an older text of a document in its newer text.

While a file has syntax errors, the editor's requests are answered from
the last version that parsed where the text is as it was then. `TextMap`
pairs the two texts: the runs of text both share (the edits made since
are the gaps between them) map to each other, offset for offset; what
was typed or deleted since maps to nothing.

The runs are found as an editor's edits leave them: the common beginning
and end of the two texts (one edit, however long, is exactly the gap
between them), then, between those, the lines both have in the same order
(edits at several places), and within a pair of changed lines their
common beginning and end. Linear in the texts but for that middle part,
whose line matching is bounded (`MAX_MIDDLE_LINES`).
"""

from __future__ import annotations

import difflib
from bisect import bisect_right

MAX_MIDDLE_LINES = 5000
_CHUNK = 4096


def common_prefix(a: str, b: str, start_a: int = 0, start_b: int = 0, limit: int | None = None) -> int:
    """How many characters `a[start_a:]` and `b[start_b:]` have in common at
    their beginning (at most `limit`)."""
    n = min(len(a) - start_a, len(b) - start_b)
    if limit is not None:
        n = min(n, limit)
    done = 0
    while done < n:  # whole chunks compared in C, then the chunk that differs halved
        step = min(_CHUNK, n - done)
        if a[start_a + done : start_a + done + step] == b[start_b + done : start_b + done + step]:
            done += step
            continue
        lo, hi = 0, step
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if a[start_a + done : start_a + done + mid] == b[start_b + done : start_b + done + mid]:
                lo = mid
            else:
                hi = mid - 1
        return done + lo
    return done


def common_suffix(a: str, b: str, end_a: int, end_b: int, limit: int) -> int:
    """How many characters `a[:end_a]` and `b[:end_b]` have in common at
    their end (at most `limit`)."""
    n = min(end_a, end_b, limit)
    done = 0
    while done < n:
        step = min(_CHUNK, n - done)
        if a[end_a - done - step : end_a - done] == b[end_b - done - step : end_b - done]:
            done += step
            continue
        lo, hi = 0, step
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if a[end_a - done - mid : end_a - done] == b[end_b - done - mid : end_b - done]:
                lo = mid
            else:
                hi = mid - 1
        return done + lo
    return done


class TextMap:
    """Maps offsets of `old` to `new` and back where the text is shared."""

    def __init__(self, old: str, new: str) -> None:
        self.runs: list[tuple[int, int, int]] = []  # (old start, new start, length), in order
        if old == new:
            self.runs.append((0, 0, len(old)))
        else:
            self._match(old, new)
            self._merge()
        self._old_starts = [r[0] for r in self.runs]
        self._new_starts = [r[1] for r in self.runs]

    @property
    def identity(self) -> bool:
        return len(self.runs) == 1 and self.runs[0][0] == self.runs[0][1] == 0

    def _match(self, old: str, new: str) -> None:
        head = common_prefix(old, new)
        tail = common_suffix(old, new, len(old), len(new), min(len(old), len(new)) - head)
        runs = self.runs
        if head:
            runs.append((0, 0, head))
        old_mid, new_mid = (head, len(old) - tail), (head, len(new) - tail)
        if old_mid[1] > old_mid[0] and new_mid[1] > new_mid[0]:
            runs.extend(self._middle(old, new, old_mid, new_mid))
        if tail:
            runs.append((len(old) - tail, len(new) - tail, tail))

    def _merge(self) -> None:
        """Join runs that continue each other in both texts."""
        merged: list[tuple[int, int, int]] = []
        for run in self.runs:
            if merged:
                o, n, k = merged[-1]
                if o + k == run[0] and n + k == run[1]:
                    merged[-1] = (o, n, k + run[2])
                    continue
            merged.append(run)
        self.runs = merged

    def _middle(self, old: str, new: str, om: tuple[int, int], nm: tuple[int, int]) -> list[tuple[int, int, int]]:
        a = old[om[0] : om[1]].splitlines(keepends=True)
        b = new[nm[0] : nm[1]].splitlines(keepends=True)
        if (len(a) < 2 and len(b) < 2) or len(a) > MAX_MIDDLE_LINES or len(b) > MAX_MIDDLE_LINES:
            return []
        a_starts = _starts(a, om[0])
        b_starts = _starts(b, nm[0])
        out: list[tuple[int, int, int]] = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag == "equal":
                out.append((a_starts[i1], b_starts[j1], a_starts[i2] - a_starts[i1]))
            elif tag == "replace" and i2 - i1 == j2 - j1:  # lines edited in place
                for k in range(i2 - i1):
                    la, lb = a[i1 + k], b[j1 + k]
                    sa, sb = a_starts[i1 + k], b_starts[j1 + k]
                    p = common_prefix(la, lb)
                    s = common_suffix(la, lb, len(la), len(lb), min(len(la), len(lb)) - p)
                    if p:
                        out.append((sa, sb, p))
                    if s:
                        out.append((sa + len(la) - s, sb + len(lb) - s, s))
        return [r for r in out if r[2] > 0]

    # ---- queries -----------------------------------------------------------

    def forward(self, offset: int) -> int | None:
        """The offset in `new` of `offset` in `old` (None: it was edited).
        The end of a run maps too (a cursor just after a name)."""
        return self._map(offset, self._old_starts, 0, 1)

    def backward(self, offset: int) -> int | None:
        """The offset in `old` of `offset` in `new` (None: typed since)."""
        return self._map(offset, self._new_starts, 1, 0)

    def _map(self, offset: int, starts: list[int], src: int, dst: int) -> int | None:
        i = bisect_right(starts, offset) - 1
        if i < 0:
            return None
        run = self.runs[i]
        if offset - run[src] <= run[2]:
            return run[dst] + offset - run[src]
        return None

    def span_forward(self, start: int, end: int) -> tuple[int, int] | None:
        """A span of `old` in `new`, if its text is unchanged (within one run)."""
        return self._span(start, end, self._old_starts, 0, 1)

    def span_backward(self, start: int, end: int) -> tuple[int, int] | None:
        return self._span(start, end, self._new_starts, 1, 0)

    def _span(self, start: int, end: int, starts: list[int], src: int, dst: int) -> tuple[int, int] | None:
        i = bisect_right(starts, start) - 1
        if i < 0:
            return None
        run = self.runs[i]
        if end - run[src] <= run[2] and start >= run[src]:
            return run[dst] + start - run[src], run[dst] + end - run[src]
        if start == end and start == run[src] + run[2]:
            return run[dst] + run[2], run[dst] + run[2]
        return None


def _starts(lines: list[str], base: int) -> list[int]:
    out = [base]
    for line in lines:
        out.append(out[-1] + len(line))
    return out
