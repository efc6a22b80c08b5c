// RUN: lh-opt %s --lighthouse-fuse-elementwise --split-input-file | FileCheck %s

// A centering, a scaling and a ReLU, three passes over the image, become
// one; the per-channel constants stay operands, read through their
// broadcast.
// CHECK-LABEL: func.func @batch_norm_relu(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8x16x16xf32>, %[[MEAN:.*]]: tensor<8x1x1xf32>, %[[SCALE:.*]]: tensor<8x1x1xf32>)
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[MEAN]], %[[SCALE]] : tensor<4x8x16x16xf32>, tensor<8x1x1xf32>, tensor<8x1x1xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#channel = affine_map<(n, c, h, w) -> (c, 0, 0)>
func.func @batch_norm_relu(%x: tensor<4x8x16x16xf32>, %mean: tensor<8x1x1xf32>, %scale: tensor<8x1x1xf32>) -> tensor<4x8x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x16x16xf32>
  %centered = linalg.generic {indexing_maps = [#id, #channel, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean : tensor<4x8x16x16xf32>, tensor<8x1x1xf32>) outs(%e : tensor<4x8x16x16xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    linalg.yield %d : f32
  } -> tensor<4x8x16x16xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #channel, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%centered, %scale : tensor<4x8x16x16xf32>, tensor<8x1x1xf32>) outs(%e : tensor<4x8x16x16xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %p = arith.mulf %v, %s : f32
    linalg.yield %p : f32
  } -> tensor<4x8x16x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%scaled : tensor<4x8x16x16xf32>) outs(%e : tensor<4x8x16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16x16xf32>
  return %relu : tensor<4x8x16x16xf32>
}

// -----

// Left apart: a result with two users (it would be computed twice: the
// exponentials feed the sum and the scaling) and one read through a
// broadcast (once per element instead of once per row).
// CHECK-LABEL: func.func @left_apart(
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x32xf32>)
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<4x32xf32>)
// CHECK:         %[[INVERSE:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>)
// CHECK:           arith.divf
// CHECK:         linalg.generic {{.*}} ins(%[[EXP]], %[[INVERSE]] : tensor<4x32xf32>, tensor<4xf32>)
// CHECK:           arith.mulf
#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#vec = affine_map<(i) -> (i)>
func.func @left_apart(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %exp = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x32xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %inverse = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.divf %one, %v : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %softmax = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %inverse : tensor<4x32xf32>, tensor<4xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = arith.mulf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  return %softmax : tensor<4x32xf32>
}

// -----

// Kept apart: an op the fast pipeline leaves to loops (a gather, math.fpowi)
// and one it vectorizes, so that the latter is still vectorized. Two ops
// on i1 merge: the i1 value between them goes away.
// CHECK-LABEL: func.func @loops_and_vectors(
// CHECK:         %[[FLIPPED:.*]] = linalg.generic
// CHECK:           tensor.extract
// CHECK:         linalg.generic {{.*}} ins(%[[FLIPPED]] : tensor<4x32xf32>)
// CHECK:           math.exp
// CHECK:         %[[SQUARED:.*]] = linalg.generic
// CHECK:           math.fpowi
// CHECK:         linalg.generic {{.*}} ins(%[[SQUARED]] : tensor<4x32xf32>)
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4x32xf32>)
// CHECK:           arith.cmpf
// CHECK:           arith.select
// CHECK-NOT:     linalg.generic
// CHECK:         return
#rows = affine_map<(i, j) -> (i, j)>
func.func @loops_and_vectors(%x: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>) {
  %c31 = arith.constant 31 : index
  %two = arith.constant 2 : i32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %flipped = linalg.generic {indexing_maps = [#rows], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.subi %c31, %j : index
    %v = tensor.extract %x[%i, %k] : tensor<4x32xf32>
    linalg.yield %v : f32
  } -> tensor<4x32xf32>
  %exp1 = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%flipped : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  %squared = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.fpowi %v, %two : f32, i32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  %exp2 = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%squared : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  %eb = tensor.empty() : tensor<4x32xi1>
  %positive = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x32xf32>) outs(%eb : tensor<4x32xi1>) {
  ^bb0(%v: f32, %o: i1):
    %r = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %r : i1
  } -> tensor<4x32xi1>
  %relu = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%positive, %x : tensor<4x32xi1>, tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%p: i1, %v: f32, %o: f32):
    %r = arith.select %p, %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x32xf32>
  return %exp1, %exp2, %relu : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// A variance as imported, in f64: the conversion to f64, which two ops read,
// is copied into each; x - mean, read twice by the squaring, and the
// squaring are merged into the sum: two reductions over x, no f64 tensor.
// CHECK-LABEL: func.func @variance(
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X:.*]] : tensor<4x32xf32>)
// CHECK:           arith.extf
// CHECK:           arith.addf
// CHECK:         %[[SQUARES:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[SUM]], %[[X]], %[[SUM]] : tensor<4x32xf32>, tensor<4xf64>, tensor<4x32xf32>, tensor<4xf64>)
// CHECK:           arith.extf
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         return %[[SQUARES]]
#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @variance(%x: tensor<4x32xf32>) -> tensor<4xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4x32xf64>
  %wide = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf64>) {
  ^bb0(%v: f32, %o: f64):
    %r = arith.extf %v : f32 to f64
    linalg.yield %r : f64
  } -> tensor<4x32xf64>
  %e4 = tensor.empty() : tensor<4xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e4 : tensor<4xf64>) -> tensor<4xf64>
  %sum = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%wide : tensor<4x32xf64>) outs(%init : tensor<4xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %r = arith.addf %v, %acc : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  %centered = linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%wide, %sum : tensor<4x32xf64>, tensor<4xf64>) outs(%e : tensor<4x32xf64>) {
  ^bb0(%v: f64, %m: f64, %o: f64):
    %r = arith.subf %v, %m : f64
    linalg.yield %r : f64
  } -> tensor<4x32xf64>
  %squares = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%centered, %centered : tensor<4x32xf64>, tensor<4x32xf64>) outs(%e : tensor<4x32xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %r = arith.mulf %a, %b : f64
    linalg.yield %r : f64
  } -> tensor<4x32xf64>
  %variance = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%squares : tensor<4x32xf64>) outs(%init : tensor<4xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %r = arith.addf %v, %acc : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  return %variance : tensor<4xf64>
}
