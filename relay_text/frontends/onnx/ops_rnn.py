"""Recurrent layers: `RNN`, `LSTM`, `GRU`, unrolled over the (static)
sequence length as TVM's importer unrolled them.

The input projection of every step is one `nn.dense` over the whole
sequence; each step then adds the projection of the previous hidden state
and applies the gates of ONNX's equations (gate order in the weights: RNN
one gate, LSTM i-o-f-c, GRU z-r-h). `clip` bounds the gates' inputs;
`activations` (with `activation_alpha` / `activation_beta`) replaces the
default functions. A reverse direction runs forward over the sequence
reversed; with `sequence_lens`, each sequence is reversed within its own
length (`reverse_sequence`), steps past a sequence's end leave its state
unchanged and output zeros, so the final state is the one at its last
step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import numpy as np

from ...ir.expr import Expr
from ..builder import Builder, Unsupported
from ._common import scalar
from .graph import Ctx
from .node import Node
from .ops_activation import _elu, _hard_sigmoid, _softplus
from .table import Converted, converter

# An activation function of a gate, and a step of a layer: (input projection of
# the step, states, recurrent weights, recurrent bias, direction) -> new states.
Activation: TypeAlias = Callable[[Builder, Expr], Expr]
Cell: TypeAlias = Callable[[Expr, Sequence[Expr], Expr, "Expr | None", int], list[Expr]]

_NEEDS = {  # activation -> (needs alpha, needs beta, default alpha, default beta)
    "Affine": (True, True, 1.0, 0.0),
    "LeakyRelu": (True, False, 0.01, 0.0),
    "ThresholdedRelu": (True, False, 1.0, 0.0),
    "ScaledTanh": (True, True, 1.0, 1.0),
    "HardSigmoid": (True, True, 0.2, 0.5),
    "Elu": (True, False, 1.0, 0.0),
}


def _activation(name: str, alpha: float, beta: float) -> Activation:
    def act(b: Builder, x: Expr) -> Expr:
        dt = b.dtype(x)
        if name == "Sigmoid":
            return b.call("sigmoid", x)
        if name == "Tanh":
            return b.call("tanh", x)
        if name == "Relu":
            return b.call("nn.relu", x)
        if name == "LeakyRelu":
            return b.call("nn.leaky_relu", x, alpha=alpha)
        if name == "ThresholdedRelu":
            return b.call("multiply", x, b.call("cast", b.call("greater", x, scalar(b, alpha, dt)), dtype=dt))
        if name == "ScaledTanh":
            return b.call("multiply", b.call("tanh", b.call("multiply", x, scalar(b, beta, dt))), scalar(b, alpha, dt))
        if name == "HardSigmoid":
            return _hard_sigmoid(b, x, alpha, beta)
        if name == "Elu":
            return _elu(b, x, alpha)
        if name == "Softsign":
            return b.call("divide", x, b.call("add", scalar(b, 1, dt), b.call("abs", x)))
        if name == "Softplus":
            return _softplus(b, x)
        if name == "Affine":
            return b.call("add", b.call("multiply", x, scalar(b, alpha, dt)), scalar(b, beta, dt))
        raise Unsupported(f"the activation `{name}` is not supported", attr="activations")

    return act


def _activations(n: Node, defaults: Sequence[str], dirs: int) -> list[Activation]:
    names = n.attr("activations", None)
    if names is None:
        return [_activation(a, 0.0, 0.0) for a in list(defaults) * dirs]
    if len(names) != len(defaults) * dirs:
        raise Unsupported(
            f"`activations` lists {len(names)} functions, {len(defaults) * dirs} expected", attr="activations"
        )
    alphas = list(n.attr("activation_alpha", []))
    betas = list(n.attr("activation_beta", []))
    out = []
    for name in names:
        needs_a, needs_b, da, db = _NEEDS.get(name, (False, False, 0.0, 0.0))
        a = alphas.pop(0) if needs_a and alphas else da
        bb = betas.pop(0) if needs_b and betas else db
        out.append(_activation(name, a, bb))
    return out


def _steps(b: Builder, x: Expr, seq: int) -> list[Expr]:
    """The sequence (seq, batch, k) as a list of (batch, k) steps."""
    if seq == 1:
        return [b.call("squeeze", x, axis=[0])]
    parts = b.items(b.call("split", x, indices_or_sections=seq, axis=0))
    return [b.call("squeeze", p, axis=[0]) for p in parts]


def _direction_slice(b: Builder, t: Expr, d: int, count: int) -> Expr:
    """Direction d of a (dirs, ...) tensor."""
    if count == 1:
        return b.call("squeeze", t, axis=[0])
    return b.call("squeeze", b.call("strided_slice", t, begin=[d], end=[d + 1], strides=[1], axes=[0]), axis=[0])


class _Layer:
    """What the three layers share: inputs, directions, masks, the loop."""

    def __init__(self, cx: Ctx, n: Node, gates: int, defaults: Sequence[str]) -> None:
        b = self.b = cx.b
        self.n = n
        x, w, r = n.input(0), n.input(1), n.input(2)
        self.layout = n.attr("layout", 0) if n.opset >= 14 else 0
        if self.layout:
            x = b.call("transpose", x, axes=[1, 0, 2])
        self.x = x
        self.w, self.r, self.bias = w, r, n.input(3)
        seq, batch, _ = b.static_shape(x, "the input sequence")
        self.seq, self.batch = seq, batch
        direction = n.attr("direction", "forward", allowed=("forward", "reverse", "bidirectional"))
        self.dirs = 2 if direction == "bidirectional" else 1
        self.reverse = [direction == "reverse"] if self.dirs == 1 else [False, True]
        wdirs, gh, _ = b.static_shape(w, "the weights")
        if wdirs != self.dirs:
            raise Unsupported(f"the weights hold {wdirs} directions, the layer runs {self.dirs}")
        self.hidden = int(n.attr("hidden_size", gh // gates))
        self.gates = gates
        self.dt = b.dtype(x)
        clip = n.attr("clip", None)
        self.clip = float(clip) if clip is not None else None
        self.acts = _activations(n, defaults, self.dirs)
        lens = n.input(4)
        self.lens = None
        if lens is not None:
            known = b.value(lens)
            if known is None or not (np.asarray(known) == seq).all():
                self.lens = lens

    def initial(self, i: int, d: int) -> Expr:
        t = self.n.input(i)
        b = self.b
        if t is None:
            return b.call("zeros", shape=[self.batch, self.hidden], dtype=self.dt)
        if self.layout:
            t = b.call("transpose", t, axes=[1, 0, 2])
        return _direction_slice(b, t, d, self.dirs)

    def gate_in(self, v: Expr) -> Expr:
        if self.clip is None:
            return v
        return self.b.call("clip", v, a_min=-self.clip, a_max=self.clip)

    def run(self, cell: Cell, states: int) -> list[Expr]:
        """Every direction: (outputs per step, final states)."""
        b = self.b
        ys, finals = [], []
        for d in range(self.dirs):
            x = self.x
            if self.reverse[d]:
                x = self._reverse(x)
            w = _direction_slice(b, self.w, d, self.dirs)
            r = _direction_slice(b, self.r, d, self.dirs)
            gh = self.gates * self.hidden
            xw = b.call("nn.dense", b.call("reshape", x, newshape=[-1, b.shape(x)[2]]), w)
            wb = rb = None
            if self.bias is not None:
                bias = _direction_slice(b, self.bias, d, self.dirs)
                halves = b.items(b.call("split", bias, indices_or_sections=2, axis=0))
                wb, rb = halves
                xw = b.call("add", xw, wb)
            xw = b.call("reshape", xw, newshape=[self.seq, self.batch, gh])
            state = [self.initial(5 + k, d) for k in range(states)]
            masks = self._masks(d)
            outs = []
            for t, xt in enumerate(_steps(b, xw, self.seq)):
                new = cell(xt, state, r, rb, d)
                if masks is not None:
                    keep, drop = masks[t]
                    new = [
                        b.call("add", b.call("multiply", s_new, keep), b.call("multiply", s_old, drop))
                        for s_new, s_old in zip(new, state, strict=False)
                    ]
                    outs.append(b.call("multiply", new[0], keep))
                else:
                    outs.append(new[0])
                state = new
            y = b.call("stack", b.tuple(outs), axis=0)
            if self.reverse[d]:
                y = self._reverse(y)
            ys.append(y)
            finals.append(state)
        y = b.call("stack", b.tuple(ys), axis=1)  # (seq, dirs, batch, hidden)
        hs = [b.call("stack", b.tuple([f[k] for f in finals]), axis=0) for k in range(states)]
        if self.layout:
            y = b.call("transpose", y, axes=[2, 0, 1, 3])
            hs = [b.call("transpose", h, axes=[1, 0, 2]) for h in hs]
        return [y, *hs]

    def _reverse(self, x: Expr) -> Expr:
        b = self.b
        if self.lens is None:
            return b.call("reverse", x, axis=0)
        return b.call("reverse_sequence", x, b.call("cast", self.lens, dtype="int32"), seq_axis=0, batch_axis=1)

    def _masks(self, d: int) -> list[tuple[Expr, Expr]] | None:
        """Per step: (1 where the step is inside the sequence, 1 where it is past it), shaped (batch, 1)."""
        if self.lens is None:
            return None
        b = self.b
        lens = b.call("expand_dims", b.call("cast", self.lens, dtype="int32"), axis=1)
        out = []
        for t in range(self.seq):
            inside = b.call("cast", b.call("less", scalar(b, t, "int32"), lens), dtype=self.dt)
            out.append((inside, b.call("subtract", scalar(b, 1, self.dt), inside)))
        return out


def _split(b: Builder, v: Expr, parts: int) -> list[Expr]:
    return b.items(b.call("split", v, indices_or_sections=parts, axis=-1))


@converter("RNN", since=7)
def rnn(cx: Ctx, n: Node) -> Converted:
    layer = _Layer(cx, n, 1, ["Tanh"])
    b = layer.b

    def cell(xt: Expr, state: Sequence[Expr], r: Expr, rb: Expr | None, d: int) -> list[Expr]:
        (h,) = state
        pre = b.call("add", xt, b.call("nn.dense", h, r))
        if rb is not None:
            pre = b.call("add", pre, rb)
        return [layer.acts[d](b, layer.gate_in(pre))]

    return layer.run(cell, 1)


@converter("LSTM", since=7)
def lstm(cx: Ctx, n: Node) -> Converted:
    layer = _Layer(cx, n, 4, ["Sigmoid", "Tanh", "Tanh"])
    b = layer.b
    coupled = bool(n.attr("input_forget", 0))
    peep = n.input(7)

    def cell(xt: Expr, state: Sequence[Expr], r: Expr, rb: Expr | None, d: int) -> list[Expr]:
        h, c = state
        f_act, g_act, h_act = layer.acts[3 * d : 3 * d + 3]
        pre = b.call("add", xt, b.call("nn.dense", h, r))
        if rb is not None:
            pre = b.call("add", pre, rb)
        i, o, f, g = _split(b, pre, 4)
        if peep is not None:
            p_i, p_o, p_f = _split(b, _direction_slice(b, peep, d, layer.dirs), 3)
            i = b.call("add", i, b.call("multiply", p_i, c))
            f = b.call("add", f, b.call("multiply", p_f, c))
        i = f_act(b, layer.gate_in(i))
        f = b.call("subtract", scalar(b, 1, layer.dt), i) if coupled else f_act(b, layer.gate_in(f))
        g = g_act(b, layer.gate_in(g))
        c_new = b.call("add", b.call("multiply", f, c), b.call("multiply", i, g))
        if peep is not None:
            o = b.call("add", o, b.call("multiply", p_o, c_new))
        o = f_act(b, layer.gate_in(o))
        return [b.call("multiply", o, h_act(b, c_new)), c_new]

    y, h, c = layer.run(cell, 2)
    return [y, h, c]


@converter("GRU", since=7)
def gru(cx: Ctx, n: Node) -> Converted:
    layer = _Layer(cx, n, 3, ["Sigmoid", "Tanh"])
    b = layer.b
    before_reset = bool(n.attr("linear_before_reset", 0))

    def cell(xt: Expr, state: Sequence[Expr], r: Expr, rb: Expr | None, d: int) -> list[Expr]:
        (h,) = state
        f_act, g_act = layer.acts[2 * d : 2 * d + 2]
        xz, xr, xh = _split(b, xt, 3)
        rz, rr, rh = b.items(b.call("split", r, indices_or_sections=3, axis=0))
        bz = br = bh = None
        if rb is not None:
            bz, br, bh = _split(b, rb, 3)

        def proj(v: Expr, w: Expr, bias: Expr | None) -> Expr:
            out = b.call("nn.dense", v, w)
            return out if bias is None else b.call("add", out, bias)

        z = f_act(b, layer.gate_in(b.call("add", xz, proj(h, rz, bz))))
        rg = f_act(b, layer.gate_in(b.call("add", xr, proj(h, rr, br))))
        if before_reset:
            hh = b.call("add", xh, b.call("multiply", rg, proj(h, rh, bh)))
        else:
            hh = b.call("add", xh, proj(b.call("multiply", rg, h), rh, bh))
        hh = g_act(b, layer.gate_in(hh))
        one = scalar(b, 1, layer.dt)
        return [b.call("add", b.call("multiply", b.call("subtract", one, z), hh), b.call("multiply", z, h))]

    return layer.run(cell, 1)
