// RUN: lh-opt %s --split-input-file --lighthouse-drop-unit-dims --canonicalize | FileCheck %s

// A row sum kept as tensor<128x1xf32> (`keepdim`), written and read back
// through `(d0, 0)`: both generics index the sums as (d0).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_sums
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<128xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<128x1000xf32>, tensor<128xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#kept = affine_map<(d0, d1) -> (d0, 0)>
func.func @row_sums(%x: tensor<128x1000xf32>) -> tensor<128x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x1xf32>) -> tensor<128x1xf32>
  %sums = linalg.generic {indexing_maps = [#id, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x1000xf32>) outs(%init : tensor<128x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<128x1xf32>
  %o = tensor.empty() : tensor<128x1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #kept, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sums : tensor<128x1000xf32>, tensor<128x1xf32>) outs(%o : tensor<128x1000xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<128x1000xf32>
  return %r : tensor<128x1000xf32>
}

// -----

// A batch of one keeps its loop and the activation its shape; only the
// per-channel constant (Cx1x1) loses its unit dimensions.
// CHECK-DAG: #[[NCHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @per_channel
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<16x1x1xf32> into tensor<16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[NCHW]], #[[C]], #[[NCHW]]]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<1x16x8x8xf32>, tensor<16xf32>)
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#c11 = affine_map<(n, c, h, w) -> (c, 0, 0)>
func.func @per_channel(%x: tensor<1x16x8x8xf32>, %b: tensor<16x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %o = tensor.empty() : tensor<1x16x8x8xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #c11, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<1x16x8x8xf32>, tensor<16x1x1xf32>) outs(%o : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %s = arith.addf %in, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}

// -----

// Generics without a constant in their maps keep their unit dimensions.
// CHECK-LABEL: func.func @no_constant
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<1x16xf32>)
#id2 = affine_map<(i, j) -> (i, j)>
func.func @no_constant(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %o = tensor.empty() : tensor<1x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x16xf32>) outs(%o : tensor<1x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.negf %in : f32
    linalg.yield %s : f32
  } -> tensor<1x16xf32>
  return %r : tensor<1x16xf32>
}
