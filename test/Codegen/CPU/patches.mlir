// RUN: lh-opt %s --split-input-file --lighthouse-cpu-set-target="target=avx512 threads=1" --lighthouse-cpu-prepare-forms --lighthouse-cpu-select-strategy | FileCheck %s

// A convolution whose 16x16 windows tile the image (a ViT's patch
// embedding) is a matmul of the image's patches by the filter, which the
// blocked contraction strategy takes; the rows the windows do not reach are
// sliced off.
// CHECK-LABEL: func.func @patches
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x66x64xf32>, %[[W:.*]]: tensor<32x3x16x16xf32>, %[[B:.*]]: tensor<1x32x4x4xf32>)
// CHECK:       %[[IMAGE:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 3, 64, 64] [1, 1, 1, 1]
// CHECK:       %[[SPLIT:.*]] = tensor.expand_shape %[[IMAGE]] {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 3, 4, 16, 4, 16]
// CHECK:       %[[ROWS:.*]] = linalg.transpose ins(%[[SPLIT]] : tensor<1x3x4x16x4x16xf32>) {{.*}} permutation = [0, 2, 4, 1, 3, 5]
// CHECK:       %[[A:.*]] = tensor.collapse_shape %[[ROWS]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<1x4x4x3x16x16xf32> into tensor<16x768xf32>
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] : tensor<32x3x16x16xf32> into tensor<32x768xf32>
// CHECK:       %[[BT:.*]] = linalg.transpose ins(%[[FLAT]] : tensor<32x768xf32>) {{.*}} permutation = [1, 0]
// CHECK:       %[[C:.*]] = linalg.transpose ins(%[[B]] : tensor<1x32x4x4xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK:       %[[CROWS:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1, 2], [3]] : tensor<1x4x4x32xf32> into tensor<16x32xf32>
// CHECK:       %[[P:.*]] = linalg.matmul {lighthouse.strategy = {{{.*}}kind = "contraction.blocked"{{.*}}}} ins(%[[A]], %[[BT]] : tensor<16x768xf32>, tensor<768x32xf32>) outs(%[[CROWS]] : tensor<16x32xf32>)
// CHECK:       %[[OUT:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 4, 4, 32]
// CHECK:       %[[Y:.*]] = linalg.transpose ins(%[[OUT]] : tensor<1x4x4x32xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK:       return %[[Y]]
func.func @patches(%x: tensor<1x3x66x64xf32>, %w: tensor<32x3x16x16xf32>, %b: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<16> : vector<2xi64>}
      ins(%x, %w : tensor<1x3x66x64xf32>, tensor<32x3x16x16xf32>) outs(%b : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %y : tensor<1x32x4x4xf32>
}

// -----

// Windows that overlap (stride 2, kernel 3), or of the register kernel's
// stride (2x2 windows, stride 2), stay convolutions.
// CHECK-LABEL: func.func @overlapping
// CHECK-NOT:   linalg.matmul
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-LABEL: func.func @stride_two
// CHECK-NOT:   linalg.matmul
// CHECK:       linalg.conv_2d_nchw_fchw
func.func @overlapping(%x: tensor<1x8x17x17xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x17x17xf32>, tensor<16x8x3x3xf32>) outs(%b : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}
func.func @stride_two(%x: tensor<1x8x16x16xf32>, %w: tensor<16x8x2x2xf32>, %b: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x16x16xf32>, tensor<16x8x2x2xf32>) outs(%b : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}
