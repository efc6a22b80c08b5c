// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1" | FileCheck %s
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1 skip=depthwise-channels-last" | FileCheck %s --check-prefix=SKIP
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1 skip=transposes-to-their-inverses" | FileCheck %s --check-prefix=KEPT
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="target=avx512 threads=1" | FileCheck %s --check-prefix=STRATEGY

// An inverted residual block (MobileNet-V2's): a pointwise expansion, a
// per-channel scale and an activation, a padded 3x3 depthwise convolution, a
// per-channel shift, a pointwise projection. The depthwise convolution runs
// in NHWC, the pointwise ones as matmuls of NHWC pixels, the elementwise ops
// and the pad in NHWC between them: the only transposes left are the block's
// image into NHWC and its output out of it (the filters are transposed at
// compile time).
// CHECK-LABEL: func.func @inverted_residual
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x16x14x14xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<200x16xf32>, tensor<16x96xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x14x14x96xf32>, tensor<96xf32>)
// CHECK:         tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x16x96xf32>, tensor<3x3x96xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x14x14x96xf32>, tensor<96xf32>)
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<208x96xf32>, tensor<96x16xf32>)
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x14x14x16xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT:     linalg.transpose
// CHECK:         return
// SKIP-LABEL:  func.func @inverted_residual
// SKIP-NOT:      linalg.transpose
// SKIP-NOT:      linalg.depthwise_conv_2d_nhwc_hwc
// SKIP:          linalg.conv_2d_nchw_fchw
// KEPT-LABEL:  func.func @inverted_residual
// KEPT-COUNT-6:  linalg.transpose ins(%{{.*}} : tensor<1x{{.*}}
// KEPT:          return
// The depthwise convolution's strategy: blocks of 7 pixels of a row (of 14)
// by 16 channels, vectorized along the channels: a multiply-add per window
// column, in a loop over the window's rows that carries the accumulators.
// STRATEGY-LABEL: func.func @inverted_residual
// STRATEGY:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<1x7x16xf32>)
// STRATEGY-COUNT-3:   vector.fma {{.*}} : vector<1x7x16xf32>
#map = affine_map<(n, c, h, w) -> (n, c, h, w)>
#channel = affine_map<(n, c, h, w) -> (c)>
func.func @inverted_residual(%x: tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32> {
  %expand = arith.constant dense<0.25> : tensor<96x16x1x1xf32>
  %depthwise = arith.constant dense<0.5> : tensor<96x3x3xf32>
  %project = arith.constant dense<0.125> : tensor<16x96x1x1xf32>
  %scale = arith.constant dense<2.0> : tensor<96xf32>
  %zero = arith.constant 0.0 : f32
  %e96 = tensor.empty() : tensor<1x96x14x14xf32>
  %z96 = linalg.fill ins(%zero : f32) outs(%e96 : tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %expand : tensor<1x16x14x14xf32>, tensor<96x16x1x1xf32>) outs(%z96 : tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32>
  %b = linalg.generic {indexing_maps = [#map, #channel, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %scale : tensor<1x96x14x14xf32>, tensor<96xf32>) outs(%e96 : tensor<1x96x14x14xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    %r = arith.maximumf %m, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x96x14x14xf32>
  %p = tensor.pad %b low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x96x14x14xf32> to tensor<1x96x16x16xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %depthwise : tensor<1x96x16x16xf32>, tensor<96x3x3xf32>) outs(%z96 : tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32>
  %f = linalg.generic {indexing_maps = [#map, #channel, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %scale : tensor<1x96x14x14xf32>, tensor<96xf32>) outs(%e96 : tensor<1x96x14x14xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.addf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x96x14x14xf32>
  %e16 = tensor.empty() : tensor<1x16x14x14xf32>
  %z16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  %g = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%f, %project : tensor<1x96x14x14xf32>, tensor<16x96x1x1xf32>) outs(%z16 : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
  return %g : tensor<1x16x14x14xf32>
}

// -----

// A depthwise convolution with no pointwise one next to it stays in NCHW:
// alone, the two transposes cost more than its vectors along the channels
// gain (576 channels of 7x7: 153 against 114 us, 1 thread).
// CHECK-LABEL: func.func @alone
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     linalg.depthwise_conv_2d_nhwc_hwc
func.func @alone(%x: tensor<1x576x11x11xf32>, %w: tensor<576x5x5xf32>, %init: tensor<1x576x7x7xf32>) -> tensor<1x576x7x7xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x576x11x11xf32>, tensor<576x5x5xf32>) outs(%init : tensor<1x576x7x7xf32>) -> tensor<1x576x7x7xf32>
  return %r : tensor<1x576x7x7xf32>
}

// -----

// A dynamic batch keeps the depthwise convolution in NCHW.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-NOT:     linalg.depthwise_conv_2d_nhwc_hwc
func.func @dynamic_batch(%x: tensor<?x16x14x14xf32>, %init: tensor<?x96x14x14xf32>) -> tensor<?x96x14x14xf32> {
  %expand = arith.constant dense<0.25> : tensor<96x16x1x1xf32>
  %depthwise = arith.constant dense<0.5> : tensor<96x1x1xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %expand : tensor<?x16x14x14xf32>, tensor<96x16x1x1xf32>) outs(%init : tensor<?x96x14x14xf32>) -> tensor<?x96x14x14xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%a, %depthwise : tensor<?x96x14x14xf32>, tensor<96x1x1xf32>) outs(%init : tensor<?x96x14x14xf32>) -> tensor<?x96x14x14xf32>
  return %d : tensor<?x96x14x14xf32>
}

// -----

// Transposes stay before an op that reads its loops' indices (they would
// name other loops), and before an op whose transposed operand another op
// keeps (moved, it would be one transpose more).
// CHECK-LABEL: func.func @stays
// CHECK:         %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x7x7x16xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : tensor<1x16x7x7xf32>)
// CHECK:         linalg.index 1
// CHECK:         %[[U:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x7x7x16xf32>)
// CHECK:         tensor.collapse_shape %[[U]]
// CHECK:         linalg.generic {{.*}} ins(%[[U]] : tensor<1x16x7x7xf32>) outs(%{{.*}} : tensor<1x16x1x1xf32>)
#map = affine_map<(n, c, h, w) -> (n, c, h, w)>
#pooled = affine_map<(n, c, h, w) -> (n, c, 0, 0)>
func.func @stays(%x: tensor<1x7x7x16xf32>, %y: tensor<1x7x7x16xf32>) -> (tensor<1x16x7x7xf32>, tensor<1x16x7x7xf32>, tensor<1x16x1x1xf32>) {
  %e = tensor.empty() : tensor<1x16x7x7xf32>
  %t = linalg.transpose ins(%x : tensor<1x7x7x16xf32>) outs(%e : tensor<1x16x7x7xf32>) permutation = [0, 3, 1, 2]
  %masked = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t : tensor<1x16x7x7xf32>) outs(%e : tensor<1x16x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %keep = arith.cmpi ult, %c, %h : index
    %zero = arith.constant 0.0 : f32
    %r = arith.select %keep, %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x7x7xf32>
  %u = linalg.transpose ins(%y : tensor<1x7x7x16xf32>) outs(%e : tensor<1x16x7x7xf32>) permutation = [0, 3, 1, 2]
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%u : tensor<1x16x7x7xf32>) outs(%e : tensor<1x16x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x7x7xf32>
  %p = tensor.empty() : tensor<1x16x1x1xf32>
  %sum = linalg.generic {indexing_maps = [#map, #pooled], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%u : tensor<1x16x7x7xf32>) outs(%p : tensor<1x16x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x16x1x1xf32>
  return %masked, %relu, %sum : tensor<1x16x7x7xf32>, tensor<1x16x7x7xf32>, tensor<1x16x1x1xf32>
}
