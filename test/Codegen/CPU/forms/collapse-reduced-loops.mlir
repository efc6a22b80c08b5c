// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=collapse-reduced-loops" | FileCheck %s --check-prefix=SKIP

// A mean over 8 x 8 pixels reduces one row of 64.
// CHECK-LABEL: func.func @mean
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<2x64x8x8xf32> into tensor<2x64x64xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[ROWS]] : tensor<2x64x64xf32>)
// SKIP:          linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
func.func @mean(%x: tensor<2x64x8x8xf32>, %init: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<2x64x8x8xf32>) outs(%init : tensor<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}
