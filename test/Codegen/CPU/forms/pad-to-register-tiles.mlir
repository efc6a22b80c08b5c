// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=pad-to-register-tiles" | FileCheck %s --check-prefix=SKIP
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=1" | FileCheck %s --check-prefix=ONE

// 250 rows are padded with zeros to 256, whole register tiles of 8 rows;
// the result is the slice of the padded one.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[A:.*]] = tensor.pad %{{.*}} low[0, 0] high[6, 0]
// CHECK:         } : tensor<250x256xf32> to tensor<256x256xf32>
// CHECK:         %[[C:.*]] = tensor.pad %{{.*}} low[0, 0] high[6, 0]
// CHECK:         %[[M:.*]] = linalg.matmul ins(%[[A]], %{{.*}} : tensor<256x256xf32>, tensor<256x256xf32>) outs(%[[C]] : tensor<256x256xf32>)
// CHECK:         tensor.extract_slice %[[M]][0, 0] [250, 256] [1, 1]
// SKIP-NOT:      tensor.pad
// SKIP:          linalg.matmul {{.*}} -> tensor<250x256xf32>
func.func @matmul(%a: tensor<250x256xf32>, %b: tensor<256x256xf32>, %c: tensor<250x256xf32>) -> tensor<250x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<250x256xf32>, tensor<256x256xf32>) outs(%c : tensor<250x256xf32>) -> tensor<250x256xf32>
  return %r : tensor<250x256xf32>
}

// 196 rows by 96 columns split into whole register tiles (8x32) between two
// threads neither way padded to 200 rows: they are padded to 208, 13 tiles
// per thread. On one thread, to 200.
// CHECK-LABEL: func.func @rows_for_threads
// CHECK:         linalg.matmul {{.*}} -> tensor<208x96xf32>
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [196, 96] [1, 1]
// ONE-LABEL:   func.func @rows_for_threads
// ONE:           linalg.matmul {{.*}} -> tensor<200x96xf32>
func.func @rows_for_threads(%a: tensor<196x576xf32>, %b: tensor<576x96xf32>, %c: tensor<196x96xf32>) -> tensor<196x96xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<196x576xf32>, tensor<576x96xf32>) outs(%c : tensor<196x96xf32>) -> tensor<196x96xf32>
  return %r : tensor<196x96xf32>
}
