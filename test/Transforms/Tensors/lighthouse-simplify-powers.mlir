// RUN: lh-opt %s --lighthouse-simplify-powers | FileCheck %s

// Powers by small constants, as torch-mlir lowers x ** 2, x ** 3 (GELU's
// tanh form) and x ** 0.5, become multiplications and a square root; a power
// by a tensor stays.
// CHECK-LABEL: func.func @powers
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-NOT: math.fpowi
// CHECK: %[[SQUARE:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[SQUARED:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[CUBE:.*]] = arith.mulf %[[SQUARED]], %[[X]] : f32
// CHECK: %[[ROOT:.*]] = math.sqrt %[[X]] : f32
// CHECK: %[[ANY:.*]] = math.powf %[[X]], %[[Y]] : f32
// CHECK: return %[[SQUARE]], %[[CUBE]], %[[ROOT]], %[[ANY]]
func.func @powers(%x: f32, %y: f32) -> (f32, f32, f32, f32) {
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %half = arith.constant 0.5 : f32
  %square = math.fpowi %x, %c2 : f32, i64
  %cube = math.fpowi %x, %c3 : f32, i64
  %root = math.powf %x, %half : f32
  %any = math.powf %x, %y : f32
  return %square, %cube, %root, %any : f32, f32, f32, f32
}
