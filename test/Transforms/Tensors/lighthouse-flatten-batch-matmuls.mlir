// RUN: lh-opt %s --split-input-file --lighthouse-flatten-batch-matmuls | FileCheck %s

// A weight broadcast over the batch (as a generic): one matmul of the stacked
// rows, no copy of the weight.
// CHECK-LABEL: func.func @shared_weight(
// CHECK-SAME:    %[[X:.*]]: tensor<8x2x32xf32>, %[[W:.*]]: tensor<32x96xf32>, %[[INIT:.*]]: tensor<8x2x96xf32>)
// CHECK-DAG:     %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<8x2x32xf32> into tensor<16x32xf32>
// CHECK-DAG:     %[[ROWS_INIT:.*]] = tensor.collapse_shape %[[INIT]] {{\[\[}}0, 1], [2]] : tensor<8x2x96xf32> into tensor<16x96xf32>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[ROWS]], %[[W]] : tensor<16x32xf32>, tensor<32x96xf32>) outs(%[[ROWS_INIT]] : tensor<16x96xf32>)
// CHECK:         %[[OUT:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]] output_shape [8, 2, 96] : tensor<16x96xf32> into tensor<8x2x96xf32>
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         return %[[OUT]]
#batchless = affine_map<(d0, d1, d2) -> (d1, d2)>
#identity = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @shared_weight(%x: tensor<8x2x32xf32>, %w: tensor<32x96xf32>, %init: tensor<8x2x96xf32>) -> tensor<8x2x96xf32> {
  %empty = tensor.empty() : tensor<8x32x96xf32>
  %bw = linalg.generic {indexing_maps = [#batchless, #identity], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<32x96xf32>) outs(%empty : tensor<8x32x96xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x32x96xf32>
  %r = linalg.batch_matmul ins(%x, %bw : tensor<8x2x32xf32>, tensor<8x32x96xf32>) outs(%init : tensor<8x2x96xf32>) -> tensor<8x2x96xf32>
  return %r : tensor<8x2x96xf32>
}

// -----

// linalg.broadcast, with a dynamic batch: the sizes of the result come from
// the init.
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4x16xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[INIT:.*]]: tensor<?x4x8xf32>)
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %[[W]] : tensor<?x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<?x8xf32>)
// CHECK:         %[[B:.*]] = tensor.dim %[[INIT]], %c0
// CHECK:         tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]] output_shape [%[[B]], 4, 8]
// CHECK-NOT:     linalg.batch_matmul
func.func @dynamic_batch(%x: tensor<?x4x16xf32>, %w: tensor<16x8xf32>, %init: tensor<?x4x8xf32>) -> tensor<?x4x8xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x4x16xf32>
  %empty = tensor.empty(%b) : tensor<?x16x8xf32>
  %bw = linalg.broadcast ins(%w : tensor<16x8xf32>) outs(%empty : tensor<?x16x8xf32>) dimensions = [0]
  %r = linalg.batch_matmul ins(%x, %bw : tensor<?x4x16xf32>, tensor<?x16x8xf32>) outs(%init : tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  return %r : tensor<?x4x8xf32>
}

// -----

// Right operands that differ per batch element, that broadcast another
// dimension or transpose as they broadcast, stay batch matmuls, as does one
// extending unsigned integers (linalg.matmul would extend them as signed).
// CHECK-LABEL: func.func @per_batch_weights(
// CHECK-COUNT-4: linalg.batch_matmul
// CHECK-NOT:     linalg.matmul
func.func @per_batch_weights(%x: tensor<2x4x16xf32>, %w: tensor<2x16x8xf32>, %v: tensor<2x16xf32>, %init: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %r = linalg.batch_matmul ins(%x, %w : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%init : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %empty = tensor.empty() : tensor<2x16x8xf32>
  %bv = linalg.broadcast ins(%v : tensor<2x16xf32>) outs(%empty : tensor<2x16x8xf32>) dimensions = [2]
  %s = linalg.batch_matmul ins(%x, %bv : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%init : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %r, %s : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

func.func @transposing_broadcast(%x: tensor<2x4x16xf32>, %w: tensor<16x16xf32>, %init: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %empty = tensor.empty() : tensor<2x16x16xf32>
  %bw = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<16x16xf32>) outs(%empty : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x16x16xf32>
  %r = linalg.batch_matmul ins(%x, %bw : tensor<2x4x16xf32>, tensor<2x16x16xf32>) outs(%init : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

func.func @unsigned(%x: tensor<2x4x16xi8>, %w: tensor<16x8xi8>, %init: tensor<2x4x8xi32>) -> tensor<2x4x8xi32> {
  %empty = tensor.empty() : tensor<2x16x8xi8>
  %bw = linalg.broadcast ins(%w : tensor<16x8xi8>) outs(%empty : tensor<2x16x8xi8>) dimensions = [0]
  %r = linalg.batch_matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%x, %bw : tensor<2x4x16xi8>, tensor<2x16x8xi8>) outs(%init : tensor<2x4x8xi32>) -> tensor<2x4x8xi32>
  return %r : tensor<2x4x8xi32>
}
