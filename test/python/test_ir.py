"""Building, parsing, verifying and printing IR through lighthouse.ir."""

from lighthouse import ir
from lighthouse.dialects import arith, func, linalg, tensor

SHIPPED_DIALECTS = [
    "affine",
    "arith",
    "bufferization",
    "builtin",
    "cf",
    "complex",
    "func",
    "index",
    "linalg",
    "llvm",
    "math",
    "memref",
    "ml_program",
    "omp",
    "pdl",
    "pdl_interp",
    "scf",
    "tensor",
    "transform",
    "ub",
    "vector",
]


def test_plain_context_holds_every_shipped_dialect():
    with ir.Context() as ctx:
        for name in SHIPPED_DIALECTS:
            assert ctx.dialects[name] is not None, name


def test_build_func_with_arith_ops():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(f32, f32)
            def fma(a, b):
                product = arith.mulf(a, b)
                two = arith.constant(f32, 2.0)
                return arith.addf(product, two)

        assert module.operation.verify()
        text = str(module)
    assert "func.func @fma(%arg0: f32, %arg1: f32) -> f32" in text
    assert "arith.mulf %arg0, %arg1 : f32" in text
    assert "arith.constant 2.000000e+00 : f32" in text
    assert "arith.addf" in text


def test_build_linalg_on_tensors():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        lhs_type = ir.RankedTensorType.get([4, 8], f32)
        rhs_type = ir.RankedTensorType.get([8, 2], f32)
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(lhs_type, rhs_type)
            def matmul(lhs, rhs):
                init = tensor.empty([4, 2], f32)
                zero = arith.constant(f32, 0.0)
                filled = linalg.fill(zero, outs=[init])
                return linalg.matmul(lhs, rhs, outs=[filled])

        assert module.operation.verify()
        text = str(module)
    assert "linalg.matmul" in text
    assert "-> tensor<4x2xf32>" in text


def test_parse_print_round_trip():
    source = """
    func.func @select(%c: i1, %a: index, %b: index) -> index {
      %r = arith.select %c, %a, %b : index
      return %r : index
    }
    """
    with ir.Context():
        module = ir.Module.parse(source)
        printed = str(module)
        reparsed = ir.Module.parse(printed)
        assert str(reparsed) == printed
        op = module.body.operations[0]
        assert op.operation.name == "func.func"
        assert ir.StringAttr(op.attributes["sym_name"]).value == "select"


def test_generic_form_round_trip():
    with ir.Context():
        module = ir.Module.parse("func.func @id(%a: i64) -> i64 { return %a : i64 }")
        generic = module.operation.get_asm(print_generic_op_form=True)
        assert '"func.func"()' in generic
        assert str(ir.Module.parse(generic)) == str(module)


def test_bytecode_round_trip(tmp_path):
    with ir.Context():
        module = ir.Module.parse("func.func @id(%a: i64) -> i64 { return %a : i64 }")
        path = tmp_path / "id.mlirbc"
        with open(path, "wb") as f:
            module.operation.write_bytecode(f)
        assert str(ir.Module.parseFile(str(path))) == str(module)


def test_type_stubs_ship_with_the_package():
    from pathlib import Path

    import lighthouse

    stub = Path(lighthouse.__file__).parent / "_mlir_libs" / "_mlir" / "ir.pyi"
    text = stub.read_text()
    assert "class Context" in text
    assert "class Module" in text
    assert "def parse(" in text
