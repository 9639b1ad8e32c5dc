"""Inputs made by changing real files: mutations, comment insertion, metadata corruption.

Seeds are samples/ (with samples/errors/) and, where it is present, the
shared corpus beside the repository (../shared/corpus). Every function takes
a `random.Random`, so a seed gives the same cases.
"""

from __future__ import annotations

import base64
import json
import random
import re
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"


def seed_files() -> list[Path]:
    files = sorted(SAMPLES.glob("*.rly")) + sorted((SAMPLES / "errors").glob("*.rly"))
    if CORPUS.is_dir():
        files += sorted(CORPUS.glob("*.rly"))
    return files


def seed_texts() -> list[tuple[str, str]]:
    """(name, text) of every seed file."""
    return [(p.name, p.read_text(encoding="utf-8")) for p in seed_files()]


# ---------------------------------------------------------------- mutation

TOKEN = re.compile(
    r"%[\w.]+|@[\w.]+|[A-Za-z_][\w.]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\w*|\"[^\"\n]*\"|//[^\n]*|/\*|\*/"
    r"|->|=>|==|!=|<=|>=|&&|\|\||\s+|."
)
NUMBER = re.compile(r"(?<![\w%@.])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?:[a-z]\d*)?")

EXTREMES = [
    "0", "1", "-1", "2", "255", "256", "65536", "2147483647", "2147483648", "-2147483649", "4294967296",
    "9223372036854775807", "9223372036854775808", "18446744073709551616", "1" + "0" * 40, "1" + "0" * 400,
    "1" + "0" * 4400, "1e308", "1e309", "-1e308", "1e-320", "0.0", "-0.0", "inff", "-inff", "nanf", "3.5e38f",
    "1e39f32", "65504f16", "70000f16", "255u8", "256u8", "-1u8", "127i8", "128i8", "9223372036854775808i64", "1e5",
    "100000", "1000000", "1073741824", "0i64", "1.5", "0.5f64", "8e-46f",
]  # fmt: skip
INTERESTING = [*list('(){}[]<>,;:%@#"/*=.-+?_\n\t '), "\x00", "é", "\ufeff", "😀", "\\", "'"]


def _pick_span(rng: random.Random, n: int, most: int = 64) -> tuple[int, int]:
    if n == 0:
        return 0, 0
    start = rng.randrange(n)
    return start, min(n, start + rng.randint(1, most))


def mutate_chars(text: str, rng: random.Random) -> str:
    n = len(text)
    op = rng.randrange(4)
    a, b = _pick_span(rng, n)
    if op == 0:
        return text[:a] + text[b:]
    if op == 1:
        return text[:b] + text[a:b] + text[b:]
    if op == 2:
        return text[:a] + rng.choice(INTERESTING) * rng.choice([1, 1, 2, 50]) + text[a:]
    c, d = _pick_span(rng, n)
    if b <= c:
        return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
    return text[:a] + text[b:]


def mutate_tokens(text: str, rng: random.Random, other: str) -> str:
    tokens = TOKEN.findall(text)
    if not tokens:
        return text
    i = rng.randrange(len(tokens))
    op = rng.randrange(5)
    if op == 0:
        del tokens[i : i + rng.randint(1, 3)]
    elif op == 1:
        tokens[i:i] = tokens[i : i + rng.randint(1, 8)] * rng.choice([1, 1, 2, 100])
    elif op == 2:
        j = rng.randrange(len(tokens))
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif op == 3:
        pool = [t for t in TOKEN.findall(other) if not t.isspace()] or tokens
        tokens[i] = rng.choice(pool)
    else:
        pool = [t for t in tokens if not t.isspace()]
        tokens.insert(i, rng.choice(pool) if pool else " ")
    return "".join(tokens)


def mutate_lines(text: str, rng: random.Random, other: str) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    op = rng.randrange(4)
    if op == 0:
        del lines[i : i + rng.randint(1, 4)]
    elif op == 1:
        lines[i:i] = lines[i : i + rng.randint(1, 6)] * rng.choice([1, 2, 30])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:  # splice from another file
        theirs = other.split("\n")
        j = rng.randrange(len(theirs))
        lines[i:i] = theirs[j : j + rng.randint(1, 12)]
    return "\n".join(lines)


def mutate_numbers(text: str, rng: random.Random) -> str:
    spots = list(NUMBER.finditer(text))
    if not spots:
        return text
    chosen = rng.sample(spots, min(len(spots), rng.choice([1, 1, 2, 4])))
    for m in sorted(chosen, key=lambda m: m.start(), reverse=True):  # from the end: earlier offsets stay valid
        text = text[: m.start()] + rng.choice(EXTREMES) + text[m.end() :]
    return text


def mutate(text: str, rng: random.Random, other: str) -> tuple[str, str]:
    """1 to 4 mutations of `text` (`other`: another seed to splice from); the text and what was done."""
    done = []
    for _ in range(rng.choice([1, 1, 1, 2, 3, 4])):
        op = rng.choice(["chars", "tokens", "tokens", "lines", "numbers", "numbers"])
        if op == "chars":
            text = mutate_chars(text, rng)
        elif op == "tokens":
            text = mutate_tokens(text, rng, other)
        elif op == "lines":
            text = mutate_lines(text, rng, other)
        else:
            text = mutate_numbers(text, rng)
        done.append(op)
    return text, "+".join(done)


# ---------------------------------------------------------------- comments

COMMENTS = [
    " /* c{} */",
    "/* c{} */",
    "  // c{}\n",
    "\n/* c{} */\n",
    "  # c{}\n",
    "/* /* c{} */ */",
    "/**/",
    "\n\n// c{}\n\n",
]


def comment_slots(text: str) -> list[int]:
    """Offsets after every token: a comment there must not change what the text means."""
    from relay_text.ir.span import Source
    from relay_text.syntax.lexer import Tokens
    from relay_text.syntax.parser import _parser

    try:
        tokens = list(Tokens(Source("t", text), _parser()[2]))
    except Exception:
        return []
    return [tok.end_pos for tok in tokens if tok.type not in ("METADATA", "VERSION") and tok.end_pos is not None]


def insert_comments(text: str, rng: random.Random, slots: list[int]) -> str:
    chosen = sorted(set(rng.sample(slots, min(len(slots), rng.choice([1, 1, 2, 3, 5, 20])))))
    pieces, last = [], 0
    for i, pos in enumerate(chosen):
        comment = rng.choice(COMMENTS).format(i)
        if text.startswith("<", pos) and not text[pos - 1 : pos].isspace():
            comment = f"/* c{i} */"  # a space before a glued `<` makes it less-than: documented
        if text[pos - 1 : pos] == "/" and comment.startswith("/"):
            comment = " " + comment  # `//*` would start a line comment
        if comment.lstrip(" ").startswith("#") and text[pos : pos + 1] == "[":
            comment = f" /* c{i} */"  # `#[` opens an attribute section
        pieces += [text[last:pos], comment]
        last = pos
    pieces.append(text[last:])
    return "".join(pieces)


# ---------------------------------------------------------------- metadata

SYNTHETIC_PROGRAM = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = add(%x, meta[relay.Constant][0]);
  %1 = multiply(%0, meta[relay.Constant][1]);
  (%1, meta[relay.Constant][2])
}

"""


def synthetic_metadata() -> str:
    """A small TVM program with a metadata section of three tensors."""
    import numpy as np

    from relay_text.syntax.metadata import encode_metadata

    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.float32(0.5), np.array([1, 2, 3], dtype=np.int64)]
    return SYNTHETIC_PROGRAM + "#[metadata]\n" + encode_metadata(arrays) + "\n"


def metadata_seeds() -> list[tuple[str, str]]:
    seeds = [(n, t) for n, t in seed_texts() if "#[metadata]" in t]
    return [*seeds, ("synthetic-metadata.rly", synthetic_metadata())]


HUGE = [0, -1, 1, 2, 255, 2**31, 2**32, 2**62, 2**63 - 1, 2**64, -(2**63), 10**30, 64, 1000]


def _walk(doc: object, path: list) -> list[list]:
    """Every path (list of keys) into a JSON value."""
    paths = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            paths += _walk(v, [*path, k])
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:40]):
            paths += _walk(v, [*path, i])
    return paths


def _corrupt_blob(blob: str, rng: random.Random) -> str:
    try:
        raw = bytearray(base64.b64decode(blob))
    except Exception:
        raw = bytearray(blob.encode())
    op = rng.randrange(6)
    if op == 0 and raw:  # flip bytes
        for _ in range(rng.randint(1, 4)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
    elif op == 1 and len(raw) >= 48:  # a header field (ndim, dtype code/bits/lanes) to an extreme
        offset = rng.choice([24, 28, 29, 30])
        if offset == 24:
            raw[24:28] = struct.pack("<i", rng.choice([0, 1, 8, 64, 65, 2**31 - 1, -1]))
        else:
            raw[offset] = rng.choice([0, 1, 2, 3, 4, 7, 16, 64, 255])
    elif op == 2 and len(raw) >= 48:  # a shape entry or the byte count to an extreme
        slot = rng.randrange(32, len(raw) - 7, 8) if len(raw) > 40 else 32
        raw[slot : slot + 8] = struct.pack("<q", rng.choice([0, -1, 2**31, 2**40, 2**62, 2**63 - 1, -(2**63)]))
    elif op == 3:
        raw = raw[: rng.randrange(len(raw) + 1)]
    elif op == 4:
        raw += bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    else:  # break the base64 itself
        text = base64.b64encode(bytes(raw)).decode()
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(["!", "=", "==", "\\n", " ", "\u00e9", ""]) + text[i + 1 :]
    return base64.b64encode(bytes(raw)).decode()


def mutate_metadata(text: str, rng: random.Random) -> tuple[str, str]:
    """Corrupt the `#[metadata]` section of `text` (JSON structure, base64 blobs, or raw text)."""
    at = text.find("#[metadata]")
    if at < 0:
        return text, "none"
    head, section = text[: at + len("#[metadata]")], text[at + len("#[metadata]") :]
    choice = rng.randrange(10)
    if choice >= 8:
        return head + mutate_chars(section, rng), "raw"
    try:
        doc = json.loads(section)
    except ValueError:
        return head + mutate_chars(section, rng), "raw"
    if choice >= 4:
        blobs = doc.get("b64ndarrays") if isinstance(doc, dict) else None
        if isinstance(blobs, list) and blobs:
            i = rng.randrange(len(blobs))
            blobs[i] = _corrupt_blob(str(blobs[i]), rng)
            return head + "\n" + json.dumps(doc, indent=2) + "\n", "blob"
    paths = _walk(doc, [])
    path = rng.choice(paths[1:] or paths)
    if not path:
        return head + "\n" + json.dumps(rng.choice([[], {}, None, 0, "x"])) + "\n", "json-root"
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    op = rng.randrange(5)
    if op == 0:
        del parent[key]
    elif op == 1:
        parent[key] = rng.choice(HUGE)
    elif op == 2:
        parent[key] = rng.choice(["", "relay.Constant", "Array", "x" * 1000, "-1", "18446744073709551616", None, True])
    elif op == 3:
        parent[key] = rng.choice([[], {}, [parent[key]] * rng.choice([2, 50]), [[[[[[]]]]]]])
    elif isinstance(parent, list):
        parent.insert(key, parent[key])
    else:
        parent[key] = {"type_key": "relay.Constant", "attrs": {}, "data": rng.choice(HUGE)}
    return head + "\n" + json.dumps(doc, indent=2) + "\n", "json"
