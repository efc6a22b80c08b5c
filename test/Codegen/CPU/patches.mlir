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
// stride (2x2 windows, stride 2), over rows the register kernel fills (16
// pixels), stay convolutions.
// CHECK-LABEL: func.func @overlapping
// CHECK-NOT:   linalg.matmul
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-LABEL: func.func @stride_two
// CHECK-NOT:   linalg.matmul
// CHECK:       linalg.conv_2d_nchw_fchw
func.func @overlapping(%x: tensor<1x8x33x33xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x33x33xf32>, tensor<16x8x3x3xf32>) outs(%b : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %y : tensor<1x16x16x16xf32>
}
func.func @stride_two(%x: tensor<1x8x32x32xf32>, %w: tensor<16x8x2x2xf32>, %b: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x32x32xf32>, tensor<16x8x2x2xf32>) outs(%b : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %y : tensor<1x16x16x16xf32>
}

// -----

// Rows of 7 pixels would leave 9 of the register kernel's 16 lanes idle
// (ResNet's last stage): a matmul of patches gathered from the image in
// NHWC, one strided slice a point of the 3x3 window, columns (kh, kw, c),
// by the filter in the same order.
// CHECK-LABEL: func.func @narrow_rows
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x9x9xf32>, %[[W:.*]]: tensor<32x8x3x3xf32>, %[[B:.*]]: tensor<2x32x7x7xf32>)
// CHECK:       %[[PIXELS:.*]] = linalg.transpose ins(%[[X]] : tensor<2x8x9x9xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK:       %[[EMPTY:.*]] = tensor.empty() : tensor<2x7x7x3x3x8xf32>
// CHECK:       %[[FIRST:.*]] = tensor.extract_slice %[[PIXELS]][0, 0, 0, 0] [2, 7, 7, 8] [1, 1, 1, 1]
// CHECK:       %[[INTO:.*]] = tensor.insert_slice %[[FIRST]] into %[[EMPTY]][0, 0, 0, 0, 0, 0] [2, 7, 7, 1, 1, 8] [1, 1, 1, 1, 1, 1]
// CHECK-COUNT-7: tensor.insert_slice
// CHECK:       %[[LAST:.*]] = tensor.extract_slice %[[PIXELS]][0, 2, 2, 0] [2, 7, 7, 8] [1, 1, 1, 1]
// CHECK:       %[[PATCHES:.*]] = tensor.insert_slice %[[LAST]] into %{{.*}}[0, 0, 0, 2, 2, 0] [2, 7, 7, 1, 1, 8] [1, 1, 1, 1, 1, 1]
// CHECK:       %[[A:.*]] = tensor.collapse_shape %[[PATCHES]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x7x7x3x3x8xf32> into tensor<98x72xf32>
// CHECK:       %[[FILTER:.*]] = linalg.transpose ins(%[[W]] : tensor<32x8x3x3xf32>) {{.*}} permutation = [2, 3, 1, 0]
// CHECK:       %[[BT:.*]] = tensor.collapse_shape %[[FILTER]] {{\[\[}}0, 1, 2], [3]] : tensor<3x3x8x32xf32> into tensor<72x32xf32>
// CHECK:       linalg.matmul {lighthouse.strategy = {{{.*}}kind = "contraction.blocked"{{.*}}}} ins({{.*}} : tensor<{{.*}}x72xf32>, tensor<72x32xf32>)
// CHECK:       linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @narrow_rows(%x: tensor<2x8x9x9xf32>, %w: tensor<32x8x3x3xf32>, %b: tensor<2x32x7x7xf32>) -> tensor<2x32x7x7xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x8x9x9xf32>, tensor<32x8x3x3xf32>) outs(%b : tensor<2x32x7x7xf32>) -> tensor<2x32x7x7xf32>
  return %y : tensor<2x32x7x7xf32>
}

// -----

// Strided and dilated: window point (kh, kw) reads from row 2 * kh and
// column 3 * kw, every second pixel.
// CHECK-LABEL: func.func @narrow_rows_strided_dilated
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 7, 7, 16] [1, 2, 2, 1] : tensor<1x19x22x16xf32> to tensor<1x7x7x16xf32>
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 3, 0] [1, 7, 7, 16] [1, 2, 2, 1]
// CHECK:       tensor.extract_slice %{{.*}}[0, 0, 6, 0] [1, 7, 7, 16] [1, 2, 2, 1]
// CHECK:       tensor.extract_slice %{{.*}}[0, 2, 0, 0] [1, 7, 7, 16] [1, 2, 2, 1]
// CHECK:       tensor.extract_slice %{{.*}}[0, 4, 6, 0] [1, 7, 7, 16] [1, 2, 2, 1]
// CHECK:       linalg.matmul {{.*}} ins({{.*}} : tensor<{{.*}}x144xf32>, tensor<144x32xf32>)
func.func @narrow_rows_strided_dilated(%x: tensor<1x16x19x22xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : tensor<1x16x19x22xf32>, tensor<32x16x3x3xf32>) outs(%b : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %y : tensor<1x32x7x7xf32>
}

// -----

// Fewer output channels than a register's lanes would leave the matmul's
// lanes idle instead: the register kernel keeps them. 16 of them, a
// register's lanes, the matmul computes in tiles of one register's columns.
// CHECK-LABEL: func.func @narrow_rows_few_channels
// CHECK-NOT:   linalg.matmul
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-LABEL: func.func @narrow_rows_sixteen_channels
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
// CHECK:       linalg.matmul {{.*}} -> tensor<64x16xf32>
func.func @narrow_rows_few_channels(%x: tensor<1x8x9x9xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x9x9xf32>, tensor<8x8x3x3xf32>) outs(%b : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  return %y : tensor<1x8x7x7xf32>
}
func.func @narrow_rows_sixteen_channels(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%b : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %y : tensor<1x16x7x7xf32>
}

// -----

// A constant filter (a weight) is rearranged now, once: the matmul reads a
// constant, not a transpose computed on every call.
// CHECK-LABEL: func.func @narrow_rows_constant_filter
// CHECK-NOT:   linalg.transpose ins(%{{.*}} : tensor<32x8x3x3xf32>)
// CHECK:       %[[BT:.*]] = arith.constant dense<5.000000e-01> : tensor<72x32xf32>
// CHECK:       linalg.matmul {{.*}} ins(%{{.*}}, %[[BT]] : tensor<56x72xf32>, tensor<72x32xf32>)
func.func @narrow_rows_constant_filter(%x: tensor<1x8x9x9xf32>, %b: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<32x8x3x3xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x9x9xf32>, tensor<32x8x3x3xf32>) outs(%b : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %y : tensor<1x32x7x7xf32>
}
