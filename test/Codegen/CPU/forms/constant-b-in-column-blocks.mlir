// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1" | FileCheck %s --check-prefix=ONE
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=2 skip=constant-b-in-column-blocks" | FileCheck %s --check-prefix=SKIP

// 4 rows by a constant 2048 x 2048 B (a Linear layer at batch 4): register
// tiles of 4 rows by 64 columns, so B is laid out at compile time as 32
// panels of 2048 x 64, one after another, and the matmul is a loop over the
// panels, across the threads, of matmuls of all rows by one panel, each
// writing its columns of C (C as 4 x 32 x 64).
// CHECK-LABEL: func.func @batch_four
// CHECK:         %[[PANELS:.*]] = arith.constant dense<5.000000e-01> : tensor<32x2048x64xf32>
// CHECK:         %[[C:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [4, 32, 64] : tensor<4x2048xf32> into tensor<4x32x64xf32>
// CHECK:         %[[R:.*]] = scf.forall (%[[P:.*]]) in (32) shared_outs(%[[OUT:.*]] = %[[C]])
// CHECK:           %[[PANEL:.*]] = tensor.extract_slice %[[PANELS]][%[[P]], 0, 0] [1, 2048, 64] [1, 1, 1]
// CHECK:           %[[COLUMNS:.*]] = tensor.extract_slice %[[OUT]][0, %[[P]], 0] [4, 1, 64] [1, 1, 1]
// CHECK:           %[[B:.*]] = tensor.collapse_shape %[[PANEL]] {{\[\[}}0, 1], [2]] : tensor<1x2048x64xf32> into tensor<2048x64xf32>
// CHECK:           %[[CP:.*]] = tensor.collapse_shape %[[COLUMNS]] {{\[\[}}0, 1], [2]] : tensor<4x1x64xf32> into tensor<4x64xf32>
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %[[B]] : tensor<4x2048xf32>, tensor<2048x64xf32>) outs(%[[CP]] : tensor<4x64xf32>)
// CHECK:         tensor.collapse_shape %[[R]] {{\[\[}}0], [1, 2]] : tensor<4x32x64xf32> into tensor<4x2048xf32>
// ONE-LABEL:     func.func @batch_four
// ONE:           scf.for
// ONE-NOT:       scf.forall
// SKIP-LABEL:    func.func @batch_four
// SKIP:          linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x2048xf32>, tensor<2048x2048xf32>)
func.func @batch_four(%a: tensor<4x2048xf32>, %c: tensor<4x2048xf32>) -> tensor<4x2048xf32> {
  %b = arith.constant dense<0.5> : tensor<2048x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x2048xf32>, tensor<2048x2048xf32>) outs(%c : tensor<4x2048xf32>) -> tensor<4x2048xf32>
  return %r : tensor<4x2048xf32>
}

// -----

// A B that is not a constant would be copied into blocks on every call; one
// block only (N of one register tile for 1 row, of 256 columns for 8 rows)
// has nothing to lay out: all stay matmuls.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     scf.for
// CHECK-COUNT-3: linalg.matmul
func.func @left_alone(%a: tensor<4x2048xf32>, %b: tensor<2048x2048xf32>, %c: tensor<4x2048xf32>,
                      %v: tensor<1x64xf32>, %d: tensor<1x256xf32>,
                      %e: tensor<8x64xf32>, %f: tensor<8x256xf32>) -> (tensor<4x2048xf32>, tensor<1x256xf32>, tensor<8x256xf32>) {
  %w = arith.constant dense<0.5> : tensor<64x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x2048xf32>, tensor<2048x2048xf32>) outs(%c : tensor<4x2048xf32>) -> tensor<4x2048xf32>
  %s = linalg.matmul ins(%v, %w : tensor<1x64xf32>, tensor<64x256xf32>) outs(%d : tensor<1x256xf32>) -> tensor<1x256xf32>
  %t = linalg.matmul ins(%e, %w : tensor<8x64xf32>, tensor<64x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %r, %s, %t : tensor<4x2048xf32>, tensor<1x256xf32>, tensor<8x256xf32>
}

// -----

// 128 rows by a constant 768 x 2304 B (a transformer's QKV projection): B in
// blocks of up to a block of C's 256 columns, in whole register tiles, that
// split N evenly between the threads: 2304 / 2 = 1152 = 6 x 192 columns, 12
// blocks over the threads; on one thread, 9 blocks of 256.
// CHECK-LABEL: func.func @many_rows
// CHECK:         %[[BLOCKS:.*]] = arith.constant dense<5.000000e-01> : tensor<12x768x192xf32>
// CHECK:         scf.forall (%[[P:.*]]) in (12)
// CHECK:           tensor.extract_slice %[[BLOCKS]][%[[P]], 0, 0] [1, 768, 192] [1, 1, 1]
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<128x768xf32>, tensor<768x192xf32>) outs(%{{.*}} : tensor<128x192xf32>)
// ONE-LABEL:     func.func @many_rows
// ONE:           arith.constant dense<5.000000e-01> : tensor<9x768x256xf32>
// ONE:           scf.for
// ONE-NOT:       scf.forall
func.func @many_rows(%a: tensor<128x768xf32>, %c: tensor<128x2304xf32>) -> tensor<128x2304xf32> {
  %b = arith.constant dense<0.5> : tensor<768x2304xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x768xf32>, tensor<768x2304xf32>) outs(%c : tensor<128x2304xf32>) -> tensor<128x2304xf32>
  return %r : tensor<128x2304xf32>
}
