// The target the code generator selects for: set from a preset or the host
// unless the module names one, read back by strategy selection, and refused
// when malformed.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-set-target="target=avx2 threads=4" | FileCheck %s --check-prefix=AVX2
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-set-target | FileCheck %s --check-prefix=HOST
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-set-target --lighthouse-cpu-select-strategy | FileCheck %s --check-prefix=SELECT
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-select-strategy="threads=1" | FileCheck %s --check-prefix=ONE-THREAD
// RUN: not lh-opt %s --lighthouse-cpu-set-target="target=avx1024" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// AVX2: module attributes {lighthouse.target = {l2_bytes = 1048576 : i64, threads = 4 : i64, vector_bits = 256 : i64, vector_registers = 16 : i64}}
// HOST: module attributes {lighthouse.target = {l2_bytes = {{[0-9]+}} : i64, threads = {{[1-9][0-9]*}} : i64, vector_bits = {{256|512}} : i64, vector_registers = {{16|32}} : i64}}
// UNKNOWN: error: unknown CPU target 'avx1024'; known: host, avx512, avx2
func.func @empty() {
  return
}

// -----

// A module that names its target keeps it, and selection reads it: AVX2's
// register tiles (two registers of 8 floats) split across its 4 threads.
// AVX2: module attributes {lighthouse.target = {l2_bytes = 1048576 : i64, threads = 4 : i64, vector_bits = 256 : i64, vector_registers = 16 : i64}}
// HOST: module attributes {lighthouse.target = {l2_bytes = 1048576 : i64, threads = 4 : i64, vector_bits = 256 : i64, vector_registers = 16 : i64}}
// SELECT: linalg.matmul {lighthouse.strategy = {cache = array<i64: 128, 64, 256>, kind = "contraction.blocked", registers = array<i64: 8, 16, 8>, threads = array<i64: 0, 64>}}
// The threads option overrides the target's.
// ONE-THREAD: linalg.matmul {lighthouse.strategy = {cache = array<i64: 128, 256, 256>, kind = "contraction.blocked", registers = array<i64: 8, 16, 8>}}
module attributes {lighthouse.target = {l2_bytes = 1048576 : i64, threads = 4 : i64, vector_bits = 256 : i64, vector_registers = 16 : i64}} {
  func.func @matmul(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
    %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
    return %r : tensor<256x256xf32>
  }
}
