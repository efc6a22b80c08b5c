"""Pass pipelines down to the LLVM dialect, and JIT execution on numpy data."""

import ctypes

import numpy as np

from lighthouse import ir
from lighthouse.execution_engine import ExecutionEngine
from lighthouse.passmanager import PassManager
from lighthouse.runtime import get_ranked_memref_descriptor

# From linalg on tensors to the LLVM dialect, with results passed as
# caller-allocated out-parameters so numpy owns every buffer.
LOWER_TO_LLVM = (
    "builtin.module("
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{modify-public-functions hoist-static-allocs},"
    "func.func(convert-linalg-to-loops),"
    "expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm,convert-scf-to-cf,convert-to-llvm,"
    "reconcile-unrealized-casts)"
)

MATMUL_BIAS_RELU = """
func.func @matmul_bias_relu(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>,
                            %bias: tensor<4xf32>) -> tensor<8x4xf32>
    attributes {llvm.emit_c_interface} {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>)
                      outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<8x4xf32>, tensor<4xf32>) outs(%init : tensor<8x4xf32>) {
  ^bb0(%x: f32, %c: f32, %out: f32):
    %s = arith.addf %x, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
"""


def memref_arg(array):
    """A pointer to a pointer to the memref descriptor of `array`."""
    return ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(array)))


def test_canonicalize_and_cse():
    with ir.Context():
        module = ir.Module.parse("""
        func.func @f(%a: i32) -> i32 {
          %c0 = arith.constant 0 : i32
          %x = arith.addi %a, %c0 : i32
          %y = arith.muli %x, %x : i32
          %z = arith.muli %x, %x : i32
          %r = arith.addi %y, %z : i32
          return %r : i32
        }""")
        PassManager.parse("builtin.module(canonicalize,cse)").run(module.operation)
        text = str(module)
    assert "arith.constant" not in text
    assert text.count("arith.muli") == 1


def test_lowering_reaches_llvm_dialect_only():
    with ir.Context():
        module = ir.Module.parse(MATMUL_BIAS_RELU)
        PassManager.parse(LOWER_TO_LLVM).run(module.operation)
        dialects = {op.operation.name.split(".")[0] for op in module.body.operations}
        text = str(module)
    assert dialects == {"llvm"}
    for leftover in ("linalg.", "tensor.", "memref.", "scf.", "arith.", "func.func"):
        assert leftover not in text


def test_jit_matmul_bias_relu_matches_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 16), dtype=np.float32)
    b = rng.standard_normal((16, 4), dtype=np.float32)
    bias = rng.standard_normal(4, dtype=np.float32)
    out = np.full((8, 4), np.nan, dtype=np.float32)
    with ir.Context():
        module = ir.Module.parse(MATMUL_BIAS_RELU)
        PassManager.parse(LOWER_TO_LLVM).run(module.operation)
        engine = ExecutionEngine(module, opt_level=2)
        engine.invoke(
            "matmul_bias_relu", memref_arg(a), memref_arg(b), memref_arg(bias), memref_arg(out)
        )
    expected = np.maximum(a @ b + bias, 0.0)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_jit_scalar_function_built_from_python():
    from lighthouse.dialects import arith, func

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        i64 = ir.IntegerType.get_signless(64)
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(i64, i64)
            def mul_add(a, b):
                return arith.addi(arith.muli(a, b), a)

            mul_add.func_op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        PassManager.parse("builtin.module(convert-to-llvm)").run(module.operation)
        engine = ExecutionEngine(module)
        a, b = ctypes.c_int64(6), ctypes.c_int64(7)
        result = ctypes.c_int64(0)
        engine.invoke("mul_add", ctypes.pointer(a), ctypes.pointer(b), ctypes.pointer(result))
    assert result.value == 6 * 7 + 6


def test_transform_interpreter_tiles_matmul():
    from lighthouse.dialects.transform import interpreter

    with ir.Context():
        module = ir.Module.parse("""
        module attributes {transform.with_named_sequence} {
          func.func @mm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                        %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
            %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                               outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
            return %r : tensor<64x64xf32>
          }
          transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
            %mm = transform.structured.match ops{["linalg.matmul"]} in %root
                : (!transform.any_op) -> !transform.any_op
            %tiled, %loops:2 = transform.structured.tile_using_for %mm tile_sizes [16, 32]
                : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
            transform.yield
          }
        }""")
        entry = module.body.operations[1]
        interpreter.apply_named_sequence(module, entry, module)
        text = str(module.body.operations[0])
    assert text.count("scf.for") == 2
    assert "tensor<16x32xf32>" in text


def test_jit_calls_the_shipped_runtime_libraries():
    # printMemrefF32 lives in the runtime libraries; it writes to the C stdout,
    # so run in a child process and read its output.
    script = """
import lighthouse
from lighthouse import ir
from lighthouse.execution_engine import ExecutionEngine
from lighthouse.passmanager import PassManager
with ir.Context():
    module = ir.Module.parse('''
    func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
    func.func @main() attributes {llvm.emit_c_interface} {
      %c = arith.constant 1.5 : f32
      %m = memref.alloc() : memref<2x3xf32>
      linalg.fill ins(%c : f32) outs(%m : memref<2x3xf32>)
      %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
      call @printMemrefF32(%u) : (memref<*xf32>) -> ()
      memref.dealloc %m : memref<2x3xf32>
      return
    }''')
    PassManager.parse('builtin.module(func.func(convert-linalg-to-loops),'
                      'expand-strided-metadata,finalize-memref-to-llvm,'
                      'convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)'
                      ).run(module.operation)
    engine = ExecutionEngine(module, shared_libs=lighthouse.runtime_library_paths())
    engine.invoke('main')
"""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout
    assert "rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1]" in out
    assert out.count("1.5") == 6
