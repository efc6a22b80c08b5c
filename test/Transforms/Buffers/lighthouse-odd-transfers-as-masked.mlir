// RUN: lh-opt %s --lighthouse-odd-transfers-as-masked | FileCheck %s

// A row of 14 floats is read and written as 16 under a mask of 14 lanes.
// CHECK-LABEL: func.func @row_of_fourteen(
// CHECK-SAME:    %[[M:.*]]: memref<4x20xf32>, %[[I:.*]]: index)
// CHECK:         %[[MASK:.*]] = vector.constant_mask [14] : vector<16xi1>
// CHECK:         %[[WIDE:.*]] = vector.transfer_read %[[M]][%[[I]], %[[I]]], %{{.*}}, %[[MASK]] {in_bounds = [true]} : memref<4x20xf32>, vector<16xf32>
// CHECK:         %[[ROW:.*]] = vector.extract_strided_slice %[[WIDE]] {offsets = [0], sizes = [14], strides = [1]} : vector<16xf32> to vector<14xf32>
// CHECK:         %[[SUM:.*]] = arith.addf %[[ROW]], %[[ROW]] : vector<14xf32>
// CHECK:         %[[OUT:.*]] = vector.insert_strided_slice %[[SUM]], %{{.*}} {offsets = [0], strides = [1]} : vector<14xf32> into vector<16xf32>
// CHECK:         vector.transfer_write %[[OUT]], %[[M]][%[[I]], %[[I]]], %{{.*}} {in_bounds = [true]} : vector<16xf32>, memref<4x20xf32>
func.func @row_of_fourteen(%m: memref<4x20xf32>, %i: index) {
  %pad = arith.constant 0.0 : f32
  %row = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true]} : memref<4x20xf32>, vector<14xf32>
  %sum = arith.addf %row, %row : vector<14xf32>
  vector.transfer_write %sum, %m[%i, %i] {in_bounds = [true]} : vector<14xf32>, memref<4x20xf32>
  return
}

// Powers of two, transfers that may run out of bounds (their lowering masks
// them), masked ones and transfers along another dimension stay as they are.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     vector.constant_mask
// CHECK:         vector.transfer_read {{.*}} : memref<4x20xf32>, vector<16xf32>
// CHECK:         vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<4x20xf32>, vector<7xf32>
// CHECK:         vector.transfer_read {{.*}} : memref<4x20xf32>, vector<7xf32>
// CHECK:         vector.transfer_read {{.*}} : memref<4x20xf32>, vector<3xf32>
// CHECK-NOT:     vector.constant_mask
func.func @left_alone(%m: memref<4x20xf32>, %i: index, %mask: vector<7xi1>) -> (vector<16xf32>, vector<7xf32>, vector<7xf32>, vector<3xf32>) {
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true]} : memref<4x20xf32>, vector<16xf32>
  %b = vector.transfer_read %m[%i, %i], %pad {in_bounds = [false]} : memref<4x20xf32>, vector<7xf32>
  %c = vector.transfer_read %m[%i, %i], %pad, %mask {in_bounds = [true]} : memref<4x20xf32>, vector<7xf32>
  %d = vector.transfer_read %m[%i, %i], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x20xf32>, vector<3xf32>
  return %a, %b, %c, %d : vector<16xf32>, vector<7xf32>, vector<7xf32>, vector<3xf32>
}
