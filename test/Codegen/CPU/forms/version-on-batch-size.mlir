// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=version-on-batch-size" | FileCheck %s --check-prefix=SKIP

// A dynamic batch is tested at run time: from 152 images on (2M
// multiply-adds), the copy that selection splits across threads by images,
// marked for it.
// CHECK-LABEL: func.func @conv
// CHECK:         %[[BATCH:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x8x8x8xf32>
// CHECK:         %[[LARGE:.*]] = arith.cmpi sge, %[[BATCH]], %c152
// CHECK:         scf.if %[[LARGE]]
// CHECK:           linalg.conv_2d_nchw_fchw {{.*}}lighthouse.large_batch
// CHECK:         } else {
// CHECK-NOT:       lighthouse.large_batch
// CHECK:           linalg.conv_2d_nchw_fchw
// SKIP-NOT:      scf.if
func.func @conv(%x: tensor<?x3x10x10xf32>, %w: tensor<8x3x3x3xf32>, %init: tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  return %r : tensor<?x8x8x8xf32>
}
