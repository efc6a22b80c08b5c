// RUN: lh-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lighthouse-contiguous-innermost-loop))' | FileCheck %s

// A matmul's loops become i, k, j: B's and C's rows innermost.
// CHECK-DAG:   #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul(
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : memref<?x64xf32>, memref<64x32xf32>) outs(%{{.*}} : memref<?x32xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @matmul(%a: memref<?x64xf32>, %b: memref<64x32xf32>, %c: memref<?x32xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x32xf32>) outs(%c : memref<?x32xf32>)
  return
}

// -----

// A unit-stride convolution: the output row (ow) innermost, where the
// window of the image (ow + kw) is contiguous too.
// CHECK-DAG:   #[[IMAGE:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d2 + d4, d5 + d6)>
// CHECK-DAG:   #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d3, d4, d5)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @conv(
// CHECK:         linalg.generic {indexing_maps = [#[[IMAGE]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
func.func @conv(%x: memref<1x3x18x18xf32>, %w: memref<8x3x3x3xf32>, %y: memref<1x8x16x16xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x18x18xf32>, memref<8x3x3x3xf32>) outs(%y : memref<1x8x16x16xf32>)
  return
}

// -----

// Left alone: the image is read every other element along the output row.
// CHECK-LABEL: func.func @conv_stride2(
// CHECK:         linalg.conv_2d_nchw_fchw
func.func @conv_stride2(%x: memref<1x3x17x17xf32>, %w: memref<8x3x3x3xf32>, %y: memref<1x8x8x8xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x3x17x17xf32>, memref<8x3x3x3xf32>) outs(%y : memref<1x8x8x8xf32>)
  return
}

// -----

// Left alone: B is a transposed view, strided along the output's row.
// CHECK-LABEL: func.func @transposed_rhs(
// CHECK:         linalg.matmul
func.func @transposed_rhs(%a: memref<16x64xf32>, %b: memref<64x32xf32, strided<[1, 64]>>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x64xf32>, memref<64x32xf32, strided<[1, 64]>>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// Left alone: the output has no dimension that the reduced input is
// contiguous along.
// CHECK-LABEL: func.func @row_sums(
// CHECK:         linalg.reduce
func.func @row_sums(%x: memref<4x64xf32>, %y: memref<4xf32>) {
  linalg.reduce ins(%x : memref<4x64xf32>) outs(%y : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Left alone: on tensors, before bufferization decides the layouts.
// CHECK-LABEL: func.func @on_tensors(
// CHECK:         linalg.matmul
func.func @on_tensors(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
