// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=split-window-remainders" | FileCheck %s --check-prefix=SKIP

// Rows of 2047 pixels, which no block divides, are split into 2032 (127
// registers of 16 floats) and the remaining 15.
// CHECK-LABEL: func.func @wide
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x8x1x2032xf32>)
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x8x1x15xf32>)
// SKIP:          linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x8x1x2047xf32>)
func.func @wide(%x: tensor<1x8x3x2049xf32>, %w: tensor<8x8x3x3xf32>, %init: tensor<1x8x1x2047xf32>) -> tensor<1x8x1x2047xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x3x2049xf32>, tensor<8x8x3x3xf32>) outs(%init : tensor<1x8x1x2047xf32>) -> tensor<1x8x1x2047xf32>
  return %r : tensor<1x8x1x2047xf32>
}
