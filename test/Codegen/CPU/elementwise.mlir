// lighthouse-cpu-schedule on elementwise ops: vectorized by rows, split across
// the threads when large, left scalar where vectors do not fit or do not lower.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=2" | FileCheck %s
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=1 register-tiles=4,16,4 cache-tiles=16,64,16" | FileCheck %s --check-prefix=SMALL

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

// -----

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

// -----

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

// -----

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

// -----

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

// -----

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

// -----

// A per-channel scale of NCHW images of 28 x 28: rows of 28 pixels are not
// a whole number of registers (16 + 8 + 4), so each channel's plane of 784
// pixels is one row (the images kept apart, for the threads of larger
// batches); the scale, read through the channels alone, is a broadcast
// along the plane, left to the loop LLVM vectorizes.
// CHECK-LABEL: func.func @channel_scale
// CHECK:         tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<8x16x28x28xf32> into tensor<8x16x784xf32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %arg1 : tensor<8x16x784xf32>, tensor<8x16xf32>)
// CHECK:           arith.mulf {{.*}} : f32
// CHECK:         tensor.expand_shape {{.*}} {{\[}}[0], [1], [2, 3]] output_shape [8, 16, 28, 28] : tensor<8x16x784xf32> into tensor<8x16x28x28xf32>
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#channels = affine_map<(n, c, h, w) -> (n, c)>
func.func @channel_scale(%x: tensor<8x16x28x28xf32>, %s: tensor<8x16xf32>) -> tensor<8x16x28x28xf32> {
  %e = tensor.empty() : tensor<8x16x28x28xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #channels, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<8x16x28x28xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16x28x28xf32>) {
  ^bb0(%v: f32, %scale: f32, %o: f32):
    %r = arith.mulf %v, %scale : f32
    linalg.yield %r : f32
  } -> tensor<8x16x28x28xf32>
  return %y : tensor<8x16x28x28xf32>
}

// -----

// An op that reads its position (a transposed convolution's flipped
// weights) keeps its loops: collapsed, each element would delinearize its
// index again.
// CHECK-LABEL: func.func @reads_its_position
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         return
#identity = affine_map<(a, b, c, d) -> (a, b, c, d)>
func.func @reads_its_position(%w: tensor<8x4x3x3xf32>) -> tensor<4x8x3x3xf32> {
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<4x8x3x3xf32>
  %flipped = linalg.generic {indexing_maps = [#identity], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<4x8x3x3xf32>) {
  ^bb0(%o: f32):
    %f = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %x = linalg.index 3 : index
    %rh = arith.subi %c2, %h : index
    %rw = arith.subi %c2, %x : index
    %v = tensor.extract %w[%c, %f, %rh, %rw] : tensor<8x4x3x3xf32>
    linalg.yield %v : f32
  } -> tensor<4x8x3x3xf32>
  return %flipped : tensor<4x8x3x3xf32>
}
