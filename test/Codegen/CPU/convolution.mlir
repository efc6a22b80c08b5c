// lighthouse-cpu-schedule on convolutions and poolings: blocks of channels by
// output rows kept in registers through the loops over the window, split
// across the threads by image, by block of channels or by output row.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=2" | FileCheck %s
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=1 register-tiles=4,16,4 cache-tiles=16,64,16" | FileCheck %s --check-prefix=SMALL
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=1" --cse | FileCheck %s --check-prefix=DILATED

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

// -----

// Poolings use the register kernel too: a block of 8 channels by 2 output
// rows of 16 pixels is sixteen vectors of maxima, kept in registers across
// the loop over the 3 window rows; per window column (unrolled), each
// channel and output row loads the span of its image row (31 pixels at a
// stride of 2, read as two whole registers) and picks the block's pixels
// out of it.
// CHECK-LABEL: func.func @max_pool
// CHECK-NOT:     scf.forall
// CHECK:         scf.for {{.*}} to %c16 step %c8
// CHECK:           scf.for {{.*}} to %c16 step %c2
// CHECK-COUNT-16:    vector.transfer_read {{.*}} : tensor<1x8x2x16xf32>, vector<16xf32>
// CHECK:             scf.for {{.*}} to %c3 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:               %[[SPAN:.*]] = vector.transfer_read {{.*}} : tensor<1x8x5x33xf32>, vector<32xf32>
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

// -----

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

// -----

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

// -----

// One image of 4.7M multiply-adds (batch 1), a deep layer: filters
// (37K floats) outweigh the image (12K), so the blocks of output channels are
// split across the threads, which take 32 channels (and their filters) each.
// CHECK-LABEL: func.func @conv_one_image_channels
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           tensor.extract_slice %{{.*}} [32, 64, 3, 3] [1, 1, 1, 1] : tensor<64x64x3x3xf32> to tensor<32x64x3x3xf32>
// CHECK:           scf.for {{.*}} to %c32 step %c8
// CHECK:             vector.transfer_read {{.*}} : tensor<1x8x2x16xf32>, vector<16xf32>
func.func @conv_one_image_channels(%x: tensor<1x64x10x18xf32>, %w: tensor<64x64x3x3xf32>, %init: tensor<1x64x8x16xf32>) -> tensor<1x64x8x16xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x64x10x18xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x8x16xf32>) -> tensor<1x64x8x16xf32>
  return %c : tensor<1x64x8x16xf32>
}

// -----

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

// -----

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

// -----

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

// -----

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

// -----

// Strided by 2 along the row: each window column's 8 pixels are picked out
// of one span of 15 image pixels, read as a whole register of 16.
// CHECK-LABEL: func.func @conv_strided
// CHECK:         %[[SPAN:.*]] = vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<1x3x5x17xf32>, vector<16xf32>
// CHECK:         %[[PIXELS:.*]] = vector.shuffle %[[SPAN]], %[[SPAN]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK:         vector.fma %[[PIXELS]], %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @conv_strided(%x: tensor<4x3x17x17xf32>, %w: tensor<8x3x3x3xf32>, %init: tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%x, %w : tensor<4x3x17x17xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  return %c : tensor<4x8x8x8xf32>
}

// -----

// A depthwise convolution (linalg's loops (n, oh, ow, c, kh, kw), put in a
// pooling's order) in the register kernel: 8 channels by 2 output rows of
// 16 pixels, each channel's pixels loaded from its own image rows and
// multiplied by its own broadcast weight. The span of 31 pixels at a stride
// of 2 is read as two registers; the third window column's would pass the
// block's 33 image columns: its read is masked.
// CHECK-LABEL: func.func @depthwise_strided
// CHECK:         scf.for {{.*}} to %c16 step %c8
// CHECK:           scf.for {{.*}} to %c16 step %c2
// CHECK:             scf.for {{.*}} to %c32 step %c16
// CHECK-COUNT-16:      vector.transfer_read {{.*}} : tensor<1x8x2x16xf32>, vector<16xf32>
// CHECK:               scf.for %[[KH:.*]] = %{{.*}} to %c3 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:                 %[[WEIGHT:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[KH]], %{{.*}}] : tensor<8x3x3xf32>
// CHECK:                 %[[WEIGHTS:.*]] = vector.broadcast %[[WEIGHT]] : f32 to vector<16xf32>
// CHECK:                 %[[SPAN:.*]] = vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<1x8x5x33xf32>, vector<32xf32>
// CHECK:                 %[[PIXELS:.*]] = vector.shuffle %[[SPAN]], %[[SPAN]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK:                 vector.fma %[[PIXELS]], %[[WEIGHTS]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-31:        vector.fma
// CHECK:                 vector.transfer_read %{{[^{]*}} : tensor<1x8x5x33xf32>, vector<32xf32>
// CHECK-COUNT-16:        vector.fma
// CHECK-NOT:             vector.fma
// CHECK:                 scf.yield
// CHECK-NOT:     linalg.depthwise_conv_2d_nchw_chw
// CHECK-NOT:     linalg.generic
func.func @depthwise_strided(%x: tensor<1x16x34x66xf32>, %w: tensor<16x3x3xf32>, %init: tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%x, %w : tensor<1x16x34x66xf32>, tensor<16x3x3xf32>) outs(%init : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %c : tensor<1x16x16x32xf32>
}

// -----

// Rows of 40 pixels: a depthwise convolution's block takes whole registers
// (its pixels are loaded for each channel: a block of 10 would be loaded in
// parts), so the rows are computed in two parts, 32 pixels in blocks of 16
// and the last 8.
// CHECK-LABEL: func.func @depthwise_remainder
// CHECK:         scf.for {{.*}} to %c32 step %c16
// CHECK:           vector.fma {{.*}} : vector<16xf32>
// CHECK:         scf.for {{.*}} to %c10 step %c2
// CHECK:           vector.fma {{.*}} : vector<8xf32>
// CHECK-NOT:     linalg.generic
func.func @depthwise_remainder(%x: tensor<1x8x12x42xf32>, %w: tensor<8x3x3xf32>, %init: tensor<1x8x10x40xf32>) -> tensor<1x8x10x40xf32> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x8x12x42xf32>, tensor<8x3x3xf32>) outs(%init : tensor<1x8x10x40xf32>) -> tensor<1x8x10x40xf32>
  return %c : tensor<1x8x10x40xf32>
}

// -----

// A grouped convolution (4 groups of 8 channels) is a loop over its groups
// of 2-D convolutions in the register kernel's blocks: 8 channels by 2 rows
// of 16 pixels, over the group's 8 input channels. 590K multiply-adds in
// all: the groups run on one thread.
// CHECK-LABEL: func.func @grouped
// CHECK-NOT:     scf.forall
// CHECK:         scf.for {{.*}} to %c4 step %c1
// CHECK:           tensor.collapse_shape {{.*}} : tensor<1x1x8x18x18xf32> into tensor<1x8x18x18xf32>
// CHECK:           scf.for {{.*}} to %c16 step %c2
// CHECK:             scf.for {{.*}} to %c8 {{.*}} -> (vector<16xf32>
// CHECK:               scf.for {{.*}} to %c3
// CHECK-COUNT-48:        vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:     linalg.conv_2d_ngchw_gfchw
func.func @grouped(%x: tensor<1x4x8x18x18xf32>, %w: tensor<4x8x8x3x3xf32>, %init: tensor<1x4x8x16x16xf32>) -> tensor<1x4x8x16x16xf32> {
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x4x8x18x18xf32>, tensor<4x8x8x3x3xf32>) outs(%init : tensor<1x4x8x16x16xf32>) -> tensor<1x4x8x16x16xf32>
  return %c : tensor<1x4x8x16x16xf32>
}

// -----

// 32 groups of 4 channels over 56 x 56 pixels (ResNeXt's): 14M multiply-adds,
// the groups split across the threads.
// CHECK-LABEL: func.func @grouped_threads
// CHECK:         scf.forall {{.*}} in (32)
// CHECK:           vector.fma
// CHECK-NOT:     linalg.conv_2d_ngchw_gfchw
func.func @grouped_threads(%x: tensor<1x32x4x58x58xf32>, %w: tensor<32x4x4x3x3xf32>, %init: tensor<1x32x4x56x56xf32>) -> tensor<1x32x4x56x56xf32> {
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x32x4x58x58xf32>, tensor<32x4x4x3x3xf32>) outs(%init : tensor<1x32x4x56x56xf32>) -> tensor<1x32x4x56x56xf32>
  return %c : tensor<1x32x4x56x56xf32>
}

// -----

// A 1x1 convolution at a stride of 2 (ResNet's shortcut) reads every other
// pixel of every other row: they are copied out first (a quarter of the
// image), and the convolution of the copy is unstrided, no span picked
// apart by shuffles.
// CHECK-LABEL: func.func @pointwise_strided
// CHECK:         %[[POINTS:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 64, 14, 14] [1, 1, 2, 2] : tensor<1x64x28x28xf32> to tensor<1x64x14x14xf32>
// CHECK:         linalg.copy ins(%[[POINTS]] : tensor<1x64x14x14xf32>)
// CHECK:         scf.for {{.*}} to %c128 step %c8
// CHECK-NOT:       vector.shuffle
// CHECK:           vector.fma {{.*}} : vector<14xf32>
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @pointwise_strided(%x: tensor<1x64x28x28xf32>, %w: tensor<128x64x1x1xf32>, %init: tensor<1x128x14x14xf32>) -> tensor<1x128x14x14xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%x, %w : tensor<1x64x28x28xf32>, tensor<128x64x1x1xf32>) outs(%init : tensor<1x128x14x14xf32>) -> tensor<1x128x14x14xf32>
  return %c : tensor<1x128x14x14xf32>
}
