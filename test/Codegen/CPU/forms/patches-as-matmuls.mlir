// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=patches-as-matmuls" | FileCheck %s --check-prefix=SKIP

// 16x16 windows of stride 16 (ViT's patches) are a matmul of the image's
// patches, rows of C x KH x KW = 768, by the filter.
// CHECK-LABEL: func.func @patches
// CHECK:         linalg.transpose ins({{.*}} : tensor<1x3x4x16x4x16xf32>) {{.*}} permutation = [0, 2, 4, 1, 3, 5]
// CHECK:         %[[PATCHES:.*]] = tensor.collapse_shape {{.*}} into tensor<16x768xf32>
// CHECK:         %[[FILTER:.*]] = linalg.transpose ins({{.*}} : tensor<32x768xf32>)
// CHECK:         linalg.matmul ins(%[[PATCHES]], %[[FILTER]] : tensor<16x768xf32>, tensor<768x32xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// SKIP:          linalg.conv_2d_nchw_fchw
func.func @patches(%x: tensor<1x3x64x64xf32>, %w: tensor<32x3x16x16xf32>, %init: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<16> : tensor<2xi64>} ins(%x, %w : tensor<1x3x64x64xf32>, tensor<32x3x16x16xf32>) outs(%init : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %r : tensor<1x32x4x4xf32>
}

// -----

// One window per image, a squeeze-and-excitation's 1x1 convolution of a
// pooled image, is a matrix-vector product: rows of C = 576, by the filter.
// CHECK-LABEL: func.func @one_window
// CHECK:         %[[FILTER:.*]] = linalg.transpose ins({{.*}} : tensor<144x576xf32>)
// CHECK:         linalg.matmul ins({{.*}}, %[[FILTER]] : tensor<1x576xf32>, tensor<576x144xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// SKIP-LABEL:    func.func @one_window
// SKIP:          linalg.conv_2d_nchw_fchw
func.func @one_window(%x: tensor<1x576x1x1xf32>, %w: tensor<144x576x1x1xf32>, %init: tensor<1x144x1x1xf32>) -> tensor<1x144x1x1xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x576x1x1xf32>, tensor<144x576x1x1xf32>) outs(%init : tensor<1x144x1x1xf32>) -> tensor<1x144x1x1xf32>
  return %r : tensor<1x144x1x1xf32>
}

// -----

// A 3x3 window over a 3x3 image is one window too: rows of C x 3 x 3.
// CHECK-LABEL: func.func @whole_image_window
// CHECK:         linalg.matmul ins({{.*}} : tensor<2x72xf32>, tensor<72x16xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @whole_image_window(%x: tensor<2x8x3x3xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<2x16x1x1xf32>) -> tensor<2x16x1x1xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x8x3x3xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<2x16x1x1xf32>) -> tensor<2x16x1x1xf32>
  return %r : tensor<2x16x1x1xf32>
}

// -----

// One 2x2 window of a 3x3 image (stride 5): the window's pixels are cut out
// first, then rows of C x 2 x 2.
// CHECK-LABEL: func.func @window_smaller_than_the_image
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 8, 2, 2] [1, 1, 1, 1] : tensor<2x8x3x3xf32> to tensor<2x8x2x2xf32>
// CHECK:         linalg.matmul ins({{.*}} : tensor<2x32xf32>, tensor<32x16xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @window_smaller_than_the_image(%x: tensor<2x8x3x3xf32>, %w: tensor<16x8x2x2xf32>, %init: tensor<2x16x1x1xf32>) -> tensor<2x16x1x1xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<5> : tensor<2xi64>} ins(%x, %w : tensor<2x8x3x3xf32>, tensor<16x8x2x2xf32>) outs(%init : tensor<2x16x1x1xf32>) -> tensor<2x16x1x1xf32>
  return %r : tensor<2x16x1x1xf32>
}
