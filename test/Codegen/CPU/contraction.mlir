// lighthouse-cpu-schedule on matmuls: blocks of C split across the threads,
// register tiles kept in registers through the loop over K, B copied into
// panels when that pays, and elementwise consumers fused into the blocks of C.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=2" | FileCheck %s
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=1 register-tiles=4,16,4 cache-tiles=16,64,16" | FileCheck %s --check-prefix=SMALL
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=2 fuse-consumers=0" | FileCheck %s --check-prefix=UNFUSED
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="threads=2 pack-b=0" | FileCheck %s --check-prefix=UNPACKED

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

// -----

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
func.func @panels(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}

// -----

// Complex numbers have no zero attribute to pad with: B is read in place,
// and the tiles the vectorizer turns down stay linalg.matmul (loops).
// CHECK-LABEL: func.func @complex_panels
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.matmul {{.*}} -> tensor<8x32xcomplex<f32>>
func.func @complex_panels(%a: tensor<256x512xcomplex<f32>>, %b: tensor<512x1024xcomplex<f32>>, %c: tensor<256x1024xcomplex<f32>>) -> tensor<256x1024xcomplex<f32>> {
  %r = linalg.matmul ins(%a, %b : tensor<256x512xcomplex<f32>>, tensor<512x1024xcomplex<f32>>) outs(%c : tensor<256x1024xcomplex<f32>>) -> tensor<256x1024xcomplex<f32>>
  return %r : tensor<256x1024xcomplex<f32>>
}

// -----

// Shapes that do not divide into whole register tiles keep the linalg op,
// which the pipelines lower to loops.
// CHECK-LABEL: func.func @ragged
// CHECK:         linalg.matmul
// CHECK-NOT:     vector.fma
// UNPACKED-LABEL: func.func @ragged
func.func @ragged(%a: tensor<10x7xf32>, %b: tensor<7x5xf32>, %c: tensor<10x5xf32>) -> tensor<10x5xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x7xf32>, tensor<7x5xf32>) outs(%c : tensor<10x5xf32>) -> tensor<10x5xf32>
  return %r : tensor<10x5xf32>
}

// -----

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

// -----

// A cache tile that does not divide the shape shrinks to one that does: K of
// 1000 goes by 200, not 256.
// CHECK-LABEL: func.func @shrunk_cache_tile
// CHECK:         scf.for {{.*}} to %c1000 step %c200
// CHECK:           vector.fma {{.*}} : vector<32xf32>
func.func @shrunk_cache_tile(%a: tensor<64x1000xf32>, %b: tensor<1000x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x1000xf32>, tensor<1000x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

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

// -----

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

// -----

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
#identity = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
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

// -----

// With rows of a dynamic count, the consumer is not fused (a block of C
// spans every row, out of cache by the time it would run): it runs after
// the matmul, over all of C, vectorized by rows as elementwise ops are.
// CHECK-LABEL: func.func @dynamic_rows_bias
// CHECK:         %[[WHOLE:.*]] = affine.apply {{.*}}()[%[[ROWS:.*]]]
// CHECK:         scf.for {{.*}} = %c0 to %[[WHOLE]] step %c8
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK:         scf.for {{.*}} = %[[WHOLE]] to %[[ROWS]] step %c8
// CHECK:           linalg.matmul {{.*}} -> tensor<?x32xf32>
// CHECK:         scf.for {{.*}} = %c0 to %[[ROWS]] step %c1
// CHECK:           arith.addf {{.*}} : vector<1x32xf32>
// CHECK-NOT:     linalg.generic
#identity = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
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

// -----

// An elementwise op reading two matmuls (x @ W1 + h @ W2) is fused into the
// first one's schedule only; the second matmul is scheduled alone.
// CHECK-LABEL: func.func @two_matmuls_one_sum
// CHECK-COUNT-2: vector.fma {{.*}} : vector<32xf32>
// CHECK:         arith.addf {{.*}} : vector<1x32xf32>
// CHECK-NOT:     linalg.generic
#identity = affine_map<(d0, d1) -> (d0, d1)>
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

// -----

// Rows of a dynamic count that is a multiple of the register tile's rows (a
// batch of 16-row sequences, 8-row tiles): peeling finds no partial tile,
// so every tile is vectorized where it is, and none is left to loops.
// CHECK-LABEL: func.func @whole_dynamic_rows
// CHECK:         scf.for {{.*}} step %c8
// CHECK:           vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:     vector.mask
// CHECK-NOT:     linalg.matmul
func.func @whole_dynamic_rows(%b: index, %w: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %rows = affine.apply affine_map<()[s0] -> (s0 * 16)>()[%b]
  %a0 = tensor.empty(%rows) : tensor<?x64xf32>
  %a = linalg.fill ins(%one : f32) outs(%a0 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %mm : tensor<?x64xf32>
}

// -----

// A count computed from the shape that is not a multiple (15-row sequences)
// is peeled: whole tiles vectorized, the last partial one left to loops.
// CHECK-LABEL: func.func @computed_dynamic_rows
// CHECK:         scf.for {{.*}} step %c8
// CHECK:           vector.fma {{.*}} : vector<32xf32>
// CHECK:         scf.for {{.*}} step %c8
// CHECK:           linalg.matmul {{.*}} -> tensor<?x32xf32>
// CHECK-NOT:     vector.mask
func.func @computed_dynamic_rows(%b: index, %w: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %rows = affine.apply affine_map<()[s0] -> (s0 * 15)>()[%b]
  %a0 = tensor.empty(%rows) : tensor<?x64xf32>
  %a = linalg.fill ins(%one : f32) outs(%a0 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %mm : tensor<?x64xf32>
}
