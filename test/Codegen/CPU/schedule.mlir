// lighthouse-cpu-schedule's options: cache and register tiles of other than
// three positive sizes fail the pass.
// RUN: not lh-opt %s --split-input-file --lighthouse-cpu-schedule="register-tiles=4,16" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not lh-opt %s --split-input-file --lighthouse-cpu-schedule="register-tiles=8,0,8" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: cache-tiles and register-tiles take three positive sizes each (M, N, K)
func.func @matmul(%a: tensor<8x8xf32>, %b: tensor<8x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
