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


def test_torch_ops_build_print_and_parse_generically():
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
        assert str(constant) == '%0 = "torch.constant.int"() {value = 7 : i64} : () -> !torch.int'
        assert ir.Module.parse(str(module)).operation.verify()


def test_torch_mlirs_custom_op_syntax_is_not_known():
    """torch-mlir's dialect prints its ops in forms of their own; the stand-in
    knows none of them, so such text is refused with the parser's error."""
    with ir.Context() as context:
        torch_d.register_dialect(context)
        with pytest.raises(ir.MLIRError, match="torch.aten.relu"):
            ir.Module.parse(TORCH_IR)


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
