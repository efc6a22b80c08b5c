// Splat constant tensors of more than min-bytes bytes are filled as the code
// runs instead of stored: a global of every element is what LLVM builds
// element by element. Small splats, splats of unknown size and other
// constants stay.
// RUN: lh-opt %s --lighthouse-splats-as-fills | FileCheck %s
// RUN: lh-opt %s --lighthouse-splats-as-fills="min-bytes=16" | FileCheck %s --check-prefix=SMALL

// CHECK-LABEL: func.func @splats
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:     %[[FOUR:.*]] = arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-DAG:     %[[EDGE:.*]] = arith.constant dense<true> : tensor<65536xi1>
// CHECK-DAG:     %[[VALUES:.*]] = arith.constant dense<[1, 2]> : tensor<2xi64>
// CHECK-DAG:     %[[E:.*]] = tensor.empty() : tensor<1024x1024xf32>
// CHECK-DAG:     %[[BIG:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%[[E]] : tensor<1024x1024xf32>)
// CHECK-DAG:     %[[E2:.*]] = tensor.empty() : tensor<65537xi1>
// CHECK-DAG:     %[[BITS:.*]] = linalg.fill ins(%[[FALSE]] : i1) outs(%[[E2]] : tensor<65537xi1>)
// CHECK:         return %[[BIG]], %[[FOUR]], %[[EDGE]], %[[BITS]], %[[VALUES]]

// With 16 bytes, the 4 floats stay (16 bytes), the rest is filled.
// SMALL-LABEL: func.func @splats
// SMALL:         arith.constant dense<2.000000e+00> : tensor<4xf32>
// SMALL-NOT:     arith.constant dense<true>
// SMALL:         arith.constant dense<[1, 2]> : tensor<2xi64>
func.func @splats() -> (tensor<1024x1024xf32>, tensor<4xf32>, tensor<65536xi1>, tensor<65537xi1>, tensor<2xi64>) {
  %a = arith.constant dense<1.0> : tensor<1024x1024xf32>
  %b = arith.constant dense<2.0> : tensor<4xf32>
  %c = arith.constant dense<true> : tensor<65536xi1>
  %d = arith.constant dense<false> : tensor<65537xi1>
  %e = arith.constant dense<[1, 2]> : tensor<2xi64>
  return %a, %b, %c, %d, %e : tensor<1024x1024xf32>, tensor<4xf32>, tensor<65536xi1>, tensor<65537xi1>, tensor<2xi64>
}
