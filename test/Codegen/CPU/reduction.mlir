// lighthouse-cpu-schedule on row reductions: rows in blocks, each row
// reduced in vectors of partial results carried through the loop over the
// row, then combined once.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=2" --canonicalize --cse | FileCheck %s

// A row sum of 1000 floats: blocks of 8 rows, 8 floats of each row at a time
// (the widest of 64, 32, 16, 8 that divides 1000): 64 accumulators.
// CHECK-LABEL: func.func @row_sums
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c8
// CHECK: %[[PARTIAL:.*]] = scf.for %{{.*}} = %c0 to %c1000 step %c8 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8x8xf32>)
// CHECK:   vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK:   arith.addf %{{.*}}, %[[ACC]] : vector<8x8xf32>
// CHECK: vector.multi_reduction <add>, %[[PARTIAL]], %{{.*}} [1] : vector<8x8xf32> to vector<8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sums(%x: tensor<128x1000xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %sums = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x1000xf32>) outs(%init : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  return %sums : tensor<128xf32>
}

// -----

// Row maxima of 4096 floats over 512K elements: rows split across the two
// threads, one row at a time in 64-float vectors.
// CHECK-LABEL: func.func @row_maxima
// CHECK: scf.forall
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<1x64xf32>)
// CHECK:   arith.maximumf %{{.*}}, %[[ACC]] : vector<1x64xf32>
// CHECK: vector.multi_reduction <maximumf>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_maxima(%x: tensor<128x4096xf32>) -> tensor<128xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<128xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x4096xf32>) outs(%init : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<128xf32>
  return %max : tensor<128xf32>
}

// -----

// A sum of squares (a norm's): the square is computed in the partial loop.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: scf.for {{.*}} -> (vector<1x64xf64>)
// CHECK:   arith.mulf {{.*}} : vector<1x64xf64>
// CHECK:   arith.addf {{.*}} : vector<1x64xf64>
// CHECK: vector.multi_reduction <add>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sum_of_squares(%x: tensor<16x768xf64>) -> tensor<16xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<16xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<16xf64>) -> tensor<16xf64>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x768xf64>) outs(%init : tensor<16xf64>) {
  ^bb0(%in: f64, %out: f64):
    %sq = arith.mulf %in, %in : f64
    %s = arith.addf %sq, %out : f64
    linalg.yield %s : f64
  } -> tensor<16xf64>
  return %r : tensor<16xf64>
}
