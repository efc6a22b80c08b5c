"""lighthouse in one page: build a program through the Python API, verify it,
lower it to the LLVM dialect, JIT-compile it and run it on numpy arrays."""

import ctypes

import numpy as np

import lighthouse
from lighthouse import ir
from lighthouse.dialects import arith, func, linalg, tensor
from lighthouse.execution_engine import ExecutionEngine
from lighthouse.passmanager import PassManager
from lighthouse.runtime import get_ranked_memref_descriptor

M, K, N = 4, 8, 3

LOWERING = (
    "builtin.module("
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{modify-public-functions hoist-static-allocs},"
    "func.func(convert-linalg-to-loops),"
    "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
    "convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)"
)


def build_module():
    """dense(x, w, b) = max(x @ w + b, 0), on tensors, with linalg."""
    f32 = ir.F32Type.get()
    x_type = ir.RankedTensorType.get([M, K], f32)
    w_type = ir.RankedTensorType.get([K, N], f32)
    out_type = ir.RankedTensorType.get([M, N], f32)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):

        @func.FuncOp.from_py_func(x_type, w_type, out_type)
        def dense(x, w, bias):
            zero = arith.constant(f32, 0.0)
            acc = linalg.fill(zero, outs=[tensor.empty([M, N], f32)])
            product = linalg.matmul(x, w, outs=[acc])
            biased = linalg.add(product, bias, outs=[tensor.empty([M, N], f32)])
            zeros = linalg.fill(zero, outs=[tensor.empty([M, N], f32)])
            return linalg.max(biased, zeros, outs=[tensor.empty([M, N], f32)])

        dense.func_op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
    return module


def as_memref_arg(array):
    return ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(array)))


def main():
    print(f"lighthouse {lighthouse.__version__}\n")
    rng = np.random.default_rng(42)
    x = rng.standard_normal((M, K), dtype=np.float32)
    w = rng.standard_normal((K, N), dtype=np.float32)
    bias = rng.standard_normal((M, N), dtype=np.float32)
    result = np.zeros((M, N), dtype=np.float32)

    with ir.Context(), ir.Location.unknown():
        module = build_module()
        module.operation.verify()
        print("== linalg on tensors, built from Python ==")
        print(module)

        PassManager.parse(LOWERING).run(module.operation)
        print("== lowered to the LLVM dialect ==")
        print(module)

        engine = ExecutionEngine(module, opt_level=3)
        engine.invoke(
            "dense", as_memref_arg(x), as_memref_arg(w), as_memref_arg(bias), as_memref_arg(result)
        )

    expected = np.maximum(x @ w + bias, 0.0)
    print("== result of the JIT-compiled function ==")
    print(result)
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)
    print("matches numpy: yes")


if __name__ == "__main__":
    main()
