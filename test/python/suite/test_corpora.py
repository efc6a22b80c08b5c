"""The test bench's `models` and `kernelbench` corpora: listing, building
cases, their references; KernelBench read from a fake checkout written here."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)

from lighthouse.suite.corpora.kernelbench import KernelBench, family, scaled  # noqa: E402
from lighthouse.suite.corpora.models import MLP, Models, seeded  # noqa: E402


def test_models_lists_each_model_with_its_family():
    cases = {info.name: info.tags for info in Models().cases()}
    for name, kind in [
        ("resnet18", "conv"),
        ("bert_encoder", "transformer"),
        ("encoder_layers_256", "transformer"),
        ("mlp_b1", "mlp"),
        ("mlp_b32", "mlp"),
        ("conv3d_block", "conv"),
        ("deconv_decoder", "conv"),
        ("mobile_blocks", "conv"),
        ("lstm", "rnn"),
        ("gru", "rnn"),
        ("norm_softmax_block", "norm"),
        ("small_mlp", "mlp"),
        ("small_cnn", "conv"),
    ]:
        assert cases[name] == {"family": kind, "op": name}


@pytest.mark.parametrize(
    "name, input_shape, output_shape",
    [
        ("mlp_b1", (1, 1024), (1, 1000)),
        ("deconv_decoder", (1, 256, 8, 8), (1, 32, 64, 64)),
    ],
)
def test_models_builds_a_deterministic_float32_case(name, input_shape, output_shape):
    case = Models().load(name)
    assert [x.shape for x in case.inputs] == [input_shape]
    assert case.inputs[0].dtype == np.float32
    assert case.offers("torch") and case.offers("onnx")
    assert not case.form("torch").training
    (output,) = case.expected()
    assert output.shape == output_shape and output.dtype == np.float32
    # Initialized for depth: outputs of order 1, neither vanishing nor exploding.
    assert 0.05 < output.std() < 5
    again = Models().load(name)
    np.testing.assert_array_equal(again.inputs[0], case.inputs[0])
    np.testing.assert_array_equal(again.expected()[0], output)


def test_models_runs_the_test_models_as_the_tests_build_them():
    case = Models().load("small_mlp")
    module = seeded(MLP())
    with torch.no_grad():
        expected = module(torch.from_numpy(case.inputs[0])).numpy()
    np.testing.assert_array_equal(case.expected()[0], expected)


def test_models_rejects_an_unknown_case():
    with pytest.raises(ValueError, match="no case 'vgg'"):
        Models().load("vgg")


MATMUL = """\
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)

N = 256 * 2
K = 32

def get_inputs():
    A = torch.randn(N, K)
    B = torch.randn(K, N)
    return [A, B]

def get_init_inputs():
    return []
"""

RELU = """\
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.linear = nn.Linear(features, features)

    def forward(self, x, factor):
        return torch.relu(self.linear(x)) * factor

batch_size = 16
input_shape = (1024,)

def get_inputs():
    return [torch.rand(batch_size, *input_shape), 0.5]

def get_init_inputs():
    return [input_shape[0]]
"""


@pytest.fixture
def checkout(tmp_path):
    """A KernelBench checkout of two problems: a matmul in level 1, a linear
    layer with ReLU and a constant factor in level 2."""
    for level, file, source in [
        (1, "1_Square_matrix_multiplication_.py", MATMUL),
        (2, "3_ReLU_Linear_Scale.py", RELU),
    ]:
        folder = tmp_path / "KernelBench" / f"level{level}"
        folder.mkdir(parents=True)
        (folder / file).write_text(source)
    (tmp_path / "KernelBench" / "level3").mkdir()
    return tmp_path


def test_kernelbench_lists_the_problems_of_the_levels_asked(checkout):
    cases = KernelBench(path=str(checkout)).cases()
    assert [(info.name, info.tags) for info in cases] == [
        (
            "level1/1_Square_matrix_multiplication_",
            {"level": "1", "family": "matmul", "op": "Square_matrix_multiplication_"},
        ),
        (
            "level2/3_ReLU_Linear_Scale",
            {"level": "2", "family": "activation", "op": "ReLU_Linear_Scale"},
        ),
    ]
    only_2 = KernelBench(path=str(checkout / "KernelBench"), levels="2").cases()
    assert [info.name for info in only_2] == ["level2/3_ReLU_Linear_Scale"]
    logged = []
    KernelBench(path=str(checkout)).prepare(logged.append)
    assert "2 problems" in logged[0]


def test_kernelbench_scales_sizes_above_the_threshold():
    assert scaled(512, 0.125) == 64
    assert scaled(3, 0.125) == 3  # A kernel size.
    assert scaled(65, 0.001) == 1
    assert scaled((4096, 1, 1), 0.125) == (512, 1, 1)
    assert scaled([768, 12], 0.125) == [96, 12]
    assert scaled(True, 0.125) is True
    assert scaled("conv", 0.125) == "conv"


def test_kernelbench_loads_a_scaled_problem(checkout):
    case = KernelBench(path=str(checkout)).load("level1/1_Square_matrix_multiplication_")
    assert [x.shape for x in case.inputs] == [(64, 32), (32, 64)]  # N 512 scaled, K 32 kept.
    a, b = case.inputs
    np.testing.assert_allclose(case.expected()[0], a @ b, rtol=1e-5, atol=1e-5)
    assert (case.rtol, case.atol) == (1e-2, 1e-2)
    assert case.tags == {"level": "1", "family": "matmul", "op": "Square_matrix_multiplication_"}

    full = KernelBench(path=str(checkout), scale=1.0).load("level1/1_Square_matrix_multiplication_")
    assert [x.shape for x in full.inputs] == [(512, 32), (32, 512)]


def test_kernelbench_bakes_non_tensor_inputs_into_the_module(checkout):
    corpus = KernelBench(path=str(checkout), levels="2", seed=3)
    case = corpus.load("level2/3_ReLU_Linear_Scale")
    assert [x.shape for x in case.inputs] == [(16, 128)]  # 1024 scaled; the 0.5 is a constant.
    module = case.form("torch")
    with torch.no_grad():
        expected = torch.relu(module.model.linear(torch.from_numpy(case.inputs[0]))) * 0.5
    np.testing.assert_array_equal(case.expected()[0], expected.numpy())
    # Seeded: the same weights and inputs in any process.
    again = corpus.load("level2/3_ReLU_Linear_Scale")
    np.testing.assert_array_equal(again.inputs[0], case.inputs[0])
    np.testing.assert_array_equal(again.expected()[0], case.expected()[0])


@pytest.mark.parametrize(
    "options, message",
    [
        ({"path": None}, "needs --kernelbench-path"),
        ({"path": "/nonexistent/KernelBench"}, "no such folder"),
        ({"levels": "1,4"}, "no level4 folder"),
        ({"levels": "one"}, "expected numbers"),
    ],
)
def test_kernelbench_errors_name_the_option(checkout, options, message):
    with pytest.raises(ValueError, match=message):
        KernelBench(**{"path": str(checkout), **options}).cases()


def test_kernelbench_rejects_a_folder_that_is_not_a_checkout(tmp_path):
    with pytest.raises(ValueError, match="not a KernelBench checkout"):
        KernelBench(path=str(tmp_path)).cases()


@pytest.mark.parametrize(
    "problem, kind",
    [
        ("Max_Pooling_2D", "pooling"),
        ("Conv2d_GroupNorm_Tanh", "conv"),
        ("Gemm_Sigmoid_Sum_LogSumExp", "matmul"),
        ("Sum_reduction_over_a_dimension", "reduction"),
        ("LayerNorm", "norm"),
        ("HingeLoss", "loss"),
        ("cumsum_exclusive", "scan"),
        ("MinGPTNewGelu", "activation"),
        ("MiniGPTBlock", "attention"),
        ("LSTMHn", "rnn"),
        ("ResNet18", "network"),
        ("NetVladWithGhostClusters", "other"),
    ],
)
def test_kernelbench_guesses_the_family_from_the_name(problem, kind):
    assert family(problem) == kind
