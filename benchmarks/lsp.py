"""How fast `relay lsp` answers an editor, through the real protocol.

    python benchmarks/lsp.py [--repeat N] [--file FILE.rly]

Starts `relay lsp` as a subprocess (the stdio client of tests/lsp/client.py),
opens a 1,000-line model dump and edits it in the middle: each edit either
breaks a name (an `unbound-variable` error) or restores it. Prints the time
from sending `didChange` to receiving the `publishDiagnostics` of that
version (median and worst of N edits; it includes the server's 150 ms
debounce), first for single edits after a pause, then for the last
keystroke of bursts of typing; then the latency of hover, completion,
semantic tokens, inlay hints, rename and range formatting on the same
document, and of hover, completion and symbols once a syntax error is
typed in its middle. The target is diagnostics within 300 ms.

The document is GPT-2 from the shared corpus (932 lines) extended to 1,000
lines with a chain of elementwise bindings feeding its first result; without
the corpus, a generated dump of the same length.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lsp.client import LspClient, position  # noqa: E402

GPT2 = ROOT.parent / "shared" / "corpus" / "apache-tvm-menangerie-gpt2.rly"
LINES = 1000


def gpt2_1000() -> str | None:
    """GPT-2's dump, grown to 1,000 lines by a chain feeding its first result."""
    if not GPT2.is_file():
        return None
    lines = GPT2.read_text(encoding="utf-8").rstrip("\n").split("\n")
    result_at = max(i for i, line in enumerate(lines) if line.startswith("  (%903,"))
    extra = LINES - len(lines)
    chain = []
    prev = "%903"
    for i in range(extra):
        name = f"%{916 + i}"
        op = ("add", "multiply", "subtract", "maximum")[i % 4]
        chain.append(f"  {name} = {op}({prev}, {0.5 + i % 3}f);")
        prev = name
    lines[result_at] = lines[result_at].replace("(%903,", f"({prev},", 1)
    text = "\n".join(lines[:result_at] + chain + lines[result_at:]) + "\n"
    assert text.count("\n") == LINES, text.count("\n")
    return text


def generated_1000() -> str:
    n = LINES - 3
    body = [
        '#[version = "0.0.5"]',
        (
            "def @main(%x: Tensor[(1, 64, 56, 56), float32], %w: Tensor[(64, 64, 3, 3), float32]) -> "
            "Tensor[(1, 64, 56, 56), float32] {"
        ),
        "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);",
    ]
    for i in range(1, n):
        op = (
            "nn.relu(%{p})",
            "add(%{p}, %x)",
            "nn.conv2d(%{p}, %w, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3])",
            "multiply(%{p}, 0.5f)",
        )[i % 4]
        body.append(f"  %{i} = {op.format(p=i - 1)};")
    body.append(f"  %{n - 1}\n}}\n")
    return "\n".join(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="edits to time (default 10)")
    parser.add_argument("--file", help="a .rly file to edit instead of the 1,000-line dump")
    args = parser.parse_args()

    if args.file:
        text, what = Path(args.file).read_text(encoding="utf-8"), args.file
    else:
        text = gpt2_1000()
        what = "GPT-2 grown to 1,000 lines" if text is not None else "a generated 1,000-line dump"
        if text is None:
            text = generated_1000()
    lines = text.count("\n")
    uri = (ROOT / "benchmarks" / "_lsp_bench.rly").as_uri()

    client = LspClient()
    try:
        start = time.perf_counter()
        client.initialize()
        init = time.perf_counter() - start
        mark = client.mark()
        start = time.perf_counter()
        client.open(uri, text, 1)
        opened = client.diagnostics(uri, 1, mark)
        first = time.perf_counter() - start
        assert not [d for d in opened["diagnostics"] if d["severity"] == 1], opened["diagnostics"][:3]

        # The edit: a use of a local in the middle of the file, renamed and back.
        middle = text.index("\n", len(text) // 2) + 1
        target = text.index("(%", middle) + 1
        name_end = target + 1
        while text[name_end].isalnum() or text[name_end] == "_":
            name_end += 1
        name = text[target:name_end]
        rng = {"start": position(text, target), "end": position(text, name_end)}
        broken_rng = {"start": position(text, target), "end": position(text, name_end + 1)}
        times: list[float] = []
        version = 1
        for i in range(args.repeat):
            version += 1
            breaking = i % 2 == 0
            change = {"range": rng, "text": name + "x"} if breaking else {"range": broken_rng, "text": name}
            mark = client.mark()
            sent = time.perf_counter()
            client.change(uri, version, [change])
            message = client.wait_for(
                "textDocument/publishDiagnostics",
                lambda p, v=version: p["uri"] == uri and p.get("version") == v,
                30,
                mark,
            )
            times.append(message["_received"] - sent)
            errors = [d for d in message["params"]["diagnostics"] if d["severity"] == 1]
            assert bool(errors) == breaking, errors
            time.sleep(0.2)

        # Typing: three keystrokes 60 ms apart (appending `abc` to the name,
        # then deleting it), timed from the last one.
        burst_times: list[float] = []
        for i in range(max(2, args.repeat // 2)):
            breaking = i % 2 == 0
            marks = []
            for k in range(3):
                version += 1
                if breaking:
                    at_col = position(text, name_end)
                    at_col["character"] += k
                    change = {"range": {"start": at_col, "end": at_col}, "text": "abc"[k]}
                else:
                    end = position(text, name_end)
                    end["character"] += 3 - k
                    start = dict(end, character=end["character"] - 1)
                    change = {"range": {"start": start, "end": end}, "text": ""}
                mark = client.mark()
                sent = time.perf_counter()
                client.change(uri, version, [change])
                marks.append(mark)
                if k < 2:
                    time.sleep(0.06)
            message = client.wait_for(
                "textDocument/publishDiagnostics",
                lambda p, v=version: p["uri"] == uri and p.get("version") == v,
                30,
                marks[-1],
            )
            burst_times.append(message["_received"] - sent)
            errors = [d for d in message["params"]["diagnostics"] if d["severity"] == 1]
            assert bool(errors) == breaking, errors
            time.sleep(0.3)

        def timed(method: str, params: dict, n: int = 5) -> float:
            best = []
            for _ in range(n):
                t0 = time.perf_counter()
                client.request(method, params)
                best.append(time.perf_counter() - t0)
            return statistics.median(best)

        doc = {"uri": uri}
        at = position(text, target)
        hover = timed("textDocument/hover", {"textDocument": doc, "position": at})
        complete = timed("textDocument/completion", {"textDocument": doc, "position": at})
        tokens = timed("textDocument/semanticTokens/full", {"textDocument": doc})
        version += 1  # the text as opened again (the bursts may leave a name misspelt)
        mark = client.mark()
        client.change(uri, version, [{"text": text}])
        client.diagnostics(uri, version, mark)
        whole = {"start": {"line": 0, "character": 0}, "end": position(text, len(text))}
        hints = timed("textDocument/inlayHint", {"textDocument": doc, "range": whole})
        renamed = timed("textDocument/rename", {"textDocument": doc, "position": at, "newName": name + "_renamed"}, 3)
        options = {"tabSize": 2, "insertSpaces": True}
        range_format = timed(
            "textDocument/rangeFormatting",
            {"textDocument": doc, "range": {"start": at, "end": at}, "options": options},
            3,
        )

        # A syntax error in the middle (`(` typed after the name): the first
        # request checks the rest of the file again; later ones reuse it.
        version += 1
        mark = client.mark()
        client.change(
            uri, version, [{"range": {"start": position(text, name_end), "end": position(text, name_end)}, "text": "("}]
        )
        broken = client.diagnostics(uri, version, mark)
        assert [d["code"] for d in broken["diagnostics"]][:1] == ["syntax-error"], broken["diagnostics"][:2]
        early = position(text, text.index("%", text.index("\n", len(text) // 4)))
        t0 = time.perf_counter()
        client.request("textDocument/hover", {"textDocument": doc, "position": early})
        broken_first = time.perf_counter() - t0
        broken_hover = timed("textDocument/hover", {"textDocument": doc, "position": early})
        broken_complete = timed("textDocument/completion", {"textDocument": doc, "position": early})
        broken_symbols = timed("textDocument/documentSymbol", {"textDocument": doc})
        client.shutdown()
    finally:
        client.kill()

    ms = [t * 1000 for t in times]
    print(f"document: {what} ({lines} lines)")
    print(f"start and initialize:        {init * 1000:7.0f} ms")
    print(f"didOpen -> diagnostics:      {first * 1000:7.0f} ms (first check, cold)")
    burst = [t * 1000 for t in burst_times]
    print(
        f"didChange -> diagnostics:    {statistics.median(ms):7.0f} ms median, {max(ms):.0f} ms worst of "
        f"{len(ms)} edits"
        " (one edit after a pause; includes the 150 ms debounce; target 300 ms)"
    )
    print(
        f"typing -> diagnostics:       {statistics.median(burst):7.0f} ms median, {max(burst):.0f} ms "
        f"worst of {len(burst)} bursts"
        " (from the last of 3 keystrokes 60 ms apart)"
    )
    print(f"hover:                       {hover * 1000:7.0f} ms")
    print(f"completion after `%`:        {complete * 1000:7.0f} ms")
    print(f"semantic tokens (full):      {tokens * 1000:7.0f} ms")
    print(f"inlay hints (whole file):    {hints * 1000:7.0f} ms")
    print(f"rename of a local:           {renamed * 1000:7.0f} ms (checks the renamed file)")
    print(f"range formatting:            {range_format * 1000:7.0f} ms (formats the file twice)")
    print("with a syntax error in the middle:")
    print(f"  first hover:               {broken_first * 1000:7.0f} ms (checks the rest of the file)")
    print(f"  hover:                     {broken_hover * 1000:7.0f} ms")
    print(f"  completion:                {broken_complete * 1000:7.0f} ms")
    print(f"  document symbols:          {broken_symbols * 1000:7.0f} ms")


if __name__ == "__main__":
    main()
