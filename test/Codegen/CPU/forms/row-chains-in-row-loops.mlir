// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=row-chains-in-row-loops" | FileCheck %s --check-prefix=SKIP

// A row's maximum and the elementwise op reading it run in one loop over
// blocks of 8 rows, each block read once.
// CHECK-LABEL: func.func @centered
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c256 step %c8
// CHECK:           %[[ROWS:.*]] = tensor.extract_slice %{{.*}}[%[[ROW]], 0] [8, 1024] [1, 1]
// CHECK:           %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[ROWS]] : tensor<8x1024xf32>)
// CHECK:           linalg.generic {{.*}} ins(%[[ROWS]], %[[MAX]] : tensor<8x1024xf32>, tensor<8xf32>)
// SKIP-NOT:      scf.for
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @centered(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<256xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<256x1024xf32>) outs(%init : tensor<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  %o = tensor.empty() : tensor<256x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<256x1024xf32>, tensor<256xf32>) outs(%o : tensor<256x1024xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %s = arith.subf %in, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}
