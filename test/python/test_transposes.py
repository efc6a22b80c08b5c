"""End-to-end: transposes of the innermost dimension, which the default pipeline
computes in blocks (transpose.tiles), against eager PyTorch, on one and two
threads, with sizes that take the strategy and sizes that do not."""

import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)

import lighthouse  # noqa: E402


class Transposed(torch.nn.Module):
    def forward(self, x):
        return x.transpose(-1, -2).contiguous() + 1.0


class TransposedWeight(torch.nn.Module):
    def forward(self, x, w):
        return x @ w.T


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "shape",
    [(2304, 768), (1024, 1024), (12, 40, 24), (3, 5, 8, 16), (30, 20), (7, 9)],
    ids=str,
)
def test_transposes_match_eager(shape, threads):
    x = torch.randn(*shape)
    compiled = lighthouse.compile(
        Transposed(), (x,), pipeline=f"builtin.module(lighthouse-cpu{{threads={threads}}})"
    )
    torch.testing.assert_close(compiled(x), Transposed()(x), rtol=0, atol=0)


def test_matmul_with_a_transposed_weight_matches_eager():
    x, w = torch.randn(197, 768), torch.randn(2304, 768)
    compiled = lighthouse.compile(TransposedWeight(), (x, w), pipeline="default")
    torch.testing.assert_close(compiled(x, w), x @ w.T, rtol=1e-4, atol=1e-3)
