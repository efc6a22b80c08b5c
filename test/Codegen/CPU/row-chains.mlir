// lighthouse-cpu-select-strategy on chains of row reductions and the
// elementwise ops that read their results: the chain runs in a loop over
// blocks of rows, its ops fused into it, so that each block is read from
// memory once (then from L1), not once an op.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="threads=2" --lighthouse-cpu-select-strategy="threads=2" | FileCheck %s

#rows3 = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// A softmax over rows of 1024 floats: the row's maximum, exp(x - max), its
// sum, the division. 64K floats in all: one thread, a loop over blocks of 8
// rows (32 KB), each op of the chain on the block, the reductions with
// their vector strategy.
// CHECK-LABEL: func.func @softmax
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c64 step %c8
// CHECK:           %[[X:.*]] = tensor.extract_slice %arg0[%[[ROW]], 0] [8, 1024] [1, 1]
// CHECK:           %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x1024xf32>) {{.*}} attrs = {lighthouse.strategy = {kind = "reduction.rows"
// CHECK:             arith.maximumf
// CHECK:           %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : tensor<8x1024xf32>, tensor<8xf32>)
// CHECK:             math.exp
// CHECK:           %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<8x1024xf32>) {{.*}} attrs = {lighthouse.strategy = {kind = "reduction.rows"
// CHECK:           linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<8x1024xf32>, tensor<8xf32>)
// CHECK:             arith.divf
// CHECK:           tensor.insert_slice
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @softmax(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %minf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows_empty = tensor.empty() : tensor<64xf32>
  %max_init = linalg.fill ins(%minf : f32) outs(%rows_empty : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#rows3, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1024xf32>) outs(%max_init : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %empty = tensor.empty() : tensor<64x1024xf32>
  %exp = linalg.generic {indexing_maps = [#rows3, #rows, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<64x1024xf32>, tensor<64xf32>) outs(%empty : tensor<64x1024xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<64x1024xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#rows3, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<64x1024xf32>) outs(%sum_init : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#rows3, #rows, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<64x1024xf32>, tensor<64xf32>) outs(%empty : tensor<64x1024xf32>) {
  ^bb0(%e: f32, %s: f32, %out: f32):
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

// -----

#rows3 = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// 512K floats: the blocks are split across the threads (an scf.forall).
// The row sums are returned too: the chain computes its own in each block,
// and the whole-tensor sum stays for the caller.
// CHECK-LABEL: func.func @normalized_and_sums
// CHECK:         %[[SUMS:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<512x1024xf32>)
// CHECK:         scf.forall (%[[ROW:.*]]) = (0) to (512) step (8)
// CHECK:           %[[X:.*]] = tensor.extract_slice %arg0[%[[ROW]], 0] [8, 1024] [1, 1]
// CHECK:           %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x1024xf32>)
// CHECK:           linalg.generic {{.*}} ins(%[[X]], %[[SUM]] : tensor<8x1024xf32>, tensor<8xf32>)
// CHECK:         return %{{.*}}, %[[SUMS]]
func.func @normalized_and_sums(%x: tensor<512x1024xf32>) -> (tensor<512x1024xf32>, tensor<512xf32>) {
  %zero = arith.constant 0.0 : f32
  %rows_empty = tensor.empty() : tensor<512xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<512xf32>) -> tensor<512xf32>
  %sum = linalg.generic {indexing_maps = [#rows3, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x1024xf32>) outs(%sum_init : tensor<512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  %empty = tensor.empty() : tensor<512x1024xf32>
  %y = linalg.generic {indexing_maps = [#rows3, #rows, #rows3], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<512x1024xf32>, tensor<512xf32>) outs(%empty : tensor<512x1024xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<512x1024xf32>
  return %y, %sum : tensor<512x1024xf32>, tensor<512xf32>
}

// -----

#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channels_last = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
#pixels = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A sum over channels, read across the channel planes (the reduced loop is
// not the input's innermost dimension): no loop over blocks of rows, which
// would read each plane a few floats at a time.
// CHECK-LABEL: func.func @sum_over_channels
// CHECK-NOT:     scf.for
// CHECK-NOT:     scf.forall
// CHECK:         return
func.func @sum_over_channels(%x: tensor<1x32x64x64xf32>) -> tensor<1x64x64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %rows_empty = tensor.empty() : tensor<1x64x64xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows_empty : tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %sum = linalg.generic {indexing_maps = [#channels_last, #pixels], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<1x32x64x64xf32>) outs(%sum_init : tensor<1x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1x64x64xf32>
  %empty = tensor.empty() : tensor<1x64x64x32xf32>
  %y = linalg.generic {indexing_maps = [#channels_last, #pixels, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %sum : tensor<1x32x64x64xf32>, tensor<1x64x64xf32>) outs(%empty : tensor<1x64x64x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<1x64x64x32xf32>
  return %y : tensor<1x64x64x32xf32>
}
