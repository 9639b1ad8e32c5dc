"""Headless Chromium for the viewer's tests and benchmarks: the system's
browser (Debian's `chromium`, `apt-get install chromium`) driven by
Playwright's Python API; Playwright's own browser download is not used."""

from __future__ import annotations

import base64
import os
import shutil
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """The browser to drive: $RELAY_CHROMIUM, else `chromium` on the PATH."""
    found = os.environ.get("RELAY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and Path("/usr/bin/chromium").exists():
        found = "/usr/bin/chromium"
    return found


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=chromium_path(), args=FLAGS)


class Opened:
    """A page of the viewer, with the console errors and page errors seen."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def goto(self, path: Path, complete: bool = True) -> None:
        self.page.goto(path.resolve().as_uri())
        if complete:
            self.page.wait_for_function("document.body.dataset.state === 'complete'", timeout=60_000)

    def frames(self, n: int = 2) -> None:
        """Wait for `n` animation frames (a view change is drawn in the next one)."""
        self.page.evaluate(
            (
                "n => new Promise(done => { const step = k => k ? requestAnimationFrame(() => step(k - 1)) : "
                "done(); step(n); })"
            ),
            n,
        )


# What a screenshot holds: the number of colours and the share of pixels
# that differ from the commonest colour (the background), sampled.
_LOOK = """async (b64) => {
  const img = new Image();
  img.src = "data:image/png;base64," + b64;
  await img.decode();
  const canvas = document.createElementNS("http://www.w3.org/1999/xhtml", "canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  const counts = new Map();
  let n = 0;
  for (let i = 0; i < d.length; i += 4 * 5) {
    const key = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
    counts.set(key, (counts.get(key) || 0) + 1);
    n++;
  }
  let common = 0;
  counts.forEach(v => { if (v > common) common = v; });
  return { colours: counts.size, other: (n - common) / n };
}"""


def look(page: Any, png: bytes) -> dict[str, float]:
    """Colours and the share of non-background pixels of a PNG, decoded by the browser."""
    return page.evaluate(_LOOK, base64.b64encode(png).decode("ascii"))


def not_blank(page: Any, png: bytes) -> bool:
    seen = look(page, png)
    return seen["colours"] >= 4 and seen["other"] >= 0.02
