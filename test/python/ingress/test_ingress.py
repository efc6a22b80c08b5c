"""lighthouse.extras (torch-mlir's importers) and lighthouse.ingress on real
torch and ONNX models; their errors."""

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
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[torch])")

import models  # noqa: E402
from lighthouse import ir  # noqa: E402
from lighthouse.ingress import onnx as onnx_ingress  # noqa: E402
from lighthouse.ingress import torch as torch_ingress  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


def op_names(module):
    names = []
    module.operation.walk(lambda op: names.append(op.name) or ir.WalkResult.ADVANCE)
    return names


# ===------------------------------------------------------------------------===#
# torch-mlir's importers under lighthouse.extras
# ===------------------------------------------------------------------------===#


def test_fx_importer_builds_ir_with_lighthouse_bindings():
    from lighthouse.extras.fx_importer import FxImporter

    program = torch.export.export(models.seeded(models.MLP()), (torch.randn(2, 16),))
    with ir.Context() as context:
        importer = FxImporter(context=context)
        importer.import_frozen_program(program, func_name="forward")
        module = importer.module
        assert isinstance(module, ir.Module)
        assert module.context is context
        assert module.operation.verify()
        text = str(module)
    assert "func.func @forward(%arg0: !torch.vtensor<[2,16],f32>)" in text
    assert (
        'torch.operator "torch.aten.addmm"(' in text
        or 'torch.operator "torch.aten.linear"(' in text
    )


def test_fx_importer_import_program_and_stateless_graph():
    from lighthouse.extras.fx_importer import FxImporter

    module = models.seeded(models.MLP())
    program = torch.export.export(module, (torch.randn(2, 16),))
    with ir.Context() as context:
        importer = FxImporter(context=context)
        importer.import_program(program, func_name="with_params")
        from torch.fx.experimental.proxy_tensor import make_fx

        # An ATen-level graph, as the stateless importer expects.
        graph = make_fx(lambda x, y: torch.relu(x) + y)(torch.randn(3, 4), torch.randn(3, 4)).graph
        importer.import_stateless_graph(graph, func_name="stateless")
        text = str(importer.module)
    assert "func.func @with_params" in text
    assert "func.func @stateless" in text


def test_onnx_importer_api():
    from lighthouse.extras import onnx_importer

    model = onnx.shape_inference.infer_shapes(models.onnx_dense_softmax(17))
    with ir.Context() as context:
        info = onnx_importer.ModelInfo(model)
        module = info.create_module(context=context)
        importer = onnx_importer.NodeImporter.define_function(info.main_graph, module.operation)
        importer.import_all()
        assert module.operation.verify()
        assert 'torch.operator "onnx.Softmax"(' in str(module)


def test_contexts_created_earlier_are_prepared():
    import lighthouse.extras

    with ir.Context() as context:
        lighthouse.extras.prepare_context(context)
        assert context.dialects["torch"] is not None
        assert str(ir.Type.parse("!torch.vtensor<[2,?],f32>")) == "!torch.vtensor<[2,?],f32>"


# ===------------------------------------------------------------------------===#
# lighthouse.ingress.torch
# ===------------------------------------------------------------------------===#


@pytest.mark.parametrize(
    "name, module, inputs, dynamic_shapes",
    models.torch_models(),
    ids=[m[0] for m in models.torch_models()],
)
def test_torch_models_import_and_lower(name, module, inputs, dynamic_shapes):
    with ir.Context():
        raw = torch_ingress.import_model(module, inputs, dynamic_shapes=dynamic_shapes)
        raw_ops = op_names(raw)
        assert "torch.operator" not in raw_ops, "every ATen op of these models has a name"
        lowered = torch_ingress.lower_to_linalg(raw)
        dialects = {n.split(".")[0] for n in op_names(lowered)}
        function_type = ir.FunctionType(
            ir.TypeAttr(lowered.body.operations[0].attributes["function_type"]).value
        )
    assert any(n.startswith("torch.aten.") for n in raw_ops)
    assert dialects <= {"builtin", "func", "arith", "math", "tensor", "linalg", "cf"}
    assert "linalg" in dialects
    if dynamic_shapes:
        assert ir.ShapedType(function_type.inputs[0]).is_dynamic_dim(0)


# torch-mlir's importer types a tensor literal with Python's list repr,
# `!torch.vtensor<[2, 3],f32>`, and the function's result
# `!torch.vtensor<[2,3],f32>`: one type, as in torch-mlir.
def test_a_model_returning_its_parameter_imports():
    class Returns(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(2, 3))

        def forward(self, x):
            return x + 1, self.weight

    with ir.Context():
        assert torch_ingress.import_model(Returns(), (torch.ones(2),)).operation.verify()


def test_exported_program_is_accepted():
    program = torch.export.export(models.seeded(models.MLP()), (torch.randn(4, 16),))
    with ir.Context():
        lowered = torch_ingress.to_linalg(program)
        assert "tensor<4x16xf32>" in str(lowered.body.operations[0].attributes["function_type"])


class InPlace(torch.nn.Module):
    """In-place ops and CompositeImplicitAutograd ops (linear, layer_norm)."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, x):
        y = self.linear(x)
        y.add_(1.0)
        torch.relu_(y)
        return self.norm(y) * x


def test_decomposed_program_is_functional_aten():
    module, x = models.seeded(InPlace()), torch.randn(3, 8)
    program = torch_ingress.export(module, (x,))
    targets = {str(node.target) for node in program.graph.nodes if node.op == "call_function"}
    # In-place ops are functionalized, composite ops decomposed.
    assert (
        not {
            "aten.add_.Tensor",
            "aten.relu_.default",
            "aten.linear.default",
            "aten.layer_norm.default",
        }
        & targets
    )
    assert "aten.relu.default" in targets
    with torch.no_grad():
        torch.testing.assert_close(program.module()(x), module(x))


def test_op_that_cannot_be_lowered_is_named_with_its_location():
    class Histogram(torch.nn.Module):
        def forward(self, x):
            return torch.histc(x, bins=4)  # torch-mlir has no lowering for it.

    with ir.Context():
        raw = torch_ingress.import_model(Histogram(), (torch.randn(8),))
        with pytest.raises(torch_ingress.LoweringError) as info:
            torch_ingress.lower_to_linalg(raw)
    assert info.value.ops == ["torch.aten.histc"]
    message = str(info.value)
    assert "cannot lower: torch.aten.histc" in message
    # The location is the line of the model's Python source.
    assert re.search(r"test_ingress\.py\":\d+", message)


def test_ops_of_torch_mlirs_tm_tensor_dialect_cross():
    class CumulativeSum(torch.nn.Module):
        def forward(self, x):
            return torch.cumsum(x, 1)  # torch-mlir lowers it to tm_tensor.scan.

    # lighthouse holds them as ops of a stand-in dialect; its pipelines lower
    # them (lighthouse-lower-tm-tensor).
    with ir.Context():
        raw = torch_ingress.import_model(CumulativeSum(), (torch.randn(4, 4),))
        linalg = torch_ingress.lower_to_linalg(raw)
        linalg.operation.verify()
    assert '"tm_tensor.scan"' in str(linalg)


def test_ir_that_torch_mlir_does_not_know_raises_exchange_error():
    with ir.Context():
        module = torch_ingress.import_model(models.seeded(models.MLP()), (torch.randn(2, 16),))
        function = module.body.operations[0]
        with ir.InsertionPoint.at_block_begin(function.regions[0].blocks[0]), ir.Location.unknown():
            ir.Operation.create("torch.frobnicate", results=[])
        with pytest.raises(torch_ingress.ExchangeError) as info:
            torch_ingress.lower_to_linalg(module)
    message = str(info.value)
    assert "torch-mlir could not parse IR from lighthouse" in message
    assert "op 'torch.frobnicate' did not cross" in message


@pytest.mark.parametrize(
    "bad_call, error, text",
    [
        (
            lambda: torch_ingress.import_model("model.pt"),
            TypeError,
            "expected a torch.nn.Module or a torch.export.ExportedProgram, got builtins.str",
        ),
        (
            lambda: torch_ingress.import_model(models.MLP(), torch.randn(2, 16)),
            TypeError,
            "example_args must be a tuple of inputs, got Tensor",
        ),
        (
            lambda: torch_ingress.import_model(models.MLP()),
            ValueError,
            "exporting an nn.Module needs example_args",
        ),
    ],
    ids=["not-a-model", "args-not-a-tuple", "no-example-args"],
)
def test_wrong_arguments(bad_call, error, text):
    with ir.Context():
        with pytest.raises(error) as info:
            bad_call()
    assert text in str(info.value)


# ===------------------------------------------------------------------------===#
# lighthouse.ingress.onnx
# ===------------------------------------------------------------------------===#


@pytest.mark.parametrize("opset", [13, 17, 21])
def test_onnx_model_from_file_with_external_data(tmp_path, opset):
    model = models.onnx_dense_softmax(opset)
    weights = onnx.numpy_helper.to_array(model.graph.initializer[0])
    path = tmp_path / "dense.onnx"
    onnx.save(
        model,
        path,
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="dense.weights",
        size_threshold=0,
    )
    assert (tmp_path / "dense.weights").is_file()
    with ir.Context():
        lowered = onnx_ingress.to_linalg(path)
        text = str(lowered)
    # The weights crossed: the first one appears in the lowered IR.
    assert f"{weights[0, 0]:.6f}"[:7] in text
    assert "linalg.matmul" in text


def test_import_without_a_current_context():
    """Each importer makes a context of its own when none is current."""
    program = torch_ingress.export(models.seeded(models.MLP()), (torch.randn(2, 16),))
    raw = torch_ingress.import_model(program)
    assert "torch.aten.mm" in str(raw)
    assert '"onnx.Softmax"' in str(onnx_ingress.import_model(models.onnx_dense_softmax(17)))


def test_onnx_opset_conversion():
    with ir.Context():
        raw = onnx_ingress.import_model(models.onnx_dense_softmax(13), opset_version=18)
        assert "torch.onnx_meta.opset_version = 18" in str(raw)


def test_torch_onnx_export_round_trip():
    _, module, inputs, _ = models.torch_models()[2]  # the CNN
    with ir.Context():
        lowered = onnx_ingress.to_linalg(
            onnx.load_from_string(models.exported_onnx(module, inputs))
        )
        assert "linalg.conv_2d_nchw_fchw" in str(lowered)


def onnx_attention(opset=23):
    """An ONNX graph built with onnx.helper: Attention, an op ONNX defines as
    a function of MatMul, Softmax and others, which torch-mlir does not lower."""
    from onnx import TensorProto, helper

    shape = [2, 3, 4, 8]  # batch, heads, sequence, head size
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.FLOAT, shape) for name in ("q", "k", "v")
    ]
    graph = helper.make_graph(
        [helper.make_node("Attention", ["q", "k", "v"], ["y"])],
        "attention",
        inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_onnx_functions_expanded_where_torch_mlir_cannot_lower_them():
    from onnx.reference import ReferenceEvaluator

    import lighthouse

    model = onnx_attention()
    with ir.Context():
        # Imported whole, Attention is an op torch-mlir does not lower ...
        with pytest.raises(onnx_ingress.LoweringError) as info:
            onnx_ingress.lower_to_linalg(onnx_ingress.import_model(model))
        assert info.value.ops == ["onnx.Attention"]
        # ... and expanded into the function ONNX defines it by, it lowers.
        raw, lowered = onnx_ingress.import_and_lower(model)
        assert '"onnx.Attention"' not in str(raw) and '"onnx.Softmax"' in str(raw)
        assert "linalg.softmax" in str(lowered) or "math.exp" in str(lowered)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 4, 8)).astype(np.float32) for _ in range(3))
    expected = ReferenceEvaluator(model).run(None, {"q": q, "k": k, "v": v})[0]
    compiled = lighthouse.compile_onnx(model)
    np.testing.assert_allclose(compiled(q, k, v), expected, rtol=1e-5, atol=1e-6)
    assert compiled.timings["import"] > 0 and compiled.timings["lower-to-linalg"] > 0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_onnx_functions_expanded_where_their_torch_op_cannot_be_lowered(reduction):
    """torch-mlir converts NegativeLogLikelihoodLoss into nll_loss_forward,
    which it does not lower: the error is at the ONNX node, which ONNX
    defines as a function, so the node is expanded into it."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    import lighthouse

    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5, 2]),
        helper.make_tensor_value_info("target", TensorProto.INT64, [3, 2]),
    ]
    shape = [3, 2] if reduction == "none" else []
    graph = helper.make_graph(
        [
            helper.make_node(
                "NegativeLogLikelihoodLoss", ["x", "target"], ["y"], reduction=reduction
            )
        ],
        "nll",
        inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    with ir.Context():
        with pytest.raises(onnx_ingress.LoweringError) as info:
            onnx_ingress.lower_to_linalg(onnx_ingress.import_model(model))
        assert info.value.ops == ["torch.aten.nll_loss_forward"]
        raw, _ = onnx_ingress.import_and_lower(model)
        assert '"onnx.NegativeLogLikelihoodLoss"' not in str(raw)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 2)).astype(np.float32)
    target = rng.integers(0, 5, (3, 2)).astype(np.int64)
    expected = ReferenceEvaluator(model).run(None, {"x": x, "target": target})[0]
    np.testing.assert_allclose(
        lighthouse.compile_onnx(model)(x, target), expected, rtol=1e-5, atol=1e-6
    )


def test_ops_neither_lowered_nor_functions_still_fail_clearly():
    from onnx import TensorProto, helper

    # ONNX defines CumProd by no function, and torch-mlir does not lower it.
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
        helper.make_tensor_value_info("axis", TensorProto.INT64, []),
    ]
    graph = helper.make_graph(
        [helper.make_node("CumProd", ["x", "axis"], ["y"])],
        "cumprod",
        inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    with ir.Context(), pytest.raises(onnx_ingress.LoweringError) as info:
        onnx_ingress.import_and_lower(model)
    assert info.value.ops == ["onnx.CumProd"]
    # The unnamed node is named after its op type and position.
    assert '"CumProd_0": failed to legalize' in str(info.value)
    assert not model.graph.node[0].name  # The caller's model is left as it is.


def test_broken_onnx_file(tmp_path):
    path = tmp_path / "broken.onnx"
    path.write_bytes(models.onnx_dense_softmax(17).SerializeToString()[:57])
    with pytest.raises(ValueError, match=r"broken\.onnx is not a valid ONNX model"):
        onnx_ingress.import_model(path)


def test_onnx_model_failing_the_checker():
    model = models.onnx_dense_softmax(17)
    model.graph.node[0].input[1] = "no_such_tensor"
    with pytest.raises(ValueError, match="fails ONNX's checker"):
        onnx_ingress.import_model(model)


def test_missing_onnx_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no ONNX model at"):
        onnx_ingress.import_model(tmp_path / "absent.onnx")


def test_onnx_wrong_argument():
    with pytest.raises(TypeError, match="expected a path or an onnx.ModelProto, got int"):
        onnx_ingress.import_model(42)


def test_onnx_op_that_cannot_be_lowered():
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")],
        "custom",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    )
    with ir.Context():
        raw = onnx_ingress.import_model(model)
        with pytest.raises(onnx_ingress.LoweringError) as info:
            onnx_ingress.lower_to_linalg(raw)
    assert info.value.ops == ["onnx.Frobnicate"]


@pytest.mark.parametrize(
    "field, where",
    [
        ("op_type", "model.graph.node[0].op_type"),
        ("input", "model.graph.node[0].input[0]"),
        ("name", "model.graph.node[0].name"),
        ("attribute", "model.graph.node[0].attribute[0].name"),
    ],
)
def test_onnx_strings_that_are_not_utf8_are_named(tmp_path, field, where):
    import lighthouse
    from onnx import TensorProto, helper

    # A string field set to a marker, which the serialized model then holds
    # as bytes that are not UTF-8 (protobuf's Python does not check them).
    marker = "MARKER"
    node = {"op_type": "Relu", "inputs": ["x"], "outputs": ["y"], "name": "relu"}
    attributes = {marker: 1} if field == "attribute" else {}
    if field in ("op_type", "name"):
        node[field] = marker
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])]
    if field == "input":
        node["inputs"] = [marker]
        inputs = [helper.make_tensor_value_info(marker, TensorProto.FLOAT, [2])]
    graph = helper.make_graph(
        [helper.make_node(**node, **attributes)],
        "g",
        inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    data = data.SerializeToString().replace(marker.encode(), b"\xff" + marker[1:].encode())
    path = tmp_path / "model.onnx"
    path.write_bytes(data)
    for model, source in ((path, str(path)), (onnx.ModelProto.FromString(data), "the model")):
        with pytest.raises(ValueError) as info:
            lighthouse.compile_onnx(model)
        assert type(info.value) is ValueError  # Not onnx's UnicodeDecodeError.
        assert str(info.value) == (
            f"{source} is not a valid ONNX model: {where} is not UTF-8: b'\\xffARKER'"
        )


def onnx_model(nodes, inputs, outputs, initializers=(), opsets=(("", 17),)):
    """A model of `nodes` (onnx.helper's), its values given as {name: (type, shape)}."""
    from onnx import helper

    def values(named):
        return [helper.make_tensor_value_info(name, *spec) for name, spec in named.items()]

    graph = helper.make_graph(
        nodes, "g", values(inputs), values(outputs), initializer=list(initializers)
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid(domain, v) for domain, v in opsets]
    )


def lowering_error_cases():
    from onnx import TensorProto, helper, numpy_helper

    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    return [
        pytest.param(
            # ReduceMax over axes [0, 0] computes float[3]: the return, which
            # the importer leaves without location, mismatches the declared type.
            onnx_model(
                [
                    helper.make_node("Unsqueeze", ["x", "axes"], ["u"]),
                    helper.make_node("Expand", ["u", "shape"], ["e"]),
                    helper.make_node("ReduceMax", ["e"], ["y"], axes=[0, 0], keepdims=0),
                ],
                {"x": (f32, [3])},
                {"y": (f32, [2, 3])},
                [
                    numpy_helper.from_array(np.array([0, 1], np.int64), "axes"),
                    numpy_helper.from_array(np.array([4, 2, 3], np.int64), "shape"),
                ],
            ),
            "at graph output 'y' declared float[2,3], computed by ONNX node 'ReduceMax_2' "
            "(ReduceMax):",
            ["ReduceMax_2"],
            id="graph-output",
        ),
        pytest.param(
            # Axes given at run time: torch-mlir cannot lower the reduction,
            # and names a constant its folds left without location.
            onnx_model(
                [helper.make_node("ReduceMax", ["x", "axes"], ["y"], keepdims=0)],
                {"x": (f32, [3, 2, 2]), "axes": (i64, [1])},
                {"y": (f32, [3, 2])},
                opsets=[("", 18)],
            ),
            "at ONNX node 'ReduceMax_0' (ReduceMax), which computes",
            ["ReduceMax_0"],
            id="op-without-location",
        ),
        pytest.param(
            # lighthouse expands AffineGrid into ONNX's function of it, whose
            # Unsqueeze of a value of dynamic shape (from `size`) torch-mlir
            # does not lower.
            onnx_model(
                [helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="grid")],
                {"theta": (f32, [2, 2, 3]), "size": (i64, [4])},
                {"grid": (f32, [2, 5, 6, 2])},
                opsets=[("", 20)],
            ),
            "(Unsqueeze), of the function ONNX defines node 'grid' (AffineGrid) by",
            "grid/Unsqueeze_",
            id="expanded-function",
        ),
        pytest.param(
            # An ONNX-ML op lighthouse has no form of (it has Binarizer's).
            onnx_model(
                [helper.make_node("Normalizer", ["x"], ["y"], domain="ai.onnx.ml", norm="MAX")],
                {"x": (f32, [2, 4])},
                {"y": (f32, [2, 4])},
                opsets=[("ai.onnx.ml", 1)],
            ),
            "at ONNX node 'Normalizer_0' (ai.onnx.ml.Normalizer), of a model that imports no "
            "opset of ONNX's default domain (only ai.onnx.ml 1)",
            ["Normalizer_0"],
            id="no-default-opset",
        ),
        pytest.param(
            onnx_model(
                [helper.make_node("Identity", ["x"], ["y"])],
                {"x": (TensorProto.STRING, [2])},
                {"y": (TensorProto.STRING, [2])},
                opsets=[("", 20)],
            ),
            "at graph input 'x' of type string[2], used by ONNX node 'Identity_0' (Identity)",
            ["Identity_0"],
            id="signature",
        ),
        pytest.param(
            # No conversion takes BitCast, nor lighthouse one to an unsigned
            # type: the ONNX conversion leaves it as it was, and the torch
            # lowering would fail at the function's return.
            onnx_model(
                [helper.make_node("BitCast", ["x"], ["y"], to=TensorProto.UINT32)],
                {"x": (f32, [5])},
                {"y": (TensorProto.UINT32, [5])},
                opsets=[("", 26)],
            ),
            "conversion of ONNX ops to the torch backend contract failed at ONNX node "
            "'BitCast_0' (BitCast), which computes graph output 'y'",
            ["BitCast_0"],
            id="left-by-the-conversion",
        ),
    ]


@pytest.mark.parametrize("model, place, nodes", lowering_error_cases())
def test_onnx_lowering_errors_name_the_node(model, place, nodes):
    with ir.Context(), pytest.raises(onnx_ingress.LoweringError) as info:
        onnx_ingress.import_and_lower(model)
    assert place in str(info.value).split("\n")[0]
    if isinstance(nodes, str):  # A node of the expansion, named after the node expanded.
        assert len(info.value.nodes) == 1 and info.value.nodes[0].startswith(nodes)
    else:
        assert info.value.nodes == nodes


def test_nodes_of_subgraphs_are_named_after_the_node_holding_them():
    from onnx import TensorProto, helper

    def branch(op):
        return helper.make_graph(
            [helper.make_node(op, ["x"], ["r"])],
            op,
            [],
            [helper.make_tensor_value_info("r", TensorProto.FLOAT, [2])],
        )

    model = onnx_model(
        [
            helper.make_node(
                "If", ["c"], ["y"], then_branch=branch("Relu"), else_branch=branch("Neg")
            )
        ],
        {"c": (TensorProto.BOOL, []), "x": (TensorProto.FLOAT, [2])},
        {"y": (TensorProto.FLOAT, [2])},
    )
    loaded = onnx_ingress.load(model)
    named = [
        (node.name, [n.name for a in node.attribute for n in a.g.node])
        for node in loaded.graph.node
    ]
    assert named == [("If_0", ["If_0/else_branch/Neg_0", "If_0/then_branch/Relu_0"])]


# ===------------------------------------------------------------------------===#
# Unsigned integers: torch-mlir computes some ops on them as on signed ones
# (lighthouse.ingress.torch_mlir.unsigned); those are refused, naming the op and node.
# test_compile.py checks the ops trusted against ONNX's reference evaluator
# and eager PyTorch, and shows the refused ones wrong.
# ===------------------------------------------------------------------------===#


def unsigned_refusals():
    from onnx import TensorProto, helper

    u8, u16, u64, f32 = TensorProto.UINT8, TensorProto.UINT16, TensorProto.UINT64, TensorProto.FLOAT

    # Of uint8 and uint32, Div, Mod and Abs are computed on the values widened
    # to a signed type, not refused.
    def binary(op, element=u16, name=None):
        return onnx_model(
            [helper.make_node(op, ["a", "b"], ["y"], name=name or op.lower())],
            {"a": (element, [4]), "b": (element, [4])},
            {"y": (element, [4])},
        )

    return [
        pytest.param(binary("Div"), "torch.aten.div.Tensor", ["div"], id="div-uint16"),
        pytest.param(binary("Div", u64), "torch.aten.div.Tensor", ["div"], id="div-uint64"),
        pytest.param(binary("Mod"), "torch.aten.remainder.Tensor", ["mod"], id="mod"),
        pytest.param(
            onnx_model(
                [helper.make_node("Abs", ["a"], ["y"], name="abs")],
                {"a": (u16, [4])},
                {"y": (u16, [4])},
            ),
            "torch.aten.abs",
            ["abs"],
            id="abs",
        ),
        pytest.param(
            onnx_model(
                [helper.make_node("TopK", ["a", "k"], ["y", "i"], name="topk")],
                {"a": (u64, [4]), "k": (TensorProto.INT64, [1])},
                {"y": (u64, [2]), "i": (TensorProto.INT64, [2])},
            ),
            "torch.aten.sort",
            ["topk"],
            id="topk",
        ),
        pytest.param(
            onnx_model(
                [helper.make_node("Pow", ["x", "a"], ["y"], name="pow")],
                {"x": (f32, [4]), "a": (TensorProto.UINT32, [4])},
                {"y": (f32, [4])},
            ),
            "torch.aten.pow.Tensor_Tensor",
            ["pow"],
            id="pow-unsigned-exponent",
        ),
        pytest.param(
            onnx_model(
                [helper.make_node("MatMulInteger", ["a", "b"], ["y"], name="mm")],
                {"a": (u8, [2, 3]), "b": (u8, [3, 2])},
                {"y": (TensorProto.INT32, [2, 2])},
            ),
            "torch.aten.mm",
            ["mm"],
            id="matmul-integer",
        ),
    ]


@pytest.mark.parametrize("model, op, nodes", unsigned_refusals())
def test_onnx_ops_lowered_as_signed_are_refused(model, op, nodes):
    with ir.Context(), pytest.raises(onnx_ingress.LoweringError) as info:
        onnx_ingress.import_and_lower(model)
    error = info.value
    assert error.ops == [op] and error.nodes == nodes
    first, diagnostic = str(error).split("\n")[:2]
    assert first.startswith(
        "lighthouse's check of the ops on unsigned integers before torch-mlir lowers them to "
        f"linalg failed at ONNX node '{nodes[0]}' ("
    )
    assert diagnostic.startswith(f"error: \"{nodes[0]}\": '{op}' on unsigned integers (ui")
    assert ", refused: " in diagnostic


def test_uint4_tensors_are_checked_as_the_other_unsigned_ones():
    # ONNX's uint4 is ui4 to torch-mlir, i4 after its lowering: a per-axis
    # DequantizeLinear takes its zero points as signed, as for uint8; a
    # per-tensor one (sub.Tensor, mul.Tensor) is trusted.
    from onnx import TensorProto, helper

    u4, f32 = TensorProto.UINT4, TensorProto.FLOAT

    def dequantize(shape, **axis):
        return onnx_model(
            [helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq", **axis)],
            {"x": (u4, [2, 4]), "s": (f32, shape), "z": (u4, shape)},
            {"y": (f32, [2, 4])},
            opsets=[("", 21)],
        )

    with ir.Context(), pytest.raises(onnx_ingress.LoweringError) as info:
        onnx_ingress.import_and_lower(dequantize([4], axis=1))
    assert info.value.ops == ["torch.aten._make_per_channel_quantized_tensor"]
    assert (
        "'torch.aten._make_per_channel_quantized_tensor' on unsigned integers (ui4), refused: "
        "torch-mlir takes the zero points as signed, wrong for values of 8 and above"
    ) in str(info.value)
    with ir.Context():
        raw, linalg = onnx_ingress.import_and_lower(dequantize([]))
        assert "ui4" in str(raw) and "arith.extui" in str(linalg)


def test_onnx_functions_of_refused_ops_are_expanded():
    # Clip of uint16 bounds is torch.aten.clamp.Tensor, which torch-mlir clamps
    # as signed (and lighthouse widens for uint8 and uint32 only): refused,
    # then expanded into ONNX's function of it (Less, Where), whose ops
    # torch-mlir lowers right. ReduceL1's function takes Abs (ReduceL1 takes
    # no uint16: of uint64 here).
    from onnx import TensorProto, helper

    u16 = TensorProto.UINT16
    clip = onnx_model(
        [helper.make_node("Clip", ["a", "lo", "hi"], ["y"])],
        {"a": (u16, [4]), "lo": (u16, []), "hi": (u16, [])},
        {"y": (u16, [4])},
    )
    with ir.Context():
        _, linalg = onnx_ingress.import_and_lower(clip)
        text = str(linalg)
    assert "arith.maxsi" not in text and "arith.cmpi ult" in text
    l1 = onnx_model(
        [helper.make_node("ReduceL1", ["a", "axes"], ["y"], keepdims=0)],
        {"a": (TensorProto.UINT64, [2, 4]), "axes": (TensorProto.INT64, [1])},
        {"y": (TensorProto.UINT64, [2])},
        opsets=[("", 18)],
    )
    with ir.Context(), pytest.raises(onnx_ingress.LoweringError) as info:
        onnx_ingress.import_and_lower(l1)
    assert info.value.ops == ["torch.aten.abs"]
    assert "of the function ONNX defines node 'ReduceL1_0' (ReduceL1) by" in str(info.value)
    assert str(info.value).endswith("(after expanding the ONNX functions of ReduceL1)")


UNSIGNED_TORCH_REFUSALS = {
    # Floor division, remainder, abs, sort and clamping to tensors of uint8
    # are computed on the values widened to int16, not refused.
    "true-division": (lambda x, y: x / y, "torch.aten.div.Tensor"),
    "times-a-float": (lambda x, y: x * 2.5, "torch.aten.mul.Scalar"),
    "times-int32": (lambda x, y: x * y.int(), "torch.aten.mul.Tensor"),
    "sum-to-int64": (lambda x, y: x.sum(), "torch.aten.sum.dim_IntList"),
    "less-than-200": (lambda x, y: x < 200, "torch.aten.lt.Scalar"),
    "float-exponent": (lambda x, y: torch.pow(1.01, x), "torch.aten.pow.Scalar"),
    "pad-with-a-float": (
        lambda x, y: torch.nn.functional.pad(x, (1, 1), value=200),
        "torch.aten.constant_pad_nd",
    ),
}


@pytest.mark.parametrize("name", UNSIGNED_TORCH_REFUSALS)
def test_torch_ops_lowered_as_signed_are_refused(name):
    function, op = UNSIGNED_TORCH_REFUSALS[name]
    x = torch.tensor([200, 255, 7, 128], dtype=torch.uint8)
    with ir.Context(), pytest.raises(torch_ingress.LoweringError) as info:
        torch_ingress.to_linalg(models.Function(function), (x, x.flip(0)))
    assert info.value.ops == [op]
    assert f"'{op}' on unsigned integers (ui8), refused: " in str(info.value)


# ===------------------------------------------------------------------------===#
# Without the extras
# ===------------------------------------------------------------------------===#


def test_without_the_extras_lighthouse_imports_and_ingress_names_the_extra(tmp_path):
    # A Python path holding lighthouse and numpy only, no torch, onnx or torch-mlir.
    import lighthouse

    site = Path(lighthouse.__file__).parent.parent
    for name in ("lighthouse", "numpy", "numpy.libs"):
        if (site / name).exists():
            (tmp_path / name).symlink_to(site / name)
    script = """
import lighthouse.ir, lighthouse.ingress
for module, extra in (("lighthouse.ingress.torch", "torch"), ("lighthouse.ingress.onnx", "onnx"),
                      ("lighthouse.extras.fx_importer", "torch")):
    try:
        __import__(module)
    except ImportError as error:
        assert f"lighthouse[{extra}]" in str(error), str(error)
        print("ImportError:", module)
    else:
        raise AssertionError(module + " imported without its extra")
"""
    result = subprocess.run(
        [sys.executable, "-S", "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("ImportError:") == 3


def test_torch_mlir_pin_matches_the_extras():
    from lighthouse._version import TORCH_MLIR_VERSION

    pyproject = (REPO / "pyproject.toml").read_text()
    assert f'"torch-mlir=={TORCH_MLIR_VERSION}"' in pyproject
