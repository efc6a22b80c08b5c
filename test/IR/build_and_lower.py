# RUN: %python %s | FileCheck %s
#
# IR built through lighthouse's Python API, printed at each lowering step.

from lighthouse import ir
from lighthouse.dialects import arith, func, linalg, math, tensor
from lighthouse.passmanager import PassManager


def build_softplus_module():
    f32 = ir.F32Type.get()
    vec = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], f32)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):

        @func.FuncOp.from_py_func(vec)
        def softplus(x):
            one = arith.constant(vec.element_type, 1.0)
            size = tensor.dim(x, arith.constant(ir.IndexType.get(), 0))
            ones = linalg.fill(one, outs=[tensor.empty([size], f32)])
            return math.log(arith.addf(math.exp(x), ones))

    return module


with ir.Context(), ir.Location.unknown():
    module = build_softplus_module()
    assert module.operation.verify()
    # CHECK-LABEL: func.func @softplus(%{{.*}}: tensor<?xf32>) -> tensor<?xf32>
    # CHECK: tensor.dim
    # CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
    # CHECK: linalg.fill
    # CHECK: math.exp %{{.*}} : tensor<?xf32>
    # CHECK: arith.addf %{{.*}} : tensor<?xf32>
    # CHECK: math.log %{{.*}} : tensor<?xf32>
    print(module)

    PassManager.parse("builtin.module(func.func(convert-elementwise-to-linalg,canonicalize))").run(
        module.operation
    )
    # CHECK-LABEL: func.func @softplus
    # CHECK: linalg.generic
    # CHECK-NEXT: ^bb0
    # CHECK-NEXT: math.exp
    # CHECK: linalg.generic
    # CHECK-NEXT: ^bb0
    # CHECK-NEXT: arith.addf
    # CHECK: linalg.generic
    # CHECK-NEXT: ^bb0
    # CHECK-NEXT: math.log
    print(module)

    PassManager.parse(
        "builtin.module(one-shot-bufferize{bufferize-function-boundaries},"
        "func.func(convert-linalg-to-loops))"
    ).run(module.operation)
    # CHECK-LABEL: func.func @softplus(%{{.*}}: memref<?xf32, strided<[?], offset: ?>>)
    # CHECK: memref.alloc(%{{.*}}) {{.*}}: memref<?xf32>
    # CHECK: scf.for
    # CHECK: memref.load
    # CHECK: math.exp
    # CHECK: memref.store
    print(module)

    PassManager.parse(
        "builtin.module(expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
        "convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)"
    ).run(module.operation)
    # CHECK-LABEL: llvm.func @softplus
    # CHECK: llvm.call @malloc
    # CHECK: llvm.intr.exp
    # CHECK: llvm.intr.log
    # CHECK-NOT: memref.
    # CHECK-NOT: scf.
    print(module)
