"""lighthouse.compile and compile_onnx on the ingress test models, the
TorchDynamo backend, pipeline plugins, and call-time errors."""

import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)
onnx = pytest.importorskip(
    "onnx", reason="needs lighthouse[onnx] (build_tools/setup.sh installs it)"
)

import lighthouse  # noqa: E402
import lighthouse.ingress  # noqa: E402
import models  # noqa: E402
from example_packages import install_example  # noqa: E402
from lighthouse.compiler import CompileError, compile_module  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
# Reductions run in another order than PyTorch's kernels: float32 rounding.
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
MODELS = models.torch_models()


@pytest.fixture(scope="module")
def compiled_models():
    return {
        name: (module, inputs, lighthouse.compile(module, inputs, dynamic_shapes=dynamic))
        for name, module, inputs, dynamic in MODELS
    }


@pytest.mark.parametrize("name", [m[0] for m in MODELS])
def test_torch_model_matches_eager(compiled_models, name):
    module, inputs, compiled = compiled_models[name]
    with torch.no_grad():
        expected = module(*inputs)
    actual = compiled(*inputs)
    assert isinstance(actual, torch.Tensor)
    torch.testing.assert_close(actual, expected, **TOLERANCE)
    # numpy in, numpy out.
    as_numpy = compiled(*[i.numpy() for i in inputs])
    assert isinstance(as_numpy, np.ndarray)
    np.testing.assert_allclose(as_numpy, expected.numpy(), **TOLERANCE)


@pytest.mark.parametrize("batch", [1, 5, 64])
def test_dynamic_batch(compiled_models, batch):
    module, _, compiled = compiled_models["mlp_dynamic_batch"]
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(batch))
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), module(x), **TOLERANCE)


def test_results_are_owned_and_independent(compiled_models):
    _, inputs, compiled = compiled_models["mlp"]
    first = compiled(*inputs)
    second = compiled(*inputs)
    assert first.data_ptr() != second.data_ptr()
    second.zero_()
    assert first.abs().sum() > 0
    del second  # freeing a result leaves the other intact
    torch.testing.assert_close(first, compiled(*inputs))


def test_timings_and_ir_dumps(tmp_path):
    module, inputs = models.seeded(models.MLP()), (torch.randn(2, 16),)
    compiled = lighthouse.compile(module, inputs, dump_ir=tmp_path)
    assert set(compiled.timings) >= {"export", "import", "lower-to-linalg", "pipeline", "jit"}
    assert all(seconds >= 0 for seconds in compiled.timings.values())
    # The JIT's own steps, within its time but for the parts' optimization
    # and code generation, which are summed over its threads.
    steps = {f"jit.{s}" for s in ("translate", "split", "optimize", "codegen", "weights", "load")}
    assert steps <= set(compiled.timings)
    assert compiled.timings["jit.optimize"] > 0 and compiled.timings["jit.codegen"] > 0
    own = ("translate", "split", "weights", "load")
    assert sum(compiled.timings[f"jit.{s}"] for s in own) <= compiled.timings["jit"]
    # The process's peak resident memory at the end of each stage.
    stages = ["export", "import", "lower-to-linalg", "pipeline", "jit", "jit-lookup"]
    assert all(compiled.peak_rss[stage] > 10**7 for stage in stages)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "1-torch.mlir",
        "2-linalg.mlir",
        "3-llvm.mlir",
    ]
    assert "torch.aten.mm %" in compiled.ir["torch"]
    assert "linalg.matmul" in compiled.ir["linalg"]
    assert "llvm.func @main" in compiled.ir["llvm"]


@pytest.mark.parametrize(
    "model",
    [
        pytest.param(lambda: models.onnx_dense_softmax(13), id="dense-softmax-13"),
        pytest.param(lambda: models.onnx_dense_softmax(21), id="dense-softmax-21"),
        pytest.param(lambda: models.onnx_conv_pool(18), id="conv-pool-18"),
        pytest.param(
            lambda: onnx.load_from_string(
                models.exported_onnx(models.seeded(models.SmallCNN()), (torch.randn(1, 3, 16, 16),))
            ),
            id="exported-cnn",
        ),
        pytest.param(
            lambda: onnx.load_from_string(
                models.exported_onnx(
                    models.seeded(models.MLP()), (torch.randn(2, 16),), dynamic_batch=True
                )
            ),
            id="exported-mlp-dynamic",
        ),
    ],
)
@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_onnx_model_matches_reference_evaluator(model, pipeline):
    from onnx.reference import ReferenceEvaluator

    model = model()
    compiled = lighthouse.compile_onnx(model, pipeline=pipeline)
    initializers = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(0)
    feeds = {}
    for graph_input in model.graph.input:
        if graph_input.name in initializers:
            continue
        shape = [d.dim_value if d.dim_value else 3 for d in graph_input.type.tensor_type.shape.dim]
        feeds[graph_input.name] = rng.standard_normal(shape).astype(np.float32)
    (expected,) = ReferenceEvaluator(model).run(None, feeds)
    np.testing.assert_allclose(compiled(*feeds.values()), expected, **TOLERANCE)


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_onnx_gru_over_sequence_lengths_given_at_run_time(pipeline):
    # The recurrence's loop yields a state it did not compute in place of the
    # one it carries, which bufferization gives a buffer of its own.
    from onnx import TensorProto, helper, numpy_helper
    from onnx.reference import ReferenceEvaluator

    steps, batch, features, hidden = 4, 2, 3, 5
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
        for name, shape in (("W", (1, 3 * hidden, features)), ("R", (1, 3 * hidden, hidden)))
    ]
    graph = helper.make_graph(
        [helper.make_node("GRU", ["x", "W", "R", "", "lengths"], ["y"], hidden_size=hidden)],
        "gru",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [steps, batch, features]),
            helper.make_tensor_value_info("lengths", TensorProto.INT32, [batch]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [steps, 1, batch, hidden])],
        initializer=weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    compiled = lighthouse.compile_onnx(model, pipeline=pipeline)
    x = rng.standard_normal((steps, batch, features)).astype(np.float32)
    lengths = np.array([steps, steps], np.int32)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x, "lengths": lengths})
    np.testing.assert_allclose(compiled(x, lengths), expected, **TOLERANCE)


TRANSPOSED_CONVOLUTIONS = {
    "2d-4x4s2": (lambda: torch.nn.ConvTranspose2d(4, 3, 4, stride=2, padding=1), (1, 4, 8, 8)),
    "2d-output-padding": (
        lambda: torch.nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
        (2, 4, 7, 5),
    ),
    "2d-16x16s8": (lambda: torch.nn.ConvTranspose2d(5, 3, 16, stride=8, padding=4), (1, 5, 6, 6)),
    "2d-kernel-below-stride": (lambda: torch.nn.ConvTranspose2d(4, 3, 2, stride=3), (1, 4, 5, 5)),
    "2d-strides-2x3": (
        lambda: torch.nn.ConvTranspose2d(4, 3, 5, stride=(2, 3), padding=(2, 1)),
        (1, 4, 6, 7),
    ),
    "1d-16s8": (lambda: torch.nn.ConvTranspose1d(8, 4, 16, stride=8, padding=4), (1, 8, 20)),
    "3d-4x4x4s2": (lambda: torch.nn.ConvTranspose3d(6, 4, 4, stride=2, padding=1), (1, 6, 3, 4, 5)),
}


@pytest.mark.parametrize("pipeline", ["loops", "default"])
@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: torch.nn.Conv2d(3, 32, 16, stride=16), (1, 3, 66, 64)),  # rows left over
        (lambda: torch.nn.Conv2d(4, 8, (4, 3), stride=(4, 3)), (2, 4, 12, 9)),
        (lambda: torch.nn.Conv1d(4, 8, 5, stride=5), (1, 4, 52)),
        # Output rows of 7 pixels: patches gathered, one slice per window point.
        (lambda: torch.nn.Conv2d(24, 64, 3, padding=1), (2, 24, 7, 7)),
        (lambda: torch.nn.Conv2d(16, 64, 3, stride=2, padding=1), (1, 16, 14, 14)),
        (lambda: torch.nn.Conv2d(8, 32, (3, 5), dilation=(2, 3), padding=(2, 6)), (1, 8, 7, 7)),
        (lambda: torch.nn.Conv2d(40, 96, 1, bias=False), (1, 40, 10, 10)),
    ],
    ids=[
        "vit-patches",
        "rectangular",
        "1d",
        "narrow-rows",
        "narrow-strided",
        "narrow-dilated",
        "narrow-1x1",
    ],
)
def test_convolutions_of_patches_match_eager(make, shape, pipeline):
    # Windows that tile the image, or rows too narrow for the register
    # kernel, compute as a matmul of the image's patches.
    model = models.seeded(make()).eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(2))
    compiled = lighthouse.compile(model, (x,), pipeline=pipeline)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), **TOLERANCE)


class _ResidualBlock(torch.nn.Module):
    """ResNet's basic block: 3x3 convolutions, batch norms folded into them
    at import, a ReLU between them and after the residual sum."""

    def __init__(self, channels, stride):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(channels // stride, channels, 3, stride, 1, bias=False)
        self.norm1 = torch.nn.BatchNorm2d(channels)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, 1, 1, bias=False)
        self.norm2 = torch.nn.BatchNorm2d(channels)
        self.shortcut = (
            torch.nn.Conv2d(channels // stride, channels, 1, stride, bias=False)
            if stride > 1
            else torch.nn.Identity()
        )

    def forward(self, x):
        y = torch.relu(self.norm1(self.conv1(x)))
        return torch.relu(self.norm2(self.conv2(y)) + self.shortcut(x))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "channels, stride, size",
    [(64, 1, 16), (96, 2, 28), (48, 1, 12), (32, 1, 24)],
    ids=["blocks-of-32", "strided-rows-of-7", "blocks-of-16", "one-block"],
)
def test_channels_last_convolutions_match_eager(channels, stride, size, threads):
    # Dense convolutions of constant filters run in NHWC, in loops over
    # blocks of output channels whose filters are packed at compile time
    # (convolutions-channels-last): blocks of 32 channels (2 of 64, 3 of 96),
    # of 16 where 32 do not divide them (48), or the whole filter (32); rows
    # of 8, 7 (the strided block's 14 wide) or 6 pixels; on 2 threads, split by
    # rows.
    model = models.seeded(_ResidualBlock(channels, stride)).eval()
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    x = torch.randn(1, channels // stride, size, size, generator=torch.Generator().manual_seed(3))
    compiled = lighthouse.compile(
        model, (x,), pipeline=f"builtin.module(lighthouse-cpu{{threads={threads}}})"
    )
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), **TOLERANCE)


@pytest.mark.parametrize("pipeline", ["loops", "default"])
@pytest.mark.parametrize("name", TRANSPOSED_CONVOLUTIONS)
def test_transposed_convolutions_match_eager(name, pipeline):
    # Computed one phase of the output at a time (lighthouse-convolutions-by-phase).
    make, shape = TRANSPOSED_CONVOLUTIONS[name]
    model = models.seeded(make()).eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    compiled = lighthouse.compile(model, (x,), pipeline=pipeline)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), **TOLERANCE)


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_shifts_by_the_bit_width_or_more(pipeline):
    # torch defines them (0, or the sign for right shifts); LLVM would mask
    # the amount.
    class Shifts(torch.nn.Module):
        def forward(self, x, n):
            return torch.bitwise_left_shift(x, n), torch.bitwise_right_shift(x, n)

    x = torch.tensor([16, -16, 7, -1, 5, 3], dtype=torch.int32)
    n = torch.tensor([40, 32, -1, 31, 0, 2], dtype=torch.int32)
    compiled = lighthouse.compile(Shifts(), (x, n), pipeline=pipeline)
    for got, expected in zip(compiled(x, n), Shifts()(x, n)):
        torch.testing.assert_close(got, expected)


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_python_number_arguments(pipeline):
    class Scale(torch.nn.Module):
        def forward(self, x, s):
            return x * s

    # torch.export makes a Python number of the example inputs a constant of
    # the model: the compiled code takes that value only, and says so.
    x = torch.randn(3, 4)
    compiled = lighthouse.compile(Scale(), (x, 2.5), pipeline=pipeline)
    assert compiled.signature() == "main(float32[3x4], float64 = 2.5) -> (float32[3x4])"
    torch.testing.assert_close(compiled(x, 2.5), x * 2.5)
    with pytest.raises(ValueError, match=r"argument 1: the model was exported with 2\.5 there"):
        compiled(x, 7.0)
    # A 0-d tensor is an input like any other.
    compiled = lighthouse.compile(Scale(), (x, torch.tensor(2.5)), pipeline=pipeline)
    for s in (2.5, -1.0, 7.0):
        torch.testing.assert_close(compiled(x, torch.tensor(s)), x * s)


def test_compile_from_several_threads_at_once():
    # torch.export's tracing state is global: lighthouse traces one at a time.
    import threading

    outcomes = {}

    def compile_and_check(width):
        model = models.seeded(torch.nn.Sequential(torch.nn.Linear(8, width), torch.nn.ReLU()))
        x = torch.randn(2, 8)
        try:
            compiled = lighthouse.compile(model, (x,))
            with torch.no_grad():
                torch.testing.assert_close(compiled(x), model(x), **TOLERANCE)
            outcomes[width] = "ok"
        except Exception as error:  # Reported below, per thread.
            outcomes[width] = repr(error)

    threads = [threading.Thread(target=compile_and_check, args=(w,)) for w in (3, 4, 5, 6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == {3: "ok", 4: "ok", 5: "ok", 6: "ok"}


def test_torch_compile_backend_by_name():
    backends = importlib.metadata.entry_points(group="torch_dynamo_backends")
    if "lighthouse" not in [ep.name for ep in backends]:
        pytest.skip("lighthouse is not installed with its metadata (a build tree on PYTHONPATH)")
    torch._dynamo.reset()
    for _, module, inputs, _ in [m for m in MODELS if m[0] in ("mlp", "cnn")]:
        compiled = torch.compile(module, backend="lighthouse")
        with torch.no_grad():
            torch.testing.assert_close(compiled(*inputs), module(*inputs), **TOLERANCE)


def test_pipeline_plugin_found_by_name(tmp_path):
    # The example package, installed into its own folder, declares `fused-cpu`.
    site = install_example("pipeline-plugin", tmp_path)
    script = f"""
import sys
sys.path.insert(0, {str(REPO / "test")!r})
import lighthouse, models, torch
from lighthouse import plugins
assert "fused-cpu" in plugins.pipeline_names(), plugins.pipeline_names()
module, inputs = models.seeded(models.MLP()), (torch.randn(3, 16),)
compiled = lighthouse.compile(module, inputs, pipeline="fused-cpu")
assert "linalg-fuse-elementwise-ops" in compiled.pipeline, compiled.pipeline
with torch.no_grad():
    torch.testing.assert_close(compiled(*inputs), module(*inputs), rtol=1e-4, atol=1e-5)
print("ran fused-cpu")
"""
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ran fused-cpu" in result.stdout


EXP = """func.func @main(%a: tensor<2x3xf32>, %n: tensor<?xi64>) -> tensor<2x3xf32> {
  %r = math.exp %a : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}"""


@pytest.mark.parametrize(
    "args, error, text",
    [
        (
            (np.zeros((2, 3), np.float64), np.zeros(4, np.int64)),
            TypeError,
            "argument 0: expected float32 elements, got float64",
        ),
        (
            (np.zeros((3, 2), np.float32), np.zeros(4, np.int64)),
            ValueError,
            "argument 0: dimension 0 must be 2 (float32[2x3]), got shape (3, 2)",
        ),
        (
            (np.zeros((2, 3), np.float32), np.zeros((4, 1), np.int64)),
            ValueError,
            "argument 1: expected rank 1 (int64[?]), got shape (4, 1)",
        ),
        ((np.zeros((2, 3), np.float32),), TypeError, "takes 2 arguments, got 1"),
        (
            ([[0.0] * 3] * 2, np.zeros(4, np.int64)),
            TypeError,
            "argument 0: expected a numpy array or a torch tensor of float32[2x3], got list",
        ),
    ],
    ids=["dtype", "static-dim", "rank", "count", "not-an-array"],
)
def test_call_time_errors_name_the_argument(args, error, text):
    compiled = compile_module(EXP)
    with pytest.raises(error) as info:
        compiled(*args)
    assert text in str(info.value)
    # Good arguments still work afterwards.
    np.testing.assert_allclose(
        compiled(np.zeros((2, 3), np.float32), np.zeros(4, np.int64)), np.ones((2, 3))
    )


def test_dynamic_sizes_that_must_agree_are_checked():
    class Add(torch.nn.Module):
        def forward(self, x, y):
            return x + y

    batch = torch.export.Dim("batch")
    compiled = lighthouse.compile(
        Add(),
        (torch.ones(3, 4), torch.ones(3, 4)),
        dynamic_shapes={"x": {0: batch}, "y": {0: batch}},
    )
    with pytest.raises(
        ValueError, match="runtime check of the compiled code failed: mismatched size for broadcast"
    ):
        compiled(torch.ones(2, 4), torch.ones(5, 4))
    torch.testing.assert_close(
        compiled(torch.ones(2, 4), torch.ones(2, 4)), torch.full((2, 4), 2.0)
    )


def test_op_the_pipeline_cannot_lower_is_named():
    source = """
    ml_program.global private @g(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
    func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      %g = ml_program.global_load_const @g : tensor<4xf32>
      return %g : tensor<4xf32>
    }"""
    with pytest.raises(CompileError) as info:
        compile_module(source)
    message = str(info.value)
    assert "pipeline 'default' (builtin.module(lighthouse-cpu)) failed" in message
    assert "ml_program.global_load_const" in message
    assert ":4:12:" in message


def test_unknown_pipeline_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown pipeline 'fastest'.*default"):
        compile_module(EXP, pipeline="fastest")


def test_unknown_function():
    with pytest.raises(ValueError, match=r"no function @forward in the module; it has @main"):
        compile_module(EXP, "forward")


# The defaults (default pipeline, loops not unrolled) are compiled by the
# `compiled_models` fixture; these are the other settings.
@pytest.mark.parametrize(
    "pipeline, unroll_loops",
    [("default", True), ("loops", False), ("loops", True)],
    ids=["default-unrolled", "loops", "loops-unrolled"],
)
@pytest.mark.parametrize("name", [m[0] for m in MODELS])
def test_other_settings_match_eager(compiled_models, name, pipeline, unroll_loops):
    module, inputs, _ = compiled_models[name]
    dynamic = next(m[3] for m in MODELS if m[0] == name)
    compiled = lighthouse.compile(
        module, inputs, dynamic_shapes=dynamic, pipeline=pipeline, unroll_loops=unroll_loops
    )
    with torch.no_grad():
        torch.testing.assert_close(compiled(*inputs), module(*inputs), **TOLERANCE)


@pytest.mark.parametrize(
    "m, n, k",
    [(256, 256, 256), (64, 1024, 128), (64, 64, 1000), (61, 250, 100), (10, 7, 5), (None, 96, 64)],
    ids=[
        "threads-and-vectors",
        "column-blocks",
        "shrunk-cache-tile",
        "padded-to-register-tiles",
        "ragged-loops",
        "dynamic-rows",
    ],
)
@pytest.mark.parametrize("generic", [False, True], ids=["named", "generic"])
def test_fast_pipeline_matmul(m, n, k, generic):
    # A linalg.generic of the matmul's form takes the matmul's strategy.
    compiled = compile_module(models.matmul_mlir(m, n, k, generic), pipeline="default")
    rng = np.random.default_rng(n + k)
    b = rng.standard_normal((k, n), dtype=np.float32)
    # Dynamic rows: none, a partial register tile, whole ones, both.
    for rows in [m] if m is not None else [0, 1, 8, 19, 64]:
        a = rng.standard_normal((rows, k), dtype=np.float32)
        np.testing.assert_allclose(compiled(a, b), a @ b, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("batch", [197, 32])
def test_linear_layers_padded_to_register_tiles(batch):
    """Sizes that are not multiples of the register tile (ViT's 197 tokens, a
    1000-class head) are padded with zeros, the constant weight once, at
    compile time, and computed by the blocked strategy."""
    layer = models.seeded(torch.nn.Linear(768, 1000))
    x = torch.randn(batch, 768, generator=torch.Generator().manual_seed(batch))
    compiled = lighthouse.compile(layer, (x,), pipeline="default", dump_ir=True)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), layer(x), rtol=1e-4, atol=1e-4)
    # Register tiles of 8 rows by 32 columns: FMAs on vectors of 32 floats.
    assert "llvm.intr.fmuladd" in compiled.ir["llvm"]
    assert "vector<32xf32>" in compiled.ir["llvm"]


@pytest.mark.parametrize("batch", [1, 3, 4, 7])
def test_linear_layers_of_few_rows(batch):
    """Fewer rows than a register tile's (a Linear layer at batch 1 to 7) are
    a register tile of their own, wider in columns, which reads the weight
    once; the 1000 columns are padded to the tile's, the constant weight at
    compile time."""
    layer = models.seeded(torch.nn.Linear(512, 1000))
    x = torch.randn(batch, 512, generator=torch.Generator().manual_seed(batch))
    compiled = lighthouse.compile(layer, (x,), pipeline="default", dump_ir=True)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), layer(x), rtol=1e-4, atol=1e-4)
    assert "llvm.intr.fmuladd" in compiled.ir["llvm"]


def test_save_and_load_in_a_fresh_process(tmp_path):
    module = models.seeded(models.MLP())
    batch = torch.export.Dim("batch")
    compiled = lighthouse.compile(
        module, (torch.randn(2, 16),), dynamic_shapes={"x": {0: batch}}, pipeline="default"
    )
    compiled.save(tmp_path / "mlp")
    x = np.random.default_rng(0).standard_normal((5, 16), dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "expected.npy", compiled(x))
    # No torch, no ingress, no JIT: the saved library runs as it is.
    script = f"""
import sys, numpy as np
from lighthouse.compiler import load
loaded = load({str(tmp_path / "mlp")!r})
assert "lighthouse-cpu" in loaded.pipeline
np.testing.assert_array_equal(loaded(np.load({str(tmp_path / "x.npy")!r})),
                              np.load({str(tmp_path / "expected.npy")!r}))
assert "torch" not in sys.modules and "lighthouse.execution_engine" not in sys.modules
print(loaded.signature())
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "main(float32[?x16]) -> (float32[?x4])" in result.stdout


def test_cache_hit_skips_pipeline_and_jit(tmp_path, monkeypatch):
    from lighthouse.execution import cache

    module, inputs = models.seeded(models.MLP()), (torch.randn(3, 16),)
    first = lighthouse.compile(module, inputs, cache_dir=tmp_path)
    second = lighthouse.compile(module, inputs, cache_dir=tmp_path)
    assert {"pipeline", "jit", "cache-save"} <= set(first.timings)
    assert "cache-load" in second.timings and "jit" not in second.timings
    torch.testing.assert_close(second(*inputs), first(*inputs))
    # Another pipeline, or other LLVM settings, is another entry.
    third = lighthouse.compile(module, inputs, cache_dir=tmp_path, pipeline="loops")
    fourth = lighthouse.compile(module, inputs, cache_dir=tmp_path, unroll_loops=True)
    assert "jit" in third.timings and "jit" in fourth.timings
    entries = lambda: [p for p in tmp_path.iterdir() if p.name != cache.MODELS_FOLDER]  # noqa: E731
    assert len(entries()) == 3
    # So is another build of lighthouse's passes and JIT, of the same version.
    monkeypatch.setattr(cache, "compiler_identity", lambda: "another build")
    fifth = lighthouse.compile(module, inputs, cache_dir=tmp_path)
    assert "jit" in fifth.timings and len(entries()) == 4


def test_cached_model_in_a_new_process_skips_export(tmp_path):
    # A model found in the cache by its fingerprint: no torch.export, no
    # import, no lowering in the second process. Another weight is another
    # entry.
    script = tmp_path / "cached.py"
    script.write_text(
        f"""
import json, sys, torch, lighthouse
from lighthouse.suite.corpora.models import MLP, seeded
module = seeded(MLP())
with torch.no_grad():
    module.hidden.weight[0, 0] = float(sys.argv[1])
x = torch.ones(3, 16)
compiled = lighthouse.compile(module, (x,), cache_dir={str(tmp_path / "cache")!r})
torch.testing.assert_close(compiled(x), module(x))
print(json.dumps(sorted(compiled.timings)))
"""
    )

    def stages(weight):
        run = subprocess.run(
            [sys.executable, str(script), weight], capture_output=True, text=True, check=False
        )
        assert run.returncode == 0, run.stderr[-3000:]
        return set(json.loads(run.stdout.splitlines()[-1]))

    first, second, other = stages("0.5"), stages("0.5"), stages("0.25")
    assert {"cache-fingerprint", "export", "jit", "cache-save"} <= first
    assert second == {"cache-fingerprint", "cache-load"}
    assert {"export", "jit"} <= other


def test_options_object_and_keywords():
    from lighthouse.compiler import PIPELINES, CompileOptions

    loops = CompileOptions(pipeline="loops", opt_level=1)
    assert compile_module(EXP, options=loops).pipeline == PIPELINES["loops"]
    # A keyword argument wins over the options object.
    assert compile_module(EXP, options=loops, pipeline="default").pipeline == PIPELINES["default"]
    with pytest.raises(
        TypeError, match="unknown compile option.*pipelines; the options are pipeline, dump_ir"
    ):
        compile_module(EXP, pipelines="loops")
    with pytest.raises(TypeError, match="options must be a CompileOptions, got dict"):
        compile_module(EXP, options={"pipeline": "loops"})


def test_cache_hit_keeps_its_own_timings_and_ir(tmp_path):
    compile_module(EXP, cache_dir=tmp_path)
    hit = compile_module(EXP, cache_dir=tmp_path, dump_ir=True)
    assert "cache-load" in hit.timings and "pipeline" not in hit.timings
    assert "math.exp" in hit.ir["linalg"]


def test_compiled_module_outlives_its_ir():
    import gc

    from lighthouse import ir

    gc.collect()
    contexts = ir.Context._get_live_count()
    with ir.Context():
        module = ir.Module.parse(EXP)
    compiled = compile_module(module)
    del module
    gc.collect()
    # The JIT keeps object files and linked code, nothing of MLIR's.
    assert ir.Context._get_live_count() == contexts
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(compiled(a, np.zeros(4, np.int64)), np.exp(a), rtol=1e-6)


MISSING_FUNCTION = """
func.func private @lighthouse_test_no_such_function(f32) -> f32
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %empty = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%empty : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = func.call @lighthouse_test_no_such_function(%v) : (f32) -> f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_jit_errors_name_the_cause(threads):
    with pytest.raises(CompileError, match="optimization level 7 is not one of 0, 1, 2, 3"):
        compile_module(EXP, opt_level=7)
    with pytest.raises(CompileError, match="threads must be 0 .* or more, got -1"):
        compile_module(EXP, jit_threads=-1)
    with pytest.raises(
        CompileError,
        match="(?s)the JIT could not produce @main: .*lighthouse_test_no_such_function",
    ):
        compile_module(MISSING_FUNCTION, jit_threads=threads)


def test_jit_translation_failure_carries_mlir_diagnostics():
    # A cast that no pass removes reaches the JIT, whose translation to LLVM
    # IR refuses it with an MLIR diagnostic, not an LLVM error.
    source = """func.func @main(%a: i64) -> i32 {
  %b = builtin.unrealized_conversion_cast %a : i64 to i32
  return %b : i32
}"""
    with pytest.raises(CompileError) as info:
        compile_module(source)
    message = str(info.value)
    assert "the JIT could not produce @main: " in message
    assert "does not translate to LLVM IR:" in message
    assert (
        ":2:8: LLVM Translation failed for operation: builtin.unrealized_conversion_cast" in message
    )


TWO_FUNCTIONS = """
llvm.func @twice(%x: f64) -> f64 {
  %r = llvm.fadd %x, %x : f64
  llvm.return %r : f64
}
llvm.func @square(%x: f64) -> f64 {
  %r = llvm.fmul %x, %x : f64
  llvm.return %r : f64
}
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_jit_compiles_functions_in_parts(threads):
    import ctypes

    from lighthouse import ir
    from lighthouse._mlir_libs._lighthouse import create_execution_engine

    with ir.Context():
        engine = create_execution_engine(
            ir.Module.parse(TWO_FUNCTIONS), 3, False, threads, lighthouse.runtime_library_paths()
        )
    # One object file per part: a part per thread, at most one per function.
    assert len(engine.objects()) == threads
    assert all(o.startswith(b"\x7fELF") for o in engine.objects())
    for name, expected in (("twice", 6.0), ("square", 9.0)):
        # The packed entry: a pointer to each argument, then to the result.
        x, result = ctypes.c_double(3.0), ctypes.c_double()
        packed = (ctypes.c_void_p * 2)(ctypes.addressof(x), ctypes.addressof(result))
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.lookup(f"_mlir_{name}"))(packed)
        assert result.value == expected
    with pytest.raises(RuntimeError, match="no_such_symbol"):
        engine.lookup("no_such_symbol")


def _weights_module(weight: np.ndarray, small: np.ndarray) -> str:
    """Two functions returning element i of a constant global each: `weight`
    (2-D) and `small` (1-D)."""

    def global_op(name, array):
        values = json.dumps(array.tolist())
        shape = "x".join(map(str, array.shape))
        llvm_type = "f32"
        for size in reversed(array.shape):
            llvm_type = f"array<{size} x {llvm_type}>"
        return (
            f"llvm.mlir.global private constant @{name}(dense<{values}> : tensor<{shape}xf32>) "
            f"{{addr_space = 0 : i32, alignment = 64 : i64}} : !llvm.{llvm_type}"
        )

    def reader(name):
        return f"""
    llvm.func @{name}_at(%i: i64) -> f32 {{
      %base = llvm.mlir.addressof @{name} : !llvm.ptr
      %p = llvm.getelementptr %base[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      llvm.return %v : f32
    }}"""

    return "\n".join(
        [global_op("weight", weight), global_op("small", small), reader("weight"), reader("small")]
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_jit_compiles_weights_into_an_object_of_their_own(threads):
    import ctypes

    from lighthouse import ir
    from lighthouse._mlir_libs._lighthouse import create_execution_engine

    # 8 KiB: a weight; 64 bytes: a constant left in the code.
    weight = (np.arange(32 * 64, dtype=np.float32) * 0.5 - 7.0).reshape(32, 64)
    small = np.arange(16, dtype=np.float32) + 0.25
    with ir.Context():
        module = ir.Module.parse(_weights_module(weight, small))
        engine = create_execution_engine(module, 3, False, threads, [])
        # The caller's module keeps its constants.
        assert "dense<" in str(module).split("@small")[0]
    objects = engine.objects()
    # A part of code per thread, and the weights.
    assert len(objects) == threads + 1
    assert [weight.tobytes() in o for o in objects] == [False] * threads + [True]
    assert sum(small.tobytes() in o for o in objects[:threads]) == 1
    assert small.tobytes() not in objects[-1]
    for name, array in (("weight", weight.reshape(-1)), ("small", small)):
        entry = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.lookup(f"_mlir_{name}_at"))
        for index in (0, 1, len(array) // 2, len(array) - 1):
            i, result = ctypes.c_int64(index), ctypes.c_float()
            entry((ctypes.c_void_p * 2)(ctypes.addressof(i), ctypes.addressof(result)))
            assert result.value == array[index]


def test_jit_names_a_missing_symbol_at_every_lookup():
    from lighthouse import ir
    from lighthouse._mlir_libs._lighthouse import create_execution_engine

    source = """
    llvm.func @lighthouse_test_missing(f64) -> f64
    llvm.func @calls_missing(%x: f64) -> f64 {
      %r = llvm.call @lighthouse_test_missing(%x) : (f64) -> f64
      llvm.return %r : f64
    }
    """
    with ir.Context():
        engine = create_execution_engine(ir.Module.parse(source), 3, False, 0, [])
    for name in ("_mlir_calls_missing", "calls_missing"):
        with pytest.raises(RuntimeError, match="(?s)lighthouse_test_missing"):
            engine.lookup(name)


def test_jit_refuses_global_constructors():
    from lighthouse import ir
    from lighthouse._mlir_libs._lighthouse import create_execution_engine

    source = """
    llvm.mlir.global_ctors ctors = [@init], priorities = [0 : i32], data = [#llvm.zero]
    llvm.func @init() {
      llvm.return
    }
    """
    with ir.Context(), pytest.raises(RuntimeError, match="global constructors .* does not run"):
        create_execution_engine(ir.Module.parse(source), 3, False, 0, [])


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_module_compiled_in_parts_matches_eager_and_saves(tmp_path, pipeline):
    from lighthouse.compiler import load

    # Over 32 loop nests on the loops pipeline: the model is split into
    # several functions; on the default one, OpenMP's outlined functions. The
    # JIT compiles them in two parts on two threads.
    _, module, inputs, _ = next(m for m in MODELS if m[0] == "transformer_block")
    with torch.no_grad():
        expected = module(*inputs)
    compiled = lighthouse.compile(module, inputs, pipeline=pipeline, jit_threads=2)
    # The engine's object files: two of code, and the weights.
    assert len(compiled._owner.objects()) == 3
    torch.testing.assert_close(compiled(*inputs), expected, **TOLERANCE)
    compiled.save(tmp_path / "block")
    torch.testing.assert_close(load(tmp_path / "block")(*inputs), expected, **TOLERANCE)


def test_repeated_layers_share_their_code():
    # Four layers of the same shapes on weights of their own: the loop nests
    # of each layer are the functions of the first layer's, called on the
    # layer's weights (lighthouse-outline-loop-nests), and each layer still
    # computes with its own.
    torch.manual_seed(0)
    layers = [torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.GELU()) for _ in range(4)]
    module = torch.nn.Sequential(*layers).eval()
    x = torch.randn(8, 64)
    compiled = lighthouse.compile(module, (x,), dump_ir=True)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), module(x), **TOLERANCE)
    llvm = str(compiled.ir["llvm"])
    calls = re.findall(r"llvm\.call @(\w+_nests\w*)\(", llvm)
    defined = re.findall(r"llvm\.func internal @(\w+_nests\w*)\(", llvm)
    assert sorted(set(calls)) == sorted(defined)
    assert len(calls) >= 8 and len(defined) <= len(calls) - 6, calls


def test_load_errors(tmp_path):
    from lighthouse.compiler import load

    with pytest.raises(FileNotFoundError, match="no compiled module saved in"):
        load(tmp_path)
    compile_module(EXP).save(tmp_path / "exp")
    manifest = tmp_path / "exp" / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"mlir": "', '"mlir": "0.'))
    with pytest.raises(ValueError, match="was saved by lighthouse .* on MLIR 0.*compile it again"):
        load(tmp_path / "exp")


SHARED_WEIGHT = """
func.func @main(%x: tensor<?x4x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x4x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x4x16xf32>
  %empty = tensor.empty(%b) : tensor<?x16x32xf32>
  %bw = linalg.broadcast ins(%w : tensor<16x32xf32>) outs(%empty : tensor<?x16x32xf32>)
      dimensions = [0]
  %init = tensor.empty(%b) : tensor<?x4x32xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<?x4x32xf32>) -> tensor<?x4x32xf32>
  %r = linalg.batch_matmul ins(%x, %bw : tensor<?x4x16xf32>, tensor<?x16x32xf32>)
      outs(%filled : tensor<?x4x32xf32>) -> tensor<?x4x32xf32>
  return %r : tensor<?x4x32xf32>
}
"""


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_batch_matmul_with_a_shared_weight(pipeline):
    # Flattened into one matmul of the stacked rows; batches of 0 to 5.
    compiled = compile_module(SHARED_WEIGHT, pipeline=pipeline)
    rng = np.random.default_rng(7)
    w = rng.standard_normal((16, 32), dtype=np.float32)
    for batch in (0, 1, 2, 5):
        x = rng.standard_normal((batch, 4, 16), dtype=np.float32)
        np.testing.assert_allclose(compiled(x, w), x @ w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "m, n, k",
    [(256, 256, 256), (64, 1024, 128), (None, 96, 64)],
    ids=["threads", "column-blocks", "dynamic-rows"],
)
def test_fast_pipeline_fuses_bias_and_relu(m, n, k):
    compiled = compile_module(models.matmul_bias_relu_mlir(m, n, k), pipeline="default")
    rng = np.random.default_rng(m or 0)
    b = rng.standard_normal((k, n), dtype=np.float32)
    bias = rng.standard_normal(n, dtype=np.float32)
    for rows in [m] if m is not None else [0, 3, 8, 21]:
        a = rng.standard_normal((rows, k), dtype=np.float32)
        np.testing.assert_allclose(
            compiled(a, b, bias), np.maximum(a @ b + bias, 0), rtol=1e-4, atol=1e-3
        )


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "m, n, k, bias_relu",
    [(256, 1024, 512, False), (512, 1056, 256, False), (256, 1024, 512, True)],
    ids=["columns-split", "rows-split", "with-bias-relu"],
)
def test_fast_pipeline_panels_of_b(m, n, k, bias_relu, threads):
    """Matmuls whose B each thread copies into panels (256K floats of B a
    thread, two blocks of rows), split across threads by columns or, when
    the columns do not divide into register tiles per thread, by rows; with
    their bias and ReLU computed block by block."""
    pipeline = f"builtin.module(lighthouse-cpu{{threads={threads}}})"
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    if bias_relu:
        bias = rng.standard_normal(n, dtype=np.float32)
        compiled = compile_module(models.matmul_bias_relu_mlir(m, n, k), pipeline=pipeline)
        expected, result = np.maximum(a @ b + bias, 0), compiled(a, b, bias)
    else:
        compiled = compile_module(models.matmul_mlir(m, n, k), pipeline=pipeline)
        expected, result = a @ b, compiled(a, b)
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("dtype, element", [(np.float64, "f64"), (np.int32, "i32")])
def test_fast_pipeline_panels_of_b_other_types(dtype, element):
    """The panels of B pad with a zero of each operand's own type."""
    text = models.matmul_mlir(256, 1024, 512).replace("f32", element)
    if element == "i32":
        text = text.replace("0.0 : i32", "0 : i32")
    compiled = compile_module(text, pipeline="builtin.module(lighthouse-cpu{threads=2})")
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (256, 512)).astype(dtype)
    b = rng.integers(-4, 5, (512, 1024)).astype(dtype)
    np.testing.assert_array_equal(compiled(a, b), a @ b)


def test_fast_pipeline_cnn_batches_split_across_threads():
    # The convolutions run on one thread for small batches and split their
    # images across threads from 15 (the second) and 38 (the first) on.
    module = models.seeded(models.SmallCNN())
    batch = torch.export.Dim("batch", min=1, max=1024)
    compiled = lighthouse.compile(
        module, (torch.randn(2, 3, 16, 16),), dynamic_shapes={"x": {0: batch}}, pipeline="default"
    )
    for size in (1, 20, 64, 65):
        x = torch.randn(size, 3, 16, 16, generator=torch.Generator().manual_seed(size))
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), module(x), **TOLERANCE)


def test_fast_pipeline_options():
    # Options of the default pipeline go to its schedule; bad ones are named.
    one_thread = compile_module(
        models.matmul_mlir(256, 256, 256), pipeline="builtin.module(lighthouse-cpu{threads=1})"
    )
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((256, 256), dtype=np.float32) for _ in range(2))
    np.testing.assert_allclose(one_thread(a, b), a @ b, rtol=1e-4, atol=1e-3)
    with pytest.raises(ValueError, match="no such option tiles"):
        compile_module(
            models.matmul_mlir(256, 256, 256),
            pipeline="builtin.module(lighthouse-cpu{tiles=4})",
        )


F = torch.nn.functional
ROW = (torch.randn(4, 32, generator=torch.Generator().manual_seed(1)),)
IMAGES = (torch.randn(2, 8, 4, 4, generator=torch.Generator().manual_seed(2)),)
# The inputs are drawn from a seeded generator of their own: drawn from the
# global one, they depended on what the test files imported before them.
with torch.random.fork_rng():
    torch.manual_seed(0)
    OPS = {
        "rms_norm": (lambda x: F.rms_norm(x, (32,)), ROW),
        "attention": (
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
            tuple(torch.randn(2, 4, 8, 16) for _ in range(3)),
        ),
        "matmul-3d-by-2d": (lambda x, w: x @ w, (torch.randn(3, 5, 16), torch.randn(16, 32))),
        "baddbmm": (
            torch.baddbmm,
            (torch.randn(2, 4, 8), torch.randn(2, 4, 16), torch.randn(2, 16, 8)),
        ),
        "hardswish": (F.hardswish, ROW),
        "mish": (F.mish, ROW),
        "glu": (F.glu, ROW),
        "softplus": (F.softplus, ROW),
        "elu": (F.elu, ROW),
        "frac": (torch.frac, ROW),
        "std": (lambda x: x.std(dim=1), ROW),
        "logsumexp": (lambda x: torch.logsumexp(x, dim=1), ROW),
        "lerp": (lambda x: torch.lerp(x, x.flip(1), 0.3), ROW),
        "group_norm": (lambda x: F.group_norm(x, 2), IMAGES),
        "instance_norm": (F.instance_norm, IMAGES),
        "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), IMAGES),
        "interpolate": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), IMAGES),
        # Convolutions: the register kernel's blocks (channels by pixels) for
        # other shapes, and the 1-D windows it leaves strided rows to.
        "conv-dilated": (
            lambda x, w: F.conv2d(x, w, dilation=2, padding=2),
            (torch.randn(2, 4, 12, 40), torch.randn(20, 4, 3, 3)),
        ),
        "conv-5x5-odd-sizes": (
            lambda x, w, b: F.conv2d(x, w, b, padding=2),
            (torch.randn(3, 6, 9, 30), torch.randn(10, 6, 5, 5), torch.randn(10)),
        ),
        "conv-1x1-7x7": (
            lambda x, w: F.conv2d(x, w),
            (torch.randn(2, 16, 7, 7), torch.randn(32, 16, 1, 1)),
        ),
        "conv-narrow-rows": (
            lambda x, w: F.conv2d(x, w),
            (torch.randn(2, 8, 6, 4), torch.randn(16, 8, 3, 3)),
        ),
        "conv-strided": (
            lambda x, w: F.conv2d(x, w, stride=2, padding=1),
            (torch.randn(2, 3, 16, 16), torch.randn(8, 3, 3, 3)),
        ),
        # Depthwise convolutions in the register kernel: rows of 40 computed as
        # 32 + 8, strided (spans read as whole registers, the last one masked),
        # 5x5 with a bias over rows of 28 = 16 + 12, dilated, a batch of 2.
        "conv-depthwise": (
            lambda x, w: F.conv2d(x, w, padding=1, groups=16),
            (torch.randn(1, 16, 20, 40), torch.randn(16, 1, 3, 3)),
        ),
        "conv-depthwise-strided": (
            lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=8),
            (torch.randn(2, 8, 24, 64), torch.randn(8, 1, 3, 3)),
        ),
        "conv-depthwise-5x5": (
            lambda x, w, b: F.conv2d(x, w, b, padding=2, groups=12),
            (torch.randn(1, 12, 28, 28), torch.randn(12, 1, 5, 5), torch.randn(12)),
        ),
        "conv-depthwise-dilated": (
            lambda x, w: F.conv2d(x, w, padding=2, dilation=2, groups=8),
            (torch.randn(1, 8, 18, 32), torch.randn(8, 1, 3, 3)),
        ),
        # Depthwise convolutions between pointwise ones, in NHWC with the ops
        # between them: an inverted residual block over a batch of 2 (whole
        # registers of channels), and a strided 5x5 one of 40 channels (half
        # registers) between hardswishes.
        "conv-separable-block": (
            lambda x, w1, wd, w2: (
                x
                + F.conv2d(
                    F.relu6(F.conv2d(F.relu6(F.conv2d(x, w1)), wd, padding=1, groups=48)), w2
                )
            ),
            (
                torch.randn(2, 16, 14, 14),
                torch.randn(48, 16, 1, 1),
                torch.randn(48, 1, 3, 3),
                torch.randn(16, 48, 1, 1),
            ),
        ),
        "conv-separable-strided": (
            lambda x, w1, wd: F.hardswish(
                F.conv2d(F.hardswish(F.conv2d(x, w1)), wd, stride=2, padding=2, groups=40)
            ),
            (torch.randn(1, 8, 15, 15), torch.randn(40, 8, 1, 1), torch.randn(40, 1, 5, 5)),
        ),
        # Grouped convolutions as loops over their groups of 2-D ones; a channel
        # multiplier of 2 (groups = input channels, twice the output channels).
        "conv-grouped": (
            lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=4),
            (torch.randn(2, 8, 12, 20), torch.randn(16, 2, 3, 3), torch.randn(16)),
        ),
        "conv-grouped-multiplier": (
            lambda x, w: F.conv2d(x, w, stride=2, groups=6),
            (torch.randn(1, 6, 17, 33), torch.randn(12, 1, 3, 3)),
        ),
        # Windows of one pixel along strided dimensions: every stride-th pixel
        # copied out first (ResNet's 1x1 stride-2 shortcut; a 1x3 window at
        # strides of 3 and 2, whose rows only are picked; odd sizes).
        "conv-1x1-strided": (
            lambda x, w: F.conv2d(x, w, stride=2),
            (torch.randn(2, 16, 15, 29), torch.randn(24, 16, 1, 1)),
        ),
        "conv-1x3-strided": (
            lambda x, w: F.conv2d(x, w, stride=(3, 2), padding=(0, 1)),
            (torch.randn(1, 8, 17, 20), torch.randn(8, 8, 1, 3)),
        ),
        # 1-D convolutions as 2-D ones of height 1, 3-D ones as loops of 2-D ones
        # over output and filter depths (across threads from 2M multiply-adds).
        "conv1d-strided-dilated": (
            lambda x, w: F.conv1d(x, w, stride=2, dilation=2, padding=2),
            (torch.randn(2, 8, 70), torch.randn(16, 8, 3)),
        ),
        "conv3d": (
            lambda x, w: F.conv3d(x, w, padding=1),
            (torch.randn(1, 4, 5, 10, 12), torch.randn(8, 4, 3, 3, 3)),
        ),
        "conv3d-strided-threads": (
            lambda x, w: F.conv3d(x, w, stride=(1, 2, 2), padding=1),
            # Weights scaled to the 432 terms of each sum: outputs of order 1.
            (torch.randn(1, 16, 6, 20, 36), torch.randn(16, 16, 3, 3, 3) / 20),
        ),
        # Output rows no block divides, computed in two parts: 2047 = 2032 + 15
        # columns (the register kernel's blocks), 319 = 304 + 15 (1-D windows:
        # a stride of 5).
        "max-pool1d-2047": (lambda x: F.max_pool1d(x, 3, 2), (torch.randn(1, 16, 4096),)),
        "conv1d-stride-5": (
            lambda x, w: F.conv1d(x, w, stride=5),
            (torch.randn(1, 1, 1604), torch.randn(32, 1, 10)),
        ),
        # Poolings: the register kernel's blocks (max, sum), strided and not,
        # padded with -inf, and the 1-D windows (rows of 3 pixels).
        "max-pool-padded": (lambda x: F.max_pool2d(x, 3, 2, 1), (torch.randn(2, 16, 32, 32),)),
        "max-pool-even-rows": (lambda x: F.max_pool2d(x, 2, 1), (torch.randn(1, 12, 9, 21),)),
        "max-pool-odd-rows": (lambda x: F.max_pool2d(x, 2, 1), (torch.randn(1, 12, 10, 21),)),
        "avg-pool-strided": (lambda x: F.avg_pool2d(x, 2, 2), (torch.randn(2, 8, 20, 20),)),
        "max-pool-narrow-rows": (lambda x: F.max_pool2d(x, 2), (torch.randn(2, 4, 6, 6),)),
        "max-pool-dilated": (
            lambda x: F.max_pool2d(x, 3, 1, 0, dilation=2),
            (torch.randn(2, 8, 20, 36),),
        ),
        # A NaN in a window makes its maximum NaN, as in eager PyTorch.
        "max-pool-nan": (
            lambda x: F.max_pool2d(x, 2),
            (torch.tensor([1.0, float("nan"), 2.0, 3.0]).repeat(4, 8, 4).unsqueeze(0),),
        ),
        # Batches of matmuls: a loop of 2-D matmuls, across the threads from 2M
        # multiply-adds on; attention's q @ k^T and @ v.
        "bmm-threads": (torch.bmm, (torch.randn(8, 64, 96), torch.randn(8, 96, 128))),
        "bmm-4d": (lambda a, b: a @ b, (torch.randn(2, 3, 16, 8), torch.randn(2, 3, 8, 32))),
        # Row reductions: rows in blocks, reduced in vectors of partial results
        # (the default pipeline's reduction.rows), a softmax's max and sum, a layer
        # norm's mean and variance (in f64), rows of 8 to 64 floats at a time;
        # 512K elements split across threads by rows.
        "softmax-rows": (lambda x: torch.softmax(x, -1), (torch.randn(64, 1000),)),
        "softmax-threads": (lambda x: torch.softmax(x, -1), (torch.randn(512, 1024),)),
        "layer-norm-rows": (lambda x: F.layer_norm(x, (768,)), (torch.randn(128, 768),)),
        "row-max-3d": (lambda x: x.amax(-1), (torch.randn(4, 32, 256),)),
        # Chains of row reductions and the elementwise ops reading them, run over
        # blocks of rows: a row maximum also returned (computed in the chain and
        # for the caller), a log-softmax, a causal attention, an attention whose
        # mask hides a whole row (its output row is 0, the chain's select), rows
        # of 197 (no divisor near 8192 / 197 floats: all rows at once).
        "softmax-and-row-max": (
            lambda x: (torch.softmax(x, -1), x.amax(-1)),
            (torch.randn(512, 1024),),
        ),
        "log-softmax-rows": (lambda x: torch.log_softmax(x, -1), (torch.randn(4, 64, 1000),)),
        "sdpa-causal": (
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
            tuple(torch.randn(1, 4, 128, 32) for _ in range(3)),
        ),
        "sdpa-masked-row": (
            lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
            (
                *(torch.randn(1, 2, 64, 16) for _ in range(3)),
                torch.arange(64)[:, None].repeat(1, 64) != 5,
            ),
        ),
        "softmax-197x197": (lambda x: torch.softmax(x, -1), (torch.randn(2, 3, 197, 197),)),
        # Reductions of several innermost dimensions, collapsed into one.
        "mean-spatial": (lambda x: x.mean((2, 3)), (torch.randn(2, 16, 12, 12),)),
        "group-norm-wide": (lambda x: F.group_norm(x, 4), (torch.randn(2, 16, 8, 16),)),
        "sum-all": (lambda x: x.sum(), (torch.randn(64, 96),)),
        "row-sum-nan": (
            lambda x: x.sum(-1),
            (torch.tensor([1.0, float("nan")] + [2.0] * 62).repeat(16, 1),),
        ),
        # GELU's tanh form with sqrt(2 / pi) as eager has it (torch-mlir's own
        # lowering was 5e-5 off at 1.33).
        "gelu-tanh": (lambda x: F.gelu(x, approximate="tanh"), (torch.linspace(-6, 6, 4097),)),
        "gelu-erf": (F.gelu, (torch.linspace(-6, 6, 4097),)),
        # Rows no vector width divides, reduced in parts: 49 = 48 + 1 (a mean
        # over 7 x 7), 197 = 192 + 5 (ViT's tokens), 3199 = 3136 + 56 + 7.
        "mean-7x7": (lambda x: F.adaptive_avg_pool2d(x, 1), (torch.randn(2, 64, 7, 7),)),
        "softmax-197": (lambda x: torch.softmax(x, -1), (torch.randn(24, 197),)),
        "row-sum-3199": (lambda x: x.sum(-1), (torch.randn(8, 3199),)),
        # A row's maximum and the index of its first occurrence (argmax, max over
        # a dimension) as row reductions: many ties, rows all -inf, integer rows
        # of 1000 (1000 = 8 x 125, so partial results in vectors of 8).
        "argmax-ties": (lambda x: x.argmax(-1), (torch.randint(0, 4, (16, 1000)).float(),)),
        "argmin-3d": (lambda x: x.argmin(-1), (torch.randn(4, 8, 200),)),
        "max-dim": (lambda x: torch.max(x, 1), (torch.randn(64, 1000),)),
        "argmax-all-minus-inf": (
            lambda x: x.argmax(-1),
            (torch.full((4, 64), float("-inf")),),
        ),
        "row-sum-int64": (lambda x: x.sum(-1), (torch.randint(-9, 9, (32, 256)),)),
        # Rows that are not whole registers collapsed with the planes around
        # them: a per-channel scale of 28 x 28 images, a hardswish of 7 x 7 ones,
        # a broadcast along the rows (its rows of 14 stay rows).
        "channel-scale-28x28": (
            lambda x, s: x * s,
            (torch.randn(2, 16, 28, 28), torch.randn(2, 16, 1, 1)),
        ),
        "hardswish-7x7": (F.hardswish, (torch.randn(4, 32, 7, 7),)),
        "row-broadcast-14": (lambda x, r: x + r, (torch.randn(3, 8, 14, 14), torch.randn(14))),
        # 512K elements: split across threads by the default pipeline.
        "large-elementwise": (
            lambda x, b: torch.relu(x * 0.5 + b[:, None, None]),
            (torch.randn(8, 16, 64, 64), torch.randn(16)),
        ),
    }


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_ops_match_eager(name, pipeline):
    op, inputs = OPS[name]

    class Op(torch.nn.Module):
        def forward(self, *args):
            return op(*args)

    compiled = lighthouse.compile(Op(), inputs, pipeline=pipeline)
    torch.testing.assert_close(compiled(*inputs), op(*inputs), equal_nan=True, **TOLERANCE)


@pytest.mark.parametrize(
    "op", [lambda x: x.argmax(-1), lambda x: x.argmin(-1), lambda x: torch.max(x, 1)]
)
def test_index_reductions_over_nan_keep_their_ir_meaning(op):
    """The default pipeline computes a row's maximum and its index in vectors,
    and the op as its IR has it where a row holds a NaN: what the loops
    pipeline computes (torch-mlir's lowering keeps the index of the
    maximum before the first NaN, where eager PyTorch gives the NaN's)."""
    x = torch.randn(4, 64, generator=torch.Generator().manual_seed(0))
    x[0, 10] = x[1, 0] = x[2, 63] = float("nan")

    class Op(torch.nn.Module):
        def forward(self, x):
            return op(x)

    vectors = lighthouse.compile(Op(), (x,), pipeline="default")(x)
    loops = lighthouse.compile(Op(), (x,), pipeline="loops")(x)
    torch.testing.assert_close(vectors, loops, equal_nan=True, rtol=0, atol=0)
    # Rows without a NaN: as eager.
    torch.testing.assert_close(
        torch.as_tensor(vectors[1] if isinstance(vectors, tuple) else vectors)[3],
        (op(x)[1] if isinstance(vectors, tuple) else op(x))[3],
    )


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize(
    "shape",
    [(1, 64, 10, 16), (1, 8, 75, 64), (1, 8, 64, 64)],
    ids=["channels", "uneven-rows", "even-rows"],
)
def test_one_image_split_across_threads(shape, threads):
    """Batch 1 with work enough to split within the image: by blocks of output
    channels (when they divide evenly among the threads and the filters
    outweigh the image) or by output rows; either way the register kernel
    computes the blocks (vector FMAs)."""
    generator = torch.Generator().manual_seed(threads)
    x = torch.randn(*shape, generator=generator)
    w = torch.randn(shape[1], shape[1], 3, 3, generator=generator)

    class Conv(torch.nn.Module):
        def forward(self, x, w):
            return F.conv2d(x, w, padding=1)

    compiled = lighthouse.compile(
        Conv(),
        (x, w),
        dump_ir=True,
        pipeline=f"builtin.module(lighthouse-cpu{{threads={threads}}})",
    )
    # Sums of up to 576 products of magnitude ~1: float rounding reaches 1e-5.
    torch.testing.assert_close(compiled(x, w), F.conv2d(x, w, padding=1), rtol=1e-4, atol=1e-4)
    assert "omp.parallel" in compiled.ir["llvm"]
    assert "llvm.intr.fmuladd" in compiled.ir["llvm"]


WINDOWS = """
func.func @conv(%x: tensor<1x8x18x18xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>)
      outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}
func.func @max_pool(%x: tensor<1x16x34x34xf32>) -> tensor<1x16x16x16xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : tensor<1x16x34x34xf32>, tensor<3x3xf32>)
      outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}
"""


@pytest.mark.parametrize("function", ["conv", "max_pool"])
def test_generic_windows_take_the_register_kernel(function):
    """A linalg.generic of an NCHW convolution's or pooling's form is one of
    the convolution family (classified through linalg's convolution
    interface, not by op class): the register kernel computes it, in rows of
    16 pixels, with the named op's results."""
    from lighthouse import ir, passmanager

    named = compile_module(WINDOWS, function, pipeline="default")
    with ir.Context():
        module = ir.Module.parse(WINDOWS)
        passmanager.PassManager.parse("builtin.module(linalg-generalize-named-ops)").run(
            module.operation
        )
        assert "linalg.conv_2d" not in str(module) and "linalg.pooling" not in str(module)
        generic = compile_module(module, function, pipeline="default", dump_ir=True)
    assert "vector<16xf32>" in generic.ir["llvm"]
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(shape, dtype=np.float32) for _, shape in named.arguments]
    np.testing.assert_allclose(generic(*inputs), named(*inputs), rtol=1e-5, atol=1e-5)


# ===------------------------------------------------------------------------===#
# Unsigned integers, with values across their range (2^(bits-1) and above):
# the ops lighthouse trusts torch-mlir to lower on them (lighthouse.ingress.
# _unsigned) against ONNX's reference evaluator and eager PyTorch; the ops it
# refuses, lowered anyway, are wrong (strict xfails: when torch-mlir gets
# them right, they pass, and can be trusted).
# ===------------------------------------------------------------------------===#

UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]


def unsigned_values(dtype):
    """Two vectors of `dtype`: 0, 1, 2^(bits-1) - 1, 2^(bits-1), ..., 2^bits - 1."""
    top = int(np.iinfo(dtype).max)
    half = (top >> 1) + 1
    a = np.array([0, 1, 7, half - 1, half, half + 5, top - 1, top], dtype)
    b = np.array([3, half + 1, top, 2, 1, half, 200, 5], dtype)
    return a, b


def onnx_graph(nodes, inputs, outputs, initializers=(), opset=18):
    from onnx import helper

    def values(named):
        return [helper.make_tensor_value_info(name, *spec) for name, spec in named.items()]

    graph = helper.make_graph(nodes, "g", values(inputs), values(outputs), list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def trusted_unsigned_onnx_ops(dtype):
    """An ONNX model of the ops lighthouse trusts on `dtype`, and its inputs."""
    from onnx import TensorProto, helper, numpy_helper

    element = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    f32, f64, i32, i64 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32, TensorProto.INT64
    boolean = TensorProto.BOOL
    node, outputs = helper.make_node, {}

    def out(name, element_type, shape):
        outputs[name] = (element_type, shape)
        return name

    nodes = [
        *[node(op, ["a", "b"], [out(op, element, [8])]) for op in ("Add", "Sub", "Mul", "Max")],
        node("Min", ["a", "b"], [out("Min", element, [8])]),
        *[
            node(op, ["a", "b"], [out(op, boolean, [8])])
            for op in ("Greater", "Less", "Equal", "GreaterOrEqual", "LessOrEqual")
        ],
        *[node("Cast", ["a"], [out(f"Cast{to}", to, [8])], to=to) for to in (f32, f64, i32, i64)],
        node("Identity", ["a"], [out("Identity", element, [8])]),
        node("Where", ["k", "a", "b"], [out("Where", element, [8])]),
        node("Gather", ["a", "i"], [out("Gather", element, [4])], axis=0),
        node("ReduceMax", ["a", "axes"], [out("ReduceMax", element, [])], keepdims=0),
        node("ReduceMin", ["a", "axes"], [out("ReduceMin", element, [])], keepdims=0),
        node("ReduceSum", ["a", "axes"], [out("ReduceSum", element, [])], keepdims=0),
        node("ArgMax", ["a"], [out("ArgMax", i64, [])], keepdims=0),
        node("ArgMin", ["b"], [out("ArgMin", i64, [])], keepdims=0),
        # Refused as torch.aten.clamp.Tensor, then expanded into ONNX's function.
        node("Clip", ["a", "lo", "hi"], [out("Clip", element, [8])]),
        node("BitShift", ["a", "s"], [out("BitShift", element, [8])], direction="RIGHT"),
        node("BitwiseAnd", ["a", "b"], [out("BitwiseAnd", element, [8])]),
        node("BitwiseNot", ["a"], [out("BitwiseNot", element, [8])]),
    ]
    if np.dtype(dtype).itemsize == 1:
        # Through a wider signed type (`convert_floats_through_signed`);
        # torch-mlir converts ONNX's Cast to no other unsigned type.
        nodes.append(node("Cast", ["f"], [out("CastFromFloat", element, [6])], to=element))
    if np.dtype(dtype) in (np.uint8, np.uint32):
        # On the values widened to a signed type (`compute_through_wider_signed`).
        nodes += [
            node("Div", ["a", "b"], [out("Div", element, [8])]),
            node("Mod", ["a", "b"], [out("Mod", element, [8])]),
            node("TopK", ["a", "k3"], [out("TopK", element, [3]), out("TopKIndices", i64, [3])]),
            node("Reshape", ["a", "row"], ["a_row"]),
            node(
                "MaxPool",
                ["a_row"],
                [out("MaxPool", element, [1, 1, 4])],
                kernel_shape=[2],
                strides=[2],
            ),
        ]
    inputs = {
        "a": (element, [8]),
        "b": (element, [8]),
        "k": (boolean, [8]),
        "i": (i64, [4]),
        "lo": (element, []),
        "hi": (element, []),
        "s": (element, [8]),
    }
    a, b = unsigned_values(dtype)
    half = (int(np.iinfo(dtype).max) >> 1) + 1
    feeds = [
        a,
        b,
        np.array([1, 0, 1, 0, 1, 0, 1, 0], bool),
        np.array([7, 4, 0, 5], np.int64),
        np.array(5, dtype),
        np.array(half + 10, dtype),
        np.array([1, 2, 3, 1, 2, 3, 1, 4], dtype),
    ]
    if np.dtype(dtype).itemsize == 1:
        # Up to the largest float32 below 2^bits.
        top = np.nextafter(np.float32(np.iinfo(dtype).max + 1), np.float32(0))
        inputs["f"] = (f32, [6])
        feeds.append(np.array([0, 1.5, half - 0.75, half, half + 10.7, top], np.float32))
    initializers = [
        numpy_helper.from_array(np.array([0], np.int64), "axes"),
        numpy_helper.from_array(np.array([3], np.int64), "k3"),
        numpy_helper.from_array(np.array([1, 1, 8], np.int64), "row"),
    ]
    # ONNX's checks refuse the ops of a type their schema does not take
    # (ReduceSum of uint8, MaxPool of uint32...), as onnxruntime does.
    taken = [n for n in nodes if n.input[0] not in ("a", "a_row") or takes(n.op_type, element)]
    for dropped in nodes:
        if dropped not in taken:
            for name in dropped.output:
                outputs.pop(name, None)
    return onnx_graph(taken, inputs, outputs, initializers), feeds


def takes(op_type: str, element: int, opset: int = 18) -> bool:
    """Whether ONNX's `op_type` at `opset` takes a first input of `element`."""
    from onnx import TensorProto, defs

    schema = defs.get_schema(op_type, max_inclusive_version=opset)
    allowed = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    formal = schema.inputs[0].type_str
    return f"tensor({TensorProto.DataType.Name(element).lower()})" in allowed.get(formal, [formal])


@pytest.mark.parametrize("pipeline", ["loops", "default"])
@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_trusted_onnx_ops_on_unsigned_integers_match_the_reference(dtype, pipeline):
    from onnx.reference import ReferenceEvaluator

    model, feeds = trusted_unsigned_onnx_ops(dtype)
    expected = ReferenceEvaluator(model).run(
        None, dict(zip([i.name for i in model.graph.input], feeds))
    )
    actual = lighthouse.compile_onnx(model, pipeline=pipeline)(*feeds)
    for output, value, reference in zip(model.graph.output, actual, expected):
        assert value.dtype == reference.dtype, output.name
        np.testing.assert_array_equal(value, reference, err_msg=output.name)


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_quantized_matmul_of_uint8_stacks_matches_the_reference(pipeline):
    """torch-mlir's batched product of the quantized stacks computed them as
    signed; lighthouse's function of QLinearMatMul takes the zero points off
    first (MatMulInteger), in int32."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    u8, f32 = TensorProto.UINT8, TensorProto.FLOAT
    a8, b8 = unsigned_values(np.uint8)
    model = onnx_graph(
        [helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])],
        {
            "a": (u8, [1, 2, 4]),
            "b": (u8, [1, 4, 2]),
            **{name: (u8, []) for name in ("az", "bz", "yz")},
            **{name: (f32, []) for name in ("as", "bs", "ys")},
        },
        {"y": (u8, [1, 2, 2])},
        opset=21,
    )
    feeds = (
        [a8.reshape(1, 2, 4), b8.reshape(1, 4, 2)]
        + [np.array(v, np.uint8) for v in (200, 130, 150)]
        + [np.array(v, np.float32) for v in (0.05, 0.05, 0.02)]
    )
    # The graph's inputs are a, b, then the zero points and the scales.
    names = [i.name for i in model.graph.input]
    expected = ReferenceEvaluator(model).run(None, dict(zip(names, feeds)))[0]
    actual = lighthouse.compile_onnx(model, pipeline=pipeline)(*feeds)
    np.testing.assert_array_equal(actual, expected)


def refused_unsigned_onnx_ops():
    """ONNX models of ops torch-mlir computes on unsigned integers as on
    signed ones, their inputs, the op lighthouse refuses, and the pipeline
    where it is wrong (the default one's vectors for an undefined conversion
    that the loops pipeline's scalars happen to get right)."""
    from onnx import TensorProto, helper

    node = helper.make_node
    u8, u64, f32, i32 = TensorProto.UINT8, TensorProto.UINT64, TensorProto.FLOAT, TensorProto.INT32
    u16 = TensorProto.UINT16
    a8, b8 = unsigned_values(np.uint8)
    a16, b16 = unsigned_values(np.uint16)
    a64, b64 = unsigned_values(np.uint64)

    def binary(op, element, a, b):
        model = onnx_graph(
            [node(op, ["a", "b"], ["y"])],
            {"a": (element, [8]), "b": (element, [8])},
            {"y": (element, [8])},
        )
        return model, [a, b]

    return {
        "Div-uint16": (*binary("Div", u16, a16, b16), "torch.aten.div.Tensor"),
        "Div-uint64": (*binary("Div", u64, a64, b64), "torch.aten.div.Tensor"),
        "Mod-uint16": (*binary("Mod", u16, a16, b16), "torch.aten.remainder.Tensor"),
        "Abs-uint16": (
            onnx_graph([node("Abs", ["a"], ["y"])], {"a": (u16, [8])}, {"y": (u16, [8])}),
            [a16],
            "torch.aten.abs",
        ),
        "TopK-uint64": (
            onnx_graph(
                [node("TopK", ["a", "k"], ["y", "i"])],
                {"a": (u64, [8]), "k": (TensorProto.INT64, [1])},
                {"y": (u64, [3]), "i": (TensorProto.INT64, [3])},
            ),
            [a64, np.array([3], np.int64)],
            "torch.aten.sort",
        ),
        "Pow-float-uint8": (
            onnx_graph(
                [node("Pow", ["x", "a"], ["y"])],
                {"x": (f32, [8]), "a": (u8, [8])},
                {"y": (f32, [8])},
            ),
            [np.full(8, 1.01, np.float32), a8],
            "torch.aten.pow.Tensor_Tensor",
        ),
        "MatMulInteger-uint8": (
            onnx_graph(
                [node("MatMulInteger", ["a", "b"], ["y"])],
                {"a": (u8, [2, 4]), "b": (u8, [4, 2])},
                {"y": (i32, [2, 2])},
            ),
            [a8.reshape(2, 4), b8.reshape(4, 2)],
            "torch.aten.mm",
        ),
        "DequantizeLinear-per-axis": (
            onnx_graph(
                [node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=0)],
                {"x": (u8, [2, 4]), "s": (f32, [2]), "z": (u8, [2])},
                {"y": (f32, [2, 4])},
                opset=21,
            ),
            [a8.reshape(2, 4), np.array([0.5, 2], np.float32), np.array([200, 3], np.uint8)],
            "torch.aten._make_per_channel_quantized_tensor",
        ),
    }


REFUSED_UNSIGNED_ONNX_OPS = refused_unsigned_onnx_ops()


def without_the_unsigned_check(monkeypatch):
    from lighthouse.ingress.torch_mlir import unsigned as _unsigned

    monkeypatch.setattr(_unsigned, "check", lambda module: None)


#: Cases lowered through a conversion undefined on their values: -x on
#: uint8 goes through `arith.fptosi` of -255.0 to i8, poison, which is the
#: wrapped value on some hosts (AVX-512's) and not on others.
UNDEFINED_WHEN_LOWERED_AS_SIGNED = {"negation"}


def lowered_as_signed(ops: dict, op_of) -> list:
    """The cases of `ops`, each expected to fail (strictly, unless its result
    is undefined) for as long as torch-mlir computes its op (`op_of(case)`)
    on unsigned integers as on signed ones."""
    return [
        pytest.param(
            name,
            marks=pytest.mark.xfail(
                strict=name not in UNDEFINED_WHEN_LOWERED_AS_SIGNED,
                raises=AssertionError,
                reason=f"torch-mlir lowers {op_of(case)} on unsigned integers as on signed ones",
            ),
        )
        for name, case in ops.items()
    ]


@pytest.mark.parametrize("name", lowered_as_signed(REFUSED_UNSIGNED_ONNX_OPS, lambda case: case[2]))
def test_refused_onnx_ops_on_unsigned_integers_are_wrong(name, monkeypatch):
    from onnx.reference import ReferenceEvaluator

    model, feeds, op, *pipeline = REFUSED_UNSIGNED_ONNX_OPS[name]
    with pytest.raises(lighthouse.ingress.LoweringError, match=f"'{op}' on unsigned integers"):
        lighthouse.compile_onnx(model)
    without_the_unsigned_check(monkeypatch)
    names = [i.name for i in model.graph.input]
    expected = ReferenceEvaluator(model).run(None, dict(zip(names, feeds)))
    actual = lighthouse.compile_onnx(model, pipeline=(pipeline or ["loops"])[0])(*feeds)
    for value, reference in zip(actual if isinstance(actual, tuple) else (actual,), expected):
        np.testing.assert_allclose(value, reference, rtol=1e-5)


class TrustedUnsignedTorchOps(torch.nn.Module):
    def forward(self, x, y, mask, index):
        return (
            x + y,
            x - y,
            x * y,
            torch.maximum(x, y),
            torch.minimum(x, y),
            x > y,
            x < y,
            x == y,
            x <= 100,
            x.to(torch.float32),
            x.to(torch.int32),
            x.amax(),
            x.amin(),
            x.argmax(),
            x.sum(dtype=torch.uint8),
            x.clamp(5, 200),
            torch.where(mask, x, y),
            x.index_select(0, index),
            x.masked_fill(mask, 250),
            x & y,
            ~x,
            x >> 1,
            torch.relu(x),
            torch.sqrt(x),
            x.int() - y,
            (x.float() + 0.25).to(torch.uint8),
            # On the values widened to int16 (`compute_through_wider_signed`).
            torch.div(x, y, rounding_mode="trunc"),
            x % y,
            x.abs(),
            x.sort().values,
            x.clamp(y[:1], y[1:2]),
        )


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_trusted_torch_ops_on_uint8_match_eager(pipeline):
    a, b = (torch.from_numpy(v) for v in unsigned_values(np.uint8))
    inputs = (a, b, a > 100, torch.tensor([7, 4, 0, 5]))
    module = TrustedUnsignedTorchOps()
    compiled = lighthouse.compile(module, inputs, pipeline=pipeline)
    for index, (actual, expected) in enumerate(zip(compiled(*inputs), module(*inputs))):
        assert actual.dtype == expected.dtype, index
        # Integers exactly; floats within an ulp: eager's sqrt rounds sqrt(133)
        # one ulp off on AVX-512 hosts, lighthouse's is correctly rounded.
        rtol = 2.0**-23 if expected.is_floating_point() else 0
        torch.testing.assert_close(actual, expected, rtol=rtol, atol=0, msg=f"output {index}")


REFUSED_UNSIGNED_TORCH_OPS = {
    "true-division": (lambda x, y: x / y, "torch.aten.div.Tensor"),
    "times-a-float": (lambda x, y: x * 2.5, "torch.aten.mul.Scalar"),
    "times-int32": (lambda x, y: x * y.int(), "torch.aten.mul.Tensor"),
    "sum-to-int64": (lambda x, y: x.sum(), "torch.aten.sum.dim_IntList"),
    "less-than-200": (lambda x, y: x < 200, "torch.aten.lt.Scalar"),
    "float-to-the-power": (
        lambda x, y: torch.pow(torch.full((8,), 1.01), x),
        "torch.aten.pow.Tensor_Tensor",
    ),
    "negation": (lambda x, y: -x, "torch.aten.neg", "default"),
}


@pytest.mark.parametrize(
    "name", lowered_as_signed(REFUSED_UNSIGNED_TORCH_OPS, lambda case: case[1])
)
def test_refused_torch_ops_on_uint8_are_wrong(name, monkeypatch):
    function, op, *pipeline = REFUSED_UNSIGNED_TORCH_OPS[name]
    inputs = tuple(torch.from_numpy(v) for v in unsigned_values(np.uint8))
    with pytest.raises(lighthouse.ingress.LoweringError, match=f"'{op}' on unsigned integers"):
        lighthouse.compile(models.Function(function), inputs)
    without_the_unsigned_check(monkeypatch)
    compiled = lighthouse.compile(
        models.Function(function), inputs, pipeline=(pipeline or ["loops"])[0]
    )
    actual = compiled(*inputs)
    torch.testing.assert_close(actual, function(*inputs), rtol=1e-5, atol=0)


def test_torch_compile_runs_refused_unsigned_ops_eagerly():
    from lighthouse.torch_backend import Backend

    def model(x, y):
        return x + y, x < 200

    a, b = (torch.from_numpy(v) for v in unsigned_values(np.uint8))
    backend = Backend()
    for actual, expected in zip(torch.compile(model, backend=backend)(a, b), model(a, b)):
        torch.testing.assert_close(actual, expected, rtol=0, atol=0)
    (graph,) = backend.graphs
    assert list(graph.eager_ops) == ["aten.lt.Scalar"]
    assert "uint8" in str(graph.parts[0])


# ===------------------------------------------------------------------------===#
# bfloat16, float8 and 4-bit integers, with values across their range
# (negative, subnormal, NaN and infinities): what the compiled code computes
# on them, against ONNX's reference evaluator and eager PyTorch, bit for bit.
# ===------------------------------------------------------------------------===#


def ml_dtype(name):
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="needs ml_dtypes (lighthouse[onnx])")
    return np.dtype(getattr(ml_dtypes, name))


def same_bits(actual, expected):
    """Where `actual` and `expected` (arrays of one float dtype) hold the same
    bits, or NaNs both."""
    width = f"uint{8 * expected.dtype.itemsize}"
    nan = np.isnan(actual.astype(np.float32)) & np.isnan(expected.astype(np.float32))
    return (actual.view(width) == expected.view(width)) | nan


def subnormal(values):
    """Where `values` are subnormal, or the smallest normal number that a
    subnormal float32 rounds to (float32's and bfloat16's exponents are one)."""
    magnitude = np.abs(values.astype(np.float32))
    return (magnitude > 0) & (magnitude <= np.finfo(np.float32).tiny)


def bfloat16_ops():
    """An ONNX model of bfloat16 ops, its inputs: every bfloat16 value (Cast to
    float32, Relu, Neg, Abs); float32 values at, between and halfway between
    bfloat16 ones (Cast to bfloat16); pairs of bfloat16 values across the range
    and of near magnitudes, so that sums cancel (Add, Sub, Mul, Div); matrices
    (MatMul)."""
    from onnx import TensorProto, helper

    bf16, f32 = TensorProto.BFLOAT16, TensorProto.FLOAT
    dtype = ml_dtype("bfloat16")
    every = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    high = np.arange(1 << 16, dtype=np.uint32) << 16
    floats = np.concatenate([high, high | 0x8000, high | 0x7FFF, high | 0x8001]).view(np.float32)
    rng = np.random.default_rng(0)
    n = 1 << 14
    a = rng.integers(0, 1 << 16, n, dtype=np.uint16).view(dtype)
    b = rng.integers(0, 1 << 16, n, dtype=np.uint16).view(dtype)
    with np.errstate(all="ignore"):
        b[: n // 2] = (a[: n // 2].astype(np.float32) * rng.uniform(-2, 2, n // 2)).astype(dtype)
    m1 = rng.standard_normal((16, 64)).astype(dtype)
    m2 = rng.standard_normal((64, 24)).astype(dtype)
    node, outputs = helper.make_node, {}

    def out(name, element, shape):
        outputs[name] = (element, shape)
        return name

    nodes = [
        node("Cast", ["every"], [out("CastToFloat", f32, [1 << 16])], to=f32),
        node("Cast", ["floats"], [out("CastToBfloat16", bf16, [floats.size])], to=bf16),
        *[node(op, ["every"], [out(op, bf16, [1 << 16])]) for op in ("Relu", "Neg", "Abs")],
        *[node(op, ["a", "b"], [out(op, bf16, [n])]) for op in ("Add", "Sub", "Mul", "Div")],
        node("MatMul", ["m1", "m2"], [out("MatMul", bf16, [16, 24])]),
    ]
    inputs = {
        "every": (bf16, [1 << 16]),
        "floats": (f32, [floats.size]),
        "a": (bf16, [n]),
        "b": (bf16, [n]),
        "m1": (bf16, [16, 64]),
        "m2": (bf16, [64, 24]),
    }
    return onnx_graph(nodes, inputs, outputs, opset=21), [every, floats, a, b, m1, m2]


def bfloat16_results(pipeline):
    """The outputs of `bfloat16_ops` compiled, and ONNX's reference outputs."""
    from onnx.reference import ReferenceEvaluator

    model, feeds = bfloat16_ops()
    names = [i.name for i in model.graph.input]
    with np.errstate(all="ignore"):
        expected = ReferenceEvaluator(model).run(None, dict(zip(names, feeds)))
    actual = lighthouse.compile_onnx(model, pipeline=pipeline)(*feeds)
    return model, feeds, actual, expected


@pytest.mark.parametrize("pipeline", ["loops", "default"])
def test_bfloat16_onnx_ops_match_the_reference(pipeline):
    model, feeds, actual, expected = bfloat16_results(pipeline)
    for output, value, reference in zip(model.graph.output, actual, expected):
        assert value.dtype == reference.dtype, output.name
        right = same_bits(value, reference)
        # Results in bfloat16's subnormal range may be flushed to zero (below).
        flushed = subnormal(reference) & (value.astype(np.float32) == 0)
        wrong = np.flatnonzero(~(right | flushed))
        assert wrong.size == 0, (
            output.name,
            value.ravel()[wrong[:4]],
            reference.ravel()[wrong[:4]],
        )
    # As eager PyTorch computes them (but Relu, which keeps -0).
    every, floats, a, b, m1, m2 = (torch.from_numpy(f.view(f"uint{8 * f.itemsize}")) for f in feeds)
    every, a, b, m1, m2 = (t.view(torch.bfloat16) for t in (every, a, b, m1, m2))
    floats = floats.view(torch.float32)
    eager = {
        "CastToFloat": every.float(),
        "CastToBfloat16": floats.to(torch.bfloat16),
        "Neg": -every,
        "Abs": every.abs(),
        "Add": a + b,
        "Sub": a - b,
        "Mul": a * b,
        "Div": a / b,
        "MatMul": m1 @ m2,
    }
    for output, value in zip(model.graph.output, actual):
        if output.name in eager:
            expected = eager[output.name]
            standin = torch.uint16 if expected.dtype == torch.bfloat16 else torch.uint32
            expected = expected.view(standin).numpy().view(value.dtype)
            flushed = subnormal(expected) & (value.astype(np.float32) == 0)
            assert np.all(same_bits(value, expected) | flushed), output.name


def has_avx512_bf16():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512_bf16" in f.read()
    except OSError:
        return False


@pytest.mark.xfail(
    has_avx512_bf16(),
    strict=True,
    raises=AssertionError,
    reason="on CPUs with AVX512-BF16, LLVM rounds float32 to bfloat16 with vcvtneps2bf16, "
    "which flushes subnormal results to zero",
)
def test_bfloat16_subnormal_results_are_kept():
    model, feeds, actual, expected = bfloat16_results("default")
    for output, value, reference in zip(model.graph.output, actual, expected):
        assert np.all(same_bits(value, reference)), output.name


def four_bit_ops(name):
    """An ONNX model of ops on ml_dtypes' `name` (int4 or uint4), its inputs:
    each value of the type, zero points across it."""
    from onnx import TensorProto, helper

    element = TensorProto.INT4 if name == "int4" else TensorProto.UINT4
    wide = TensorProto.INT8 if name == "int4" else TensorProto.UINT8
    f32, f16, i32 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT32
    dtype = ml_dtype(name)
    low = -8 if name == "int4" else 0
    # Rows of 16: the default pipeline would vectorize them, but for i4.
    values = np.tile(np.arange(low, low + 16), (4, 1)).astype(dtype)
    zero_points = np.array([low, low + 7, low + 8, low + 15]).astype(dtype)
    node, outputs = helper.make_node, {}

    def out(op, element_type, shape=(4, 16)):
        outputs[op] = (element_type, list(shape))
        return op

    nodes = [
        *[node("Cast", ["x"], [out(f"Cast{to}", to)], to=to) for to in (f32, f16, wide, i32)],
        node("Identity", ["x"], [out("Identity", element)]),
        node("Transpose", ["x"], [out("Transpose", element, (16, 4))], perm=[1, 0]),
        node("DequantizeLinear", ["x", "s", "z0"], [out("DequantizeLinear", f32)]),
        node("DequantizeLinear", ["x", "s", "z1"], [out("DequantizeLinear1", f32)]),
    ]
    inputs = {"x": (element, [4, 16]), "s": (f32, []), "z0": (element, []), "z1": (element, [])}
    feeds = [
        values,
        np.array(0.5, np.float32),
        zero_points[:1].reshape(()),
        zero_points[2:3].reshape(()),
    ]
    return onnx_graph(nodes, inputs, outputs, opset=21), feeds


@pytest.mark.parametrize("pipeline", ["loops", "default"])
@pytest.mark.parametrize("name", ["int4", "uint4"])
def test_four_bit_onnx_ops_match_the_reference(name, pipeline):
    from onnx.reference import ReferenceEvaluator

    model, feeds = four_bit_ops(name)
    names = [i.name for i in model.graph.input]
    expected = ReferenceEvaluator(model).run(None, dict(zip(names, feeds)))
    actual = lighthouse.compile_onnx(model, pipeline=pipeline)(*feeds)
    for output, value, reference in zip(model.graph.output, actual, expected):
        assert value.dtype == reference.dtype, output.name
        np.testing.assert_array_equal(value, reference, err_msg=output.name)


@pytest.mark.parametrize(
    "name", ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"]
)
def test_float8_conversions_are_not_lowered_and_say_so(name):
    from onnx import TensorProto, helper

    element = helper.np_dtype_to_tensor_dtype(ml_dtype(name))
    f32 = TensorProto.FLOAT
    model = onnx_graph(
        [helper.make_node("Cast", ["x"], ["y"], to=f32)],
        {"x": (element, [4])},
        {"y": (f32, [4])},
        opset=21,
    )
    mlir = {"float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2"}.get(name) or (
        "f8E4M3FNUZ" if "e4m3" in name else "f8E5M2FNUZ"
    )
    with pytest.raises(
        CompileError,
        match=f"'arith.extf' at loc\\(\"Cast_0\"\\)\n\\(MLIR lowers no arithmetic or conversion "
        f"of {mlir} to CPU code: lighthouse passes such tensors, but cannot yet compute on them\\)",
    ):
        lighthouse.compile_onnx(model)


ROWS_AS_BATCH_AND_SEQUENCE = """
func.func @main(%rows: tensor<?x4xf32>, %shape: tensor<2xi64>) -> tensor<?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b64 = tensor.extract %shape[%c0] : tensor<2xi64>
  %n64 = tensor.extract %shape[%c1] : tensor<2xi64>
  %b = arith.index_cast %b64 : i64 to index
  %n = arith.index_cast %n64 : i64 to index
  %x = tensor.expand_shape %rows [[0, 1], [2]] output_shape [%b, %n, 4]
      : tensor<?x4xf32> into tensor<?x?x4xf32>
  %y = math.exp %x : tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}"""


@pytest.mark.parametrize("pipeline", ["default", "loops"])
def test_rows_expanded_into_two_dynamic_sizes(pipeline):
    # A dimension split into two dynamic sizes (a batch and a sequence
    # length): MLIR's expand-strided-metadata crashed on it.
    compiled = compile_module(ROWS_AS_BATCH_AND_SEQUENCE, pipeline=pipeline)
    rows = np.random.default_rng(0).random((6, 4), dtype=np.float32)
    for b, n in ((2, 3), (3, 2), (1, 6)):
        np.testing.assert_allclose(
            compiled(rows, np.array([b, n])), np.exp(rows).reshape(b, n, 4), rtol=1e-6
        )
    # Sizes that do not hold the rows would have the code read past them.
    for b, n in ((4, 2), (-2, -3)):
        with pytest.raises(ValueError, match="the sizes do not hold the expanded dimension"):
            compiled(rows, np.array([b, n]))
