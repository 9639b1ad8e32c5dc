"""Recurrent layers: `aten.lstm`, `aten.gru`, `aten.rnn_tanh`, `aten.rnn_relu`
(`torch.nn.LSTM`, `GRU`, `RNN`), unrolled over the static sequence length.

Per layer and direction, the input projection of every step is one
`nn.dense` over the whole sequence; each step adds the projection of the
previous hidden state and applies PyTorch's gates (weight rows in the
order i, f, g, o for LSTM; r, z, n for GRU). A reverse direction reads
the sequence backwards; a layer's output concatenates its directions.
"""

from __future__ import annotations

from typing import TypeAlias

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ..onnx._common import scalar
from .graph import Ctx
from .table import Args, Converted, aten

# One direction's weights: input, hidden, and (when the layer has them) their biases.
Weights: TypeAlias = tuple[Expr, Expr, "Expr | None", "Expr | None"]


def _steps(b: Builder, x: Expr, seq: int) -> list[Expr]:
    if seq == 1:
        return [b.call("squeeze", x, axis=[0])]
    return [b.call("squeeze", p, axis=[0]) for p in b.items(b.call("split", x, indices_or_sections=seq, axis=0))]


def _state(b: Builder, t: Expr, k: int) -> Expr:
    return b.call("squeeze", b.call("strided_slice", t, begin=[k], end=[k + 1], strides=[1], axes=[0]), axis=[0])


def _layer(
    b: Builder, x: Expr, weights: Weights, h0: Expr, c0: Expr | None, kind: str, reverse: bool
) -> tuple[Expr, Expr, Expr | None]:
    """One direction of one layer: (outputs (seq, batch, H), final h, final c)."""
    seq = b.static_shape(x)[0]
    w_ih, w_hh, b_ih, b_hh = weights
    xw = b.call("nn.dense", b.call("reshape", x, newshape=[-1, b.shape(x)[2]]), w_ih)
    if b_ih is not None:
        xw = b.call("add", xw, b_ih)
    xw = b.call("reshape", xw, newshape=[seq, -1, b.static_shape(w_ih)[0]])
    steps = _steps(b, xw, seq)
    if reverse:
        steps = steps[::-1]
    h, c = h0, c0
    dt = b.dtype(x)
    outs = []
    for xt in steps:
        hw = b.call("nn.dense", h, w_hh)
        if b_hh is not None:
            hw = b.call("add", hw, b_hh)
        if kind == "lstm":
            assert c is not None  # (an LSTM carries its cell state)
            i, f, g, o = b.items(b.call("split", b.call("add", xt, hw), indices_or_sections=4, axis=-1))
            c = b.call(
                "add",
                b.call("multiply", b.call("sigmoid", f), c),
                b.call("multiply", b.call("sigmoid", i), b.call("tanh", g)),
            )
            h = b.call("multiply", b.call("sigmoid", o), b.call("tanh", c))
        elif kind == "gru":
            xr, xz, xn = b.items(b.call("split", xt, indices_or_sections=3, axis=-1))
            hr, hz, hn = b.items(b.call("split", hw, indices_or_sections=3, axis=-1))
            r = b.call("sigmoid", b.call("add", xr, hr))
            z = b.call("sigmoid", b.call("add", xz, hz))
            n = b.call("tanh", b.call("add", xn, b.call("multiply", r, hn)))
            h = b.call("add", b.call("multiply", b.call("subtract", scalar(b, 1, dt), z), n), b.call("multiply", z, h))
        else:
            act = "tanh" if kind == "rnn_tanh" else "nn.relu"
            h = b.call(act, b.call("add", xt, hw))
        outs.append(h)
    if reverse:
        outs = outs[::-1]
    return b.call("stack", b.tuple(outs), axis=0), h, c


def _recurrent(cx: Ctx, a: Args, kind: str) -> Converted:
    b = cx.b
    x: Expr = a["input"]
    if a.get("train") and a.get("dropout"):
        raise Unsupported("a recurrent layer with dropout in training mode is not supported")
    layers = int(a["num_layers"])
    dirs = 2 if a["bidirectional"] else 1
    biased = bool(a["has_biases"])
    params = list(a["params"])
    per = 4 if biased else 2
    if len(params) != layers * dirs * per:
        raise Unsupported("recurrent layers with projections (`proj_size`) are not supported")
    if a["batch_first"]:
        x = b.call("transpose", x, axes=[1, 0, 2])
    hx = a["hx"]
    h_all = hx[0] if kind == "lstm" else hx
    c_all = hx[1] if kind == "lstm" else None
    finals_h, finals_c = [], []
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = params[k * per : (k + 1) * per]
            weights: Weights = (w[0], w[1], w[2], w[3]) if biased else (w[0], w[1], None, None)
            h0 = _state(b, h_all, k)
            c0 = _state(b, c_all, k) if c_all is not None else None
            y, h, c = _layer(b, x, weights, h0, c0, kind, reverse=d == 1)
            outs.append(y)
            finals_h.append(h)
            finals_c.append(c)
        x = outs[0] if dirs == 1 else b.call("concatenate", b.tuple(outs), axis=2)
    out = x
    if a["batch_first"]:
        out = b.call("transpose", out, axes=[1, 0, 2])
    h_n = b.call("stack", b.tuple(finals_h), axis=0)
    if kind == "lstm":
        cells = [c for c in finals_c if c is not None]  # (every one, for an LSTM)
        return [out, h_n, b.call("stack", b.tuple(cells), axis=0)]
    return [out, h_n]


@aten("lstm.input")
def lstm(cx: Ctx, a: Args) -> Converted:
    return _recurrent(cx, a, "lstm")


@aten("gru.input")
def gru(cx: Ctx, a: Args) -> Converted:
    return _recurrent(cx, a, "gru")


@aten("rnn_tanh.input")
def rnn_tanh(cx: Ctx, a: Args) -> Converted:
    return _recurrent(cx, a, "rnn_tanh")


@aten("rnn_relu.input")
def rnn_relu(cx: Ctx, a: Args) -> Converted:
    return _recurrent(cx, a, "rnn_relu")
