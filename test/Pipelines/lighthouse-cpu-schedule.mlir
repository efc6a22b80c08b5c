// RUN: lh-opt %s --lighthouse-cpu-schedule="threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-schedule="threads=1 register-tiles=4,16,4 cache-tiles=16,64,16" | FileCheck %s --check-prefix=SMALL
// RUN: not lh-opt %s --lighthouse-cpu-schedule="register-tiles=4,16" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-cpu-fast)" | FileCheck %s --check-prefix=FAST

// CHECK-LABEL: func.func @square
// Two threads take 128 rows each; the cache tile is 128x256x64.
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs
// CHECK:           scf.for {{.*}} step %c64
// CHECK:             vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK:             vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:         linalg.matmul
// SMALL-LABEL: func.func @square
// SMALL-NOT:     scf.forall
// SMALL:         vector.fma {{.*}} : vector<16xf32>
func.func @square(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// Shapes that do not divide into whole register tiles keep the linalg op,
// which lighthouse-cpu lowers to loops.
// CHECK-LABEL: func.func @ragged
// CHECK:         linalg.matmul
// CHECK-NOT:     vector.fma
func.func @ragged(%a: tensor<10x7xf32>, %b: tensor<7x5xf32>, %c: tensor<10x5xf32>) -> tensor<10x5xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x7xf32>, tensor<7x5xf32>) outs(%c : tensor<10x5xf32>) -> tensor<10x5xf32>
  return %r : tensor<10x5xf32>
}

// BAD: cache-tiles and register-tiles take three sizes each (M, N, K)

// FAST-LABEL: llvm.func @square
// FAST:         omp.parallel
// FAST:         omp.wsloop
// FAST:         llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// FAST-LABEL: llvm.func @ragged
