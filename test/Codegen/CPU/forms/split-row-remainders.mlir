// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=split-row-remainders" | FileCheck %s --check-prefix=SKIP

// Rows of 197 are reduced in a part of 192, continued by one of the last 5.
// CHECK-LABEL: func.func @sum
// CHECK:         %[[FIRST:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64x192xf32>)
// CHECK:         %[[PARTIAL:.*]] = tensor.insert_slice %[[FIRST]]
// CHECK:         tensor.extract_slice %{{.*}}[0, 192] [64, 5] [1, 1]
// CHECK:         tensor.extract_slice %[[PARTIAL]]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<64x5xf32>)
// SKIP:          linalg.generic {{.*}} ins(%{{.*}} : tensor<64x197xf32>)
func.func @sum(%x: tensor<64x197xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x197xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
