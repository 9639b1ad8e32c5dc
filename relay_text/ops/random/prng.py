"""`random.*`: TVM's counter-based random numbers (Threefry), bit for bit.

A generator state, the *key*, is a `Tensor[(10), uint64]`: words 0-3 are
the Threefry key, 4-5 a path of splits, 6-7 a counter (only word 7 counts),
8-9 a single bit marking where the next split goes in the path (TVM's
`threefry_key(seed)` is the seed's bytes in words 0-3 and the bit in the top
of word 8). Every operator returns a new key with its result, and a key
should be used once.

    random.threefry_generate(key, out_shape=[...])  -> (key, Tensor[out_shape, uint64])
    random.threefry_split(key)                      -> (key, key)
    random.uniform(key, low, high, out_shape, out_dtype="float32")
    random.normal(key, mean, scale, out_shape, out_dtype="float32")
    random.multinomial(key, probs, num_samples=1)   -> (key, Tensor[..., int32])

The block function is TOPI's (python/tvm/topi/random/kernel.py), which is
Threefry-4x64 of Salmon et al. (2011) with 20 rounds, except that the key is
injected only before each group of four rounds (five times; Random123 adds
a sixth injection after the last round) and that block i adds i to all four
words of its input, not only to the counter.

`threefry_generate` of n numbers: when the counter has no room for n more
(word 7 >= 2**64 - 1 - n), the state first moves on: a 1 is put in the path
at the marked bit and the bit moves right, or, when word 8 is 0, the key
is replaced by a Threefry block of itself and the path restarts. (TOPI
means "when words 8 and 9 are both 0", but its test is written with
Python's `and` on TIR expressions and so only looks at word 8; we follow
the code TVM runs. In that case TOPI also reads its all-ones counter from
a buffer of two words as four: the two words past its end, which it leaves
undefined, are taken as all ones here.) Then block j, j < n // 4, hashes
(words 4-7) + j and gives numbers 4j to 4j + 3; a last partial block, for
n not a multiple of 4, hashes words 4-7 with n // 4 * 4 added to word 7;
word 7 of the new key grows by n (or by n // 4 * 4 + 4) and word 6 is 0.

`threefry_split` appends a 0 (left) or a 1 (right) to the path at the
marked bit; when word 8 is 0 (as above) both get a fresh key, a Threefry
block of the old state, with the right one's path starting with a 1.

`uniform`: the top 23 (float32: from the low 32 bits of each number) or 52
(float64) bits make the mantissa of a float in [1, 2); minus 1, times
(high - low), plus low. `normal` draws uniforms of shape (2, *out_shape),
u and v, and returns sqrt(-2 log(1 - u)) sin(2 pi v) * scale + mean (Box-
Muller). `multinomial` clips probs (as float32) at 0, normalizes each row,
draws uniforms u of shape (*rows, num_samples) and returns for each the
first index whose cumulative probability exceeds u.
"""

from __future__ import annotations

import math
from typing import Any

from ...diagnostics import codes
from ...ir.ty import TensorType, TupleType
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import Relation, known_rank, relation, shape_text, static_shape
from ..types import Args, Attrs, Shape, Value

KEY = TensorType((10,), "uint64")
MASK = 2**64 - 1
MAX_NUMBERS = 2**31
_PARITY = 0x1BD11BDAA9FC1A22  # the Skein key-schedule constant
_ROTATIONS = ((14, 16), (52, 57), (23, 40), (5, 37), (25, 33), (46, 12), (58, 22), (32, 32))

# ---------------------------------------------------------------- Threefry


def threefry_blocks(key: Any, inputs: Any) -> Any:
    """TOPI's Threefry-4x64 of each row of `inputs` (n x 4 uint64) under `key` (4 words)."""
    words = [int(k) for k in key]
    schedule = [*words, _PARITY ^ words[0] ^ words[1] ^ words[2] ^ words[3]]
    x = [np.array(inputs[:, j], dtype=np.uint64) for j in range(4)]
    for group in range(5):
        for j in range(4):
            injected = (schedule[(group + j) % 5] + (group if j == 3 else 0)) & MASK
            x[j] = x[j] + np.uint64(injected)
        for k in range(4):
            rotation = _ROTATIONS[(group * 4 + k) % 8]
            for pair in (0, 1):
                a, b = x[2 * pair], x[2 * pair + 1]
                r = np.uint64(rotation[pair])
                a = a + b
                b = ((b << r) | (b >> (np.uint64(64) - r))) ^ a
                x[2 * pair], x[2 * pair + 1] = a, b
            x = [x[0], x[3], x[2], x[1]]
    return np.stack(x, axis=1)


def _shift_mark(w8: int, w9: int) -> tuple[int, int]:
    """Move the one-bit mark in words 8-9 one place to the right."""
    if w8 == 1:
        return 0, 1 << 63
    if w8 == 0:
        return 0, w9 >> 1
    return w8 >> 1, 0


def generate(key: Any, n: int) -> tuple[Any, Any]:
    """The new key and n random uint64 numbers (see the module docstring)."""
    gen = [int(w) for w in key]
    tmp = list(gen)
    if not gen[7] < MASK - n:
        if gen[8] == 0:
            fresh = threefry_blocks(gen[0:4], np.full((1, 4), MASK, dtype=np.uint64))[0]
            tmp = [int(w) for w in fresh] + [0, 0, 0, 0, 1 << 63, 0]
        else:
            tmp[4], tmp[5] = gen[4] | gen[8], gen[5] | gen[9]
            tmp[6] = tmp[7] = 0
            tmp[8], tmp[9] = _shift_mark(gen[8], gen[9])
    whole, rest = divmod(n, 4)
    out = np.empty(n, dtype=np.uint64)
    if whole:
        base = np.array(tmp[4:8], dtype=np.uint64)
        inputs = base[None, :] + np.arange(whole, dtype=np.uint64)[:, None]
        out[: whole * 4] = threefry_blocks(tmp[0:4], inputs).reshape(-1)
    if rest:
        tmp[7] = (tmp[7] + whole * 4) & MASK
        out[whole * 4 :] = threefry_blocks(tmp[0:4], np.array([tmp[4:8]], dtype=np.uint64))[0][:rest]
    counter = (tmp[7] + (4 if rest else n)) & MASK
    new_key = np.array([*tmp[0:6], 0, counter, *tmp[8:10]], dtype=np.uint64)
    return new_key, out


def split(key: Any) -> tuple[Any, Any]:
    gen = [int(w) for w in key]
    if gen[8] == 0:
        fresh = [int(w) for w in threefry_blocks(gen[0:4], np.array([gen[4:8]], dtype=np.uint64))[0]]
        left = [*fresh, 0, 0, 0, 0, 1 << 62, 0]
        right = [*fresh, 1 << 63, 0, 0, 0, 1 << 62, 0]
    else:
        mark = list(_shift_mark(gen[8], gen[9]))
        left = gen[0:8] + mark
        right = [*gen[0:4], gen[4] | gen[8], gen[5] | gen[9], *gen[6:8], *mark]
    return np.array(left, dtype=np.uint64), np.array(right, dtype=np.uint64)


def uniform_bits(bits: Any, dtype: str) -> Any:
    """Random bits as floats in [0, 1) of `dtype` (float32 or float64)."""
    if dtype == "float32":
        mantissa = (bits.astype(np.uint32) >> np.uint32(9)) | np.uint32(127 << 23)
        return mantissa.view(np.float32) - np.float32(1)
    mantissa = (bits >> np.uint64(12)) | np.uint64(1023 << 52)
    return mantissa.view(np.float64) - np.float64(1)


# ---------------------------------------------------------------- relations


def _key(r: Relation, i: int) -> None:
    t = r.tensor(i)
    shape = static_shape(t.shape)
    if (shape is not None and shape != (10,)) or (isinstance(t.dtype, str) and t.dtype != "uint64"):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` takes a Threefry key of type `Tensor[(10), uint64]`, found `Tensor[{shape_text(t.shape)}, "
            f"{t.dtype}]`",
            arg=i,
            notes=["a key comes from a seed (TVM's `threefry_key`) or from another `random.*` call"],
        )
    r.refine(i, KEY)


def _out_shape(r: Relation) -> tuple[int, ...]:
    shape = tuple(r.attrs["out_shape"])
    if any(d < 0 for d in shape):
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: out_shape cannot have negative sizes, found {list(shape)}")
    return shape


@relation("ThreefryGenerate", inputs=1)
def generate_rel(r: Relation) -> bool:
    _key(r, 0)
    r.set_result(TupleType((KEY, TensorType(_out_shape(r), "uint64"))))
    return True


@relation("ThreefrySplit", inputs=1)
def split_rel(r: Relation) -> bool:
    _key(r, 0)
    r.set_result(TupleType((KEY, KEY)))
    return True


@relation("Uniform", inputs=3)
def distribution_rel(r: Relation) -> bool:
    dtype = r.attrs["out_dtype"]
    if dtype not in ("float32", "float64"):
        r.fail(
            codes.TYPE_MISMATCH,
            f"`{r.op}` generates float32 or float64 values, not {dtype}",
            notes=["TVM supports only these two out_dtypes"],
        )
    shape = _out_shape(r)
    _key(r, 0)
    r.refine(1, TensorType((), dtype))
    r.refine(2, TensorType((), dtype))
    r.set_result(TupleType((KEY, TensorType(shape, dtype))))
    return True


@relation("Normal", inputs=3)
def normal_rel(r: Relation) -> bool:
    return distribution_rel(r)


@relation("Multinomial", inputs=2)
def multinomial_rel(r: Relation) -> bool:
    _key(r, 0)
    k = r.attrs["num_samples"]
    if k < 0:
        r.fail(codes.SHAPE_MISMATCH, f"`{r.op}`: num_samples cannot be negative, found {k}")
    probs = r.tensor(1)
    if not known_rank(probs.shape):
        return False
    if probs.shape == ():
        r.fail(
            codes.SHAPE_MISMATCH, f"`{r.op}` takes probabilities along the last axis of a tensor, found a scalar", arg=1
        )
    r.set_result(TupleType((KEY, TensorType((*probs.shape[:-1], k), "int32"))))
    return True


# ---------------------------------------------------------------- kernels


def _draw(name: str, key: Any, shape: Shape) -> tuple[Any, Any]:
    n = math.prod(shape)
    if n > MAX_NUMBERS:
        raise KernelError(codes.RUNTIME_ERROR, f"`{name}`: {n} random numbers are more than this evaluator generates")
    new_key, bits = generate(key, n)
    return new_key, bits.reshape(shape)


@register(
    "random.threefry_generate",
    inputs=1,
    relation=generate_rel,
    attrs=(Attr("out_shape", "ints"),),
    doc="Random uint64 numbers of out_shape from a Threefry key, and the next key.",
)
def threefry_generate(args: Args, attrs: Attrs) -> Value:
    return _draw("random.threefry_generate", args[0], tuple(attrs["out_shape"]))


@register("random.threefry_split", inputs=1, relation=split_rel, doc="Two independent Threefry keys from one.")
def threefry_split(args: Args, attrs: Attrs) -> Value:
    return split(args[0])


_DISTRIBUTION_ATTRS = (Attr("out_shape", "ints"), Attr("out_dtype", "dtype", "float32"))


@register(
    "random.uniform",
    inputs=3,
    relation=distribution_rel,
    attrs=_DISTRIBUTION_ATTRS,
    doc="Uniform random values in [low, high) of out_shape, and the next key.",
)
def uniform(args: Args, attrs: Attrs) -> Value:
    key, low, high = args
    dtype = attrs["out_dtype"]
    new_key, bits = _draw("random.uniform", key, tuple(attrs["out_shape"]))
    with np.errstate(all="ignore"):
        values = uniform_bits(bits, dtype) * (high - low) + low
    return new_key, np.asarray(values, dtype=dtype)


@register(
    "random.normal",
    inputs=3,
    relation=normal_rel,
    attrs=_DISTRIBUTION_ATTRS,
    doc="Normal random values (Box-Muller) of out_shape with the given mean and scale, and the next key.",
)
def normal(args: Args, attrs: Attrs) -> Value:
    key, mean, scale = args
    dtype = np.dtype(attrs["out_dtype"])
    t = dtype.type
    new_key, bits = _draw("random.normal", key, (2, *attrs["out_shape"]))
    u = uniform_bits(bits, attrs["out_dtype"])
    with np.errstate(all="ignore"):
        radius = np.sqrt(t(-2) * np.log(t(1) - u[0]))
        values = radius * np.sin(t(2 * math.pi) * u[1]) * scale + mean
    return new_key, np.asarray(values, dtype=dtype)


@register(
    "random.multinomial",
    inputs=2,
    relation=multinomial_rel,
    attrs=(Attr("num_samples", "int", 1),),
    doc="Indices drawn from the distribution along the last axis of probs, num_samples per row, and the next key.",
)
def multinomial(args: Args, attrs: Attrs) -> Value:
    key, probs = args
    k = attrs["num_samples"]
    p = np.maximum(probs.astype(np.float32), np.float32(0))
    with np.errstate(all="ignore"):
        # sums in order, as TVM's loops add (numpy's sum pairs terms up)
        total = np.add.accumulate(p, axis=-1)[..., -1:] if p.shape[-1] else np.zeros((*p.shape[:-1], 1), np.float32)
        cumulative = np.cumsum(p / total, axis=-1, dtype=np.float32)
    rows = p.shape[:-1]
    new_key, bits = _draw("random.multinomial", key, (*rows, k))
    u = uniform_bits(bits, "float32")
    if p.shape[-1] == 0:
        return new_key, np.zeros((*rows, k), dtype=np.int32)
    if math.prod(p.shape) * k > MAX_NUMBERS:
        raise KernelError(
            codes.RUNTIME_ERROR, "`random.multinomial`: too many probabilities times samples for this evaluator"
        )
    gap = cumulative[..., :, None] - u[..., None, :]
    closest = np.where(gap > 0, gap, np.float32(1))
    return new_key, np.argmin(closest, axis=-2).astype(np.int32)
