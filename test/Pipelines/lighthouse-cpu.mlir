// lighthouse-cpu: lighthouse-cpu-schedule, then lowered to LLVM with
// threads on OpenMP; its options go to the schedule.
// RUN: lh-opt %s --split-input-file --pass-pipeline="builtin.module(lighthouse-cpu{target=avx512 threads=2})" | FileCheck %s --check-prefix=FAST
// Its name until it became the default, kept for a release:
// RUN: lh-opt %s --split-input-file --pass-pipeline="builtin.module(lighthouse-cpu-fast{target=avx512 threads=2})" | FileCheck %s --check-prefix=FAST
// RUN: lh-opt %s --split-input-file --pass-pipeline="builtin.module(lighthouse-cpu{target=avx512 threads=1})" | FileCheck %s --check-prefix=FAST-ONE-THREAD
// RUN: not lh-opt %s --split-input-file --pass-pipeline="builtin.module(lighthouse-cpu{tiles=4})" 2>&1 | FileCheck %s --check-prefix=FAST-BAD

// FAST-BAD: lighthouse-cpu: {{.*}}no such option tiles

// A matmul: split across two threads on OpenMP, FMAs on vectors of 32.
// FAST-LABEL: llvm.func @square
// FAST:         omp.parallel
// FAST:         omp.wsloop
// FAST:         llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// The fast pipeline hands its options to the schedule: with one thread,
// there is no OpenMP.
// FAST-ONE-THREAD-NOT: omp.parallel
// FAST-ONE-THREAD:     llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// FAST-ONE-THREAD-NOT: omp.parallel
func.func @square(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// Shapes that do not divide into whole register tiles: loops.
// FAST-LABEL: llvm.func @ragged
func.func @ragged(%a: tensor<10x7xf32>, %b: tensor<7x5xf32>, %c: tensor<10x5xf32>) -> tensor<10x5xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x7xf32>, tensor<7x5xf32>) outs(%c : tensor<10x5xf32>) -> tensor<10x5xf32>
  return %r : tensor<10x5xf32>
}
