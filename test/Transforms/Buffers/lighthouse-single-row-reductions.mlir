// RUN: lh-opt %s --lighthouse-single-row-reductions | FileCheck %s

// A softmax row's 64 partial maxima, kept as a 1x1 block: one reduction of
// the flattened row, into the accumulator's one element.
// CHECK-LABEL: func.func @one_row(
// CHECK-SAME:    %[[V:.*]]: vector<1x1x64xf32>, %[[ACC:.*]]: vector<1x1xf32>)
// CHECK:         %[[ROW:.*]] = vector.shape_cast %[[V]] : vector<1x1x64xf32> to vector<64xf32>
// CHECK:         %[[A:.*]] = vector.extract %[[ACC]][0, 0] : f32 from vector<1x1xf32>
// CHECK:         %[[M:.*]] = vector.reduction <maximumf>, %[[ROW]], %[[A]] : vector<64xf32> into f32
// CHECK:         %[[R:.*]] = vector.broadcast %[[M]] : f32 to vector<1x1xf32>
// CHECK:         return %[[R]]
func.func @one_row(%v: vector<1x1x64xf32>, %acc: vector<1x1xf32>) -> vector<1x1xf32> {
  %r = vector.multi_reduction <maximumf>, %v, %acc [2] : vector<1x1x64xf32> to vector<1x1xf32>
  return %r : vector<1x1xf32>
}

// Reduced along several dimensions to a scalar: the same, with the scalar
// accumulator as it is.
// CHECK-LABEL: func.func @to_a_scalar(
// CHECK-SAME:    %[[V:.*]]: vector<4x16xf32>, %[[ACC:.*]]: f32)
// CHECK:         %[[ROW:.*]] = vector.shape_cast %[[V]] : vector<4x16xf32> to vector<64xf32>
// CHECK:         %[[S:.*]] = vector.reduction <add>, %[[ROW]], %[[ACC]] : vector<64xf32> into f32
// CHECK:         return %[[S]]
func.func @to_a_scalar(%v: vector<4x16xf32>, %acc: f32) -> f32 {
  %r = vector.multi_reduction <add>, %v, %acc [0, 1] : vector<4x16xf32> to f32
  return %r : f32
}

// A block of 8 rows reduces its rows side by side, as
// lower-vector-multi-reduction does: left alone.
// CHECK-LABEL: func.func @eight_rows(
// CHECK:         vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<8x8xf32> to vector<8xf32>
// CHECK-NOT:     vector.reduction
func.func @eight_rows(%v: vector<8x8xf32>, %acc: vector<8xf32>) -> vector<8xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<8x8xf32> to vector<8xf32>
  return %r : vector<8xf32>
}
