// lighthouse-cpu-schedule on transposes of the innermost dimension: blocks of
// 16 input rows by 8 output rows, read and written in contiguous runs and
// vectorized into a vector.transpose; the outermost loop split across the
// threads when large. Other transposes stay loops.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-select-strategy="threads=2" | FileCheck %s --check-prefix=SELECT
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=1" | FileCheck %s

// SELECT-LABEL: func.func @matrix
// SELECT:         linalg.transpose {{.*}}kind = "transpose.tiles", threads = array<i64: 384, 0>, vector = array<i64: 16, 8>
// CHECK-LABEL: func.func @matrix
// CHECK:         scf.for {{.*}} to %c768 step %c16
// CHECK:           scf.for {{.*}} to %c2304 step %c8
// CHECK:             vector.transfer_read {{.*}} : tensor<8x16xf32>, vector<8x16xf32>
// CHECK:             vector.transpose {{.*}} [1, 0] : vector<8x16xf32> to vector<16x8xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<16x8xf32>, tensor<16x8xf32>
// CHECK-NOT:     linalg.transpose
func.func @matrix(%w: tensor<2304x768xf32>) -> tensor<768x2304xf32> {
  %e = tensor.empty() : tensor<768x2304xf32>
  %t = linalg.transpose ins(%w : tensor<2304x768xf32>) outs(%e : tensor<768x2304xf32>) permutation = [1, 0]
  return %t : tensor<768x2304xf32>
}

// -----

// Large: each of two threads takes half of the outermost loop, in whole blocks.
// SELECT-LABEL: func.func @split
// SELECT:         linalg.transpose {{.*}}kind = "transpose.tiles", threads = array<i64: 512, 0>, vector = array<i64: 16, 8>
func.func @split(%w: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %t = linalg.transpose ins(%w : tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) permutation = [1, 0]
  return %t : tensor<1024x1024xf32>
}

// -----

// The last two of three dimensions swapped (k transposed for q @ k^T), with
// 8 rows where 16 do not divide.
// SELECT-LABEL: func.func @heads
// SELECT:         linalg.transpose {{.*}}kind = "transpose.tiles", vector = array<i64: 1, 8, 8>
// CHECK-LABEL: func.func @heads
// CHECK:           vector.transpose {{.*}} : vector<1x8x8xf32> to vector<1x8x8xf32>
func.func @heads(%k: tensor<12x40x24xf32>) -> tensor<12x24x40xf32> {
  %e = tensor.empty() : tensor<12x24x40xf32>
  %t = linalg.transpose ins(%k : tensor<12x40x24xf32>) outs(%e : tensor<12x24x40xf32>) permutation = [0, 2, 1]
  return %t : tensor<12x24x40xf32>
}

// -----

// The innermost dimension stays (a permute of heads): a copy of rows, left
// to loops; so are sizes that do not divide into blocks, and dynamic ones.
// SELECT-LABEL: func.func @not_taken
// SELECT-NOT:     transpose.tiles
func.func @not_taken(%x: tensor<2x3x4x8xf32>, %y: tensor<30x20xf32>, %z: tensor<?x16xf32>)
    -> (tensor<2x4x3x8xf32>, tensor<20x30xf32>, tensor<16x?xf32>) {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<2x4x3x8xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4x8xf32>) outs(%e : tensor<2x4x3x8xf32>) permutation = [0, 2, 1, 3]
  %e2 = tensor.empty() : tensor<20x30xf32>
  %t2 = linalg.transpose ins(%y : tensor<30x20xf32>) outs(%e2 : tensor<20x30xf32>) permutation = [1, 0]
  %n = tensor.dim %z, %c0 : tensor<?x16xf32>
  %e3 = tensor.empty(%n) : tensor<16x?xf32>
  %t3 = linalg.transpose ins(%z : tensor<?x16xf32>) outs(%e3 : tensor<16x?xf32>) permutation = [1, 0]
  return %t, %t2, %t3 : tensor<2x4x3x8xf32>, tensor<20x30xf32>, tensor<16x?xf32>
}
