// RUN: lh-opt %s --lighthouse-cpu-schedule="threads=2" | FileCheck %s
// RUN: lh-opt %s --lighthouse-cpu-schedule="threads=1 register-tiles=4,16,4 cache-tiles=16,64,16" | FileCheck %s --check-prefix=SMALL
// RUN: not lh-opt %s --lighthouse-cpu-schedule="register-tiles=4,16" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not lh-opt %s --lighthouse-cpu-schedule="register-tiles=8,0,8" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-cpu-fast)" | FileCheck %s --check-prefix=FAST
// RUN: lh-opt %s --lighthouse-cpu-schedule="threads=2 fuse-consumers=0" | FileCheck %s --check-prefix=UNFUSED
// RUN: lh-opt %s --lighthouse-cpu-schedule="threads=2 pack-b=0" | FileCheck %s --check-prefix=UNPACKED
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-cpu-fast{threads=1})" | FileCheck %s --check-prefix=FAST-ONE-THREAD
// RUN: lh-opt %s --lighthouse-cpu-schedule="threads=1" --cse | FileCheck %s --check-prefix=DILATED
// RUN: not lh-opt %s --pass-pipeline="builtin.module(lighthouse-cpu-fast{tiles=4})" 2>&1 | FileCheck %s --check-prefix=FAST-BAD

// The fast pipeline hands its options to the schedule.
// FAST-ONE-THREAD-NOT: omp.parallel
// FAST-ONE-THREAD:     llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// FAST-ONE-THREAD-NOT: omp.parallel
// FAST-BAD: lighthouse-cpu-fast: {{.*}}no such option tiles

// CHECK-LABEL: func.func @square
// Two threads take 128 columns each, in blocks of C of 128 rows. A register
// tile of C is read once, carried through the loop over K in registers, and
// written back once. B (64K floats) is read in place.
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs
// CHECK-NOT:       tensor.empty
// CHECK:           scf.for {{.*}} to %c256 step %c128
// CHECK:             %[[C:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK:             %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[C]]) -> (vector<8x32xf32>)
// CHECK:               tensor.extract_slice {{.*}} [8, 32] [1, 1] : tensor<256x128xf32> to tensor<8x32xf32>
// CHECK:               vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK:               vector.fma {{.*}} : vector<32xf32>
// CHECK:             vector.transfer_write %[[SUM]]
// CHECK-NOT:         linalg.matmul
// SMALL-LABEL: func.func @square
// SMALL-NOT:     scf.forall
// SMALL:         vector.fma {{.*}} : vector<16xf32>
func.func @square(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// Each thread's half of B holds 256K floats: before each column of blocks
// of C (256 columns), the thread copies that column of B into panels of 32
// columns, where each register tile's 8 rows of 32 are contiguous, in the
// order the register tiles read them; then both blocks of 128 rows read
// the panels. With pack-b=0, B is read in place.
// CHECK-LABEL: func.func @panels
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs
// CHECK:           scf.for {{.*}} to %c512 step %c256
// CHECK:             tensor.empty() : tensor<2x8x32x8x32xf32>
// CHECK:             scf.for {{.*}} to %c512 step %c256
// CHECK:               scf.for {{.*}} to %c256 step %c32
// CHECK:                 scf.for {{.*}} to %c256 step %c8
// CHECK:                   tensor.extract_slice %arg1{{.*}} [8, 32] [1, 1] : tensor<512x1024xf32> to tensor<8x32xf32>
// CHECK:                   tensor.insert_slice {{.*}} [1, 1, 1, 8, 32] [1, 1, 1, 1, 1] : tensor<8x32xf32> into tensor<2x8x32x8x32xf32>
// CHECK:             scf.for {{.*}} to %c256 step %c128
// CHECK:               scf.for {{.*}} to %c512 step %c256
// CHECK:                 %[[SUM:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK:                   %[[PANEL:.*]] = tensor.extract_slice {{.*}} [1, 1, 1, 8, 32] [1, 1, 1, 1, 1] : tensor<2x8x32x8x32xf32> to tensor<8x32xf32>
// CHECK:                   vector.transfer_read %[[PANEL]]{{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK:                   vector.fma {{.*}} : vector<32xf32>
// CHECK:                 vector.transfer_write %[[SUM]]
// CHECK-NOT:     tensor.empty() : tensor<2x8x32x8x32xf32>
// UNPACKED-LABEL: func.func @panels
// UNPACKED-NOT:     tensor.empty
// UNPACKED:         tensor.extract_slice {{.*}} [8, 32] [1, 1] : tensor<256x256xf32> to tensor<8x32xf32>
// UNPACKED:         vector.fma {{.*}} : vector<32xf32>
// UNPACKED-LABEL: func.func @ragged
func.func @panels(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}

// Complex numbers have no zero attribute to pad with: B is read in place,
// and the tiles the vectorizer turns down stay linalg.matmul (loops).
// CHECK-LABEL: func.func @complex_panels
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.matmul {{.*}} -> tensor<8x32xcomplex<f32>>
func.func @complex_panels(%a: tensor<256x512xcomplex<f32>>, %b: tensor<512x1024xcomplex<f32>>, %c: tensor<256x1024xcomplex<f32>>) -> tensor<256x1024xcomplex<f32>> {
  %r = linalg.matmul ins(%a, %b : tensor<256x512xcomplex<f32>>, tensor<512x1024xcomplex<f32>>) outs(%c : tensor<256x1024xcomplex<f32>>) -> tensor<256x1024xcomplex<f32>>
  return %r : tensor<256x1024xcomplex<f32>>
}

// Shapes that do not divide into whole register tiles keep the linalg op,
// which lighthouse-cpu lowers to loops.
// CHECK-LABEL: func.func @ragged
// CHECK:         linalg.matmul
// CHECK-NOT:     vector.fma
func.func @ragged(%a: tensor<10x7xf32>, %b: tensor<7x5xf32>, %c: tensor<10x5xf32>) -> tensor<10x5xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x7xf32>, tensor<7x5xf32>) outs(%c : tensor<10x5xf32>) -> tensor<10x5xf32>
  return %r : tensor<10x5xf32>
}

// BAD: cache-tiles and register-tiles take three positive sizes each (M, N, K)

// FAST-LABEL: llvm.func @square
// FAST:         omp.parallel
// FAST:         omp.wsloop
// FAST:         llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// FAST-LABEL: llvm.func @ragged

// A convolution with a dynamic batch, in blocks of 8 channels by 2 output
// rows of 8 pixels: a block's sixteen vectors of sums stay in registers
// while the loops over the 3 input channels and the 3 window rows run; for
// each of the window's 3 columns (unrolled), a load of each of the 2 image
// rows, then per channel a broadcast weight and an FMA per row. From 152
// images on (2M multiply-adds: 13824 an image), the images are split across
// the threads; fewer run on one thread. With one thread, there is no choice
// to make.
// CHECK-LABEL: func.func @conv
// CHECK:         %[[LARGE:.*]] = arith.cmpi sge, %{{.*}}, %c152
// CHECK:         scf.if %[[LARGE]]
// CHECK:           scf.forall (%{{.*}}) in (2)
// CHECK:             scf.for {{.*}} step %c1
// CHECK:               scf.for {{.*}} to %c8 step %c2
// CHECK-COUNT-16:        vector.transfer_read {{.*}} : tensor<1x8x2x8xf32>, vector<8xf32>
// CHECK:                 scf.for %[[C:.*]] = %{{.*}} to %c3{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:                   scf.for %[[KH:.*]] = %{{.*}} to %c3
// CHECK:                     %[[NEXT_ROW:.*]] = arith.addi %[[KH]], %{{.*}} : index
// CHECK:                     %[[PIXELS0:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[C]], %[[KH]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<1x3x4x10xf32>, vector<8xf32>
// CHECK:                     %[[PIXELS1:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[C]], %[[NEXT_ROW]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<1x3x4x10xf32>, vector<8xf32>
// CHECK:                     %[[WEIGHT:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[C]], %[[KH]], %{{.*}}] : tensor<8x3x3x3xf32>
// CHECK:                     %[[WEIGHTS:.*]] = vector.broadcast %[[WEIGHT]] : f32 to vector<8xf32>
// CHECK:                     vector.fma %[[PIXELS0]], %[[WEIGHTS]], %{{.*}} : vector<8xf32>
// CHECK:                     vector.fma %[[PIXELS1]], %[[WEIGHTS]], %{{.*}} : vector<8xf32>
// CHECK-COUNT-46:            vector.fma
// CHECK-NOT:                 vector.fma
// CHECK:                     scf.yield
// CHECK-COUNT-16:        vector.transfer_write {{.*}} : vector<8xf32>, tensor<1x8x2x8xf32>
// CHECK:         } else {
// CHECK-NOT:       scf.forall
// CHECK:           scf.for {{.*}} to %{{.*}} step %c1
// CHECK:             scf.for {{.*}} to %c8 step %c2
// CHECK:               vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// SMALL-LABEL: func.func @conv
// SMALL-NOT:     scf.if
// SMALL:         vector.fma {{.*}} : vector<8xf32>
func.func @conv(%x: tensor<?x3x10x10xf32>, %w: tensor<8x3x3x3xf32>, %init: tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<?x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  return %c : tensor<?x8x8x8xf32>
}

// Poolings use the register kernel too: a block of 8 channels by 2 output
// rows of 16 pixels is sixteen vectors of maxima, kept in registers across
// the loop over the 3 window rows; per window column (unrolled), each
// channel and output row loads the span of its image row (31 pixels at a
// stride of 2) and picks the block's pixels out of it.
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT:     scf.forall
// CHECK:         scf.for {{.*}} to %c16 step %c8
// CHECK:           scf.for {{.*}} to %c16 step %c2
// CHECK-COUNT-16:    vector.transfer_read {{.*}} : tensor<1x8x2x16xf32>, vector<16xf32>
// CHECK:             scf.for {{.*}} to %c3 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:               %[[SPAN:.*]] = vector.transfer_read {{.*}} : tensor<1x8x5x33xf32>, vector<31xf32>
// CHECK:               %[[PIXELS:.*]] = vector.shuffle %[[SPAN]], %[[SPAN]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK:               arith.maximumf %[[PIXELS]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-47:      arith.maximumf
// CHECK-NOT:           arith.maximumf
// CHECK:               scf.yield
// CHECK-COUNT-16:    vector.transfer_write {{.*}} : vector<16xf32>, tensor<1x8x2x16xf32>
// CHECK-NOT:     linalg.pooling_nchw_max
func.func @max_pool(%x: tensor<1x16x34x34xf32>, %init: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %window = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%x, %window : tensor<1x16x34x34xf32>, tensor<3x3xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}

// Sums, unstrided: each window column is a load per channel and row, and
// an add.
// CHECK-LABEL: func.func @sum_pool
// CHECK:         scf.for {{.*}} to %c3
// CHECK-NOT:       vector.shuffle
// CHECK:           %[[PIXELS:.*]] = vector.transfer_read {{.*}} : tensor<1x8x4x10xf32>, vector<8xf32>
// CHECK:           arith.addf %[[PIXELS]], %{{.*}} : vector<8xf32>
// CHECK-NOT:     linalg.pooling_nchw_sum
func.func @sum_pool(%x: tensor<1x8x10x10xf32>, %init: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %window = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %window : tensor<1x8x10x10xf32>, tensor<3x3xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// A static batch of 256 images is enough work for the threads.
// CHECK-LABEL: func.func @conv_static_batch
// CHECK-NOT:     scf.if
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           vector.fma {{.*}} : vector<8xf32>
func.func @conv_static_batch(%x: tensor<256x3x10x10xf32>, %w: tensor<8x3x3x3xf32>, %init: tensor<256x8x8x8xf32>) -> tensor<256x8x8x8xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<256x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<256x8x8x8xf32>) -> tensor<256x8x8x8xf32>
  return %c : tensor<256x8x8x8xf32>
}

// One image of 2.4M multiply-adds (batch 1), a deep layer: filters
// (37K floats) outweigh the image (6K), so the blocks of output channels are
// split across the threads, which take 32 channels (and their filters) each.
// CHECK-LABEL: func.func @conv_one_image_channels
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           tensor.extract_slice %{{.*}} [32, 64, 3, 3] [1, 1, 1, 1] : tensor<64x64x3x3xf32> to tensor<32x64x3x3xf32>
// CHECK:           scf.for {{.*}} to %c32 step %c8
// CHECK:             vector.transfer_read {{.*}} : tensor<1x8x2x8xf32>, vector<8xf32>
func.func @conv_one_image_channels(%x: tensor<1x64x10x10xf32>, %w: tensor<64x64x3x3xf32>, %init: tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x64x10x10xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x8x8xf32>) -> tensor<1x64x8x8xf32>
  return %c : tensor<1x64x8x8xf32>
}

// An early layer, where the image outweighs the filters, or whose channels
// do not divide among the threads (8 channels, one block): the 75 output
// rows are split across the threads, in parts of 38 (the second thread's is
// 37 rows), taken one at a time: blocks must be static.
// CHECK-LABEL: func.func @conv_one_image_rows
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           scf.for {{.*}} step %c1
// CHECK:             vector.transfer_read {{.*}} : tensor<1x8x1x16xf32>, vector<16xf32>
// CHECK-NOT:     tensor<1x8x2x16xf32>
func.func @conv_one_image_rows(%x: tensor<1x8x77x66xf32>, %w: tensor<8x8x3x3xf32>, %init: tensor<1x8x75x64xf32>) -> tensor<1x8x75x64xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x8x77x66xf32>, tensor<8x8x3x3xf32>) outs(%init : tensor<1x8x75x64xf32>) -> tensor<1x8x75x64xf32>
  return %c : tensor<1x8x75x64xf32>
}

// With 64 rows, the two parts of 32 rows take blocks of 2 rows.
// CHECK-LABEL: func.func @conv_one_image_even_rows
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           scf.for {{.*}} to %c32 step %c2
// CHECK:             vector.transfer_read {{.*}} : tensor<1x8x2x16xf32>, vector<16xf32>
func.func @conv_one_image_even_rows(%x: tensor<1x8x66x66xf32>, %w: tensor<8x8x3x3xf32>, %init: tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x8x66x66xf32>, tensor<8x8x3x3xf32>) outs(%init : tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  return %c : tensor<1x8x64x64xf32>
}

// Dilated: blocks of 5 of the 20 channels by 2 rows of 12 of the 36 pixels
// (the largest that divide, and fit 8 registers of sums a row); the image is
// read from rows 2 * kh and 2 * kh + 1, and the window's columns 0, 1, 2
// start at pixels 0, 2, 4.
// DILATED-LABEL: func.func @conv_dilated
// DILATED:         scf.for {{.*}} to %c20 step %c5
// DILATED:           scf.for {{.*}} to %c8 step %c2
// DILATED:             scf.for {{.*}} to %c36 step %c12
// DILATED-COUNT-10:      vector.transfer_read {{.*}} : tensor<1x5x2x12xf32>, vector<12xf32>
// DILATED-NOT:           vector.transfer_read {{.*}} : tensor<1x5x2x12xf32>
// DILATED:               scf.for %[[C:.*]] = %{{.*}} to %c4
// DILATED:                 scf.for %[[KH:.*]] = %{{.*}} to %c3
// DILATED:                   %[[ROW:.*]] = arith.muli %[[KH]], %[[TWO:.*]] : index
// DILATED:                   %[[NEXT_ROW:.*]] = arith.addi %[[ROW]], %[[ONE:.*]] : index
// DILATED:                   vector.transfer_read %{{.*}}[%{{.*}}, %[[C]], %[[ROW]], %[[COLUMN0:.*]]], {{.*}} : tensor<1x4x6x16xf32>, vector<12xf32>
// DILATED:                   vector.transfer_read %{{.*}}[%{{.*}}, %[[C]], %[[NEXT_ROW]], %[[COLUMN0]]], {{.*}} : tensor<1x4x6x16xf32>, vector<12xf32>
// DILATED:                   tensor.extract %{{.*}}[%{{.*}}, %[[C]], %[[KH]], %[[COLUMN0]]] : tensor<5x4x3x3xf32>
// DILATED:                   vector.transfer_read %{{.*}}[%{{.*}}, %[[C]], %[[ROW]], %[[TWO]]], {{.*}} : tensor<1x4x6x16xf32>, vector<12xf32>
// DILATED:                   tensor.extract %{{.*}}[%{{.*}}, %[[C]], %[[KH]], %[[ONE]]] : tensor<5x4x3x3xf32>
func.func @conv_dilated(%x: tensor<1x4x12x40xf32>, %w: tensor<20x4x3x3xf32>, %init: tensor<1x20x8x36xf32>) -> tensor<1x20x8x36xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x4x12x40xf32>, tensor<20x4x3x3xf32>) outs(%init : tensor<1x20x8x36xf32>) -> tensor<1x20x8x36xf32>
  return %c : tensor<1x20x8x36xf32>
}

// Output rows of 2 pixels are vectorized along the channels, as 1-D windows.
// CHECK-LABEL: func.func @conv_narrow_rows
// CHECK:         vector.transpose
// CHECK:         vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @conv_narrow_rows(%x: tensor<2x8x6x4xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<2x16x4x2xf32>) -> tensor<2x16x4x2xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<2x8x6x4xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<2x16x4x2xf32>) -> tensor<2x16x4x2xf32>
  return %c : tensor<2x16x4x2xf32>
}

// Strided by 2 along the row: each window column's 8 pixels are picked out
// of one span of 15 image pixels.
// CHECK-LABEL: func.func @conv_strided
// CHECK:         %[[SPAN:.*]] = vector.transfer_read {{.*}} : tensor<1x3x5x17xf32>, vector<15xf32>
// CHECK:         %[[PIXELS:.*]] = vector.shuffle %[[SPAN]], %[[SPAN]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<15xf32>, vector<15xf32>
// CHECK:         vector.fma %[[PIXELS]], %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @conv_strided(%x: tensor<4x3x17x17xf32>, %w: tensor<8x3x3x3xf32>, %init: tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%x, %w : tensor<4x3x17x17xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  return %c : tensor<4x8x8x8xf32>
}

// Elementwise: one row of 8 at a time.
// CHECK-LABEL: func.func @relu
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.transfer_read {{.*}} vector<1x1x1x8xf32>
// CHECK:               arith.maximumf {{.*}} : vector<1x1x1x8xf32>
// CHECK-NOT:     linalg.generic
func.func @relu(%x: tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x8x8x8xf32>) outs(%x : tensor<?x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x8x8x8xf32>
  return %r : tensor<?x8x8x8xf32>
}

// Long rows go by 64 elements; rows that do not divide into 8 or more stay
// scalar.
// CHECK-LABEL: func.func @long_rows
// CHECK:         scf.for {{.*}} to %c4 step %c1
// CHECK:           scf.for {{.*}} to %c192 step %c64
// CHECK:             math.exp {{.*}} : vector<1x64xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}} : tensor<4x100xf32>)
func.func @long_rows(%x: tensor<4x192xf32>, %y: tensor<4x100xf32>) -> (tensor<4x192xf32>, tensor<4x100xf32>) {
  %ex = tensor.empty() : tensor<4x192xf32>
  %rx = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x192xf32>) outs(%ex : tensor<4x192xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  } -> tensor<4x192xf32>
  %ey = tensor.empty() : tensor<4x100xf32>
  %ry = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x100xf32>) outs(%ey : tensor<4x100xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  } -> tensor<4x100xf32>
  return %rx, %ry : tensor<4x192xf32>, tensor<4x100xf32>
}

// An elementwise op of 512K elements or more is split across the threads by
// its outermost loop, then vectorized by rows; one reading a per-channel
// constant through unit dimensions (Cx1x1) is only split, its loops left to
// LLVM; below 512K elements, such an op is left alone.
// CHECK-LABEL: func.func @large_elementwise
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           scf.for {{.*}} to %c16 step %c1
// CHECK:             math.exp {{.*}} : vector<1x1x1x64xf32>
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK-NOT:       vector.
// CHECK:           linalg.generic
// CHECK-SAME:        ins(%extracted_slice{{.*}}, %arg1 : tensor<4x16x64x64xf32>, tensor<16x1x1xf32>)
// CHECK:         scf.forall.in_parallel
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%arg2, %arg1 : tensor<4x16x64x64xf32>, tensor<16x1x1xf32>)
// CHECK:         return
// SMALL-LABEL: func.func @large_elementwise
// SMALL-NOT:     scf.forall
// SMALL:         return
#image = affine_map<(n, c, h, w) -> (n, c, h, w)>
#per_channel = affine_map<(n, c, h, w) -> (c, 0, 0)>
func.func @large_elementwise(%x: tensor<8x16x64x64xf32>, %bias: tensor<16x1x1xf32>, %small: tensor<4x16x64x64xf32>)
    -> (tensor<8x16x64x64xf32>, tensor<8x16x64x64xf32>, tensor<4x16x64x64xf32>) {
  %e = tensor.empty() : tensor<8x16x64x64xf32>
  %exp = linalg.generic {indexing_maps = [#image, #image], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x16x64x64xf32>) outs(%e : tensor<8x16x64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<8x16x64x64xf32>
  %biased = linalg.generic {indexing_maps = [#image, #per_channel, #image], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %bias : tensor<8x16x64x64xf32>, tensor<16x1x1xf32>) outs(%e : tensor<8x16x64x64xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %r = arith.addf %v, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x16x64x64xf32>
  %es = tensor.empty() : tensor<4x16x64x64xf32>
  %small_biased = linalg.generic {indexing_maps = [#image, #per_channel, #image], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%small, %bias : tensor<4x16x64x64xf32>, tensor<16x1x1xf32>) outs(%es : tensor<4x16x64x64xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %r = arith.addf %v, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x16x64x64xf32>
  return %exp, %biased, %small_biased : tensor<8x16x64x64xf32>, tensor<8x16x64x64xf32>, tensor<4x16x64x64xf32>
}

// A small matmul stays on one thread: waking another costs more than it
// saves; and it reads B in place: with 16 rows of A, each element of B is
// used too few times for a copy of B to pay.
// CHECK-LABEL: func.func @small
// CHECK-NOT:     scf.forall
// CHECK-NOT:     tensor.insert_slice
// CHECK:         vector.fma {{.*}} : vector<32xf32>
// CHECK:       return
func.func @small(%a: tensor<16x128xf32>, %b: tensor<128x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x128xf32>, tensor<128x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// A cache tile that does not divide the shape shrinks to one that does: K of
// 1000 goes by 200, not 256.
// CHECK-LABEL: func.func @shrunk_cache_tile
// CHECK:         scf.for {{.*}} to %c1000 step %c200
// CHECK:           vector.fma {{.*}} : vector<32xf32>
func.func @shrunk_cache_tile(%a: tensor<64x1000xf32>, %b: tensor<1000x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x1000xf32>, tensor<1000x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// A C that starts as a fill is filled by each thread for its own columns.
// CHECK-LABEL: func.func @filled
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs
// CHECK:           linalg.fill {{.*}} -> tensor<256x128xf32>
// CHECK:           vector.fma {{.*}} : vector<32xf32>
func.func @filled(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// Rows of a dynamic count: whole register tiles are vectorized, the last
// partial one is left to loops, all on one thread.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-NOT:     scf.forall
// CHECK:         %[[WHOLE:.*]] = affine.apply {{.*}}()[%[[ROWS:.*]]]
// CHECK:         scf.for {{.*}} = %c0 to %[[WHOLE]] step %c8
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK:         scf.for {{.*}} = %[[WHOLE]] to %[[ROWS]] step %c8
// CHECK:           linalg.matmul {{.*}} -> tensor<?x32xf32>
func.func @dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<64x96xf32>, %c: tensor<?x96xf32>) -> tensor<?x96xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x96xf32>) outs(%c : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}

// An op the vectorizer turns down (this gather of a reversed row) is left as
// loops; the ops after it are still vectorized.
// CHECK-LABEL: func.func @gather_then_exp
// CHECK:         tensor.extract
// CHECK:         math.exp {{.*}} : vector<1x32xf32>
func.func @gather_then_exp(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %c31 = arith.constant 31 : index
  %e = tensor.empty() : tensor<4x32xf32>
  %flipped = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.subi %c31, %j : index
    %v = tensor.extract %x[%i, %k] : tensor<4x32xf32>
    linalg.yield %v : f32
  } -> tensor<4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%flipped : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %x2 = math.exp %v : f32
    linalg.yield %x2 : f32
  } -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// math.fpowi stays scalar: on vectors it would lower to llvm.intr.powi with a
// vector exponent, which LLVM does not take.
// CHECK-LABEL: func.func @square_by_powi
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
func.func @square_by_powi(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %two = arith.constant 2 : i64
  %e = tensor.empty() : tensor<4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %p = math.fpowi %v, %two : f32, i64
    linalg.yield %p : f32
  } -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// Elementwise ops on i1 stay scalar: vectors of i1 are bit-packed in memory,
// buffers of i1 hold a byte per element.
// CHECK-LABEL: func.func @compare
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
func.func @compare(%x: tensor<4x16xf32>) -> tensor<4x16xi1> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xi1>) {
  ^bb0(%v: f32, %o: i1):
    %p = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %p : i1
  } -> tensor<4x16xi1>
  return %r : tensor<4x16xi1>
}

#identity = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A matmul's elementwise consumers (bias, ReLU) run on the thread that
// computed the block of C, vectorized, after its loop over K; with
// fuse-consumers=0, after all of the matmul.
// CHECK-LABEL: func.func @bias_relu
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs
// CHECK:           linalg.fill {{.*}} -> tensor<128x128xf32>
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK:           arith.addf {{.*}} : vector<1x64xf32>
// CHECK:           arith.maximumf {{.*}} : vector<1x64xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     linalg.generic
// UNFUSED-LABEL: func.func @bias_relu
// UNFUSED:         scf.forall.in_parallel
// UNFUSED:       arith.addf {{.*}} : vector<1x64xf32>
// UNFUSED:       arith.maximumf {{.*}} : vector<1x64xf32>
func.func @bias_relu(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %bias: tensor<256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<256x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<256x256xf32>) -> tensor<256x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  %biased = linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<256x256xf32>, tensor<256xf32>) outs(%empty : tensor<256x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  %relu = linalg.generic {indexing_maps = [#identity, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<256x256xf32>) outs(%empty : tensor<256x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x256xf32>
  return %relu : tensor<256x256xf32>
}

// With rows of a dynamic count, the consumer runs after the whole and the
// partial register tiles of the block of C.
// CHECK-LABEL: func.func @dynamic_rows_bias
// CHECK:         %[[WHOLE:.*]] = affine.apply {{.*}}()[%[[ROWS:.*]]]
// CHECK:         scf.for {{.*}} = %c0 to %[[WHOLE]] step %c8
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK:         scf.for {{.*}} = %[[WHOLE]] to %[[ROWS]] step %c8
// CHECK:           linalg.matmul {{.*}} -> tensor<?x32xf32>
// CHECK:         scf.for {{.*}} = %c0 to %[[ROWS]] step %c1
// CHECK:           arith.addf {{.*}} : vector<1x32xf32>
// CHECK-NOT:     linalg.generic
func.func @dynamic_rows_bias(%a: tensor<?x64xf32>, %b: tensor<64x96xf32>, %bias: tensor<96xf32>) -> tensor<?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %a, %c0 : tensor<?x64xf32>
  %empty = tensor.empty(%rows) : tensor<?x96xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x96xf32>) -> tensor<?x96xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x96xf32>) outs(%c : tensor<?x96xf32>) -> tensor<?x96xf32>
  %biased = linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x96xf32>, tensor<96xf32>) outs(%empty : tensor<?x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x96xf32>
  return %biased : tensor<?x96xf32>
}

// An elementwise op reading two matmuls (x @ W1 + h @ W2) is fused into the
// first one's schedule only; the second matmul is scheduled alone.
// CHECK-LABEL: func.func @two_matmuls_one_sum
// CHECK-COUNT-2: vector.fma {{.*}} : vector<32xf32>
// CHECK:         arith.addf {{.*}} : vector<1x32xf32>
// CHECK-NOT:     linalg.generic
func.func @two_matmuls_one_sum(%x: tensor<16x64xf32>, %w1: tensor<64x32xf32>, %h: tensor<16x64xf32>, %w2: tensor<64x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %m1 = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %sum = linalg.generic {indexing_maps = [#identity, #identity, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %m2 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %sum : tensor<16x32xf32>
}
