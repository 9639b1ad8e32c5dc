"""`random.*`: TVM's Threefry generator, its splits, and the distributions on it.

Relations follow src/relay/op/random/kernel.cc; the bit stream follows TOPI
(python/tvm/topi/random/kernel.py). The block function is checked against
the known-answer vectors of Random123 (Salmon et al. 2011) through an
implementation written here from the Threefry specification, and the key
handling against the expectations of tests/python/topi/test_topi_prng.py
and tests/python/relay/test_prng.py.
"""

from __future__ import annotations

import math
import struct
import sys

import numpy as np
import pytest

from tests.ops.family import Family, T, same

FAMILY = Family(
    "random.threefry_generate", "random.threefry_split", "random.uniform", "random.normal", "random.multinomial"
)
KEY = T("(10)", "uint64")
M64 = 2**64 - 1


def threefry_key(seed: int) -> np.ndarray:
    """TVM's relay.random.threefry_key: the seed's 32 bytes in words 0-3, the
    path mark in the top bit of word 8."""
    words = list(np.frombuffer(seed.to_bytes(32, sys.byteorder), dtype="uint64"))
    return np.array([*words, 0, 0, 0, 0, 1 << 63, 0], dtype=np.uint64)


# ---------------------------------------------------------------- an independent Threefry


def _rotl(v: int, r: int) -> int:
    return ((v << r) | (v >> (64 - r))) & M64


ROT = [(14, 16), (52, 57), (23, 40), (5, 37), (25, 33), (46, 12), (58, 22), (32, 32)]


def threefry4x64(key: list, ctr: list, rounds: int = 20, final_injection: bool = True) -> list:
    """Threefry-4x64 from the Threefry/Skein specification, on Python integers:
    the key schedule k[4] = C240 ^ k0 ^ k1 ^ k2 ^ k3, an injection of key s
    (word 3 plus s) before every group of four rounds and after the last."""
    k = [*list(key), 2004413935125273122 ^ key[0] ^ key[1] ^ key[2] ^ key[3]]
    x = list(ctr)

    def inject(s: int) -> None:
        for j in range(4):
            x[j] = (x[j] + k[(s + j) % 5] + (s if j == 3 else 0)) & M64

    for r in range(rounds):
        if r % 4 == 0:
            inject(r // 4)
        ra, rb = ROT[r % 8]
        x[0] = (x[0] + x[1]) & M64
        x[1] = _rotl(x[1], ra) ^ x[0]
        x[2] = (x[2] + x[3]) & M64
        x[3] = _rotl(x[3], rb) ^ x[2]
        x[1], x[3] = x[3], x[1]
    if final_injection:
        inject(rounds // 4)
    return x


def test_independent_threefry_matches_random123() -> None:
    """Random123's kat_vectors for threefry4x64_20 (counter, key, output)."""
    pi_ctr = [0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89]
    pi_key = [0x452821E638D01377, 0xBE5466CF34E90C6C, 0xBE5466CF34E90C6C, 0xC0AC29B7C97C50DD]
    assert threefry4x64([0] * 4, [0] * 4) == [
        0x09218EBDE6C85537,
        0x55941F5266D86105,
        0x4BD25E16282434DC,
        0xEE29EC846BD2E40B,
    ]
    assert threefry4x64([M64] * 4, [M64] * 4) == [
        0x29C24097942BBA1B,
        0x0371BBFB0F6F4E11,
        0x3C231FFA33F83A1C,
        0xCD29113FDE32D168,
    ]
    assert threefry4x64(pi_key, pi_ctr) == [
        0xA7E8FDE591651BD9,
        0xBAAFD0C30138319B,
        0x84A5C1A729E685B9,
        0x901D406CCEBC1BA4,
    ]


def topi_block(key: list, ctr: list) -> list:
    """TOPI's block: Threefry-4x64-20 without the final key injection."""
    return threefry4x64(key, ctr, final_injection=False)


def topi_stream(gen: list, n: int) -> list:
    """The numbers threefry_generate makes from a state with room in its counter:
    block j hashes words 4-7 each plus j; a partial last block adds n // 4 * 4
    to word 7 only."""
    out: list = []
    for j in range(n // 4):
        out += topi_block(gen[0:4], [(w + j) & M64 for w in gen[4:8]])
    if n % 4:
        ctr = [*gen[4:7], gen[7] + n // 4 * 4 & M64]
        out += topi_block(gen[0:4], ctr)[: n % 4]
    return out


# ---------------------------------------------------------------- relations


def test_generator_types() -> None:
    """test_prng.py: test_threefry_generate_infer, test_threefry_split_infer,
    test_uniform_infer (kernel.cc: ThreefryKeyType is Tensor[(10), uint64])."""
    pair = f"({KEY}, {T('(12)', 'uint64')})"
    assert FAMILY.result_type("random.threefry_generate(%a, out_shape=[12])", [KEY]) == pair
    assert FAMILY.param_type("random.threefry_generate(%a, out_shape=[12])", ["_"], 0) == KEY
    assert FAMILY.result_type("random.threefry_split(%a)", [KEY]) == f"({KEY}, {KEY})"
    for dtype in ("float32", "float64"):
        call = f'random.uniform(%a, %b, %c, out_shape=[12], out_dtype="{dtype}")'
        assert FAMILY.result_type(call, [KEY, T("()", dtype), T("()", dtype)]) == f"({KEY}, {T('(12)', dtype)})"
        assert FAMILY.param_type(call, ["_", "_", "_"], 2) == T("()", dtype)
        call = f'random.normal(%a, %b, %c, out_shape=[2, 3], out_dtype="{dtype}")'
        assert FAMILY.result_type(call, [KEY, T("()", dtype), T("()", dtype)]) == f"({KEY}, {T('(2, 3)', dtype)})"
    assert FAMILY.result_type("random.uniform(%a, 0f, 1f, out_shape=[])", [KEY]) == f"({KEY}, {T('()')})"
    # MultinomialRel: the probabilities' leading axes, then num_samples; int32
    assert (
        FAMILY.result_type("random.multinomial(%a, %b, num_samples=4)", [KEY, T("(2, 3, 10)")])
        == f"({KEY}, {T('(2, 3, 4)', 'int32')})"
    )
    assert (
        FAMILY.result_type("random.multinomial(%a, %b)", [KEY, T("(3)", "float64")]) == f"({KEY}, {T('(1)', 'int32')})"
    )


@pytest.mark.parametrize("call", ["random.threefry_generate(%a, out_shape=[12])", "random.threefry_split(%a)"])
def test_a_key_of_nine_words_is_rejected(call: str) -> None:
    """test_prng.py: test_threefry_generate_infer_fail and
    test_threefry_split_infer_fail expect a key of 9 words to fail."""
    d = FAMILY.only_error(call, [T("(9)", "uint64")])
    op = call.split("(")[0]
    assert (d.code, d.message, d.span.text) == (
        "type-mismatch",
        f"`{op}` takes a Threefry key of type `Tensor[(10), uint64]`, found `Tensor[(9), uint64]`",
        "%a",
    )


def test_distribution_rejections() -> None:
    """UniformRel and NormalRel accept float32 and float64 only and make low/high
    (mean/scale) scalars of that dtype."""
    d = FAMILY.only_error(
        'random.normal(%a, %b, %c, out_shape=[2], out_dtype="float16")', [KEY, T("()", "float16"), T("()", "float16")]
    )
    assert (d.code, d.message) == ("type-mismatch", "`random.normal` generates float32 or float64 values, not float16")
    d = FAMILY.only_error("random.uniform(%a, %b, 1f, out_shape=[2])", [KEY, T("()", "float64")])
    assert (d.code, d.message, d.span.text) == (
        "type-mismatch",
        "`random.uniform` expects `Tensor[(), float32]` here, found `Tensor[(), float64]`",
        "%b",
    )
    d = FAMILY.only_error("random.uniform(%a, 0f, 1f, out_shape=[2])", [T("(10)", "int64")])
    assert (d.code, d.span.text) == ("type-mismatch", "%a")
    d = FAMILY.only_error("random.multinomial(%a, %b)", [KEY, T("()")])
    assert (d.code, d.message, d.span.text) == (
        "shape-mismatch",
        "`random.multinomial` takes probabilities along the last axis of a tensor, found a scalar",
        "%b",
    )
    d = FAMILY.only_error("random.threefry_generate(%a, out_shape=[2, -1])", [KEY])
    assert (d.code, d.message) == (
        "shape-mismatch",
        "`random.threefry_generate`: out_shape cannot have negative sizes, found [2, -1]",
    )


# ---------------------------------------------------------------- split


def test_split_by_tvms_vectors() -> None:
    """test_topi_prng.py::test_threefry_split."""
    gen = threefry_key(0)
    a, b = FAMILY.run("random.threefry_split", gen)
    assert a.dtype == b.dtype == np.uint64
    same(a, np.array([0, 0, 0, 0, 0, 0, 0, 0, 1 << 62, 0], dtype=np.uint64))
    same(b, np.array([0, 0, 0, 0, 1 << 63, 0, 0, 0, 1 << 62, 0], dtype=np.uint64))
    # enough splits to go over the path length
    for _ in range(129):
        a, b = FAMILY.run("random.threefry_split", b)
    assert (a[0:4] == b[0:4]).all(), "the state part of a split is shared"
    assert (b[0:4] != 0).any()
    a2, b2 = FAMILY.run("random.threefry_split", a)
    a3, b3 = FAMILY.run("random.threefry_split", a)
    same(a2, a3)
    same(b2, b3)


def test_split_renews_the_key_when_word_8_is_empty() -> None:
    """TOPI's test `gen[8] == 0 and gen[9] == 0`, being Python's `and` on TIR
    expressions, is `gen[8] == 0`: after 64 splits to the right the key is
    replaced by a block of the old key, path and counter."""
    b = threefry_key(0)
    for i in range(64):
        _, b = FAMILY.run("random.threefry_split", b)
        if i < 63:
            assert b[8] != 0 and (b[0:4] == 0).all()
    assert b[8] == 0 and b[9] == 1 << 63
    assert int(b[4]) == M64 and (b[5:8] == 0).all()  # 64 ones in the path
    left, right = FAMILY.run("random.threefry_split", b)
    fresh = topi_block([0, 0, 0, 0], [M64, 0, 0, 0])
    same(left, np.array([*fresh, 0, 0, 0, 0, 1 << 62, 0], dtype=np.uint64))
    same(right, np.array([*fresh, 1 << 63, 0, 0, 0, 1 << 62, 0], dtype=np.uint64))


# ---------------------------------------------------------------- generate


def test_generate_against_the_independent_threefry() -> None:
    for seed, n in ((1, 12), (0, 7), (12345, 5), (7, 1), (3, 0)):
        gen = threefry_key(seed)
        new, bits = FAMILY.run("random.threefry_generate", gen, out_shape=[n])
        assert bits.dtype == np.uint64 and bits.shape == (n,)
        assert [int(w) for w in bits] == topi_stream([int(w) for w in gen], n)
        counter = n if n % 4 == 0 else n // 4 * 4 + 4
        same(new, np.array([int(w) for w in gen[:6]] + [0, counter, 1 << 63, 0], dtype=np.uint64))
    _, bits = FAMILY.run("random.threefry_generate", threefry_key(9), out_shape=[2, 3, 2])
    assert [int(w) for w in bits.reshape(-1)] == topi_stream([int(w) for w in threefry_key(9)], 12)


def test_generate_by_tvms_expectations() -> None:
    """test_topi_prng.py::test_threefry_generate and test_prng.py's sequential
    and repeatability tests."""
    gen = threefry_key(0)
    a, rands = FAMILY.run("random.threefry_generate", gen, out_shape=[2048])
    assert rands.shape == (2048,) and (a != gen).any()
    a, rands = FAMILY.run("random.threefry_generate", gen, out_shape=[7])
    assert rands.shape == (7,)
    # a counter too large for 2048 more: the path moves on
    gen = np.array([0, 0, 0, 0, 0, 0, 0, 2**64 - 2, 1 << 63, 0], dtype=np.uint64)
    a, _ = FAMILY.run("random.threefry_generate", gen, out_shape=[2048])
    assert gen[4] != a[4] and a[7] == 2048
    same(a, np.array([0, 0, 0, 0, 1 << 63, 0, 0, 2048, 1 << 62, 0], dtype=np.uint64))
    # ... and with no room left in the path, the key changes
    gen = np.array([0, 0, 0, 0, 0, 0, 0, 2**64 - 2, 0, 0], dtype=np.uint64)
    a, rands = FAMILY.run("random.threefry_generate", gen, out_shape=[8])
    fresh = topi_block([0, 0, 0, 0], [M64] * 4)
    same(a, np.array([*fresh, 0, 0, 0, 8, 1 << 63, 0], dtype=np.uint64))
    assert [int(w) for w in rands] == topi_stream([*fresh, 0, 0, 0, 0, 1 << 63, 0], 8)
    # repeatable, and sequential calls differ (also in a last partial block)
    key = threefry_key(1)
    same(
        FAMILY.run("random.threefry_generate", key, out_shape=[12])[1],
        FAMILY.run("random.threefry_generate", key, out_shape=[12])[1],
    )
    key2, r1 = FAMILY.run("random.threefry_generate", key, out_shape=[7])
    _, r2 = FAMILY.run("random.threefry_generate", key2, out_shape=[7])
    assert (r1[-3:] != r2[-3:]).any()
    left, right = FAMILY.run("random.threefry_split", key)
    assert (
        FAMILY.run("random.threefry_generate", left, out_shape=[16])[1]
        != FAMILY.run("random.threefry_generate", right, out_shape=[16])[1]
    ).any()


# ---------------------------------------------------------------- distributions


def _unit_float32(bits: int) -> float:
    word = ((bits & 0xFFFFFFFF) >> 9) | 0x3F800000
    return struct.unpack("<f", struct.pack("<I", word))[0] - 1.0


def _unit_float64(bits: int) -> float:
    word = (bits >> 12) | 0x3FF0000000000000
    return struct.unpack("<d", struct.pack("<Q", word))[0] - 1.0


def test_uniform_from_the_bits() -> None:
    """topi/random/kernel.py::uniform: the top 23 of the low 32 bits (float32) or
    the top 52 bits (float64) as the mantissa of a number in [1, 2), minus 1,
    scaled to [low, high)."""
    key = threefry_key(42)
    stream = topi_stream([int(w) for w in key], 10)
    new, out = FAMILY.run("random.uniform", key, np.array(5, np.float32), np.array(10, np.float32), out_shape=[2, 5])
    expected = np.array([_unit_float32(b) for b in stream], dtype=np.float32).reshape(2, 5) * np.float32(
        5
    ) + np.float32(5)
    same(out, expected, rtol=0, atol=0)
    same(new, FAMILY.run("random.threefry_generate", key, out_shape=[10])[0])
    _, out = FAMILY.run("random.uniform", key, np.array(-1.0), np.array(1.0), out_shape=[10], out_dtype="float64")
    same(out, np.array([_unit_float64(b) * 2 - 1 for b in stream]), dtype="float64", rtol=0, atol=0)


def test_uniform_statistics() -> None:
    """test_topi_prng.py::test_uniform: in [5, 10], mean 7.5 within 0.1."""
    for dtype in ("float32", "float64"):
        _, r = FAMILY.run(
            "random.uniform",
            threefry_key(0),
            np.array(5.0, dtype),
            np.array(10.0, dtype),
            out_shape=[256, 256],
            out_dtype=dtype,
        )
        assert r.dtype == dtype and r.min() >= 5.0 and r.max() <= 10.0
        assert abs(r.mean() - 7.5) < 0.1


def test_normal_is_box_muller_on_the_uniforms() -> None:
    """topi/random/kernel.py::normal: uniforms u, v of shape (2, *out_shape);
    sqrt(-2 log(1 - u)) sin(2 pi v) * scale + mean."""
    key = threefry_key(3)
    stream = topi_stream([int(w) for w in key], 12)
    u = [_unit_float64(b) for b in stream]
    new, out = FAMILY.run("random.normal", key, np.array(1.5), np.array(2.0), out_shape=[2, 3], out_dtype="float64")
    expected = [math.sqrt(-2 * math.log(1 - u[i])) * math.sin(2 * math.pi * u[6 + i]) * 2.0 + 1.5 for i in range(6)]
    same(out, np.array(expected).reshape(2, 3), dtype="float64", rtol=1e-12, atol=1e-12)
    same(new, FAMILY.run("random.threefry_generate", key, out_shape=[2, 2, 3])[0])
    _, out32 = FAMILY.run("random.normal", key, np.array(0, np.float32), np.array(1, np.float32), out_shape=[6])
    u32 = [_unit_float32(b) for b in stream]
    ref = [math.sqrt(-2 * math.log(1 - u32[i])) * math.sin(2 * math.pi * u32[6 + i]) for i in range(6)]
    same(out32, np.array(ref, dtype=np.float32), rtol=1e-5, atol=1e-6)
    _, many = FAMILY.run(
        "random.normal", threefry_key(5), np.array(3.0, np.float32), np.array(2.0, np.float32), out_shape=[200, 200]
    )
    assert abs(many.mean() - 3.0) < 0.05 and abs(many.std() - 2.0) < 0.05


def test_multinomial_by_an_independent_loop() -> None:
    """topi/random/kernel.py::multinomial: negative probabilities count as 0,
    rows are normalized, and each uniform u picks the first index whose
    cumulative probability exceeds u."""
    probs = np.array([[0.5, -3.0, 1.5, 2.0], [0.0, 0.0, 4.0, 0.0], [1.0, 1.0, 1.0, 1.0]], dtype=np.float32)
    key = threefry_key(11)
    new, out = FAMILY.run("random.multinomial", key, probs, num_samples=5)
    assert out.dtype == np.int32 and out.shape == (3, 5)
    stream = topi_stream([int(w) for w in key], 15)
    for r in range(3):
        p = [max(float(v), 0.0) for v in probs[r]]
        total = np.float32(0)
        for v in p:
            total = np.float32(total + np.float32(v))
        cumulative, acc = [], np.float32(0)
        for v in p:
            acc = np.float32(acc + np.float32(v) / total)
            cumulative.append(acc)
        for s in range(5):
            u = np.float32(_unit_float32(stream[r * 5 + s]))
            assert out[r, s] == next(i for i, c in enumerate(cumulative) if c - u > 0)
    assert (out[1] == 2).all() and (out[0] != 1).all()
    same(new, FAMILY.run("random.threefry_generate", key, out_shape=[3, 5])[0])


def test_multinomial_statistics() -> None:
    """test_topi_prng.py::test_multinomial: indices within the row; frequencies
    follow the clipped, normalized probabilities."""
    probs = np.array([[-5.0, 100.0, 300.0, 600.0]], dtype=np.float32)
    new, out = FAMILY.run("random.multinomial", threefry_key(7), probs, num_samples=20000)
    assert (new != threefry_key(7)).any()
    assert out.min() >= 0 and out.max() < 4
    freq = np.bincount(out[0], minlength=4) / 20000
    assert freq[0] == 0
    np.testing.assert_allclose(freq[1:], [0.1, 0.3, 0.6], atol=0.02)
    _, single = FAMILY.run("random.multinomial", threefry_key(7), np.array([1, 2], dtype=np.int32))
    assert single.shape == (1,) and single.dtype == np.int32


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
