// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=index-reductions-as-row-reductions" | FileCheck %s --check-prefix=SKIP

// A row's maximum and the index of its first occurrence are row
// reductions: the maximum, then the least index holding it; the op itself
// for rows holding a NaN.
// CHECK-LABEL: func.func @argmax
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[X:.*]] : tensor<128x1000xf32>) outs(%{{.*}} : tensor<128xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[POS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1000xi64>)
// CHECK:           linalg.index 0
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[MAX]], %[[POS]] : tensor<128x1000xf32>, tensor<128xf32>, tensor<1000xi64>)
// CHECK:           arith.cmpf oeq
// CHECK:           arith.minsi
// CHECK:         scf.if
// CHECK:           linalg.index 1
// SKIP-NOT:      scf.if
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @argmax(%x: tensor<128x1000xf32>) -> tensor<128xi64> {
  %zero = arith.constant 0 : i64
  %lowest = arith.constant 0xFF800000 : f32
  %ei = tensor.empty() : tensor<128xi64>
  %zeros = linalg.fill ins(%zero : i64) outs(%ei : tensor<128xi64>) -> tensor<128xi64>
  %ef = tensor.empty() : tensor<128xf32>
  %lowests = linalg.fill ins(%lowest : f32) outs(%ef : tensor<128xf32>) -> tensor<128xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x1000xf32>) outs(%lowests, %zeros : tensor<128xf32>, tensor<128xi64>) {
  ^bb0(%in: f32, %value: f32, %index: i64):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %m = arith.maximumf %in, %value : f32
    %gt = arith.cmpf ogt, %in, %value : f32
    %i = arith.select %gt, %ki, %index : i64
    linalg.yield %m, %i : f32, i64
  } -> (tensor<128xf32>, tensor<128xi64>)
  return %r#1 : tensor<128xi64>
}
