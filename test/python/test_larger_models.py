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


@pytest.mark.parametrize("pipeline", ["default", "fast"])
@pytest.mark.parametrize("name", [m[0] for m in LARGER_MODELS])
def test_larger_model_matches_eager(name, pipeline):
    _, module, inputs, dynamic = next(m for m in LARGER_MODELS if m[0] == name)
    compiled = lighthouse.compile(module, inputs, dynamic_shapes=dynamic, pipeline=pipeline)
    with torch.no_grad():
        expected = module(*inputs)
    torch.testing.assert_close(compiled(*inputs), expected, rtol=1e-4, atol=1e-4)
