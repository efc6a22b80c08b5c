// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=split-batch-matmuls" | FileCheck %s --check-prefix=SKIP
// RUN: not lh-opt %s --lighthouse-cpu-prepare-forms="skip=nope" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: lighthouse-cpu-prepare-forms: no form named nope; forms: split-batch-matmuls pad-to-register-tiles

// A batch of matmuls of static sizes is a loop over the batch of 2-D
// matmuls (generics of the matmul's form), on one thread below 2M
// multiply-adds.
// CHECK-LABEL: func.func @batch
// CHECK:         scf.for %[[B:.*]] = %c0 to %c4 step %c1
// CHECK:           tensor.collapse_shape {{.*}} : tensor<1x64x64xf32> into tensor<64x64xf32>
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs({{.*}} : tensor<64x64xf32>)
// CHECK:           tensor.insert_slice {{.*}} into %{{.*}}[%[[B]], 0, 0] [1, 64, 64]
// CHECK-NOT:     linalg.batch_matmul
// SKIP:          linalg.batch_matmul
func.func @batch(%a: tensor<4x64x64xf32>, %b: tensor<4x64x64xf32>, %c: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x64x64xf32>, tensor<4x64x64xf32>) outs(%c : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}
