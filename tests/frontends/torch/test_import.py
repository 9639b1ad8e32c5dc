"""PyTorch programs (torch.export) imported as Relay: a CNN, an LSTM and a
transformer block defined here, against PyTorch's own outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import relay_text
from relay_text.cli import main

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install 'relay-text[torch]')")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")
nn = torch.nn

from relay_text.frontends.torch import ImportFailure, from_torch  # noqa: E402


class SmallCNN(nn.Module):
    """torchvision's building blocks: conv/bn/relu, a residual add, grouped
    and strided convolutions, max and adaptive average pooling, a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, groups=4)
        self.bn2 = nn.BatchNorm2d(16)
        self.down = nn.Conv2d(16, 32, 1, stride=2)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(x + self.bn2(self.conv2(x)))
        x = nn.functional.hardswish(self.down(x))
        return self.fc(torch.flatten(self.avg(x), 1))


class Tagger(nn.Module):
    """An embedding, a two-layer bidirectional LSTM and a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.lstm = nn.LSTM(8, 12, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(24, 5)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return torch.log_softmax(self.head(out), dim=-1)


class Block(nn.Module):
    """A pre-norm transformer block: multi-head self-attention and a GELU MLP."""

    def __init__(self) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(32)
        self.attn = nn.MultiheadAttention(32, 4, batch_first=True)
        self.ln2 = nn.LayerNorm(32)
        self.mlp = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))

    def forward(self, x):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


def _models():
    torch.manual_seed(0)
    cnn = SmallCNN().eval()
    for bn in (cnn.bn1, cnn.bn2):  # statistics that are not the identity
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 1.5)
    return [
        pytest.param(cnn, torch.randn(2, 3, 32, 32), id="cnn"),
        pytest.param(Tagger().eval(), torch.randint(0, 20, (2, 7)), id="lstm"),
        pytest.param(Block().eval(), torch.randn(2, 9, 32), id="transformer"),
    ]


@pytest.mark.parametrize(("model", "x"), _models())
def test_the_program_checks_is_formatted_and_computes_what_pytorch_computes(model, x) -> None:
    imported = from_torch(model, (x,))
    text = imported.text()
    assert relay_text.check(text).ok
    assert relay_text.format(text) == text
    assert relay_text.format(imported.text("docs")) == imported.text("docs")
    weights = imported.weights()
    from relay_text.frontends.onnx.graph import sanitize

    assert set(weights) <= {sanitize(k) for k in model.state_dict()}  # ("mlp.0.weight" is %mlp_0.weight)
    got = relay_text.run(text, x.numpy(), *weights.values(), prelude=False)
    with torch.no_grad():
        expected = model(x).numpy()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_weights_are_named_by_the_state_dict() -> None:
    model = SmallCNN().eval()
    imported = from_torch(model, (torch.randn(1, 3, 16, 16),))
    names = list(imported.weights())
    assert names[:3] == ["conv1.weight", "bn1.weight", "bn1.bias"]
    assert "bn1.running_var" in names and "bn1.num_batches_tracked" not in names
    assert "%1 = nn.batch_norm(%0, %bn1.weight, %bn1.bias, %bn1.running_mean, %bn1.running_var);" in imported.text()
    assert "/* conv1: conv2d */" in imported.text()


def test_a_dynamic_batch_is_a_question_mark() -> None:
    batch = torch.export.Dim("batch", min=1, max=64)
    program = torch.export.export(Block().eval(), (torch.randn(2, 9, 32),), dynamic_shapes={"x": {0: batch}})
    from relay_text.frontends.torch import from_exported

    imported = from_exported(program)
    text = imported.text()
    assert "%x: Tensor[(?, 9, 32), float32]" in text and "-> Tensor[(?, 9, 32), float32]" in text
    model = program.module()
    for n in (1, 3):
        x = torch.randn(n, 9, 32)
        got = relay_text.run(text, x.numpy(), *imported.weights().values(), prelude=False)
        with torch.no_grad():
            np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-4, atol=1e-5)


def test_an_unsupported_operator_is_located() -> None:
    class Odd(nn.Module):
        def forward(self, x):
            return torch.cumprod(x, dim=0) + 1

    with pytest.raises(ImportFailure) as info:
        from_torch(Odd(), (torch.randn(4),))
    (diag,) = info.value.diagnostics
    assert diag.code == "import-unsupported"
    assert diag.message == "the ATen operator `aten.cumprod.default` is not supported"
    assert diag.span.text == "aten.cumprod.default"
    assert diag.label == "node `cumprod` (aten.cumprod.default)"


def test_the_command_imports_a_saved_program(tmp_path: Path) -> None:
    model = SmallCNN().eval()
    x = torch.randn(1, 3, 16, 16)
    torch.export.save(torch.export.export(model, (x,)), str(tmp_path / "cnn.pt2"))
    result = CliRunner().invoke(
        main,
        ["import", str(tmp_path / "cnn.pt2"), "-o", str(tmp_path / "cnn.rly")],
        env={"NO_COLOR": "1"},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    text = (tmp_path / "cnn.rly").read_text()
    with np.load(tmp_path / "cnn.params.npz") as npz:
        weights = {k: npz[k] for k in npz.files}
    got = relay_text.run(text, x.numpy(), *weights.values(), prelude=False)
    with torch.no_grad():
        np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-4, atol=1e-5)
    listing = CliRunner().invoke(main, ["import", str(tmp_path / "cnn.pt2"), "--list-nodes"], catch_exceptions=False)
    assert "call_function[target=torch.ops.aten.conv2d.default]" in listing.stdout


def test_a_file_that_is_no_program(tmp_path: Path) -> None:
    bad = tmp_path / "m.pt2"
    bad.write_bytes(b"nothing")
    result = CliRunner().invoke(main, ["import", str(bad)], env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error[import-invalid]: {bad}: not a torch.export program (")
