"""The test bench's corpora of models users bring (`torchvision`,
`transformers`) with the real packages, and the compilers of lighthouse's
other entry points (`lighthouse-onnx`, `lighthouse-dynamo`)."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)

from lighthouse.suite.check import compare_outputs  # noqa: E402
from lighthouse.suite.corpora.models import Models  # noqa: E402
from lighthouse.suite.corpora.torchvision import (  # noqa: E402
    TorchvisionModels,
    import_torchvision,
)
from lighthouse.suite.plugins import create_compiler  # noqa: E402

try:  # Not pytest.importorskip: a plain import of torchvision fails beside the CPU torch.
    import_torchvision()
except ImportError:
    pytest.skip("needs lighthouse[zoo] (build_tools/setup.sh installs it)", allow_module_level=True)


def test_torchvision_imports_beside_the_cpu_torch():
    torchvision = import_torchvision()
    assert import_torchvision() is torchvision
    model = torchvision.models.resnet18(weights=None).eval()
    with torch.no_grad():
        assert model(torch.randn(1, 3, 64, 64)).shape == (1, 1000)


def test_torchvision_lists_every_family():
    cases = TorchvisionModels().cases()
    families = {}
    for info in cases:
        families.setdefault(info.tags["family"], []).append(info.name)
        assert info.tags["op"] == info.name
    assert len(families["classification"]) >= 80
    for name in ("resnet50", "swin_t", "vit_b_16", "inception_v3", "convnext_tiny"):
        assert name in families["classification"]
    assert "deeplabv3_mobilenet_v3_large" in families["segmentation"]
    assert "r3d_18" in families["video"]
    assert "ssdlite320_mobilenet_v3_large" in families["detection"]
    assert len({info.name for info in cases}) == len(cases)


@pytest.mark.parametrize(
    "name, input_shape, output_shapes",
    [
        ("squeezenet1_1", (1, 3, 224, 224), [(1, 1000)]),
        ("inception_v3", (1, 3, 299, 299), [(1, 1000)]),
        ("lraspp_mobilenet_v3_large", (1, 3, 520, 520), [(1, 21, 520, 520)]),
    ],
)
def test_torchvision_builds_models_at_their_standard_size(name, input_shape, output_shapes):
    case = TorchvisionModels().load(name)
    assert [x.shape for x in case.inputs] == [input_shape]
    assert case.inputs[0].dtype == np.float32
    assert not case.form("torch").training
    outputs = case.expected()
    assert [x.shape for x in outputs] == output_shapes
    # Batch norms calibrated: outputs neither vanish nor explode.
    assert 1e-3 < outputs[0].std() < 1e3
    again = TorchvisionModels().load(name)
    np.testing.assert_array_equal(again.expected()[0], outputs[0])


def test_torchvision_batch_option_and_video_clips():
    case = TorchvisionModels(batch=2).load("r3d_18")
    assert case.inputs[0].shape == (2, 3, 16, 112, 112)


def test_torchvision_rejects_an_unknown_model():
    with pytest.raises(ValueError, match="no model 'resnet7'"):
        TorchvisionModels().load("resnet7")


def test_transformers_lists_every_family_and_the_decode_steps():
    pytest.importorskip("transformers", reason="needs lighthouse[zoo]")
    from lighthouse.suite.corpora.transformers import TransformersModels

    cases = {info.name: info.tags for info in TransformersModels().cases()}
    for name, family in [
        ("bert", "encoder"),
        ("deberta_v2", "encoder"),
        ("llama", "decoder"),
        ("llama_decode", "decode"),
        ("gemma_decode", "decode"),
        ("t5", "encoder-decoder"),
        ("whisper", "encoder-decoder"),
        ("swin", "vision"),
        ("clip_text", "vision"),
        ("hubert", "audio"),
    ]:
        assert cases[name]["family"] == family
    decoders = [name for name, tags in cases.items() if tags["family"] == "decoder"]
    assert len(decoders) == 8 and all(f"{name}_decode" in cases for name in decoders)


def test_transformers_decode_step_grows_the_cache():
    pytest.importorskip("transformers", reason="needs lighthouse[zoo]")
    from lighthouse.suite.corpora.transformers import SEQUENCE, TransformersModels

    case = TransformersModels().load("llama_decode")
    token, *past = case.inputs
    assert token.shape == (1, 1) and token.dtype == np.int64
    # 2 layers, 4 key/value heads of 64 (LLaMA's grouped queries).
    assert len(past) == 4 and all(x.shape == (1, 4, SEQUENCE, 64) for x in past)
    logits, *cache = case.expected()
    assert logits.shape == (1, 1, 32000)
    assert [x.shape for x in cache] == [(1, 4, SEQUENCE + 1, 64)] * 4
    # The past comes back as it went in, the token's keys and values after it.
    np.testing.assert_array_equal(cache[0][:, :, :SEQUENCE], past[0])


def test_transformers_rejects_a_decode_step_of_an_encoder():
    pytest.importorskip("transformers", reason="needs lighthouse[zoo]")
    from lighthouse.suite.corpora.transformers import TransformersModels

    with pytest.raises(ValueError, match="no model 'bert_decode'"):
        TransformersModels().load("bert_decode")


def _run(spec: str, case):
    compiler = create_compiler(spec)
    compiler.setup(threads=1)
    form = next(kind for kind in compiler.takes if case.offers(kind))
    function = compiler.compile_case(case, form)
    from lighthouse.suite.case import to_numpy

    return compiler, form, to_numpy(function(case.inputs))


def test_lighthouse_onnx_compiles_the_onnx_form():
    case = Models().load("small_cnn")
    _, form, outputs = _run("lighthouse-onnx:default", case)
    assert form == "onnx"
    assert compare_outputs(outputs, case.expected(), case.rtol, case.atol).ok


class WithFft(torch.nn.Module):
    def forward(self, x):
        return torch.fft.fft(x).abs() + torch.relu(x)


def test_lighthouse_dynamo_records_the_ops_run_eagerly():
    from lighthouse.suite.case import Case

    x = np.random.default_rng(0).standard_normal((4, 8), dtype=np.float32)
    case = Case("fft", [x], torch=WithFft())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # The backend's EagerFallbackWarning.
        compiler, form, outputs = _run("lighthouse-dynamo:default", case)
    assert form == "torch"
    assert compare_outputs(outputs, case.expected(), 1e-4, 1e-5).ok
    assert any("fft" in op for op in compiler.notes["eager_ops"])


class Tokens(torch.nn.Module):
    """Per-token layers and a mean over the sequence: a model of any length."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(16, 16)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        y = self.norm(torch.relu(self.linear(x)))
        return y, y.mean(1)


def _sequences(*lengths):
    rng = np.random.default_rng(0)
    return [[rng.standard_normal((1, n, 16), dtype=np.float32)] for n in lengths]


@pytest.mark.parametrize("spec", ["lighthouse:default", "lighthouse-onnx:default"])
def test_dynamic_cases_are_checked_at_every_size(spec):
    from lighthouse.suite.case import Case
    from lighthouse.suite.worker import Worker

    first, *others = _sequences(8, 3, 40)
    case = Case(
        "tokens",
        first,
        torch=Tokens().eval(),
        dynamic={0: {1: ("sequence", 2, 64)}},
        also_at=others,
    )
    record, _ = Worker(None, threads=1).check(spec, case, case.expected())
    assert record["status"] == "pass", record


def test_a_case_compiled_for_fixed_sizes_fails_at_others():
    from lighthouse.suite.case import Case
    from lighthouse.suite.worker import Worker

    first, other = _sequences(8, 3)
    case = Case("tokens", first, torch=Tokens().eval(), also_at=[other])
    record, _ = Worker(None, threads=1).check("lighthouse:default", case, case.expected())
    assert record["status"] == "run-error"
    assert record["message"].startswith("at input sizes 1x3x16: ")


def test_scaled_absolute_tolerance_follows_each_output():
    from lighthouse.suite.case import Case

    case = Case("scaled", [], expected=[], atol=1e-3, scaled_atol=True)
    small, large = np.full(3, 0.02, np.float32), np.array([-40.0, 1.0, np.inf], np.float32)
    assert case.atols([small, large, np.arange(3)]) == pytest.approx([2e-5, 4e-2, 1e-3])
    assert Case("fixed", [], expected=[], atol=1e-3).atols([small, large]) == [1e-3, 1e-3]
    # Within 1e-3 of an output's largest magnitude passes; 2% of it fails.
    assert compare_outputs([small + 0.00001], [small], 0.0, case.atols([small])).ok
    assert not compare_outputs([small + 0.0004], [small], 0.0, case.atols([small])).ok
