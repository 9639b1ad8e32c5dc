"""Every operator's numpy kernel, against hand-computed or naive references.

The kernel contract (see `relay_text.ops.registry`): arrays of exact dtypes
in and out, 0-d arrays for scalars, no promotion, integer division toward
zero, wrapping integer overflow, `KernelError` for value-dependent failures.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from relay_text.ops import KernelError, get, names


def run(name: str, *args, **attrs):
    op = get(name)
    assert op is not None
    full, problems = op.normalize_attrs(attrs.items())
    assert not problems, [p.message for p in problems]
    return op.kernel(tuple(args), full)


def a(values, dtype="float32"):
    return np.array(values, dtype=dtype)


def same(x, expected, dtype=None) -> None:
    assert isinstance(x, np.ndarray), type(x)
    exp = np.asarray(expected)
    assert x.dtype == np.dtype(dtype or exp.dtype), (x.dtype, dtype or exp.dtype)
    assert x.shape == exp.shape
    np.testing.assert_allclose(x, exp, rtol=1e-6, atol=1e-6)


TESTED: set[str] = set()


def covers(*ops: str):
    TESTED.update(ops)

    def mark(f):
        return f

    return mark


# ---------------------------------------------------------------- arithmetic


@covers("add", "subtract", "multiply", "maximum", "minimum", "power")
def test_broadcasting_arithmetic() -> None:
    x = a([[1, 2, 3], [4, 5, 6]])
    y = a([10, 20, 30])
    same(run("add", x, y), a([[11, 22, 33], [14, 25, 36]]))
    same(run("subtract", x, y), a([[-9, -18, -27], [-6, -15, -24]]))
    same(run("multiply", x, a(2)), a([[2, 4, 6], [8, 10, 12]]))
    same(run("maximum", x, a(3.5)), a([[3.5, 3.5, 3.5], [4, 5, 6]]))
    same(run("minimum", x, a(3.5)), a([[1, 2, 3], [3.5, 3.5, 3.5]]))
    same(run("power", x, a(2)), a([[1, 4, 9], [16, 25, 36]]))


def test_scalars_stay_zero_dimensional_arrays_of_their_dtype() -> None:
    r = run("add", a(1.5), a(2.25))
    assert isinstance(r, np.ndarray) and r.shape == () and r.dtype == np.float32 and float(r) == 3.75
    r = run("add", a(1, "int32"), a(2, "int32"))
    assert isinstance(r, np.ndarray) and r.shape == () and r.dtype == np.int32


def test_float32_is_not_promoted() -> None:
    assert run("multiply", a([1.1]), a([3.3])).dtype == np.float32
    assert run("divide", a([1.0]), a([3.0])).dtype == np.float32
    assert run("mean", a([1.0, 2.0])).dtype == np.float32


def test_integer_overflow_wraps() -> None:
    same(run("add", a(2**31 - 1, "int32"), a(1, "int32")), a(-(2**31), "int32"))
    same(run("multiply", a([100], "int8"), a([3], "int8")), a([44], "int8"))
    same(run("negative", a(-(2**31), "int32")), a(-(2**31), "int32"))


@covers("divide", "floor_divide", "mod", "floor_mod")
def test_integer_division_truncates_and_floor_variants_floor() -> None:
    x = a([-7, 7, -7, 7], "int32")
    y = a([2, 2, -2, -2], "int32")
    same(run("divide", x, y), a([-3, 3, 3, -3], "int32"))
    same(run("mod", x, y), a([-1, 1, -1, 1], "int32"))
    same(run("floor_divide", x, y), a([-4, 3, 3, -4], "int32"))
    same(run("floor_mod", x, y), a([1, 1, -1, -1], "int32"))
    same(run("divide", a([7.0]), a([2.0])), a([3.5]))
    same(run("floor_divide", a([-7.0]), a([2.0])), a([-4.0]))
    same(run("divide", a(-(2**31), "int32"), a(-1, "int32")), a(-(2**31), "int32"))


@pytest.mark.parametrize("op", ["divide", "floor_divide", "mod", "floor_mod"])
def test_integer_division_by_zero_is_a_kernel_error(op: str) -> None:
    with pytest.raises(KernelError) as info:
        run(op, a([1, 2], "int32"), a([1, 0], "int32"))
    assert info.value.code == "division-by-zero"


def test_float_division_by_zero_follows_ieee() -> None:
    r = run("divide", a([1.0, -1.0]), a([0.0, 0.0]))
    assert list(r) == [np.inf, -np.inf]


def test_integer_power_with_negative_exponent_is_an_error() -> None:
    with pytest.raises(KernelError):
        run("power", a([2], "int32"), a([-1], "int32"))


# ---------------------------------------------------------------- comparison and logic


@covers("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
def test_comparisons_give_bool() -> None:
    x = a([1, 2, 3], "int32")
    y = a(2, "int32")
    same(run("equal", x, y), a([False, True, False], "bool"))
    same(run("not_equal", x, y), a([True, False, True], "bool"))
    same(run("less", x, y), a([True, False, False], "bool"))
    same(run("less_equal", x, y), a([True, True, False], "bool"))
    same(run("greater", x, y), a([False, False, True], "bool"))
    same(run("greater_equal", x, y), a([False, True, True], "bool"))


@covers("logical_and", "logical_or", "logical_xor", "logical_not")
def test_logic() -> None:
    p = a([True, True, False, False], "bool")
    q = a([True, False, True, False], "bool")
    same(run("logical_and", p, q), a([True, False, False, False], "bool"))
    same(run("logical_or", p, q), a([True, True, True, False], "bool"))
    same(run("logical_xor", p, q), a([False, True, True, False], "bool"))
    same(run("logical_not", p), a([False, False, True, True], "bool"))


# ---------------------------------------------------------------- unary


@covers("negative", "abs", "sign", "copy", "zeros_like", "ones_like")
def test_simple_unary() -> None:
    x = a([-2, 0, 3], "int32")
    same(run("negative", x), a([2, 0, -3], "int32"))
    same(run("abs", x), a([2, 0, 3], "int32"))
    same(run("sign", x), a([-1, 0, 1], "int32"))
    c = run("copy", x)
    same(c, x)
    assert c is not x
    same(run("zeros_like", a([1.5, 2.5])), a([0, 0]))
    same(run("ones_like", x), a([1, 1, 1], "int32"))


@covers(
    "exp",
    "log",
    "log2",
    "log10",
    "sqrt",
    "rsqrt",
    "tanh",
    "sigmoid",
    "sin",
    "cos",
    "tan",
    "floor",
    "ceil",
    "round",
    "trunc",
)
def test_float_unary() -> None:
    x = a([0.25, 1.0, 4.0])
    same(run("exp", a([0.0, 1.0])), a([1.0, np.e]))
    same(run("log", a([1.0, np.e])), a([0.0, 1.0]))
    same(run("log2", x), a([-2.0, 0.0, 2.0]))
    same(run("log10", a([1.0, 100.0])), a([0.0, 2.0]))
    same(run("sqrt", x), a([0.5, 1.0, 2.0]))
    same(run("rsqrt", x), a([2.0, 1.0, 0.5]))
    same(run("tanh", a([0.0])), a([0.0]))
    same(run("sigmoid", a([0.0, -1000.0, 1000.0])), a([0.5, 0.0, 1.0]))
    same(run("sin", a([0.0, np.pi / 2])), a([0.0, 1.0]))
    same(run("cos", a([0.0, np.pi])), a([1.0, -1.0]))
    same(run("tan", a([0.0, np.pi / 4])), a([0.0, 1.0]))
    y = a([-1.5, -0.5, 0.5, 1.5, 2.5])
    same(run("floor", y), a([-2, -1, 0, 1, 2]))
    same(run("ceil", y), a([-1, -0.0, 1, 2, 3]))
    same(run("round", y), a([-2, -1, 1, 2, 3]))  # halves away from zero, as TVM's round (C's round())
    same(run("trunc", y), a([-1, -0.0, 0, 1, 2]))


def test_sigmoid_keeps_float64() -> None:
    assert run("sigmoid", a([0.0], "float64")).dtype == np.float64


# ---------------------------------------------------------------- selection and casts


@covers("where", "clip", "cast", "cast_like")
def test_selection_and_casts() -> None:
    cond = a([[True], [False]], "bool")
    same(run("where", cond, a([1, 2, 3]), a(0)), a([[1, 2, 3], [0, 0, 0]]))
    same(run("clip", a([-1.0, 0.5, 9.0]), a_min=0, a_max=6), a([0.0, 0.5, 6.0]))
    same(run("clip", a([-200, 0, 200], "int16"), a_min=-1.5, a_max=100.5), a([-1, 0, 100], "int16"))
    same(run("cast", a([1.7, -1.7, 2.0]), dtype="int32"), a([1, -1, 2], "int32"))
    same(run("cast", a([0, 2], "int32"), dtype="bool"), a([False, True], "bool"))
    same(run("cast_like", a([1, 2], "int32"), a(0, "float16")), a([1, 2], "float16"))


# ---------------------------------------------------------------- reductions


@covers("sum", "mean", "max", "min", "prod", "all", "any")
def test_reductions() -> None:
    x = a([[1, 2, 3], [4, 5, 6]])
    same(run("sum", x), a(21))
    same(run("sum", x, axis=[1]), a([6, 15]))
    same(run("sum", x, axis=[-1], keepdims=True), a([[6], [15]]))
    same(run("sum", x, axis=[0], exclude=True), a([6, 15]))
    same(run("mean", x, axis=[0]), a([2.5, 3.5, 4.5]))
    same(run("max", x, axis=[0]), a([4, 5, 6]))
    same(run("min", x), a(1))
    same(run("prod", x, axis=[1]), a([6, 120]))
    b = a([[True, False], [True, True]], "bool")
    same(run("all", b, axis=[1]), a([False, True], "bool"))
    same(run("any", b), a(True, "bool"))


def test_integer_mean_truncates() -> None:
    same(run("mean", a([1, 2], "int32")), a(1, "int32"))
    same(run("mean", a([-1, -2], "int32")), a(-1, "int32"))


@covers("argmax", "argmin")
def test_arg_reductions() -> None:
    x = a([[1, 9, 3], [7, 2, 7]])
    same(run("argmax", x, axis=[1]), a([1, 0], "int32"))
    same(run("argmax", x, axis=[1], select_last_index=True), a([1, 2], "int32"))
    same(run("argmin", x, axis=[0]), a([0, 1, 0], "int32"))
    same(run("argmax", x), a(1, "int32"))
    same(run("argmin", x, axis=[1], keepdims=True), a([[0], [1]], "int32"))


# ---------------------------------------------------------------- shapes


@covers("reshape")
def test_reshape_special_values() -> None:
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    assert run("reshape", x, newshape=[4, -1]).shape == (4, 6)
    assert run("reshape", x, newshape=[0, -1]).shape == (2, 12)
    assert run("reshape", x, newshape=[-3, 4]).shape == (6, 4)
    assert run("reshape", x, newshape=[0, -2]).shape == (2, 3, 4)
    assert run("reshape", x, newshape=[-4, 1, 2, -2]).shape == (1, 2, 3, 4)
    same(run("reshape", x, newshape=[24]), np.arange(24, dtype="float32"))


def test_reshape_shapes_are_remembered_and_failures_are_not() -> None:
    """The kernel remembers the dimensions of a shape and newshape (a model
    reshapes the same ones at every run); a reshape that fails fails every
    time with the same error."""
    from relay_text.ops.tensor import transform

    transform._kernel_dims.cache_clear()
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    for _ in range(3):
        assert run("reshape", x, newshape=[0, -1]).shape == (2, 12)
    info = transform._kernel_dims.cache_info()
    assert (info.hits, info.misses) == (2, 1)
    for _ in range(2):
        with pytest.raises(KernelError) as caught:
            run("reshape", x, newshape=[5, -1])
        assert caught.value.code == "runtime-error"
        assert str(caught.value) == "cannot reshape (2, 3, 4) (24 elements) into newshape [5, -1]"
    for _ in range(2):
        with pytest.raises(KernelError) as caught:
            run("reshape", x, newshape=[0, 0, 0, 0])
        assert caught.value.code == "runtime-error"
        assert str(caught.value) == "`reshape`: 0 at position 3 has no input dimension to copy"


@covers("transpose", "squeeze", "expand_dims")
def test_axes() -> None:
    x = np.arange(6, dtype="int32").reshape(1, 2, 3)
    same(run("transpose", x), x.T)
    same(run("transpose", x, axes=[0, 2, 1]), np.transpose(x, (0, 2, 1)))
    same(run("squeeze", x), x.reshape(2, 3))
    same(run("squeeze", x.reshape(1, 6, 1), axis=[-1]), x.reshape(1, 6))
    assert run("expand_dims", x, axis=1, num_newaxis=2).shape == (1, 1, 1, 2, 3)
    assert run("expand_dims", x, axis=-1).shape == (1, 2, 3, 1)


@covers("concatenate", "stack", "split")
def test_join_and_split() -> None:
    p, q = a([[1, 2]]), a([[3, 4], [5, 6]])
    same(run("concatenate", (p, q), axis=0), a([[1, 2], [3, 4], [5, 6]]))
    same(run("stack", (a([1, 2]), a([3, 4])), axis=1), a([[1, 3], [2, 4]]))
    parts = run("split", np.arange(6, dtype="float32"), indices_or_sections=3)
    assert isinstance(parts, tuple) and [list(x) for x in parts] == [[0, 1], [2, 3], [4, 5]]
    parts = run("split", np.arange(6, dtype="float32"), indices_or_sections=[1, 4])
    assert [list(x) for x in parts] == [[0], [1, 2, 3], [4, 5]]


@covers("take")
def test_take_modes() -> None:
    x = a([[1, 2], [3, 4], [5, 6]])
    same(run("take", x, a([2, 0], "int32"), axis=0), a([[5, 6], [1, 2]]))
    same(run("take", x, a([7, -1], "int32"), axis=0), a([[5, 6], [1, 2]]))  # clip
    same(run("take", x, a([4], "int32"), axis=0, mode="wrap"), a([[3, 4]]))
    same(run("take", x, a([5], "int64")), a([6]))
    with pytest.raises(KernelError):
        run("take", x, a([9], "int32"), axis=0, mode="fast")


def test_take_with_batch_dims_pairs_leading_axes() -> None:
    """topi take: with batch_dims=b each of the first b axes of the data
    goes with the same axis of the indices, and out[i, ...] takes from
    data[i] at indices[i]."""
    data = np.arange(24, dtype="float32").reshape(2, 3, 4)
    idx = a([[2, 0], [1, 1]], "int32")
    got = run("take", data, idx, axis=2, batch_dims=1)
    same(got, np.stack([np.take(data[0], idx[0], axis=1), np.take(data[1], idx[1], axis=1)]))
    assert got.shape == (2, 3, 2)
    same(run("take", data, idx, axis=1, batch_dims=-1), np.stack([np.take(data[i], idx[i], axis=0) for i in range(2)]))
    same(
        run("take", data, a([[5], [-1]], "int32"), axis=2, batch_dims=1), a([[[3], [7], [11]], [[12], [16], [20]]])
    )  # clip
    empty = run("take", np.zeros((0, 3), "float32"), np.zeros((0, 2), "int32"), axis=1, batch_dims=1)
    assert empty.shape == (0, 2) and empty.dtype == np.float32


@covers("broadcast_to", "zeros", "ones", "full", "full_like")
def test_creation() -> None:
    same(run("broadcast_to", a([1, 2]), shape=[2, 2]), a([[1, 2], [1, 2]]))
    same(run("zeros", shape=[2]), a([0, 0]))
    same(run("ones", shape=[1, 2], dtype="int8"), a([[1, 1]], "int8"))
    same(run("full", a(7, "int32"), shape=[2]), a([7, 7], "int32"))
    same(run("full", a(7, "int32"), shape=[1], dtype="float64"), a([7.0], "float64"))
    same(run("full_like", a([1, 2], "int64"), a(3, "int64")), a([3, 3], "int64"))


# ---------------------------------------------------------------- nn


@covers("nn.relu", "nn.leaky_relu", "nn.softmax", "nn.log_softmax", "nn.dropout")
def test_activations() -> None:
    x = a([[-1.0, 0.0, 2.0]])
    same(run("nn.relu", x), a([[0.0, 0.0, 2.0]]))
    same(run("nn.leaky_relu", x, alpha=0.1), a([[-0.1, 0.0, 2.0]]))
    e = np.exp([-1.0, 0.0, 2.0])
    same(run("nn.softmax", x), a([e / e.sum()]))
    same(run("nn.log_softmax", x, axis=1), a([np.log(e / e.sum())]))
    out, mask = run("nn.dropout", x, rate=0.3)
    same(out, x)
    same(mask, a([[1.0, 1.0, 1.0]]))


@covers("nn.dense", "nn.batch_matmul", "nn.bias_add", "nn.batch_flatten")
def test_dense_family() -> None:
    x = a([[1, 2], [3, 4]])
    w = a([[1, 0], [0, 1], [1, 1]])
    same(run("nn.dense", x, w, units=3), a([[1, 2, 3], [3, 4, 7]]))
    p = np.arange(12, dtype="float32").reshape(2, 2, 3)
    q = np.arange(12, dtype="float32").reshape(2, 2, 3)
    same(run("nn.batch_matmul", p, q, transpose_b=True), np.matmul(p, np.swapaxes(q, 1, 2)))
    same(run("nn.batch_matmul", p, np.swapaxes(q, 1, 2)), np.matmul(p, np.swapaxes(q, 1, 2)))
    same(
        run("nn.bias_add", np.zeros((1, 2, 2, 2), "float32"), a([1, 2])),
        np.array([1, 2], "float32").reshape(1, 2, 1, 1) * np.ones((1, 2, 2, 2), "float32"),
    )
    same(run("nn.batch_flatten", np.zeros((2, 3, 4), "float32")), np.zeros((2, 12), "float32"))


def _conv_reference(x, w, stride, pad, dilation, groups):
    """Direct loops over every output element (NCHW, OIHW; pad = top, left, bottom, right)."""
    n, _c, h, wd = x.shape
    o, ipg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    oh = (h + pad[0] + pad[2] - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd + pad[1] + pad[3] - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow), dtype="float64")
    opg = o // groups
    for b, oc, i, j in itertools.product(range(n), range(o), range(oh), range(ow)):
        g = oc // opg
        total = 0.0
        for ic, ki, kj in itertools.product(range(ipg), range(kh), range(kw)):
            total += xp[b, g * ipg + ic, i * stride + ki * dilation, j * stride + kj * dilation] * w[oc, ic, ki, kj]
        out[b, oc, i, j] = total
    return out.astype(x.dtype)


@covers("nn.conv2d")
@pytest.mark.parametrize(
    "stride, pad, dilation, groups",
    [
        (1, (0, 0, 0, 0), 1, 1),
        (2, (1, 1, 1, 1), 1, 1),
        (1, (1, 2, 0, 1), 2, 1),
        (1, (1, 1, 1, 1), 1, 2),
        (2, (0, 0, 0, 0), 1, 4),
    ],
)
def test_conv2d_against_direct_loops(stride, pad, dilation, groups) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 7, 6)).astype("float32")
    w = rng.standard_normal((4, 4 // groups, 3, 3)).astype("float32")
    got = run(
        "nn.conv2d", x, w, strides=[stride, stride], padding=list(pad), dilation=[dilation, dilation], groups=groups
    )
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _conv_reference(x, w, stride, pad, dilation, groups), rtol=1e-4, atol=1e-4)


def test_conv2d_nhwc_hwio() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 3, 5, 5)).astype("float32")
    w = rng.standard_normal((2, 3, 3, 3)).astype("float32")
    ref = run("nn.conv2d", x, w, padding=[1, 1])
    got = run(
        "nn.conv2d",
        np.transpose(x, (0, 2, 3, 1)),
        np.transpose(w, (2, 3, 1, 0)),
        padding=[1, 1],
        data_layout="NHWC",
        kernel_layout="HWIO",
    )
    np.testing.assert_allclose(got, np.transpose(ref, (0, 2, 3, 1)), rtol=1e-5, atol=1e-5)


@covers("nn.batch_norm")
def test_batch_norm() -> None:
    x = a([[[[1.0]], [[2.0]]]])  # (1, 2, 1, 1)
    gamma, beta, mean, var = a([2.0, 1.0]), a([0.5, 0.0]), a([1.0, 0.0]), a([4.0, 1.0])
    out, m, v = run("nn.batch_norm", x, gamma, beta, mean, var, epsilon=0.0)
    same(out, a([[[[0.5]], [[2.0]]]]))
    same(m, mean)
    same(v, var)


def _pool_reference(x, k, stride, pad, kind, include_pad=False):
    n, c, h, w = x.shape
    oh = (h + pad[0] + pad[2] - k) // stride + 1
    ow = (w + pad[1] + pad[3] - k) // stride + 1
    out = np.zeros((n, c, oh, ow), dtype=x.dtype)
    for b, ch, i, j in itertools.product(range(n), range(c), range(oh), range(ow)):
        vals = []
        count = 0
        for ki, kj in itertools.product(range(k), range(k)):
            r, s = i * stride + ki - pad[0], j * stride + kj - pad[1]
            if 0 <= r < h and 0 <= s < w:
                vals.append(x[b, ch, r, s])
                count += 1
            elif include_pad:
                vals.append(0.0)
                count += 1
        out[b, ch, i, j] = max(vals) if kind == "max" else sum(vals) / count
    return out


@covers("nn.max_pool2d", "nn.avg_pool2d", "nn.global_avg_pool2d", "nn.global_max_pool2d")
def test_pooling() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 2, 5, 5)).astype("float32")
    pad = (1, 1, 1, 1)
    got = run("nn.max_pool2d", x, pool_size=[3, 3], strides=[2, 2], padding=list(pad))
    np.testing.assert_allclose(got, _pool_reference(x, 3, 2, pad, "max"), rtol=1e-6)
    got = run("nn.avg_pool2d", x, pool_size=[3, 3], strides=[2, 2], padding=list(pad))
    np.testing.assert_allclose(got, _pool_reference(x, 3, 2, pad, "avg"), rtol=1e-5)
    got = run("nn.avg_pool2d", x, pool_size=[3, 3], strides=[2, 2], padding=list(pad), count_include_pad=True)
    np.testing.assert_allclose(got, _pool_reference(x, 3, 2, pad, "avg", include_pad=True), rtol=1e-5)
    same(run("nn.global_avg_pool2d", x), x.mean(axis=(2, 3), keepdims=True))
    same(run("nn.global_max_pool2d", x), x.max(axis=(2, 3), keepdims=True))


def test_max_pool_ceil_mode_keeps_the_partial_window() -> None:
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    got = run("nn.max_pool2d", x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)
    same(got, a([[[[10, 11], [14, 15]]]]))


def test_every_operator_has_a_kernel_test() -> None:
    from tests.ops.test_model_ops import KERNELS_TESTED

    from tests.ops.test_coverage import family_operators

    assert sorted(set(names()) - TESTED - KERNELS_TESTED - family_operators()) == []
