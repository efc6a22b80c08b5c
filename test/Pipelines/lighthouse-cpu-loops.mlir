// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-cpu-loops)" | FileCheck %s
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-cpu-loops)" --mlir-print-ir-after=convert-linalg-to-loops 2>&1 >/dev/null | FileCheck %s --check-prefix=LOOPS
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-cpu-loops)" | FileCheck %s --check-prefix=NO-MALLOC

// Nothing calls malloc or free directly: buffers come from lighthouse's
// runtime allocator.
// NO-MALLOC-NOT: @malloc
// NO-MALLOC-NOT: @free

// A dynamic-batch matmul + bias + ReLU on tensors, as the ingress produces.

func.func @dense(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %init = tensor.empty(%n) : tensor<?x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<?x4xf32>) -> tensor<?x4xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x4xf32>, tensor<4xf32>) outs(%init : tensor<?x4xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %s = arith.addf %v, %c : f32
    %e = math.exp %s : f32
    %m = arith.maximumf %e, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// LOOPS-LABEL: IR Dump After ConvertLinalgToLoopsPass
// LOOPS:         func.func @dense(%{{.*}}: memref<?x8xf32>, %{{.*}}: memref<8x4xf32>, %{{.*}}: memref<4xf32>) -> memref<?x4xf32>
// LOOPS:         memref.alloc(%{{.*}}) {{.*}}: memref<?x4xf32>
// LOOPS:         scf.for
// LOOPS:         scf.for
// LOOPS:         scf.for
// LOOPS:         arith.mulf
// LOOPS:         math.exp
// LOOPS-NOT:     linalg.

// CHECK-LABEL: llvm.func @dense(
// CHECK-SAME:    -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-SAME:    attributes {llvm.emit_c_interface}
// Buffers come from lighthouse's runtime allocator; each loop nest is a
// function of its own (lighthouse-outline-loop-nests).
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         llvm.call @dense_nests_0(
// CHECK:         llvm.call @dense_nests_1(
// CHECK-LABEL: llvm.func @_mlir_ciface_dense(
// CHECK-LABEL: llvm.func internal @dense_nests_0(
// CHECK:         llvm.fmul
// exp as a polynomial (lighthouse-approximate-math), not a libm call.
// CHECK-LABEL: llvm.func internal @dense_nests_1(
// CHECK-NOT:     llvm.intr.exp
// CHECK:         llvm.intr.fma
// CHECK-NOT:     llvm.intr.exp
// CHECK:         llvm.intr.maximum
// CHECK-NOT:     {{(linalg|memref|scf|arith|math|func|tensor)\.}}
