// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=convolutions-as-2d" | FileCheck %s --check-prefix=SKIP

// A 1-D convolution is a 2-D one of height 1.
// CHECK-LABEL: func.func @conv1d
// CHECK:         tensor.expand_shape {{.*}} into tensor<1x8x1x66xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<16x8x1x3xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<1x16x1x64xf32>
// CHECK:         %[[R:.*]] = linalg.conv_2d_nchw_fchw
// CHECK:         tensor.collapse_shape %[[R]] {{.*}} into tensor<1x16x64xf32>
// SKIP:          linalg.conv_1d_ncw_fcw
func.func @conv1d(%x: tensor<1x8x66xf32>, %w: tensor<16x8x3xf32>, %init: tensor<1x16x64xf32>) -> tensor<1x16x64xf32> {
  %r = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%x, %w : tensor<1x8x66xf32>, tensor<16x8x3xf32>) outs(%init : tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  return %r : tensor<1x16x64xf32>
}
