"""torch-mlir's passes run in a process of their own: models that crash or hang
them raise `LoweringCrash`, and the caller's process goes on compiling."""

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)
onnx = pytest.importorskip(
    "onnx", reason="needs lighthouse[onnx] (build_tools/setup.sh installs it)"
)
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[torch])")

from onnx import TensorProto, helper  # noqa: E402

import lighthouse  # noqa: E402
from lighthouse import ir  # noqa: E402
from lighthouse.ingress import LoweringCrash  # noqa: E402
from lighthouse.ingress.torch_mlir import process as _lowering_process  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402

ONNX_STAGE = "torch-mlir's conversion of ONNX ops to the torch backend contract"
LINALG_STAGE = "torch-mlir's lowering from the torch backend contract to linalg on tensors"


def onnx_model(node, inputs, output, opset, initializers=()):
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(name, kind, shape) for name, kind, shape in inputs],
        [helper.make_tensor_value_info(*output)],
        initializer=list(initializers),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def relu():
    return onnx_model(
        helper.make_node("Relu", ["x"], ["y"]),
        [("x", TensorProto.FLOAT, [3])],
        ("y", TensorProto.FLOAT, [3]),
        17,
    )


def cast_like_to_int4():
    # torch-mlir has no scalar type for si4: "LLVM ERROR", abort.
    return onnx_model(
        helper.make_node("CastLike", ["x", "like"], ["y"]),
        [("x", TensorProto.FLOAT, [3]), ("like", TensorProto.INT4, [1])],
        ("y", TensorProto.INT4, [3]),
        21,
    )


def reshape_empty_with_allowzero():
    # torch-mlir divides by the size 0 of the result: SIGFPE.
    return onnx_model(
        helper.make_node("Reshape", ["x", "shape"], ["y"], allowzero=1),
        [("x", TensorProto.FLOAT, [0, 3, 4])],
        ("y", TensorProto.FLOAT, [3, 4, 0]),
        14,
        [helper.make_tensor("shape", TensorProto.INT64, [3], [3, 4, 0])],
    )


def softmax_on_a_huge_axis(context):
    """torch-onnx IR of a Softmax on an axis torch-mlir's conversion never
    ends on. ONNX's checks refuse a model of it before lowering
    (ingress/onnx/test_validate.py): the IR is a valid model's, edited."""
    model = onnx_model(
        helper.make_node("Softmax", ["x"], ["y"], axis=-1),
        [("x", TensorProto.FLOAT, [2, 3])],
        ("y", TensorProto.FLOAT, [2, 3]),
        13,
    )
    text = str(onnx_ingress.import_model(model, context=context))
    huge = text.replace("torch.onnx.axis = -1 :", "torch.onnx.axis = -4503599627370497 :")
    assert huge != text
    return ir.Module.parse(huge, context=context)


def compiles_and_runs_relu():
    # Run in this process, on OpenMP's threads, between lowerings.
    compiled = lighthouse.compile_onnx(relu())
    np.testing.assert_array_equal(compiled(np.array([-1, 0, 2], np.float32)), [0, 0, 2])


@pytest.mark.parametrize(
    "model, stage, signal, fatal",
    [
        (
            cast_like_to_int4,
            ONNX_STAGE,
            "SIGABRT",
            "LLVM ERROR: Unhandled type in getScalarTypeForType: si4",
        ),
        (reshape_empty_with_allowzero, LINALG_STAGE, "SIGFPE", None),
    ],
    ids=["llvm-fatal-error", "signal"],
)
def test_crash_in_torch_mlir_raises_and_compiling_goes_on(model, stage, signal, fatal):
    compiles_and_runs_relu()
    with pytest.raises(LoweringCrash) as info:
        lighthouse.compile_onnx(model())
    crash = info.value
    assert (crash.stage, crash.signal, crash.fatal, crash.time_limit) == (
        stage,
        signal,
        fatal,
        None,
    )
    expected = f"{stage} crashed: torch-mlir's process died of {signal}"
    assert str(crash) == expected + (f"\n{fatal}" if fatal else "")
    assert isinstance(crash, onnx_ingress.IngressError)
    compiles_and_runs_relu()


class FloorHalf(torch.nn.Module):
    def forward(self, p):
        return p // 2


def test_int8_floor_division_crashes_torch_mlir_not_the_caller():
    # (uint8's is refused before torch-mlir lowers it: lighthouse.ingress.torch_mlir.unsigned.)
    with pytest.raises(LoweringCrash) as info:
        lighthouse.compile(FloorHalf(), (torch.arange(10, dtype=torch.int8),))
    assert (info.value.stage, info.value.signal) == (LINALG_STAGE, "SIGSEGV")
    x = torch.arange(10, dtype=torch.float32)
    np.testing.assert_array_equal(lighthouse.compile(FloorHalf(), (x,))(x), x // 2)


def test_hang_is_stopped_at_the_time_limit(monkeypatch):
    compiles_and_runs_relu()  # The worker started, so that the limit is the hang's alone.
    with ir.Context() as context:
        start = time.monotonic()
        with pytest.raises(LoweringCrash) as info:
            onnx_ingress.lower_to_linalg(softmax_on_a_huge_axis(context), time_limit=1.5)
    assert 1.5 <= time.monotonic() - start < 30
    crash = info.value
    assert (crash.stage, crash.signal, crash.time_limit) == (ONNX_STAGE, None, 1.5)
    assert str(crash).startswith(f"{ONNX_STAGE} did not finish within 1.5 s")
    assert "LIGHTHOUSE_LOWERING_TIME_LIMIT" in str(crash)
    compiles_and_runs_relu()

    monkeypatch.setenv("LIGHTHOUSE_LOWERING_TIME_LIMIT", "1")
    with ir.Context() as context:
        with pytest.raises(LoweringCrash) as info:
            onnx_ingress.lower_to_linalg(softmax_on_a_huge_axis(context))
    assert info.value.time_limit == 1.0


@pytest.mark.parametrize(
    "setting, call",
    [
        ("soon", lambda: onnx_ingress.to_linalg(relu())),
        ("", lambda: lighthouse.compile_onnx(relu(), lowering_time_limit=0)),
    ],
    ids=["variable", "option"],
)
def test_time_limit_that_is_not_positive_seconds(monkeypatch, setting, call):
    monkeypatch.setenv("LIGHTHOUSE_LOWERING_TIME_LIMIT", setting)
    with pytest.raises(ValueError, match="LIGHTHOUSE_LOWERING_TIME_LIMIT must|positive"):
        with ir.Context():
            call()


def test_one_worker_serves_lowerings_until_it_dies():
    compiles_and_runs_relu()
    first = _lowering_process.worker_pid()
    compiles_and_runs_relu()
    assert _lowering_process.worker_pid() == first
    with pytest.raises(LoweringCrash):
        lighthouse.compile_onnx(cast_like_to_int4())
    assert _lowering_process.worker_pid() is None
    compiles_and_runs_relu()
    assert _lowering_process.worker_pid() not in (None, first)


def test_worker_killed_between_lowerings_is_replaced():
    compiles_and_runs_relu()
    first = _lowering_process.worker_pid()
    os.kill(first, 9)
    compiles_and_runs_relu()
    assert _lowering_process.worker_pid() not in (None, first)


def test_worker_loads_torch_mlir_and_neither_torch_nor_lighthouse():
    compiles_and_runs_relu()
    with open(f"/proc/{_lowering_process.worker_pid()}/maps") as maps:
        libraries = {line.split()[-1] for line in maps if ".so" in line}
    assert any("torch_mlir/_mlir_libs" in path for path in libraries)
    assert not [p for p in libraries if "libtorch" in p or "lighthouse/_mlir_libs" in p]


def test_lowerings_from_threads():
    results = []

    def lower():
        with ir.Context():
            results.append(str(onnx_ingress.to_linalg(relu())))

    threads = [threading.Thread(target=lower) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 3 and all("linalg.generic" in text for text in results)


def run_python(script, **environment):
    """The output of `script` in a new process that can import this file."""
    path = os.pathsep.join([os.path.dirname(__file__), *sys.path])
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": path, **environment},
    ).stdout


def test_worker_ends_with_its_caller():
    script = """
from lighthouse import ir
from lighthouse.ingress import onnx as onnx_ingress
from lighthouse.ingress.torch_mlir import process as _lowering_process
import test_lowering_process as t
with ir.Context():
    onnx_ingress.to_linalg(t.relu())
print(_lowering_process.worker_pid())
"""
    pid = int(run_python(script))
    assert not os.path.exists(f"/proc/{pid}")


def test_lowering_in_process_when_asked():
    script = """
import numpy as np
import lighthouse
from lighthouse.ingress.torch_mlir import process as _lowering_process
import test_lowering_process as t
compiled = lighthouse.compile_onnx(t.relu())
print(compiled(np.array([-1, 0, 2], np.float32)).tolist() == [0, 0, 2], _lowering_process.worker_pid())
"""
    output = run_python(script, LIGHTHOUSE_LOWERING_IN_PROCESS="1")
    assert output.split() == ["True", "None"]


def test_worker_started_ahead_serves_the_first_lowering():
    script = """
import lighthouse
from lighthouse.ingress import torch_mlir as _torch_mlir
from lighthouse.ingress.torch_mlir import process as _lowering_process
import test_lowering_process as t
_torch_mlir.start_lowering_process()
ahead = _lowering_process.worker_pid()
lighthouse.compile_onnx(t.relu())
print(ahead is not None and _lowering_process.worker_pid() == ahead)
"""
    assert run_python(script).split() == ["True"]


def test_weights_cross_as_arguments_and_come_back_as_the_same_constants():
    from lighthouse.ingress import torch as torch_ingress
    from lighthouse.ingress.torch_mlir.weights import weights_aside

    torch.manual_seed(0)
    # Two 64 KiB weights cross as arguments; the 512-byte biases stay.
    model = torch.nn.Sequential(
        torch.nn.Linear(128, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128)
    ).eval()
    x = torch.randn(3, 128)
    raw = torch_ingress.import_model(model, (x,))
    signature = str(raw.body.operations[0].attributes["function_type"])
    with weights_aside(raw) as weights:
        aside = str(raw)
        assert len(weights["main"]) == 2
        assert "torch_tensor_128_128" not in aside.split("{-#")[0]
        assert aside.count("dense_resource<torch_tensor_128_torch.float32") == 2
        assert "%arg2: !torch.vtensor<[128,128],f32>) ->" in aside
    assert str(raw.body.operations[0].attributes["function_type"]) == signature
    lowered = torch_ingress.lower_to_linalg(raw)
    text = str(lowered).split("{-#")[0]
    assert text.count("arith.constant dense_resource<torch_tensor_128_128_torch.float32") == 2
    assert str(lowered.body.operations[0].attributes["function_type"]) == (
        "(tensor<3x128xf32>) -> tensor<3x128xf32>"
    )
    compiled = lighthouse.compile(model, (x,))
    with torch.no_grad():
        np.testing.assert_allclose(compiled(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-5)


def test_an_onnx_models_weights_cross_as_arguments_too():
    pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
    from onnx import TensorProto, helper, numpy_helper

    from lighthouse.ingress import onnx as onnx_ingress
    from lighthouse.ingress.torch_mlir.weights import weights_aside

    rng = np.random.default_rng(0)
    # A 64 KiB initializer crosses as an argument; the 512-byte bias and the
    # 64 KiB int64 table (a value ops may read) stay.
    weight = rng.standard_normal((128, 128)).astype(np.float32)
    bias = rng.standard_normal(128).astype(np.float32)
    table = np.arange(128 * 64, dtype=np.int64)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "weight"], ["product"]),
            helper.make_node("Add", ["product", "bias"], ["y"]),
            helper.make_node("Shape", ["table"], ["n"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 128])],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 128]),
            helper.make_tensor_value_info("n", TensorProto.INT64, [1]),
        ],
        [
            numpy_helper.from_array(weight, "weight"),
            numpy_helper.from_array(bias, "bias"),
            numpy_helper.from_array(table, "table"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with ir.Context():
        raw = onnx_ingress.import_model(model)
        with weights_aside(raw) as weights:
            assert [str(w.type) for w in next(iter(weights.values()))] == ["tensor<128x128xf32>"]
            assert str(raw).split("{-#")[0].count('torch.operator "onnx.Constant"()') == 2
        lowered = onnx_ingress.lower_to_linalg(raw)
        assert str(lowered).split("{-#")[0].count("arith.constant dense_resource<weight>") == 1
    x = rng.standard_normal((3, 128)).astype(np.float32)
    y, n = lighthouse.compile_onnx(model)(x)
    np.testing.assert_allclose(y, x @ weight + bias, rtol=1e-5, atol=1e-5)
    assert n.tolist() == [128 * 64]
