// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=collapse-elementwise-rows" | FileCheck %s --check-prefix=SKIP

// Rows of 28 pixels are collapsed with the rows around them into planes of
// 784.
// CHECK-LABEL: func.func @relu
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x8x28x28xf32> into tensor<1x8x784xf32>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x784xf32>)
// CHECK:         tensor.expand_shape %[[R]]
// SKIP:          linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x28x28xf32>)
func.func @relu(%x: tensor<1x8x28x28xf32>, %init: tensor<1x8x28x28xf32>) -> tensor<1x8x28x28xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x28x28xf32>) outs(%init : tensor<1x8x28x28xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x28x28xf32>
  return %r : tensor<1x8x28x28xf32>
}
