// RUN: lh-opt %s --lighthouse-read-only-arguments | FileCheck %s
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-cpu)" | FileCheck %s --check-prefix=LOWERED

// Public functions' tensor arguments become read-only; others are unchanged.
// CHECK-LABEL: func.func @exp(
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: i64)
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME:    %{{.*}}: tensor<4xf32>)
// CHECK-NOT:     bufferization.writable
func.func @exp(%a: tensor<4xf32>, %n: i64) -> tensor<4xf32> {
  %r = math.exp %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// The result gets a buffer of its own instead of the argument's.
// LOWERED-LABEL: llvm.func @exp(
// LOWERED:         llvm.call @malloc
