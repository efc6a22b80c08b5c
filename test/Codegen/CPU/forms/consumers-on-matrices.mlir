// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1" | FileCheck %s
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1 skip=consumers-on-matrices" | FileCheck %s --check-prefix=SKIP
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1" --lighthouse-cpu-select-strategy="target=avx512 threads=1" | FileCheck %s --check-prefix=FUSED

#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>

// A pointwise convolution's pixels as a matmul, its bias and ReLU6 read
// through the NHWC images: computed on the matrix, a consumer the strategy
// fuses; the images are the consumer's result expanded.
// CHECK-LABEL: func.func @bias_relu6
// CHECK:         %[[M:.*]] = linalg.matmul
// CHECK:         %[[G:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[M]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<3136x32xf32>, tensor<32xf32>, tensor<f32>, tensor<f32>)
// CHECK:         tensor.expand_shape %[[G]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 56, 56, 32]
// SKIP-LABEL:  func.func @bias_relu6
// SKIP:          %[[M:.*]] = linalg.matmul
// SKIP:          %[[E:.*]] = tensor.expand_shape %[[M]]
// SKIP:          linalg.generic {{.*}} ins(%[[E]],
// FUSED-LABEL: func.func @bias_relu6
// FUSED:         linalg.matmul {{.*}}consumers = 1
// FUSED:         linalg.generic {{.*}}kind = "fused"
func.func @bias_relu6(%a: tensor<3136x16xf32>, %bias: tensor<32xf32>) -> tensor<1x56x56x32xf32> {
  %w = arith.constant dense<0.5> : tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %lo = arith.constant dense<0.0> : tensor<f32>
  %hi = arith.constant dense<6.0> : tensor<f32>
  %e = tensor.empty() : tensor<3136x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3136x32xf32>) -> tensor<3136x32xf32>
  %m = linalg.matmul ins(%a, %w : tensor<3136x16xf32>, tensor<16x32xf32>) outs(%f : tensor<3136x32xf32>) -> tensor<3136x32xf32>
  %images = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 56, 56, 32] : tensor<3136x32xf32> into tensor<1x56x56x32xf32>
  %o = tensor.empty() : tensor<1x56x56x32xf32>
  %r = linalg.generic {indexing_maps = [#pixel, #channel, #scalar, #scalar, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%images, %bias, %lo, %hi : tensor<1x56x56x32xf32>, tensor<32xf32>, tensor<f32>, tensor<f32>) outs(%o : tensor<1x56x56x32xf32>) {
  ^bb0(%x: f32, %b: f32, %l: f32, %h: f32, %out: f32):
    %s = arith.addf %x, %b : f32
    %c = arith.maximumf %s, %l : f32
    %d = arith.minimumf %c, %h : f32
    linalg.yield %d : f32
  } -> tensor<1x56x56x32xf32>
  return %r : tensor<1x56x56x32xf32>
}

// -----

#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel = affine_map<(d0, d1, d2, d3) -> (d3)>

// 24 channels are padded to 32: the bias, a constant, is padded with zeros
// now, the consumer computed on the padded matrix, and its result sliced.
// CHECK-LABEL: func.func @padded_bias
// CHECK:         %[[M:.*]] = linalg.matmul {{.*}} -> tensor<3136x32xf32>
// CHECK:         %[[BIAS:.*]] = arith.constant dense<[1.000000e+00, {{.*}}, 0.000000e+00]> : tensor<32xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[BIAS]] : tensor<3136x32xf32>, tensor<32xf32>)
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[G]][0, 0] [3136, 24] [1, 1]
// CHECK:         tensor.expand_shape %[[S]]
// FUSED-LABEL: func.func @padded_bias
// FUSED:         linalg.matmul {{.*}}consumers = 1
func.func @padded_bias(%a: tensor<3136x16xf32>) -> tensor<1x56x56x24xf32> {
  %w = arith.constant dense<0.5> : tensor<16x24xf32>
  %bias = arith.constant dense<1.0> : tensor<24x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3136x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3136x24xf32>) -> tensor<3136x24xf32>
  %m = linalg.matmul ins(%a, %w : tensor<3136x16xf32>, tensor<16x24xf32>) outs(%f : tensor<3136x24xf32>) -> tensor<3136x24xf32>
  %images = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 56, 56, 24] : tensor<3136x24xf32> into tensor<1x56x56x24xf32>
  %b = tensor.collapse_shape %bias [[0, 1, 2]] : tensor<24x1x1xf32> into tensor<24xf32>
  %o = tensor.empty() : tensor<1x56x56x24xf32>
  %r = linalg.generic {indexing_maps = [#pixel, #channel, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%images, %b : tensor<1x56x56x24xf32>, tensor<24xf32>) outs(%o : tensor<1x56x56x24xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x56x56x24xf32>
  return %r : tensor<1x56x56x24xf32>
}

// -----

#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A residual of the unpadded size would need a padded copy: the consumer
// stays on the images.
// CHECK-LABEL: func.func @padded_residual_stays
// CHECK:         %[[M:.*]] = linalg.matmul
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[M]]
// CHECK:         tensor.expand_shape %[[S]]
// CHECK-NOT:     tensor<3136x32xf32>
// CHECK:         linalg.generic
// CHECK-NOT:     tensor<3136x32xf32>
// CHECK:         return
func.func @padded_residual_stays(%a: tensor<3136x16xf32>, %residual: tensor<1x56x56x24xf32>) -> tensor<1x56x56x24xf32> {
  %w = arith.constant dense<0.5> : tensor<16x24xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3136x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3136x24xf32>) -> tensor<3136x24xf32>
  %m = linalg.matmul ins(%a, %w : tensor<3136x16xf32>, tensor<16x24xf32>) outs(%f : tensor<3136x24xf32>) -> tensor<3136x24xf32>
  %images = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 56, 56, 24] : tensor<3136x24xf32> into tensor<1x56x56x24xf32>
  %o = tensor.empty() : tensor<1x56x56x24xf32>
  %r = linalg.generic {indexing_maps = [#pixel, #pixel, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%images, %residual : tensor<1x56x56x24xf32>, tensor<1x56x56x24xf32>) outs(%o : tensor<1x56x56x24xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x56x56x24xf32>
  return %r : tensor<1x56x56x24xf32>
}

// -----

// 16 columns, one vector register: tiles of one vector's columns and twice
// the rows, not loops (padding N to two vectors would double the work).
// FUSED-LABEL: func.func @one_vector_of_columns
// FUSED:         linalg.matmul {{.*}}kind = "contraction.blocked", registers = array<i64: 16, 16, 8>
func.func @one_vector_of_columns(%a: tensor<12544x32xf32>, %b: tensor<32x16xf32>) -> tensor<12544x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12544x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<12544x16xf32>) -> tensor<12544x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<12544x32xf32>, tensor<32x16xf32>) outs(%f : tensor<12544x16xf32>) -> tensor<12544x16xf32>
  return %r : tensor<12544x16xf32>
}

// -----

#pixel = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#per_image = affine_map<(d0, d1, d2, d3) -> (d0, d3)>

// An operand of one row per image (read through (d0, d3)) does not read the
// pixels' loops together: the consumer stays on the images.
// CHECK-LABEL: func.func @per_image_operand_stays
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8x8x32xf32>, tensor<2x32xf32>)
// FUSED-LABEL: func.func @per_image_operand_stays
// FUSED-NOT:     consumers =
// FUSED:         return
func.func @per_image_operand_stays(%a: tensor<128x16xf32>, %embedding: tensor<2x32xf32>) -> tensor<2x8x8x32xf32> {
  %w = arith.constant dense<0.5> : tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
  %m = linalg.matmul ins(%a, %w : tensor<128x16xf32>, tensor<16x32xf32>) outs(%f : tensor<128x32xf32>) -> tensor<128x32xf32>
  %images = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [2, 8, 8, 32] : tensor<128x32xf32> into tensor<2x8x8x32xf32>
  %o = tensor.empty() : tensor<2x8x8x32xf32>
  %r = linalg.generic {indexing_maps = [#pixel, #per_image, #pixel], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%images, %embedding : tensor<2x8x8x32xf32>, tensor<2x32xf32>) outs(%o : tensor<2x8x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x32xf32>
  return %r : tensor<2x8x8x32xf32>
}
