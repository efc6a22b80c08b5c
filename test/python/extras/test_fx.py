"""lighthouse.extras.fx called as torch-mlir's users call torch_mlir.fx, on real
torch models; the IR it returns, and its errors."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs lighthouse[torch] (build_tools/setup.sh installs it)"
)
pytest.importorskip("torch_mlir", reason="needs torch-mlir (lighthouse[torch])")

import models  # noqa: E402
import lighthouse  # noqa: E402
from lighthouse import ir  # noqa: E402
from lighthouse.extras import fx  # noqa: E402
from lighthouse.extras.fx_importer import FxImporter, FxImporterHooks  # noqa: E402


def op_names(module) -> list:
    names = []
    module.operation.walk(lambda op: names.append(op.name) or ir.WalkResult.ADVANCE)
    return names


def mlp_and_input():
    return models.seeded(models.MLP()), torch.randn(
        2, 16, generator=torch.Generator().manual_seed(0)
    )


def test_raw_import_names_aten_ops_as_torch_mlir_does():
    model, x = mlp_and_input()
    module = fx.export_and_import(model, x, func_name="forward")
    assert isinstance(module, ir.Module)
    assert module.operation.verify()
    text = str(module)
    assert "func.func @forward(%arg0: !torch.vtensor<[2,16],f32>) -> !torch.vtensor<[2,4],f32>" in (
        text
    )
    names = op_names(module)
    # torch-mlir's decompositions turn linear into a transpose and a matmul.
    assert "torch.aten.mm" in names and "torch.aten.relu" in names
    assert "torch.aten.linear" not in names
    # Ops torch-mlir defines carry their own names, not torch.operator.
    assert "torch.operator" not in names
    assert names.count("torch.vtensor.literal") == 4  # two weights, two biases


def test_empty_decomposition_table_keeps_composite_ops():
    model, x = mlp_and_input()
    names = op_names(fx.export_and_import(model, x, decomposition_table={}))
    assert "torch.aten.linear" in names and "torch.aten.mm" not in names


@pytest.mark.parametrize("output_type", ["torch", fx.OutputType.TORCH, "TORCH"])
def test_torch_backend_contract(output_type):
    model, x = mlp_and_input()
    module = fx.export_and_import(model, x, output_type=output_type)
    names = op_names(module)
    assert "torch.aten.mm" in names
    # The contract's literals and constants are of torch's own ops.
    assert all(name.startswith(("torch.", "func.", "builtin.")) for name in names)
    assert "!torch.vtensor<[2,16],f32>" in str(module)


def test_backend_legal_ops_stay_whole_on_the_contract():
    x = torch.randn(4, 6)
    model = models.Function(lambda t: torch.nn.functional.softmax(t, dim=1))
    decomposed = op_names(fx.export_and_import(model, x, output_type="torch"))
    kept = op_names(
        fx.export_and_import(
            model,
            x,
            output_type="torch",
            backend_legal_ops=["aten.softmax.int"],
            decomposition_table={},
        )
    )
    assert "torch.aten.softmax.int" not in decomposed and "torch.aten.exp" in decomposed
    assert "torch.aten.softmax.int" in kept and "torch.aten.exp" not in kept


def test_linalg_on_tensors_compiles_and_matches_eager():
    model, x = mlp_and_input()
    module = fx.export_and_import(model, x, output_type="linalg-on-tensors", func_name="forward")
    names = op_names(module)
    assert "linalg.matmul" in names
    assert not any(name.startswith("torch") for name in names)
    compiled = lighthouse.compile_module(module, "forward")
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(compiled(x.numpy()), expected, rtol=1e-5, atol=1e-5)


def test_dynamic_shapes_and_symbolic_shape_expressions():
    model, x = mlp_and_input()
    batch = torch.export.Dim("batch", min=1, max=64)
    module = fx.export_and_import(
        model, x, dynamic_shapes={"x": {0: batch}}, import_symbolic_shape_expressions=True
    )
    text = str(module)
    assert "%arg0: !torch.vtensor<[?,16],f32>" in text
    assert "torch.symbolic_int" in op_names(module)
    assert "torch.bind_symbolic_shape" in op_names(module)


def test_keyword_inputs_are_the_models():
    class Scale(torch.nn.Module):
        def forward(self, x, scale):
            return x * scale

    module = fx.export_and_import(Scale(), torch.ones(3), scale=torch.full((3,), 2.0))
    assert "(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[3],f32>)" in str(module)


def test_mutation_of_an_input_with_experimental_support_mutation():
    class AddInPlace(torch.nn.Module):
        def forward(self, x, y):
            x.add_(y)
            return x * 2

    args = (torch.randn(3, 4), torch.randn(3, 4))
    module = fx.export_and_import(AddInPlace(), *args, experimental_support_mutation=True)
    names = op_names(module)
    # The mutated input is a non-value tensor written in place.
    assert "%arg0: !torch.tensor<[3,4],f32>" in str(module)
    assert "torch.overwrite.tensor.contents" in names
    assert "torch.copy.to_vtensor" in names


def test_exported_program_and_given_importer_and_hooks():
    class Weights(FxImporterHooks):
        """Imports each tensor literal as an op of its own, as a runtime that
        holds the weights would (IREE's globals)."""

        def __init__(self):
            self.prepared = 0

        def prepare_module(self, module_op):
            self.prepared += 1

        def resolve_literal(self, gni, literal, info):
            if not isinstance(literal, torch.Tensor):
                return None
            shape = ",".join(str(size) for size in literal.shape)
            result = ir.Type.parse(f"!torch.vtensor<[{shape}],f32>")
            return ir.Operation.create(
                "torch.operator",
                results=[result],
                attributes={"name": ir.StringAttr.get("test.weight")},
            ).result

    model, x = mlp_and_input()
    program = torch.export.export(model, (x,))
    hooks = Weights()
    module = fx.export_and_import(program, hooks=hooks)
    assert hooks.prepared == 1
    assert str(module).count('torch.operator "test.weight"()') == 4
    assert "torch.vtensor.literal" not in op_names(module)

    with ir.Context() as context:
        importer = FxImporter(context=context)
        module = fx.export_and_import(program, fx_importer=importer, func_name="given")
        assert module.context is context
        assert "func.func @given" in str(module)


def test_stateless_fx_import_of_an_aten_graph():
    from torch.fx.experimental.proxy_tensor import make_fx

    graph_module = make_fx(lambda a, b: torch.relu(a) + b)(torch.randn(3, 4), torch.randn(3, 4))
    module = fx.stateless_fx_import(graph_module, model_name="stateless")
    assert "func.func @stateless" in str(module)
    assert {"torch.aten.relu", "torch.aten.add.Tensor"} <= set(op_names(module))
    lowered = fx.stateless_fx_import(graph_module, output_type="linalg-on-tensors")
    assert "linalg.generic" in op_names(lowered)


def test_printing_flags(capsys):
    model, x = mlp_and_input()
    fx.export_and_import(model, x, output_type="torch", verbose=True, enable_graph_printing=True)
    printed = capsys.readouterr().out
    assert "class GraphModule(torch.nn.Module)" in printed  # the exported graph
    imported, lowered = printed.split("// torch IR as imported\n")[1].split("// After ")
    assert "torch.aten.mm %" in imported and "torch.vtensor.literal(" in imported
    assert lowered.startswith("torch-mlir's lowering to the torch backend contract\n")
    assert "!torch.vtensor<[2,16],f32>" in lowered


def test_bad_arguments_are_named():
    model, x = mlp_and_input()
    with pytest.raises(ValueError, match="output_type must be one of raw, torch"):
        fx.export_and_import(model, x, output_type="llvm")
    with pytest.raises(ValueError, match="lighthouse has no tosa dialect"):
        fx.export_and_import(model, x, output_type="tosa")
    with pytest.raises(
        TypeError, match="takes a torch.nn.Module or a torch.export.ExportedProgram"
    ):
        fx.export_and_import(lambda t: t, x)
    with pytest.raises(ValueError, match="give hooks to the FxImporter"):
        fx.export_and_import(model, x, fx_importer=FxImporter(), hooks=FxImporterHooks())
    with pytest.raises(TypeError, match="unexpected keyword argument 'strict'"):
        fx.stateless_fx_import(torch.fx.GraphModule({}, torch.fx.Graph()), strict=True)
    # torch.export's own error, as torch-mlir's users get it.
    with pytest.raises(RuntimeError, match="must have same reduction dim"):
        fx.export_and_import(model, torch.randn(2, 5))  # 5 features for a 16-wide layer


def test_importer_errors_are_torch_mlirs_own():
    """torch-mlir's users catch the importer's ValueError for an as_strided view
    of an input of dynamic size, which it cannot import."""

    class Strided(torch.nn.Module):
        def forward(self, x):
            return torch.ops.aten.as_strided.default(x, [2], [1], 0)

    with pytest.raises(ValueError, match="`base.shape` must be static before Torch IR import"):
        fx.export_and_import(
            Strided(),
            torch.arange(10, dtype=torch.float32),
            dynamic_shapes={"x": {0: torch.export.Dim("n", min=3, max=64)}},
        )


def test_the_importers_classes_and_table_through_fx():
    from lighthouse.extras import fx_decomp_util, fx_importer

    assert fx.FxImporter is fx_importer.FxImporter
    assert fx.FxImporterHooks is fx_importer.FxImporterHooks
    assert fx.get_decomposition_table is fx_decomp_util.get_decomposition_table
