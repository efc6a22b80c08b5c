// RUN: lh-opt %s --split-input-file --lighthouse-convolutions-by-phase | FileCheck %s

// ConvTranspose2d(4, 3, 4, stride=2, padding=1) on 8x8, as torch-mlir
// lowers it: the input spread out with stride 2 from offset 2, padded to
// 19x19. Each of the 4 phases is a 2x2 convolution over the input itself
// (padded by one where the phase reads before or after it), with every
// other tap of the filter, inserted into the output with stride 2.
// CHECK-LABEL: func.func @spread_input
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<3x4x4x4xf32>, %[[B:.*]]: tensor<1x3x16x16xf32>)
// CHECK-NOT:   tensor.insert_slice %[[X]]
// CHECK:       %[[P0:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK:       %[[T0:.*]] = tensor.extract_slice %[[W]][0, 0, 0, 0] [3, 4, 2, 2] [1, 1, 2, 2]
// CHECK:       %[[B0:.*]] = tensor.extract_slice %[[B]][0, 0, 0, 0] [1, 3, 8, 8] [1, 1, 2, 2]
// CHECK:       %[[Y0:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P0]], %[[T0]] : tensor<1x4x9x9xf32>, tensor<3x4x2x2xf32>) outs(%[[B0]] : tensor<1x3x8x8xf32>)
// CHECK:       %[[R0:.*]] = tensor.insert_slice %[[Y0]] into %[[B]][0, 0, 0, 0] [1, 3, 8, 8] [1, 1, 2, 2]
// CHECK:       tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 0, 1]
// CHECK:       tensor.extract_slice %[[W]][0, 0, 0, 1] [3, 4, 2, 2] [1, 1, 2, 2]
// CHECK:       %[[R1:.*]] = tensor.insert_slice %{{.*}} into %[[R0]][0, 0, 0, 1] [1, 3, 8, 8] [1, 1, 2, 2]
// CHECK:       %[[R2:.*]] = tensor.insert_slice %{{.*}} into %[[R1]][0, 0, 1, 0] [1, 3, 8, 8] [1, 1, 2, 2]
// CHECK:       %[[R3:.*]] = tensor.insert_slice %{{.*}} into %[[R2]][0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 2, 2]
// CHECK:       return %[[R3]]
func.func @spread_input(%x: tensor<1x4x8x8xf32>, %w: tensor<3x4x4x4xf32>, %bias: tensor<1x3x16x16xf32>) -> tensor<1x3x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x19x19xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x19x19xf32>) -> tensor<1x4x19x19xf32>
  %spread = tensor.insert_slice %x into %zeros[0, 0, 2, 2] [1, 4, 8, 8] [1, 1, 2, 2] : tensor<1x4x8x8xf32> into tensor<1x4x19x19xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%spread, %w : tensor<1x4x19x19xf32>, tensor<3x4x4x4xf32>) outs(%bias : tensor<1x3x16x16xf32>) -> tensor<1x3x16x16xf32>
  return %y : tensor<1x3x16x16xf32>
}

// -----

// A kernel narrower than the stride (2 taps, stride 3): the phase reading
// no tap keeps the bias, which the output already holds.
// CHECK-LABEL: func.func @kernel_below_stride
// CHECK-COUNT-2: linalg.conv_1d_ncw_fcw
// CHECK-NOT:   linalg.conv_1d_ncw_fcw
func.func @kernel_below_stride(%x: tensor<1x4x5xf32>, %w: tensor<3x4x2xf32>, %bias: tensor<1x3x14xf32>) -> tensor<1x3x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x15xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x15xf32>) -> tensor<1x4x15xf32>
  %spread = tensor.insert_slice %x into %zeros[0, 0, 1] [1, 4, 5] [1, 1, 3] : tensor<1x4x5xf32> into tensor<1x4x15xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>}
      ins(%spread, %w : tensor<1x4x15xf32>, tensor<3x4x2xf32>) outs(%bias : tensor<1x3x14xf32>) -> tensor<1x3x14xf32>
  return %y : tensor<1x3x14xf32>
}

// -----

// An input inserted with stride 1, or into something other than zeros, is
// left as it is.
// CHECK-LABEL: func.func @not_spread
// CHECK:       tensor.insert_slice
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @not_spread(%x: tensor<1x4x8x8xf32>, %w: tensor<3x4x3x3xf32>, %bias: tensor<1x3x8x8xf32>, %other: tensor<1x4x10x10xf32>) -> tensor<1x3x8x8xf32> {
  %spread = tensor.insert_slice %x into %other[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x8xf32> into tensor<1x4x10x10xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%spread, %w : tensor<1x4x10x10xf32>, tensor<3x4x3x3xf32>) outs(%bias : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %y : tensor<1x3x8x8xf32>
}
