// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s

// Before any form, ops of no iterations are replaced by their inits: a sum
// of rows of no columns is its fill.
// CHECK-LABEL: func.func @empty_rows
// CHECK:         %[[FILL:.*]] = linalg.fill
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[FILL]]
func.func @empty_rows(%x: tensor<4x0xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x0xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A pooling window of no columns leaves every output at its init.
// CHECK-LABEL: func.func @empty_window
// CHECK-NOT:     linalg.pooling_nchw_max
// CHECK:         return %arg1
func.func @empty_window(%x: tensor<1x8x16x16xf32>, %init: tensor<1x8x16x17xf32>) -> tensor<1x8x16x17xf32> {
  %window = tensor.empty() : tensor<1x0xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %window : tensor<1x8x16x16xf32>, tensor<1x0xf32>) outs(%init : tensor<1x8x16x17xf32>) -> tensor<1x8x16x17xf32>
  return %r : tensor<1x8x16x17xf32>
}
