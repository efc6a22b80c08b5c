// RUN: lh-opt %s --lighthouse-read-only-arguments | FileCheck %s
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-read-only-arguments,func.func(convert-elementwise-to-linalg),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" | FileCheck %s --check-prefix=BUFFERS

// Public functions' tensor arguments become read-only; others are unchanged.
// CHECK-LABEL: func.func @exp(
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: i64)
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME:    %{{.*}}: tensor<4xf32>)
// CHECK-NOT:     bufferization.writable

// The result gets a buffer of its own instead of overwriting the argument's.
// BUFFERS-LABEL: func.func @exp(
// BUFFERS-SAME:    %[[ARG:.*]]: memref<4xf32>
// BUFFERS:         %[[RESULT:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// BUFFERS:         linalg.generic {{.*}} ins(%[[ARG]] : memref<4xf32>) outs(%[[RESULT]] : memref<4xf32>)
// BUFFERS:         return %[[RESULT]]
func.func @exp(%a: tensor<4xf32>, %n: i64) -> tensor<4xf32> {
  %r = math.exp %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
