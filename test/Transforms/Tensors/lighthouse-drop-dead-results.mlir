// RUN: lh-opt %s --split-input-file --lighthouse-drop-dead-results | FileCheck %s

// A row maximum whose position (computed through linalg.index) nobody reads:
// a plain reduction is left.
// CHECK-LABEL: func.func @max_without_index
// CHECK:       %[[MAX:.*]] = linalg.generic
// CHECK-SAME:    outs(%{{.*}} : tensor<8xf32>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:    %[[LARGER:.*]] = arith.maximumf %[[IN]], %[[OUT]] : f32
// CHECK-NEXT:    linalg.yield %[[LARGER]] : f32
// CHECK-NEXT:  } -> tensor<8xf32>
// CHECK:       return %[[MAX]]
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @max_without_index(%x: tensor<8x16xf32>, %m: tensor<8xf32>, %i: tensor<8xi64>) -> tensor<8xf32> {
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%m, %i : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%in: f32, %out: f32, %at: i64):
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %larger = arith.maximumf %in, %out : f32
    %greater = arith.cmpf ogt, %in, %out : f32
    %pos = arith.select %greater, %j64, %at : i64
    linalg.yield %larger, %pos : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  return %r#0 : tensor<8xf32>
}

// -----

// Both results used: nothing changes.
// CHECK-LABEL: func.func @both_used
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xi64>)
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @both_used(%x: tensor<8x16xf32>, %m: tensor<8xf32>, %i: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xi64>) {
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%m, %i : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%in: f32, %out: f32, %at: i64):
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %larger = arith.maximumf %in, %out : f32
    %greater = arith.cmpf ogt, %in, %out : f32
    %pos = arith.select %greater, %j64, %at : i64
    linalg.yield %larger, %pos : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi64>
}

// -----

// The unused result's payload feeds the used one: it stays.
// CHECK-LABEL: func.func @shared_payload
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>)
#id = affine_map<(i) -> (i)>
func.func @shared_payload(%x: tensor<8xf32>, %a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%a, %b : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%in: f32, %o1: f32, %o2: f32):
    %e = math.exp %in : f32
    %f = arith.addf %e, %in : f32
    linalg.yield %f, %e : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0 : tensor<8xf32>
}
