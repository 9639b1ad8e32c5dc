"""Relations and kernels of the nn operators of tests/ops/nn/ (losses, norms,
pools, space, upsampling) agree on plausible calls: shapes of the right
rank, attributes from the values each operator takes (tests/ops/test_consistency.py draws shapes and attributes
at random, which these operators almost always reject). On every call the
checker accepts, the kernel returns exactly the type the relation states,
or raises KernelError; the checker itself never raises."""

from __future__ import annotations

import random

import numpy as np
import pytest

from relay_text.ir.span import Source
from relay_text.ops import KernelError, get
from relay_text.pipeline import check_source
from tests.ops.test_consistency import _has_type, _value

DTYPES = ["float32", "float64", "float16", "int32", "int8", "int64", "uint8", "bool"]


class Draw:
    """Random pieces of a call: shapes, int lists, choices."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.dtype = self.rng.choice(DTYPES)

    def pick(self, *options):
        return self.rng.choice(options)

    def ints(self, n: int, lo: int, hi: int) -> list[int]:
        return [self.rng.randint(lo, hi) for _ in range(n)]

    def shape(self, rank: int, lo: int = 1, hi: int = 6) -> str:
        return shape_text(self.ints(rank, lo, hi))

    def t(self, shape: str, dtype: str | None = None) -> str:
        return f"Tensor[{shape}, {dtype or self.dtype}]"


def shape_text(dims: list[int]) -> str:
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


def windowed(name: str, d: Draw) -> tuple[str, list[str]]:
    n = 1 if "1d" in name else 3
    layout = d.pick("NCW", "NWC") if n == 1 else d.pick("NCDHW", "NDHWC")
    attrs = [
        f"pool_size={d.ints(d.pick(1, n), 1, 3)}",
        f"strides={d.ints(d.pick(1, n), 1, 3)}",
        f"dilation={d.ints(d.pick(1, n), 1, 2)}",
        f"padding={d.ints(d.pick(1, n, 2 * n), 0, 2)}",
        f'layout="{layout}"',
        f"ceil_mode={d.pick(True, False)}",
    ]
    if "avg" in name:
        attrs.append(f"count_include_pad={d.pick(True, False)}")
    return f"{name}(%a, {', '.join(attrs)})", [d.t(d.shape(n + 2))]


def adaptive(name: str, d: Draw) -> tuple[str, list[str]]:
    n = int(name[-2])
    layout = d.pick("NCW", "NWC") if n == 1 else d.pick("NCDHW", "NDHWC")
    return f'{name}(%a, output_size={d.ints(d.pick(0, 1, n), 1, 4)}, layout="{layout}")', [d.t(d.shape(n + 2))]


def pool_grad(name: str, d: Draw) -> tuple[str, list[str]]:
    attrs = [
        f"pool_size={d.ints(d.pick(1, 2), 1, 3)}",
        f"strides={d.ints(d.pick(1, 2), 1, 3)}",
        f"padding={d.ints(d.pick(1, 2, 4), 0, 1)}",
    ]
    attrs += [f'layout="{d.pick("NCHW", "NHWC")}"', f"ceil_mode={d.pick(True, False)}"]
    if "avg" in name:
        attrs.append(f"count_include_pad={d.pick(True, False)}")
    return f"{name}(%a, %b, {', '.join(attrs)})", ["Tensor[_, _]", d.t(d.shape(4))]


def sub_pixel(name: str, d: Draw) -> tuple[str, list[str]]:
    attrs = f'block_size={d.rng.randint(1, 3)}, layout="{d.pick("NCHW", "NHWC")}", mode="{d.pick("DCR", "CDR")}"'
    return f"{name}(%a, {attrs})", [d.t(d.shape(4, 1, 9))]


def space_batch(name: str, d: Draw) -> tuple[str, list[str]]:
    m = d.rng.randint(1, 2)
    pairs = "[" + ", ".join(str(d.ints(2, 0, 2)) for _ in range(m)) + "]"
    rank = m + d.rng.randint(1, 2)
    if name == "nn.space_to_batch_nd":
        return f"{name}(%a, block_shape={d.ints(m, 1, 2)}, paddings={pairs}, pad_value={d.pick('0f', '2.5f')})", [
            d.t(d.shape(rank))
        ]
    return f"{name}(%a, block_shape={d.ints(m, 1, 2)}, crops={pairs})", [d.t(d.shape(rank))]


def padding(name: str, d: Draw) -> tuple[str, list[str]]:
    rank = d.rng.randint(1, 3)
    widths = "[" + ", ".join(str(d.ints(2, 0, 3)) for _ in range(rank)) + "]"
    if name == "nn.mirror_pad":
        return f'{name}(%a, pad_width={widths}, mode="{d.pick("SYMMETRIC", "REFLECT")}")', [d.t(d.shape(rank))]
    mode = d.pick("constant", "edge", "reflect")
    return f'{name}(%a, %b, %c, pad_mode="{mode}")', [
        d.t(d.shape(rank)),
        d.t(f"({rank}, 2)", d.pick("int32", "int64")),
        d.t("()", d.pick("float32", "int32")),
    ]


def norm(name: str, d: Draw) -> tuple[str, list[str]]:
    rank = d.rng.randint(2, 5)
    if name == "nn.l2_normalize":
        return f"{name}(%a, eps={d.pick('1e-3f', '0.5f')}, axis={d.ints(d.rng.randint(0, 2), -rank, rank - 1)})", [
            d.t(d.shape(rank))
        ]
    attrs = f"axis={d.rng.randint(-rank, rank - 1)}, center={d.pick(True, False)}, scale={d.pick(True, False)}"
    if name == "nn.group_norm":
        attrs += f", num_groups={d.rng.randint(1, 3)}"
    return f"{name}(%a, %b, %c, {attrs})", [d.t(d.shape(rank)), "Tensor[_, _]", "Tensor[_, _]"]


def activation(name: str, d: Draw) -> tuple[str, list[str]]:
    rank = d.rng.randint(1, 4)
    if name == "nn.prelu":
        return f"{name}(%a, %b, axis={d.rng.randint(-rank, rank - 1)})", [d.t(d.shape(rank)), "Tensor[_, _]"]
    return f"{name}(%a, axis={d.rng.randint(-rank, rank - 1)})", [d.t(d.shape(rank))]


def loss(name: str, d: Draw) -> tuple[str, list[str]]:
    if name.startswith("nn.cross_entropy"):
        s = d.shape(2)
        return f"{name}(%a, %b)", [d.t(s), d.t(s)]
    if name == "nn.fifo_buffer":
        buffer = d.ints(d.rng.randint(1, 3), 2, 5)
        axis = d.rng.randint(0, len(buffer) - 1)
        data = list(buffer)
        data[axis] = d.rng.randint(1, buffer[axis] - 1)
        return f"{name}(%a, %b, axis={axis - len(buffer) * d.pick(0, 1)})", [
            d.t(shape_text(data)),
            d.t(shape_text(buffer)),
        ]
    pred = d.ints(d.rng.randint(2, 4), 1, 4)
    targets = shape_text([pred[0], *pred[2:]])
    attrs = f'reduction="{d.pick("none", "mean", "sum")}", ignore_index={d.rng.randint(-1, 2)}'
    return f"{name}(%a, %b, %c, {attrs})", [
        d.t(shape_text(pred)),
        d.t(targets, d.pick("int32", "int64")),
        d.t(f"({pred[1]},)"),
    ]


def upsampling(name: str, d: Draw) -> tuple[str, list[str]]:
    if name == "nn.upsampling3d":
        scales = ", ".join(f"scale_{a}={d.pick('1f', '2f', '1.5f', '0.5f')}" for a in "dhw")
        attrs = f'{scales}, layout="{d.pick("NCDHW", "NDHWC")}", method="{d.pick("nearest_neighbor", "trilinear")}"'
        attrs += f', coordinate_transformation_mode="{d.pick("half_pixel", "align_corners", "asymmetric")}"'
        return f"{name}(%a, {attrs})", [d.t(d.shape(5, 1, 4))]
    if name == "dyn.nn.upsampling":
        attrs = (
            f'layout="{d.pick("NCHW", "NHWC")}", method="{d.pick("nearest_neighbor", "bilinear", "bicubic")}", '
            f"align_corners={d.pick(True, False)}"
        )
        return f"{name}(%a, %b, %c, {attrs})", [d.t(d.shape(4, 1, 4)), d.t("()", "float32"), d.t("()", "float64")]
    return f'{name}(%a, %b, %c, %d, method="{d.pick("nearest_neighbor", "trilinear")}")', [d.t(d.shape(5, 1, 3))] + [
        d.t("()", "float32")
    ] * 3


MAKERS = {
    **dict.fromkeys(["nn.max_pool1d", "nn.avg_pool1d", "nn.max_pool3d", "nn.avg_pool3d"], windowed),
    **dict.fromkeys(
        ["nn.adaptive_avg_pool1d", "nn.adaptive_max_pool1d", "nn.adaptive_avg_pool3d", "nn.adaptive_max_pool3d"],
        adaptive,
    ),
    **dict.fromkeys(["nn.max_pool2d_grad", "nn.avg_pool2d_grad"], pool_grad),
    **dict.fromkeys(["nn.depth_to_space", "nn.space_to_depth"], sub_pixel),
    **dict.fromkeys(["nn.space_to_batch_nd", "nn.batch_to_space_nd"], space_batch),
    **dict.fromkeys(["nn.mirror_pad", "dyn.nn.pad"], padding),
    **dict.fromkeys(["nn.group_norm", "nn.instance_norm", "nn.l2_normalize"], norm),
    **dict.fromkeys(["nn.prelu", "nn.fast_softmax"], activation),
    **dict.fromkeys(["nn.cross_entropy", "nn.cross_entropy_with_logits", "nn.nll_loss", "nn.fifo_buffer"], loss),
    **dict.fromkeys(["nn.upsampling3d", "dyn.nn.upsampling", "dyn.nn.upsampling3d"], upsampling),
}


def _input(name: str, t, values: np.random.Generator) -> np.ndarray:
    """A value of type t; run-time widths, scales and targets drawn from ranges that mostly work."""
    if name.startswith("dyn.nn.upsampling") and t.shape == ():
        return np.asarray(values.choice([0.5, 1.0, 1.5, 2.0, 0.0, -1.0]), dtype=t.dtype)
    if name == "dyn.nn.pad" and len(t.shape) == 2:
        return values.integers(-1, 3, t.shape).astype(t.dtype)
    if name == "nn.nll_loss" and t.dtype.startswith("int"):
        return values.integers(-1, 4, t.shape).astype(t.dtype)
    return _value(t, values)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_kernel_returns_the_type_the_relation_states(name: str) -> None:
    op = get(name)
    assert op is not None
    values = np.random.default_rng(0)
    accepted = 0
    for seed in range(40):
        call, types = MAKERS[name](name, Draw(seed))
        params = ", ".join(f"%{chr(97 + i)}: {t}" for i, t in enumerate(types))
        checked = check_source(Source("agree.rly", f"def @main({params}) {{\n  {call}\n}}\n"))
        if checked.errors:
            continue
        accepted += 1
        main = checked.result.global_type("main")
        attrs, problems = op.normalize_attrs(next(iter(checked.module.functions.values())).body.attrs)
        assert not problems
        inputs = tuple(_input(name, t, values) for t in main.arg_types)
        with np.errstate(all="ignore"):
            try:
                out = op.kernel(inputs, attrs)
            except KernelError:
                continue
        assert _has_type(out, main.ret_type), (call, types, getattr(out, "shape", None), getattr(out, "dtype", None))
    assert accepted >= 8, f"only {accepted} of 40 calls checked"
