"""`relay summary`'s counts of every corpus model against an independent count.

The CNNs and the LSTM are built again as PyTorch modules from their layer
lists (on the `meta` device: shapes only, no memory), whose parameters and
batch-norm statistics are counted by PyTorch and whose multiply-accumulates
are counted by hooks on the convolutions and linear layers as they run.
GPT-2 and the small programs are counted by hand from their layer lists.
ResNet-50 is also held to the published figures: 25.6 M weights and
4.1 G multiply-adds at 224x224 (He et al., 2016; torchvision's model card).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from relay_text.ir.span import Source
from relay_text.pipeline import check_source
from relay_text.summary.count import FunctionSummary, module_summary
from tests.conftest import CORPUS, needs_corpus

pytestmark = needs_corpus


@cache
def summary_of(name: str) -> tuple[FunctionSummary, ...]:
    path = CORPUS / name
    checked = check_source(Source(str(path), Path(path).read_text()))
    assert checked.ok and checked.result is not None
    return tuple(module_summary(checked.module, checked.result.types.get))


def main_of(name: str) -> FunctionSummary:
    (only,) = [s for s in summary_of(name) if s.name == "@main"]
    return only


def torch_counts(model, example_shape, dtype=None) -> tuple[int, int]:
    """(parameters and batch-norm statistics, MACs of convolutions and linear layers) of a module."""
    torch = pytest.importorskip("torch", reason="PyTorch is the `reference` extra: pip install -e '.[reference]'")
    nn = torch.nn
    weights = sum(p.numel() for p in model.parameters())
    weights += sum(b.numel() for name, b in model.named_buffers() if not name.endswith("num_batches_tracked"))
    macs = [0]

    def conv_hook(mod, inputs, output) -> None:
        kh_kw = 1
        for k in mod.kernel_size:
            kh_kw *= k
        macs[0] += output.numel() * (mod.in_channels // mod.groups) * kh_kw

    def linear_hook(mod, inputs, output) -> None:
        macs[0] += output.numel() * mod.in_features

    for mod in model.modules():
        if isinstance(mod, nn.Conv2d):
            mod.register_forward_hook(conv_hook)
        elif isinstance(mod, nn.Linear):
            mod.register_forward_hook(linear_hook)
    model.eval()
    with torch.no_grad():
        model(torch.empty(example_shape, device="meta", dtype=dtype or torch.float32))
    return weights, macs[0]


# --- ResNet-50 ----------------------------------------------------------


def resnet50_v2():
    """ResNet-50 with pre-activation blocks (batch norm and ReLU before each
    convolution), as the corpus file lays it out: a batch norm of the input,
    the 7x7 stem, 3-4-6-3 bottlenecks whose projection reads the
    pre-activated input, a final batch norm, pooling and the classifier."""
    torch = pytest.importorskip("torch", reason="PyTorch is the `reference` extra: pip install -e '.[reference]'")
    nn = torch.nn

    class Bottleneck(nn.Module):
        def __init__(self, cin: int, mid: int, stride: int, project: bool) -> None:
            super().__init__()
            self.bn1 = nn.BatchNorm2d(cin)
            self.conv1 = nn.Conv2d(cin, mid, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(mid)
            self.conv2 = nn.Conv2d(mid, mid, 3, stride, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(mid)
            self.conv3 = nn.Conv2d(mid, mid * 4, 1, bias=False)
            self.project = nn.Conv2d(cin, mid * 4, 1, stride, bias=False) if project else None

        def forward(self, x):
            pre = torch.relu(self.bn1(x))
            skip = self.project(pre) if self.project is not None else x
            y = self.conv1(pre)
            y = self.conv2(torch.relu(self.bn2(y)))
            y = self.conv3(torch.relu(self.bn3(y)))
            return y + skip

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bn_data = nn.BatchNorm2d(3)
            self.stem = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn_stem = nn.BatchNorm2d(64)
            blocks, cin = [], 64
            for mid, count, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
                for i in range(count):
                    blocks.append(Bottleneck(cin, mid, stride if i == 0 else 1, i == 0))
                    cin = mid * 4
            self.blocks = nn.Sequential(*blocks)
            self.bn_out = nn.BatchNorm2d(cin)
            self.fc = nn.Linear(cin, 1000)

        def forward(self, x):
            x = torch.relu(self.bn_stem(self.stem(self.bn_data(x))))
            x = nn.functional.max_pool2d(x, 3, 2, 1)
            x = torch.relu(self.bn_out(self.blocks(x)))
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    with torch.device("meta"):
        return Net()


def test_resnet50_is_within_two_percent_of_the_published_figures() -> None:
    """25.6 M weights (25,557,032 parameters; our count adds the 53 k batch-norm
    statistics, which TVM's dump holds as constants) and 4.1 G MACs."""
    s = main_of("apache-tvm-menangerie-resnet50.rly")
    assert s.weights_known and s.macs_known
    assert abs(s.weight_count - 25_557_032) / 25_557_032 < 0.02
    assert abs(s.macs - 4.1e9) / 4.1e9 < 0.02
    assert (s.weight_count, s.macs) == (25_595_060, 4_089_184_256)


def test_resnet50_against_pytorch() -> None:
    s = main_of("apache-tvm-menangerie-resnet50.rly")
    assert (s.weight_count, s.macs) == torch_counts(resnet50_v2(), (1, 3, 224, 224))
    assert s.weight_bytes == 4 * s.weight_count  # float32
    assert [i.name for i in s.inputs] == ["%data"]


# --- MobileNet ------------------------------------------------------------


def mobilenet_v1():
    """MobileNet v1 (width 1.0): a 3x3 convolution, 13 depthwise-separable
    blocks (each convolution followed by batch norm and ReLU), pooling and
    the classifier."""
    torch = pytest.importorskip("torch", reason="PyTorch is the `reference` extra: pip install -e '.[reference]'")
    nn = torch.nn
    plan = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1), (256, 512, 2)]
    plan += [(512, 512, 1)] * 5 + [(512, 1024, 2), (1024, 1024, 1)]

    def unit(cin: int, cout: int, k: int, stride: int, groups: int):
        return [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    with torch.device("meta"):
        layers = unit(3, 32, 3, 2, 1)
        for cin, cout, stride in plan:
            layers += unit(cin, cin, 3, stride, cin) + unit(cin, cout, 1, 1, 1)
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1024, 1000)]
        return nn.Sequential(*layers)


def test_mobilenet_against_pytorch() -> None:
    s = main_of("glenside-mobilenet.rly")
    assert (s.weight_count, s.macs) == torch_counts(mobilenet_v1(), (1, 3, 224, 224))
    assert [i.name for i in s.inputs] == ["%data"]  # the other 137 parameters are weights
    assert len(s.weights) == 137


# --- SqueezeNet -----------------------------------------------------------


def squeezenet_1_1():
    """SqueezeNet 1.1: a 3x3 stride-2 convolution, eight fire modules
    (squeeze 1x1, expand 1x1 and 3x3, joined) between max pools, and a 1x1
    convolution to the classes; every convolution has a bias."""
    torch = pytest.importorskip("torch", reason="PyTorch is the `reference` extra: pip install -e '.[reference]'")
    nn = torch.nn

    class Fire(nn.Module):
        def __init__(self, cin: int, squeeze: int, expand: int) -> None:
            super().__init__()
            self.squeeze = nn.Conv2d(cin, squeeze, 1)
            self.e1 = nn.Conv2d(squeeze, expand, 1)
            self.e3 = nn.Conv2d(squeeze, expand, 3, padding=1)

        def forward(self, x):
            x = torch.relu(self.squeeze(x))
            return torch.cat([torch.relu(self.e1(x)), torch.relu(self.e3(x))], 1)

    pool = nn.MaxPool2d(3, 2)
    with torch.device("meta"):
        return nn.Sequential(
            nn.Conv2d(3, 64, 3, 2),
            nn.ReLU(),
            pool,
            Fire(64, 16, 64),
            Fire(128, 16, 64),
            pool,
            Fire(128, 32, 128),
            Fire(256, 32, 128),
            pool,
            Fire(256, 48, 192),
            Fire(384, 48, 192),
            Fire(384, 64, 256),
            Fire(512, 64, 256),
            nn.Conv2d(512, 1000, 1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )


def test_squeezenet_against_pytorch() -> None:
    s = main_of("calyx-squeezenet-anf.rly")
    assert (s.weight_count, s.macs) == torch_counts(squeezenet_1_1(), (1, 3, 224, 224))
    assert s.weight_count == 1_235_496  # torchvision's squeezenet1_1


# --- the LSTM language model ----------------------------------------------


def test_lstm_against_pytorch() -> None:
    """An embedding of 33,278 words into 128, one LSTM layer of 128 over 35
    steps of a batch of 10, and a linear decoder back to the words."""
    torch = pytest.importorskip("torch", reason="PyTorch is the `reference` extra: pip install -e '.[reference]'")
    nn = torch.nn
    with torch.device("meta"):
        parts = [nn.Embedding(33278, 128), nn.LSTM(128, 128), nn.Linear(128, 33278)]
    weights = sum(p.numel() for part in parts for p in part.parameters())
    steps, batch, hidden = 35, 10, 128
    lstm_macs = steps * batch * 4 * hidden * (128 + hidden)  # input and recurrent products of the four gates
    decoder_macs = steps * batch * 33278 * 128
    s = main_of("glenside-lstm-for-pldi.rly")
    assert (s.weight_count, s.macs) == (weights, lstm_macs + decoder_macs)
    assert [i.name for i in s.inputs] == ["%data", "%hidden0", "%hidden1"]


# --- GPT-2 ----------------------------------------------------------------


def test_gpt2_by_hand() -> None:
    """GPT-2 small, 12 blocks of width 768 run on 50 sequences of 32 tokens.

    Per block: attention's input projection (768 x 2304 and its bias) and
    output projection (768 x 768 + 768), the MLP (768 x 3072 + 3072 and
    3072 x 768 + 768), two layer norms (2 x 768 each); a final layer norm.
    The dump has no `#[metadata]` section, so its constants have the types
    their uses imply: the word embedding `take` leaves the vocabulary size
    unknown (`?`), the position embedding added to the activations is (768),
    the attention mask's scale and shift are (32) each (per block)."""
    width, blocks, tokens = 768, 12, 50 * 32
    block = (
        (width * 3 * width + 3 * width)
        + (width * width + width)
        + (width * 4 * width + 4 * width)
        + (4 * width * width + width)
        + 2 * (2 * width)
    )
    weights = blocks * (block + 2 * 32) + 2 * width + width  # + final layer norm + position embedding
    dense = blocks * tokens * (width * 3 * width + width * width + width * 4 * width + 4 * width * width)
    heads, seq, head = 12, 32, 64
    attention = blocks * 50 * heads * (seq * seq * head + seq * head * seq)  # scores, then their weighted sum
    s = main_of("apache-tvm-menangerie-gpt2.rly")
    assert not s.weights_known
    assert [w.name for w in s.weights if w.count is None] == ["meta[0]"]
    assert (s.weight_count, s.macs) == (weights, dense + attention)


# --- the small programs ---------------------------------------------------


@pytest.mark.parametrize(
    "name, calls",
    [
        ("apache-tvm-issue13031-broadcast-argmax.rly", {"expression": 2}),
        ("masahi-torchscript-to-tvm-loop-readme.rly", {"@main": 12}),
        ("tvm-std-nat.rly", {"@nat_double": 3, "@nat_add": 2, "@nat_nth": 3, "@nat_update": 4, "@nat_iterate": 3}),
        ("tvm-std-gradient.rly", {"@FromGradCell": 2, "@MultiplyGradCell": 4, "@AddGradCell": 4}),
        ("tvm-std-core.rly", {}),
    ],
)
def test_programs_without_weights(name: str, calls: dict[str, int]) -> None:
    """No tensor is carried (no metadata, no literal tensors, no parameter in
    a weight's place) and nothing is a convolution or matrix product."""
    summaries = summary_of(name)
    assert {s.name: len(s.rows) for s in summaries} == calls
    assert all(s.weights == [] and s.macs == 0 and s.macs_known for s in summaries)


def test_the_prelude_has_no_weights() -> None:
    summaries = summary_of("tvm-std-prelude.rly")
    assert len(summaries) == 24 and all(s.weights == [] and s.macs == 0 for s in summaries)
    assert {s.name: len(s.rows) for s in summaries}["@map"] == 3  # Cons, the closure call, @map itself
