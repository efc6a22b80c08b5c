"""The test bench's peers, onnxruntime and IREE, on real cases: their outputs
against eager PyTorch or known values, their compile errors and the ops these
name, the threads IREE runs on, and `unsupported` when one is not installed."""

import copy
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from lighthouse.suite.case import Case, Unsupported, to_numpy
from lighthouse.suite.compilers.iree import Iree, IreeCompileError
from lighthouse.suite.compilers.onnxruntime import OnnxRuntime
from lighthouse.suite.worker import Worker
from lighthouse.suite.plugins import create_compiler

onnx = pytest.importorskip("onnx", reason="needs lighthouse[onnx]")
torch = pytest.importorskip("torch", reason="needs lighthouse[torch]")

from onnx import TensorProto, helper  # noqa: E402

NEEDS_IREE = "needs lighthouse[iree]"


def onnx_model(nodes, inputs, outputs, opset=17, domains=()) -> bytes:
    """A serialized ONNX model of one graph; `domains` are further opset
    domains, at version 1."""
    graph = helper.make_graph(nodes, "graph", inputs, outputs)
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    return helper.make_model(graph, opset_imports=opsets).SerializeToString()


def tensor(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def relu_case() -> Case:
    x = np.array([[-1.5, 0.0, 2.0], [3.0, -0.5, 1.0]], np.float32)
    model = onnx_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [tensor("x", TensorProto.FLOAT, [2, 3])],
        [tensor("y", TensorProto.FLOAT, [2, 3])],
    )
    return Case("relu", [x], onnx=model, expected=[np.maximum(x, 0)])


def matmul_case() -> Case:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 8), dtype=np.float32)
    b = rng.standard_normal((8, 3), dtype=np.float32)
    model = onnx_model(
        [helper.make_node("MatMul", ["a", "b"], ["c"])],
        [tensor("a", TensorProto.FLOAT, [4, 8]), tensor("b", TensorProto.FLOAT, [8, 3])],
        [tensor("c", TensorProto.FLOAT, [4, 3])],
    )
    return Case("matmul", [a, b], onnx=model, expected=[a @ b])


def unknown_op_case() -> Case:
    """A node neither backend knows, in a domain of its own."""
    x = np.ones((2, 3), np.float32)
    model = onnx_model(
        [helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")],
        [tensor("x", TensorProto.FLOAT, [2, 3])],
        [tensor("y", TensorProto.FLOAT, [2, 3])],
        domains=["com.example"],
    )
    return Case("frobnicate", [x], onnx=model, expected=[x])


class AddLinear(torch.nn.Module):
    """Two outputs, one through a layer with weights."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(3, 4)

    def forward(self, x, y):
        return torch.relu(self.linear(x + y)), x * 2


def torch_case() -> Case:
    # Inputs that differ, so that arguments taken in the wrong order show.
    return Case(
        "add",
        [np.ones((2, 3), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)],
        torch=AddLinear().eval(),
    )


def run(compiler, case: Case, form: str):
    """Compiles `case` and calls the result, checking that the call leaves the
    inputs as they were (timing calls it again on the same inputs)."""
    inputs = copy.deepcopy(case.inputs)
    outputs = to_numpy(compiler.compile(case, form)(inputs))
    for given, kept in zip(case.inputs, inputs):
        if isinstance(given, np.ndarray):
            np.testing.assert_array_equal(given, kept)
    return outputs


def assert_outputs(outputs, expected, rtol=1e-5, atol=1e-6):
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.fixture(scope="module")
def ort():
    pytest.importorskip("onnxruntime", reason="needs onnxruntime")
    compiler = OnnxRuntime()
    compiler.setup(2)
    return compiler


@pytest.fixture(scope="module")
def iree():
    pytest.importorskip("iree.compiler", reason=NEEDS_IREE)
    pytest.importorskip("iree.runtime", reason=NEEDS_IREE)
    compiler = Iree()
    compiler.setup(2)
    return compiler


# ===------------------------------------------------------------------------===#
# onnxruntime
# ===------------------------------------------------------------------------===#


@pytest.mark.parametrize("make_case", [relu_case, matmul_case])
def test_onnxruntime_runs_onnx_graphs(ort, make_case):
    case = make_case()
    assert_outputs(run(ort, case, "onnx"), case.expected())


def test_onnxruntime_runs_a_torch_case_by_its_onnx_export(ort):
    case = torch_case()
    assert_outputs(run(ort, case, "onnx"), case.expected())


def test_onnxruntime_takes_sequences_and_absent_optionals(ort):
    """onnx-node's inputs as the corpus gives them: a list for a sequence,
    None for an absent optional."""
    sequence = onnx_model(
        [helper.make_node("SequenceLength", ["s"], ["n"])],
        [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)],
        [tensor("n", TensorProto.INT64, [])],
    )
    parts = [np.ones(2, np.float32), np.zeros(3, np.float32)]
    assert run(ort, Case("length", [parts], onnx=sequence), "onnx")[0] == 2

    optional = helper.make_optional_type_proto(
        helper.make_tensor_type_proto(TensorProto.FLOAT, [2])
    )
    has_element = onnx_model(
        [helper.make_node("OptionalHasElement", ["o"], ["h"])],
        [helper.make_value_info("o", optional)],
        [tensor("h", TensorProto.BOOL, [])],
        opset=18,
    )
    assert not run(ort, Case("absent", [None], onnx=has_element), "onnx")[0]
    assert run(ort, Case("present", [np.ones(2, np.float32)], onnx=has_element), "onnx")[0]


@pytest.mark.parametrize("spec", ["onnxruntime", "iree", "lighthouse-onnx:default"])
def test_a_model_over_the_protobuf_limit_lowered_is_a_file_with_its_weights_beside_it(
    spec, monkeypatch
):
    # A module whose weights take protobuf's 2 GiB or more has no serialized
    # bytes: its ONNX form is the path of a model whose weights are external
    # data in files beside it, which each compiler loads from there. The
    # limit is lowered so that a small module takes that path.
    if spec == "iree":
        pytest.importorskip("iree.compiler", reason=NEEDS_IREE)
    pytest.importorskip("onnxruntime", reason="needs onnxruntime")
    from lighthouse.suite import case as case_module

    monkeypatch.setattr(case_module, "PROTOBUF_LIMIT", 64)
    case = torch_case()
    model = case.form("onnx")
    assert isinstance(model, case_module.Path) and model.name == "model.onnx"
    proto = onnx.load(str(model), load_external_data=False)
    assert any(
        initializer.data_location == TensorProto.EXTERNAL for initializer in proto.graph.initializer
    )
    compiler = create_compiler(spec)
    compiler.setup(2)
    assert_outputs(run(compiler, case, "onnx"), case.expected(), rtol=1e-4, atol=1e-5)


# ===------------------------------------------------------------------------===#
# IREE
# ===------------------------------------------------------------------------===#


@pytest.mark.parametrize("form", ["torch", "onnx"])
def test_iree_runs_a_torch_case_in_both_forms(iree, form):
    case = torch_case()
    outputs = run(iree, case, form)
    assert all(isinstance(output, np.ndarray) for output in outputs)
    assert_outputs(outputs, case.expected())


@pytest.mark.parametrize("make_case", [relu_case, matmul_case])
def test_iree_runs_onnx_graphs(iree, make_case):
    case = make_case()
    assert_outputs(run(iree, case, "onnx"), case.expected())


def test_iree_gives_unsigned_results_in_their_declared_type(iree):
    """IREE's integers are signless; its runtime returns uint8 as int8."""
    x = np.array([200, 100, 7], np.uint8)
    y = np.array([100, 100, 1], np.uint8)
    model = onnx_model(
        [helper.make_node("Add", ["x", "y"], ["z"])],
        [tensor("x", TensorProto.UINT8, [3]), tensor("y", TensorProto.UINT8, [3])],
        [tensor("z", TensorProto.UINT8, [3])],
    )
    assert_outputs(run(iree, Case("add_uint8", [x, y], onnx=model), "onnx"), [x + y])

    class AddCompare(torch.nn.Module):
        def forward(self, x, y):
            return x + y, x > y

    case = Case("add_uint8", [x, y], torch=AddCompare())
    assert_outputs(run(iree, case, "torch"), case.expected())


def test_iree_computes_float64_as_float64(iree):
    """With IREE's default, f64 is computed as f32 and f64 results fail to
    come back; the compiler turns that off."""

    class Small(torch.nn.Module):
        def forward(self, x):
            return x * 3 + 1e-12

    case = Case("double", [np.linspace(0, 1, 5)], torch=Small())
    outputs = run(iree, case, "torch")
    assert outputs[0].dtype == np.float64
    np.testing.assert_allclose(outputs[0], case.expected()[0], rtol=1e-15)


def test_iree_runs_zero_dimensional_inputs(iree):
    class Add(torch.nn.Module):
        def forward(self, x, y):
            return x + y

    case = Case("scalar", [np.array(2.0, np.float32), np.array(3.0, np.float32)], torch=Add())
    assert_outputs(run(iree, case, "torch"), [np.array(5.0, np.float32)])


def test_iree_names_the_torch_op_it_cannot_lower(iree):
    class Airy(torch.nn.Module):
        def forward(self, x):
            return torch.special.airy_ai(x)

    with pytest.raises(IreeCompileError) as caught:
        iree.compile(Case("airy", [np.ones(4, np.float32)], torch=Airy()), "torch")
    assert "failed to legalize" in str(caught.value)
    assert iree.failed_ops(caught.value) == ["torch.aten.special_airy_ai"]
    assert iree.stage == "compile"


def test_iree_export_failure_is_a_stage_of_its_own(iree):
    class DataDependent(torch.nn.Module):
        def forward(self, x):
            return x + 1 if x.sum() > 0 else x - 1

    with pytest.raises(Exception) as caught:
        iree.compile(Case("branch", [np.ones(4, np.float32)], torch=DataDependent()), "torch")
    assert not isinstance(caught.value, IreeCompileError)
    assert iree.stage == "export"


def test_iree_runs_on_the_threads_it_is_given(tmp_path):
    """The task system's workers, counted in a process of their own (the
    thread count is process-wide) once a call has run: as many as asked,
    more than the machine's cores too."""
    pytest.importorskip("iree.runtime", reason=NEEDS_IREE)
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("counts threads in /proc")
    script = tmp_path / "count.py"
    script.write_text(
        textwrap.dedent("""
        import os, sys, time
        import numpy as np
        from onnx import TensorProto, helper
        from lighthouse.suite.case import Case
        from lighthouse.suite.compilers.iree import Iree

        def workers():
            names = []
            for thread in os.listdir("/proc/self/task"):
                with open(f"/proc/self/task/{thread}/comm") as f:
                    names.append(f.read().strip())
            return sum(name.startswith("iree-worker") for name in names)

        threads = int(sys.argv[1])
        compiler = Iree()
        compiler.setup(threads)
        graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["c"])], "g",
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, [256, 256]) for n in "ab"],
            [helper.make_tensor_value_info("c", TensorProto.FLOAT, [256, 256])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        a = np.ones((256, 256), np.float32)
        case = Case("mm", [a, a], onnx=model.SerializeToString())
        assert (compiler.compile(case, "onnx")(case.inputs)[0] == 256).all()
        # Each worker names itself once started.
        deadline = time.monotonic() + 10
        while workers() < threads and time.monotonic() < deadline:
            time.sleep(0.01)
        print(workers())
    """)
    )
    for threads in (1, 3):
        result = subprocess.run(
            [sys.executable, str(script), str(threads)], capture_output=True, text=True, check=True
        )
        assert result.stdout.split() == [str(threads)], result.stderr


# ===------------------------------------------------------------------------===#
# Both, and through the worker
# ===------------------------------------------------------------------------===#


@pytest.mark.parametrize("compiler", ["ort", "iree"])
def test_an_unknown_op_is_a_compile_error_naming_it(compiler, request):
    compiler = request.getfixturevalue(compiler)
    with pytest.raises(Exception) as caught:
        compiler.compile(unknown_op_case(), "onnx")
    assert not isinstance(caught.value, Unsupported)
    assert "Frobnicate" in str(caught.value)
    assert compiler.failed_ops(caught.value) == ["onnx.Frobnicate"]


@pytest.mark.parametrize("spec", ["onnxruntime", "iree"])
def test_worker_records_of_each_peer(spec, request):
    """The records the worker writes, the compilers found by their entry points."""
    request.getfixturevalue({"onnxruntime": "ort", "iree": "iree"}[spec])  # Skips if missing.
    worker = Worker(None, threads=1)
    case = torch_case()
    record, again = worker.check(spec, case, case.expected())
    # IREE takes the torch form; onnxruntime the ONNX export of it.
    assert record["status"] == "pass"
    assert record["form"] == {"onnxruntime": "onnx", "iree": "torch"}[spec]
    assert_outputs(to_numpy(again()), case.expected())
    record, again = worker.check(spec, unknown_op_case(), [np.ones((2, 3), np.float32)])
    assert record["status"] == "compile-error" and again is None
    assert record["ops"] == ["onnx.Frobnicate"]


def test_missing_packages_make_each_unsupported(monkeypatch):
    # A None entry in sys.modules makes importing that module fail.
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(Unsupported, match="pip install onnxruntime"):
        OnnxRuntime().setup(1)
    monkeypatch.setitem(sys.modules, "iree.compiler", None)
    with pytest.raises(Unsupported, match=r"lighthouse\[iree\].*iree-base-compiler"):
        Iree().setup(1)


# ===------------------------------------------------------------------------===#
# The peers at their best settings
# ===------------------------------------------------------------------------===#


@pytest.mark.parametrize("spec", ["inductor:freezing", "iree:O3"])
def test_peers_at_their_best_settings(spec):
    if spec.startswith("iree"):
        pytest.importorskip("iree.compiler", reason=NEEDS_IREE)
    compiler = create_compiler(spec)
    compiler.setup(2)
    case = torch_case()
    assert_outputs(run(compiler, case, "torch"), case.expected())


def test_a_variant_a_compiler_does_not_have_is_named():
    with pytest.raises(ValueError, match="'inductor' has no variant 'O3'; it has inductor, "):
        create_compiler("inductor:O3")
