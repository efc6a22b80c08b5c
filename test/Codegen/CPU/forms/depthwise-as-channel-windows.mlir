// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=depthwise-as-channel-windows" | FileCheck %s --check-prefix=SKIP

// A depthwise convolution is a generic with a pooling's loop order, (n, c,
// oh, ow, kh, kw).
// CHECK-DAG:     #[[IMAGE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-DAG:     #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>
// CHECK-LABEL: func.func @depthwise
// CHECK:         linalg.generic {indexing_maps = [#[[IMAGE]], #[[FILTER]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-NOT:     linalg.depthwise_conv_2d_nchw_chw
// SKIP:          linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x32x18x18xf32>, %w: tensor<32x3x3xf32>, %init: tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x18x18xf32>, tensor<32x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %r : tensor<1x32x16x16xf32>
}
