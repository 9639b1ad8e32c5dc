"""Attention: ONNX's `Attention` (opset 23 on) and the `com.microsoft`
`Attention` / `QAttention` of transformer exports (as TVM imported them).

ONNX's operator, step by step (shapes static):

* 3-D inputs `(batch, seq, heads * head_size)` are split into heads
  (`q_num_heads`, `kv_num_heads`); Q and K are each scaled by the square
  root of `scale` (default 1/sqrt(head_size));
* `past_key` / `past_value` are prepended along the sequence
  (`present_key` / `present_value`); with fewer key/value heads than query
  heads, each key/value head is repeated for its group of queries;
* the additive bias: the mask (a boolean mask keeps True, a float mask is
  added; a mask shorter than the keys is padded with -inf), the causal
  mask (query i sees key j when j <= i + offset, the offset being the past
  length, or `nonpad_kv_seqlen` - the query length per batch), the sliding
  window, and the padding of `nonpad_kv_seqlen`;
* softmax(QK^T (softcapped) + bias), in the inputs' precision unless
  `softmax_precision` says otherwise (float16 step by step, see
  `ops_norm.softmax_in`), a row that sees no key giving zeros,
  then times V; `qk_matmul_output_mode` chooses the fourth output.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported, numpy_dtype
from ._common import cast, scalar
from .graph import Ctx
from .node import Node
from .ops_linalg import matmul
from .ops_norm import softmax_in
from .table import Converted, converter

MICROSOFT = "com.microsoft"


def _heads(b: Builder, x: Expr, heads: int, what: str) -> Expr:
    batch, seq, hidden = b.static_shape(x, what)
    if heads is None or hidden % heads:
        raise Unsupported(f"{what} of hidden size {hidden} cannot be split into {heads} heads")
    return b.call("transpose", b.call("reshape", x, newshape=[batch, seq, heads, hidden // heads]), axes=[0, 2, 1, 3])


def _neg_inf_where(b: Builder, allowed: Expr, dtype: str) -> Expr:
    return b.call("where", allowed, scalar(b, 0, dtype), scalar(b, float("-inf"), dtype))


@converter("Attention", since=23)
def attention(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    q, k, v = n.input(0), n.input(1), n.input(2)
    mask, past_k, past_v = n.input(3), n.input(4), n.input(5)
    nonpad = n.input(6) if n.opset >= 24 else None
    rank = b.rank(q)
    q_heads, kv_heads = n.attr("q_num_heads", None), n.attr("kv_num_heads", None)
    if rank == 3:
        q = _heads(b, q, q_heads, "Q")
        k = _heads(b, k, kv_heads, "K")
        v = _heads(b, v, kv_heads, "V")
    elif rank != 4:
        raise Unsupported(f"`Attention` takes 3- or 4-dimensional inputs, found {rank}")
    dt = b.dtype(q)
    head = b.static_shape(q, "Q")[3]
    s = n.attr("scale", None)
    s = 1 / math.sqrt(head) if s is None else s
    root = scalar(b, np.sqrt(np.float64(s)).astype(numpy_dtype(dt)), dt)
    is_causal = n.attr("is_causal", 0)
    softcap = n.attr("softcap", None)
    mode = n.attr("qk_matmul_output_mode", 0)
    precision = n.attr("softmax_precision", None)
    left, right = n.attr("left_window_size", -1), n.attr("right_window_size", -1)
    if past_k is not None:
        k = b.call("concatenate", b.tuple([past_k, k]), axis=2)
    if past_v is not None:
        v = b.call("concatenate", b.tuple([past_v, v]), axis=2)
    present_k, present_v = k, v
    q_len, kv_len = b.static_shape(q)[2], b.static_shape(k)[2]
    batch = b.static_shape(q)[0]
    bias = None
    if mask is not None:
        m_len = b.static_shape(mask, "the mask")[-1]
        if m_len < kv_len:
            widths = [[0, 0]] * (b.rank(mask) - 1) + [[0, kv_len - m_len]]
            fill = b.const(np.array(False)) if b.dtype(mask) == "bool" else scalar(b, float("-inf"), b.dtype(mask))
            mask = b.call("nn.pad", mask, fill, pad_width=widths)
        bias = _neg_inf_where(b, mask, dt) if b.dtype(mask) == "bool" else cast(b, mask, dt)
    i_idx = np.arange(q_len).reshape(q_len, 1)
    j_idx = np.arange(kv_len).reshape(1, kv_len)
    offset: int | Expr  # an int, or a run-time (batch,) tensor
    if past_k is None and nonpad is not None:
        offset = b.call("subtract", cast(b, nonpad, "int64"), scalar(b, q_len, "int64"))
    else:
        offset = b.static_shape(past_k)[2] if past_k is not None else 0

    def frontier(allowed_of: Callable[[Any], Any]) -> Expr:
        """A (q, kv) or (batch, 1, q, kv) bias allowing what `allowed_of(diff)` allows, diff = i + offset - j."""
        if isinstance(offset, int):
            return b.const(np.where(allowed_of(i_idx + offset - j_idx), 0, -np.inf).astype(numpy_dtype(dt)))
        off = b.call("reshape", offset, newshape=[-1, 1, 1])
        diff = b.call("subtract", b.call("add", b.const(i_idx.astype(np.int64)), off), b.const(j_idx.astype(np.int64)))
        return b.call("reshape", _neg_inf_where(b, allowed_of(diff), dt), newshape=[batch, 1, q_len, kv_len])

    def ge0(d: Any) -> Any:  # Any: a numpy array of offsets, or an expression
        return d >= 0 if isinstance(d, np.ndarray) else b.call("greater_equal", d, scalar(b, 0, "int64"))

    def add(x: Expr | None, y: Expr) -> Expr:
        return y if x is None else b.call("add", x, y)

    if is_causal:
        bias = add(bias if bias is not None else b.const(np.zeros((q_len, kv_len), numpy_dtype(dt))), frontier(ge0))
    if left >= 0 or right >= 0:

        def window(d: Any) -> Any:  # Any: as for ge0
            if isinstance(d, np.ndarray):
                ok = np.ones(d.shape, bool)
                if left >= 0:
                    ok &= d <= left
                if right >= 0:
                    ok &= -d <= right
                return ok
            allowed: Expr | None = None
            if left >= 0:
                allowed = b.call("less_equal", d, scalar(b, left, "int64"))
            if right >= 0:
                r = b.call("greater_equal", d, scalar(b, -right, "int64"))
                allowed = r if allowed is None else b.call("logical_and", allowed, r)
            return allowed

        bias = add(bias, frontier(window))
    if nonpad is not None:
        valid = b.call(
            "less",
            b.const(np.arange(kv_len, dtype=np.int64)),
            b.call("reshape", cast(b, nonpad, "int64"), newshape=[-1, 1]),
        )
        bias = add(bias, b.call("reshape", _neg_inf_where(b, valid, dt), newshape=[batch, 1, 1, kv_len]))
    heads_q = b.static_shape(q)[1]
    heads_k = b.static_shape(k)[1]
    if heads_q != heads_k:
        if heads_q % heads_k:
            raise Unsupported(f"{heads_q} query heads cannot share {heads_k} key/value heads")
        k = b.call("repeat", k, repeats=heads_q // heads_k, axis=1)
        v = b.call("repeat", v, repeats=heads_q // heads_k, axis=1)
    qs = b.call("multiply", q, root)
    ks = b.call("multiply", k, root)
    qk = matmul(b, qs, b.call("transpose", ks, axes=[0, 1, 3, 2]))
    if softcap is not None and softcap > 0:
        c = scalar(b, softcap, dt)
        qk = b.call("multiply", b.call("tanh", b.call("divide", qk, c)), c)
    scores = qk if bias is None else b.call("add", qk, bias)
    qk_out = scores if mode == 2 else qk
    work = scores
    if precision is not None:
        from .ops_elementwise import onnx_to_dtype

        work = cast(b, scores, onnx_to_dtype(precision, n.opset))
    probs = softmax_in(b, work, 3)
    if bias is not None:
        dead = b.call("isinf", b.call("max", bias, axis=[b.rank(bias) - 1], keepdims=True))
        probs = b.call("where", dead, scalar(b, 0, b.dtype(probs)), probs)
    if mode == 3:
        qk_out = probs
    y = matmul(b, cast(b, probs, dt), v)
    if rank == 3:
        shape = b.static_shape(y)
        y = b.call("reshape", b.call("transpose", y, axes=[0, 2, 1, 3]), newshape=[shape[0], shape[2], -1])
    return [y, present_k, present_v, cast(b, qk_out, dt)]


# ---------------------------------------------------------------- com.microsoft


def _ms_attention(
    b: Builder, n: Node, x: Expr, weight: Expr, bias: Expr, mask_index: Expr, past: Expr | None, dt: str
) -> Converted:
    """TVM's reading of onnxruntime's Attention: one projection for Q, K, V."""
    heads = int(n.require("num_heads"))
    unidirectional = int(n.attr("unidirectional", 0))
    n.attr("qkv_hidden_sizes", None, allowed=(None,))
    n.attr("past_present_share_buffer", 0, allowed=(0,))
    n.ignore("mask_filter_value", "scale", "do_rotary", "rotary_embedding_dim")
    batch, seq, _ = b.static_shape(x, "the input")
    hidden = b.static_shape(weight, "the weights")[1] // 3
    head = hidden // heads
    qkv = b.call("add", matmul(b, x, weight), bias)
    qp, kp, vp = b.items(b.call("split", qkv, indices_or_sections=3, axis=2))
    q, k, v = (_heads(b, t, heads, "the projection") for t in (qp, kp, vp))
    past_len = 0
    if past is not None:
        pk, pv = b.items(b.call("split", past, indices_or_sections=2, axis=0))
        k = b.call("concatenate", b.tuple([b.call("squeeze", pk, axis=[0]), k]), axis=2)
        v = b.call("concatenate", b.tuple([b.call("squeeze", pv, axis=[0]), v]), axis=2)
        past_len = b.static_shape(past)[3]
    present = b.call("stack", b.tuple([k, v]), axis=0)
    total = past_len + seq
    scores = b.call("divide", matmul(b, q, b.call("transpose", k, axes=[0, 1, 3, 2])), scalar(b, math.sqrt(head), dt))
    if mask_index is not None:
        m = b.call("subtract", scalar(b, 1, dt), cast(b, mask_index, dt))
        m = b.call("multiply", m, scalar(b, -10000.0, dt))
        scores = b.call("add", scores, b.call("expand_dims", m, axis=1, num_newaxis=2))
    if unidirectional:
        keep = np.array(
            [[1.0 if j <= past_len + i else 0.0 for j in range(total)] for i in range(seq)], dtype=numpy_dtype(dt)
        )
        scores = b.call("add", scores, b.const((1 - keep) * -10000.0))
    probs = b.call("nn.softmax", scores, axis=3)
    out = matmul(b, probs, v)
    out = b.call("reshape", b.call("transpose", out, axes=[0, 2, 1, 3]), newshape=[batch, seq, hidden])
    return [out, present]


@converter("Attention", domain=MICROSOFT)
def ms_attention(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, w, bias, mask = n.input(0), n.input(1), n.input(2), n.input(3)
    if n.has(5) or n.has(6):
        raise Unsupported("`extra_add` and `past_sequence_length` inputs are not supported")
    return _ms_attention(b, n, x, w, bias, mask, n.input(4), b.dtype(x))


@converter("QAttention", domain=MICROSOFT)
def ms_qattention(cx: Ctx, n: Node) -> Converted:
    b = cx.b
    x, w, bias, x_s, w_s, mask, x_z, w_z, past = (n.input(i) for i in range(9))

    def deq(t: Expr, s: Expr, z: Expr | None) -> Expr:
        ti = cast(b, t, "int32")
        if z is not None:
            ti = b.call("subtract", ti, cast(b, b.call("reshape", z, newshape=[]) if b.rank(z) else z, "int32"))
        return b.call(
            "multiply",
            cast(b, ti, "float32"),
            cast(b, b.call("reshape", s, newshape=[]) if b.rank(s) and b.shape(s) == (1,) else s, "float32"),
        )

    return _ms_attention(b, n, deq(x, x_s, x_z), deq(w, w_s, w_z), bias, mask, past, "float32")
