"""End-to-end: models larger than the test models, in the layouts real
networks use (a ResNet, a transformer encoder layer), compiled by both
pipelines and compared with eager PyTorch."""

import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)

import lighthouse  # noqa: E402
import models  # noqa: E402

LARGER_MODELS = models.larger_torch_models()


@pytest.mark.parametrize("pipeline", ["loops", "default"])
@pytest.mark.parametrize("name", [m[0] for m in LARGER_MODELS])
def test_larger_model_matches_eager(name, pipeline):
    _, module, inputs, dynamic = next(m for m in LARGER_MODELS if m[0] == name)
    compiled = lighthouse.compile(module, inputs, dynamic_shapes=dynamic, pipeline=pipeline)
    with torch.no_grad():
        expected = module(*inputs)
    torch.testing.assert_close(compiled(*inputs), expected, rtol=1e-4, atol=1e-4)


class _ResidualLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(64, 64)

    def forward(self, x):
        return torch.relu(self.linear(x)) + x


@pytest.mark.parametrize("rows", [16, 15])
def test_residual_linear_over_a_dynamic_batch_of_sequences(rows):
    """A Linear over [batch, rows, 64] is one matmul of batch * rows rows, a
    dynamic count, with its bias and ReLU fused into its blocks: with 16 rows
    a sequence every register tile is whole (nothing to peel), with 15 the
    count is computed and a last tile is partial. Every batch size matches."""
    module = _ResidualLinear().eval()
    example = torch.randn(3, rows, 64)
    compiled = lighthouse.compile(
        module,
        (example,),
        dynamic_shapes={"x": {0: torch.export.Dim("batch")}},
        pipeline="default",
    )
    for batch in (1, 2, 3, 5):
        x = torch.randn(batch, rows, 64)
        with torch.no_grad():
            expected = module(x)
        torch.testing.assert_close(compiled(x), expected, rtol=1e-4, atol=1e-4)
