// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=pad-to-register-tiles" | FileCheck %s --check-prefix=SKIP

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
