"""lighthouse.dialects.torch called as torch-mlir's users call
torch_mlir.dialects.torch: `register_dialect(context)`, then torch IR in that
context; what it does not have is named."""

import subprocess
import sys
import textwrap

import pytest

from lighthouse import ir
from lighthouse.dialects import torch as torch_d

TORCH_IR = """
func.func @f(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %0 = torch.aten.relu %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
"""


def test_register_dialect_makes_a_context_take_torch_ir():
    """In a process that has not imported lighthouse.extras (which registers the
    stand-in in every new context), a context takes torch IR only once
    `register_dialect` was called on it."""
    script = textwrap.dedent(
        """
        from lighthouse import ir
        from lighthouse.dialects import torch as torch_d
        text = '!torch.vtensor<[2,?],si64>'
        with ir.Context() as context:
            try:
                ir.Type.parse(text)
                print("parsed before")
            except ir.MLIRError:
                print("refused before")
            torch_d.register_dialect(context)
            print(ir.Type.parse(text))
        with ir.Context() as context:
            torch_d.register_dialect(context, load=False)
            print(ir.Type.parse('!torch.list<vtensor>'))
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "refused before",
        "!torch.vtensor<[2,?],si64>",
        "!torch.list<vtensor>",
    ]


def test_torch_ops_built_generically_print_in_torch_mlirs_forms():
    with ir.Context() as context, ir.Location.unknown():
        torch_d.register_dialect(context)
        module = ir.Module.parse(
            TORCH_IR.replace(
                "torch.aten.relu %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>",
                '"torch.aten.relu"(%arg0) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>',
            )
        )
        assert module.operation.verify()
        (function,) = module.body.operations
        relu = function.regions[0].blocks[0].operations[0]
        assert relu.name == "torch.aten.relu"
        with ir.InsertionPoint(relu):
            constant = ir.Operation.create(
                "torch.constant.int",
                results=[ir.Type.parse("!torch.int")],
                attributes={"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 7)},
            )
        assert str(constant) == "%int7 = torch.constant.int 7"
        assert (
            "torch.aten.relu %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>"
            in str(module)
        )
        assert str(ir.Module.parse(str(module))) == str(module)


#: torch IR in the custom forms torch-mlir's dialect prints, each line as
#: lighthouse prints it back.
CUSTOM_FORMS = """
func.func @f(%arg0: !torch.vtensor<[?,3],f32>, %arg1: !torch.tensor<[?,3],f32>) -> (!torch.vtensor<[?,3],f32>, !torch.none, !torch.vtensor<[2],f32>) {
  %none = torch.constant.none
  %int-1 = torch.constant.int -1
  %float5.000000e-01 = torch.constant.float 5.000000e-01
  %true = torch.constant.bool true
  %str = torch.constant.str "mean"
  %0 = torch.symbolic_int "s0" {min_val = 2, max_val = 100} : !torch.int
  torch.bind_symbolic_shape %arg0, [%0], affine_map<()[s0] -> (s0, 3)> : !torch.vtensor<[?,3],f32>
  %1 = torch.prim.ListConstruct %int-1 : (!torch.int) -> !torch.list<int>
  %2 = torch.aten.sum.dim_IntList %arg0, %1, %true, %none : !torch.vtensor<[?,3],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[?,1],f32>
  %3 = torch.aten.mul.Scalar %arg0, %float5.000000e-01 : !torch.vtensor<[?,3],f32>, !torch.float -> !torch.vtensor<[?,3],f32>
  %4:2 = torch.operator "onnx.Split"(%3) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,3],f32>) -> (!torch.vtensor<[?,1],f32>, !torch.vtensor<[?,2],f32>)
  %5 = torch.vtensor.literal(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %6 = torch.copy.to_vtensor %arg1 : !torch.vtensor<[?,3],f32>
  %7 = torch.copy.to_tensor %6 : !torch.tensor<[?,3],f32>
  torch.overwrite.tensor.contents %3 overwrites %arg1 : !torch.vtensor<[?,3],f32>, !torch.tensor<[?,3],f32>
  %8 = torch.aten.add.Tensor %3, %6, %int-1 : !torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],f32>, !torch.int -> !torch.vtensor<[?,3],f32>
  return %8, %none, %5 : !torch.vtensor<[?,3],f32>, !torch.none, !torch.vtensor<[2],f32>
}
"""


def test_torch_mlirs_custom_forms_parse_and_print_back():
    """The forms torch-mlir's dialect prints its ops in (and its importers'
    tests check), parsed and printed back the same; constants named as
    torch-mlir names them."""
    with ir.Context() as context:
        torch_d.register_dialect(context)
        module = ir.Module.parse(CUSTOM_FORMS)
        assert module.operation.verify()
        # The module's lines, less its first and last and the alias of the
        # affine map defined above it (MLIR's alias pass sees unknown ops in
        # the generic form): bind_symbolic_shape prints the map inline.
        lines = [line for line in str(module).splitlines() if not line.startswith("#")]
        printed = [line.strip() for line in lines[1:-1]]
        assert printed == [line.strip() for line in CUSTOM_FORMS.strip().splitlines()]


def test_ops_of_other_forms_stay_generic():
    """Ops whose forms the stand-in does not have (control flow with
    regions) print in the generic form, which parses back."""
    text = """
func.func @f(%arg0: !torch.bool, %arg1: !torch.int) -> !torch.int {
  %0 = "torch.prim.If"(%arg0) ({
    "torch.prim.If.yield"(%arg1) : (!torch.int) -> ()
  }, {
    "torch.prim.If.yield"(%arg1) : (!torch.int) -> ()
  }) : (!torch.bool) -> !torch.int
  return %0 : !torch.int
}
"""
    with ir.Context() as context:
        torch_d.register_dialect(context)
        module = ir.Module.parse(text)
        assert '"torch.prim.If"(%arg0)' in str(module)
        assert str(ir.Module.parse(str(module))) == str(module)


@pytest.mark.parametrize(
    "line, message",
    [
        ('%0 = torch.constant.int "seven"', "expected integer value"),
        (
            '%0 = "torch.constant.int"() : () -> !torch.int',
            "needs a `value` of the constant's kind",
        ),
        (
            '%0 = "torch.constant.bool"() {value = 1 : i64} : () -> !torch.bool',
            "needs a `value` of the constant's kind",
        ),
        ('%0 = "torch.constant.none"() : () -> !torch.int', "returns !torch.none"),
        ('%0 = torch.symbolic_int "s0" {min_val = 2} : !torch.int', "expected ','"),
        ("%0 = torch.aten.relu %arg0 : -> !torch.int", "expected"),
    ],
)
def test_malformed_custom_forms_are_refused_with_the_reason(line, message):
    text = f"func.func @f(%arg0: !torch.int) {{\n  {line}\n  return\n}}"
    with ir.Context() as context:
        torch_d.register_dialect(context)
        with pytest.raises(ir.MLIRError, match=message):
            ir.Module.parse(text)


def test_op_classes_are_refused_with_the_reason():
    with pytest.raises(AttributeError, match="has no 'AtenMmOp': lighthouse does not build"):
        torch_d.AtenMmOp
    assert torch_d.__all__ == ["register_dialect"]


def test_spellings_of_one_type_are_one_type():
    with ir.Context() as context:
        torch_d.register_dialect(context)
        assert ir.Type.parse("!torch.vtensor<[32, 16],f32>") == ir.Type.parse(
            "!torch.vtensor<[32,16],f32>"
        )
        # Spelled as torch-mlir's printer spells them: elements of tuples,
        # unions and dicts apart, string literals as written.
        for spelled, printed in (
            ("!torch.vtensor< [ 2 , ? ] , f32 >", "!torch.vtensor<[2,?],f32>"),
            ("!torch.tuple<vtensor<[2, 3],f32>,int>", "!torch.tuple<vtensor<[2,3],f32>, int>"),
            (
                "!torch.list<optional<vtensor<[1, 2],si64>>>",
                "!torch.list<optional<vtensor<[1,2],si64>>>",
            ),
            ("!torch.dict<str,int>", "!torch.dict<str, int>"),
            ('!torch.nn.Module<"__torch__.My Model">', '!torch.nn.Module<"__torch__.My Model">'),
        ):
            assert str(ir.Type.parse(spelled)) == printed
