// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=strided-points-as-slices" | FileCheck %s --check-prefix=SKIP

// A 1x1 convolution of stride 2 (ResNet's shortcut) is an unstrided one of
// a copy of every other pixel.
// CHECK-LABEL: func.func @shortcut
// CHECK:         %[[PIXELS:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 64, 28, 28] [1, 1, 2, 2]
// CHECK:         %[[COPY:.*]] = linalg.copy ins(%[[PIXELS]] : tensor<1x64x28x28xf32>)
// CHECK:         linalg.conv_2d_nchw_fchw {{{.*}}strides = dense<1> : vector<2xi64>} ins(%[[COPY]], %{{.*}} : tensor<1x64x28x28xf32>, tensor<128x64x1x1xf32>)
// SKIP:          linalg.conv_2d_nchw_fchw {{{.*}}strides = dense<2> : tensor<2xi64>}
func.func @shortcut(%x: tensor<1x64x56x56xf32>, %w: tensor<128x64x1x1xf32>, %init: tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x64x56x56xf32>, tensor<128x64x1x1xf32>) outs(%init : tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32>
  return %r : tensor<1x128x28x28xf32>
}
