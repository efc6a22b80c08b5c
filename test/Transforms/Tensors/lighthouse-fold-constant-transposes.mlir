// RUN: lh-opt %s --split-input-file --lighthouse-fold-constant-transposes | FileCheck %s

// A weight imported as a dense_resource blob (f32 1..6, 2x3) is transposed at
// compile time.
// CHECK-LABEL: func.func @resource_weight(
// CHECK:         %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[W]]
func.func @resource_weight() -> tensor<3x2xf32> {
  %w = arith.constant dense_resource<weight> : tensor<2x3xf32>
  %init = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%init : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weight: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

// Rank 3, two-byte elements: result[a][b][c] = input[b][c][a].
// CHECK-LABEL: func.func @permute_3d(
// CHECK:         arith.constant dense<{{\[\[\[}}0, 2, 4], [6, 8, 10]], {{\[\[}}1, 3, 5], [7, 9, 11]]]> : tensor<2x2x3xi16>
// CHECK-NOT:     linalg.transpose
func.func @permute_3d() -> tensor<2x2x3xi16> {
  %c = arith.constant dense<[[[0, 1], [2, 3], [4, 5]], [[6, 7], [8, 9], [10, 11]]]> : tensor<2x3x2xi16>
  %init = tensor.empty() : tensor<2x2x3xi16>
  %t = linalg.transpose ins(%c : tensor<2x3x2xi16>) outs(%init : tensor<2x2x3xi16>) permutation = [2, 0, 1]
  return %t : tensor<2x2x3xi16>
}

// -----

// A splat stays a splat.
// CHECK-LABEL: func.func @splat(
// CHECK:         arith.constant dense<2.500000e+00> : tensor<4x3xf32>
// CHECK-NOT:     linalg.transpose
func.func @splat() -> tensor<4x3xf32> {
  %c = arith.constant dense<2.5> : tensor<3x4xf32>
  %init = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%c : tensor<3x4xf32>) outs(%init : tensor<4x3xf32>) permutation = [1, 0]
  return %t : tensor<4x3xf32>
}

// -----

// Transposes of values known only at run time, and of bit-packed i1
// constants, stay.
// CHECK-LABEL: func.func @not_folded(
// CHECK-COUNT-2: linalg.transpose
func.func @not_folded(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xi1>) {
  %init = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%init : tensor<3x2xf32>) permutation = [1, 0]
  %b = arith.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %binit = tensor.empty() : tensor<3x2xi1>
  %bt = linalg.transpose ins(%b : tensor<2x3xi1>) outs(%binit : tensor<3x2xi1>) permutation = [1, 0]
  return %t, %bt : tensor<3x2xf32>, tensor<3x2xi1>
}
