// The strategies selected per op family, for pinned AVX-512 and AVX2 targets:
// what each op is to become, not the code (the family tests check that).
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=2" --lighthouse-cpu-select-strategy="target=avx512 threads=2" | FileCheck %s --check-prefix=AVX512
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx2 threads=4" --lighthouse-cpu-select-strategy="target=avx2 threads=4" | FileCheck %s --check-prefix=AVX2

// Matmuls: blocks of C for the cache, register tiles of two vector registers
// of N, split across threads by columns when large.
// AVX512-LABEL: func.func @matmul(
// AVX512: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 128, 128, 256>, kind = "contraction.blocked", registers = array<i64: 8, 32, 8>, threads = array<i64: 0, 128>}
// AVX2-LABEL: func.func @matmul(
// AVX2: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 128, 64, 256>, kind = "contraction.blocked", registers = array<i64: 8, 16, 8>, threads = array<i64: 0, 64>}
func.func @matmul(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// A matmul whose C starts as a fill and whose result goes through a bias and
// a ReLU: the consumers are fused into the matmul's blocks.
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
// AVX512-LABEL: func.func @matmul_bias_relu(
// AVX512: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 64, 64, 128>, consumers = 2 : i64, fill_c, kind = "contraction.blocked", registers = array<i64: 8, 32, 8>, vector = array<i64: 1, 64>}
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {kind = "fused"}
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {kind = "fused"}
// AVX2-LABEL: func.func @matmul_bias_relu(
// AVX2: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 64, 64, 128>, consumers = 2 : i64, fill_c, kind = "contraction.blocked", registers = array<i64: 8, 16, 8>, vector = array<i64: 1, 64>}
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {kind = "fused"}
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {kind = "fused"}
func.func @matmul_bias_relu(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>, %bias: tensor<64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %relu : tensor<64x64xf32>
}

// -----

// A dynamic M (a batch): register tiles only, rows peeled, one thread.
// AVX512-LABEL: func.func @matmul_dynamic_rows(
// AVX512: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 0, 96, 64>, kind = "contraction.blocked", peel_rows, registers = array<i64: 8, 32, 8>}
// AVX2-LABEL: func.func @matmul_dynamic_rows(
// AVX2: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 0, 96, 64>, kind = "contraction.blocked", peel_rows, registers = array<i64: 8, 16, 8>}
func.func @matmul_dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<64x96xf32>, %c: tensor<?x96xf32>) -> tensor<?x96xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x96xf32>) outs(%c : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}

// -----

// Fewer rows than the register tile's (a Linear layer at batch 4 or 1): a
// tile of all the rows by as many columns as keep the sums in the registers
// of a whole tile, so that B is read once.
// AVX512-LABEL: func.func @matmul_few_rows(
// AVX512: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 4, 256, 256>, kind = "contraction.blocked", registers = array<i64: 4, 64, 8>, threads = array<i64: 0, 1024>}
// AVX512: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 1, 256, 256>, kind = "contraction.blocked", registers = array<i64: 1, 256, 8>, threads = array<i64: 0, 1024>}
// AVX2-LABEL: func.func @matmul_few_rows(
// AVX2: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 4, 256, 256>, kind = "contraction.blocked", registers = array<i64: 4, 32, 8>, threads = array<i64: 0, 512>}
// AVX2: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 1, 256, 256>, kind = "contraction.blocked", registers = array<i64: 1, 128, 8>, threads = array<i64: 0, 512>}
func.func @matmul_few_rows(%a: tensor<4x2048xf32>, %v: tensor<1x2048xf32>, %b: tensor<2048x2048xf32>, %c: tensor<4x2048xf32>, %d: tensor<1x2048xf32>) -> (tensor<4x2048xf32>, tensor<1x2048xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<4x2048xf32>, tensor<2048x2048xf32>) outs(%c : tensor<4x2048xf32>) -> tensor<4x2048xf32>
  %s = linalg.matmul ins(%v, %b : tensor<1x2048xf32>, tensor<2048x2048xf32>) outs(%d : tensor<1x2048xf32>) -> tensor<1x2048xf32>
  return %r, %s : tensor<4x2048xf32>, tensor<1x2048xf32>
}

// -----

// Each thread's part of B fills half of L2 or more: B is copied into panels.
// AVX512-LABEL: func.func @matmul_panels(
// AVX512: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 128, 256, 256>, kind = "contraction.blocked", pack_b, registers = array<i64: 8, 32, 8>, threads = array<i64: 0, 512>}
// AVX2-LABEL: func.func @matmul_panels(
// AVX2: linalg.matmul {{.*}}lighthouse.strategy = {cache = array<i64: 128, 256, 256>, kind = "contraction.blocked", pack_b, registers = array<i64: 8, 16, 8>, threads = array<i64: 0, 256>}
func.func @matmul_panels(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}

// -----

// The same sizes with a constant B: a loop over the threads of blocks of B
// laid out at compile time (constant-b-in-column-blocks), each a matmul of
// all rows by one block, read in place: not copied into panels, and not
// split across threads again inside the loop.
// AVX512-LABEL: func.func @matmul_constant_panels(
// AVX512: scf.forall
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {cache = array<i64: 128, 256, 256>, kind = "contraction.blocked", registers = array<i64: 8, 32, 8>}
// AVX2-LABEL: func.func @matmul_constant_panels(
// AVX2: scf.forall
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {cache = array<i64: 128, 256, 256>, kind = "contraction.blocked", registers = array<i64: 8, 16, 8>}
func.func @matmul_constant_panels(%a: tensor<256x512xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %b = arith.constant dense<0.5> : tensor<512x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}

// -----

// A generic of the matmul's form is a contraction of the same family.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// AVX512-LABEL: func.func @generic_matmul(
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {cache = array<i64: 64, 64, 64>, kind = "contraction.blocked", registers = array<i64: 8, 32, 8>}
// AVX2-LABEL: func.func @generic_matmul(
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {cache = array<i64: 64, 64, 64>, kind = "contraction.blocked", registers = array<i64: 8, 16, 8>}
func.func @generic_matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A batch of matmuls of a dynamic size has no strategy yet: loops.
// AVX512-LABEL: func.func @batch_matmul(
// AVX512-NOT: lighthouse.strategy
// AVX2-LABEL: func.func @batch_matmul(
// AVX2-NOT: lighthouse.strategy
func.func @batch_matmul(%a: tensor<?x64x64xf32>, %b: tensor<?x64x64xf32>, %c: tensor<?x64x64xf32>) -> tensor<?x64x64xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x64x64xf32>, tensor<?x64x64xf32>) outs(%c : tensor<?x64x64xf32>) -> tensor<?x64x64xf32>
  return %r : tensor<?x64x64xf32>
}

// -----

// NCHW convolutions: blocks of channels by rows of pixels for the register
// kernel, as many channels as a quarter of the registers hold.
// AVX512-LABEL: func.func @conv(
// AVX512: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 2, 16, 0, 0, 0>}
// AVX2-LABEL: func.func @conv(
// AVX2: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 4, 2, 8, 0, 0, 0>}
func.func @conv(%x: tensor<1x8x18x18xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}

// -----

// A dynamic batch: versioned on its size, the copy for large batches split
// across threads by images.
// AVX512-LABEL: func.func @conv_dynamic_batch(
// AVX512: scf.if
// AVX512: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 2, 8, 0, 0, 0>, thread_counts = array<i64: 2, 0, 0, 0, 0, 0, 0>}
// AVX512: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 2, 8, 0, 0, 0>}
// AVX2-LABEL: func.func @conv_dynamic_batch(
// AVX2: scf.if
// AVX2: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 4, 2, 8, 0, 0, 0>, thread_counts = array<i64: 4, 0, 0, 0, 0, 0, 0>}
// AVX2: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 4, 2, 8, 0, 0, 0>}
func.func @conv_dynamic_batch(%x: tensor<?x3x10x10xf32>, %w: tensor<8x3x3x3xf32>, %init: tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  return %r : tensor<?x8x8x8xf32>
}

// -----

// Rows of 2 pixels are too narrow for the kernel: 1-D windows.
// AVX512-LABEL: func.func @conv_narrow_rows(
// AVX512: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 16, 1, 2, 0, 1, 0>}
// AVX2-LABEL: func.func @conv_narrow_rows(
// AVX2: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 16, 1, 2, 0, 1, 0>}
func.func @conv_narrow_rows(%x: tensor<2x8x6x4xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<2x16x4x2xf32>) -> tensor<2x16x4x2xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x6x4xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<2x16x4x2xf32>) -> tensor<2x16x4x2xf32>
  return %r : tensor<2x16x4x2xf32>
}

// -----

// An f64 filter of an f32 convolution: the 1-D windows' vectorizer casts
// inputs by widening only, and the kernel takes f32 alone: loops. f16 inputs
// summed in f32 widen: 1-D windows.
// AVX512-LABEL: func.func @conv_narrowing_filter(
// AVX512-NOT: lighthouse.strategy
// AVX512-LABEL: func.func @conv_widening(
// AVX512: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.windows"
// AVX2-LABEL: func.func @conv_narrowing_filter(
// AVX2-NOT: lighthouse.strategy
// AVX2-LABEL: func.func @conv_widening(
// AVX2: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.windows"
func.func @conv_narrowing_filter(%x: tensor<2x8x6x4xf32>, %w: tensor<16x8x3x3xf64>, %init: tensor<2x16x4x2xf32>) -> tensor<2x16x4x2xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x6x4xf32>, tensor<16x8x3x3xf64>) outs(%init : tensor<2x16x4x2xf32>) -> tensor<2x16x4x2xf32>
  return %r : tensor<2x16x4x2xf32>
}
func.func @conv_widening(%x: tensor<2x8x6x4xf16>, %w: tensor<16x8x3x3xf16>, %init: tensor<2x16x4x2xf32>) -> tensor<2x16x4x2xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x6x4xf16>, tensor<16x8x3x3xf16>) outs(%init : tensor<2x16x4x2xf32>) -> tensor<2x16x4x2xf32>
  return %r : tensor<2x16x4x2xf32>
}

// -----

// AVX512-LABEL: func.func @max_pool(
// AVX512: linalg.pooling_nchw_max {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 2, 16, 0, 0>}
// AVX2-LABEL: func.func @max_pool(
// AVX2: linalg.pooling_nchw_max {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 4, 2, 8, 0, 0>}
func.func @max_pool(%x: tensor<1x16x34x34xf32>, %init: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %window = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %window : tensor<1x16x34x34xf32>, tensor<3x3xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}

// -----

// NHWC (the channels-last form's): blocks of 8 pixels by a block of output
// channels (one AVX-512 register, two AVX2 ones) over one window point and 8
// input channels; 1 image of 295K multiply-adds stays on one thread.
// AVX512-LABEL: func.func @conv_nhwc(
// AVX512: linalg.conv_2d_nhwc_hwcf {{.*}}lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 1, 8, 16, 1, 1, 8>}
// AVX2-LABEL: func.func @conv_nhwc(
// AVX2: linalg.conv_2d_nhwc_hwcf {{.*}}lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 1, 8, 16, 1, 1, 8>}
func.func @conv_nhwc(%x: tensor<1x18x18x8xf32>, %w: tensor<3x3x8x16xf32>, %init: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x18x18x8xf32>, tensor<3x3x8x16xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}

// -----

// Rows of 13 pixels would be blocks of one: no strategy, loops.
// AVX512-LABEL: func.func @conv_nhwc_prime_rows(
// AVX512-NOT: lighthouse.strategy
// AVX2-LABEL: func.func @conv_nhwc_prime_rows(
// AVX2-NOT: lighthouse.strategy
func.func @conv_nhwc_prime_rows(%x: tensor<1x15x15x8xf32>, %w: tensor<3x3x8x16xf32>, %init: tensor<1x13x13x16xf32>) -> tensor<1x13x13x16xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x15x15x8xf32>, tensor<3x3x8x16xf32>) outs(%init : tensor<1x13x13x16xf32>) -> tensor<1x13x13x16xf32>
  return %r : tensor<1x13x13x16xf32>
}

// -----

// Other layouts have no strategy yet: loops.
// AVX512-LABEL: func.func @conv_nhwc_fhwc(
// AVX512-NOT: lighthouse.strategy
// AVX2-LABEL: func.func @conv_nhwc_fhwc(
// AVX2-NOT: lighthouse.strategy
func.func @conv_nhwc_fhwc(%x: tensor<1x18x18x8xf32>, %w: tensor<16x3x3x8xf32>, %init: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x18x18x8xf32>, tensor<16x3x3x8xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}

// -----

// Elementwise: rows of up to 64 elements vectorized; from 512K elements on,
// split across threads along the outermost loop with an iteration for each.
// Rows of 8, half an AVX-512 register, are collapsed with the rows and
// channels outside them (every operand reads them contiguously): rows of
// 1024, vectorized 64 at a time; on AVX2 they are whole registers.
#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#channel = affine_map<(n, c, h, w) -> (c, 0, 0)>
// AVX512-LABEL: func.func @elementwise(
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {kind = "elementwise.rows", threads = array<i64: 4, 0, 0, 0>, vector = array<i64: 1, 1, 1, 64>}
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {kind = "elementwise.rows", threads = array<i64: 4, 0, 0, 0>}
// AVX512: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<4x16x8x8xf32> into tensor<4x1024xf32>
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {kind = "elementwise.rows", vector = array<i64: 1, 64>}
// AVX2-LABEL: func.func @elementwise(
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {kind = "elementwise.rows", threads = array<i64: 2, 0, 0, 0>, vector = array<i64: 1, 1, 1, 64>}
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {kind = "elementwise.rows", threads = array<i64: 2, 0, 0, 0>}
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {kind = "elementwise.rows", vector = array<i64: 1, 1, 1, 8>}
func.func @elementwise(%x: tensor<8x16x64x64xf32>, %bias: tensor<16x1x1xf32>, %small: tensor<4x16x8x8xf32>)
    -> (tensor<8x16x64x64xf32>, tensor<8x16x64x64xf32>, tensor<4x16x8x8xf32>) {
  %e = tensor.empty() : tensor<8x16x64x64xf32>
  %exp = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x16x64x64xf32>) outs(%e : tensor<8x16x64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<8x16x64x64xf32>
  // Read through unit dimensions (Cx1x1): split across threads only.
  %biased = linalg.generic {indexing_maps = [#id4, affine_map<(n, c, h, w) -> (c, 0, 0)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %bias : tensor<8x16x64x64xf32>, tensor<16x1x1xf32>) outs(%e : tensor<8x16x64x64xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %r = arith.addf %v, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x16x64x64xf32>
  %es = tensor.empty() : tensor<4x16x8x8xf32>
  %neg = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%small : tensor<4x16x8x8xf32>) outs(%es : tensor<4x16x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  } -> tensor<4x16x8x8xf32>
  return %exp, %biased, %neg : tensor<8x16x64x64xf32>, tensor<8x16x64x64xf32>, tensor<4x16x8x8xf32>
}

// -----

// A generic of the NCHW convolution's form is a convolution to the family
// (linalg's convolution interface), and takes the register kernel.
// AVX512-LABEL: func.func @generic_conv(
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 2, 16, 0, 0, 0>}
// AVX2-LABEL: func.func @generic_conv(
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 4, 2, 8, 0, 0, 0>}
func.func @generic_conv(%x: tensor<1x8x18x18xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>,
                                        affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                        affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x16x16xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %p = arith.mulf %i, %k : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x16x16x16xf32>
  return %r : tensor<1x16x16x16xf32>
}

// -----

// Integer convolutions: no register kernel (it computes floats); the named
// op is decomposed into 1-D windows.
// AVX512-LABEL: func.func @int_conv(
// AVX512: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 16, 1, 16, 0, 1, 0>}
// AVX2-LABEL: func.func @int_conv(
// AVX2: linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 16, 1, 16, 0, 1, 0>}
func.func @int_conv(%x: tensor<1x8x18x18xi32>, %w: tensor<16x8x3x3xi32>, %init: tensor<1x16x16x16xi32>) -> tensor<1x16x16x16xi32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x18x18xi32>, tensor<16x8x3x3xi32>) outs(%init : tensor<1x16x16x16xi32>) -> tensor<1x16x16x16xi32>
  return %r : tensor<1x16x16x16xi32>
}

// -----

// Row reductions: blocks of rows, partial results in vectors of the widest
// of 64, 32, 16 and 8 elements dividing the row, rows split across threads
// from 512K elements on.
// AVX512-LABEL: func.func @row_reductions(
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 8, 0>, vector = array<i64: 0, 8>}
// AVX512: linalg.generic {{.*}}lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 1, 0>, threads = array<i64: 64, 0>, vector = array<i64: 0, 64>}
// AVX2-LABEL: func.func @row_reductions(
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 8, 0>, vector = array<i64: 0, 8>}
// AVX2: linalg.generic {{.*}}lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 1, 0>, threads = array<i64: 32, 0>, vector = array<i64: 0, 64>}
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_reductions(%x: tensor<128x1000xf32>, %y: tensor<128x4096xf32>, %s: tensor<128xf32>) -> (tensor<128xf32>, tensor<128xf32>) {
  %sums = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x1000xf32>) outs(%s : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<128xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<128x4096xf32>) outs(%s : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<128xf32>
  return %sums, %max : tensor<128xf32>, tensor<128xf32>
}

// -----

// Reductions over an outer dimension (column sums) have no strategy yet:
// loops.
// AVX512-LABEL: func.func @column_sums(
// AVX512-NOT: lighthouse.strategy
// AVX2-LABEL: func.func @column_sums(
// AVX2-NOT: lighthouse.strategy
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @column_sums(%x: tensor<128x1000xf32>, %c: tensor<1000xf32>) -> tensor<1000xf32> {
  %cols = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<128x1000xf32>) outs(%c : tensor<1000xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<1000xf32>
  return %cols : tensor<1000xf32>
}

// -----

// Rows whose length no vector of 8 divides are reduced in parts, each
// continuing the one before: 1001 = 960 in vectors of 64, 40 in vectors of
// 8, and 1 left to a loop; 49 = 48 in vectors of 16 and 1.
// AVX512-LABEL: func.func @odd_rows(
// AVX512:   %[[WIDE:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<16x960xf32>) {{.*}}lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 1, 0>, vector = array<i64: 0, 64>}
// AVX512:   %[[WIDE_ROWS:.*]] = tensor.insert_slice %[[WIDE]]
// AVX512:   %[[NARROW:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<16x40xf32>) outs(%{{.*}} : tensor<16xf32>) attrs = {lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 8, 0>, vector = array<i64: 0, 8>}
// AVX512:   linalg.generic {{.*}} ins(%{{.*}} : tensor<16x1xf32>) outs(%{{.*}} : tensor<16xf32>) {
// AVX512:   linalg.generic {{.*}} ins(%{{.*}} : tensor<2048x48xf32>) {{.*}}lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 4, 0>, vector = array<i64: 0, 16>}
// AVX512:   linalg.generic {{.*}} ins(%{{.*}} : tensor<2048x1xf32>) outs(%{{.*}} : tensor<2048xf32>) {
// AVX2-LABEL: func.func @odd_rows(
// AVX2: lighthouse.strategy = {kind = "reduction.rows"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @odd_rows(%y: tensor<16x1001xf32>, %r: tensor<16xf32>, %z: tensor<2048x49xf32>, %t: tensor<2048xf32>) -> (tensor<16xf32>, tensor<2048xf32>) {
  %odd = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<16x1001xf32>) outs(%r : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %means = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<2048x49xf32>) outs(%t : tensor<2048xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<2048xf32>
  return %odd, %means : tensor<16xf32>, tensor<2048xf32>
}

// -----

// Sizes that are not multiples of the register tile: the operands are padded
// with zeros to the next multiples (here 3% more work) and the padded matmul
// takes the blocked strategy; its result is a slice of the padded one. A
// matrix-vector product, 8 times the work padded, is left to loops.
// AVX512-LABEL: func.func @padded(
// AVX512:   tensor.pad %{{.*}} low[0, 0] high[3, 4]
// AVX512:   tensor.pad %{{.*}} low[0, 0] high[4, 6]
// AVX512:   %[[MM:.*]] = linalg.matmul {lighthouse.strategy = {{{.*}}kind = "contraction.blocked"{{.*}}}} {{.*}} -> tensor<64x256xf32>
// AVX512:   tensor.extract_slice %[[MM]][0, 0] [61, 250] [1, 1] : tensor<64x256xf32> to tensor<61x250xf32>
// AVX512:   linalg.matmul ins({{.*}} : tensor<1x100xf32>, tensor<100x250xf32>)
// AVX512-NOT: lighthouse.strategy
// AVX2-LABEL: func.func @padded(
// AVX2:   tensor.pad %{{.*}} low[0, 0] high[3, 4]
// AVX2:   tensor.pad %{{.*}} low[0, 0] high[4, 6]
// AVX2:   linalg.matmul {lighthouse.strategy = {{{.*}}kind = "contraction.blocked"{{.*}}}} {{.*}} -> tensor<64x256xf32>
func.func @padded(%a: tensor<61x100xf32>, %b: tensor<100x250xf32>, %c: tensor<61x250xf32>, %v: tensor<1x100xf32>, %d: tensor<1x250xf32>) -> (tensor<61x250xf32>, tensor<1x250xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<61x100xf32>, tensor<100x250xf32>) outs(%c : tensor<61x250xf32>) -> tensor<61x250xf32>
  %s = linalg.matmul ins(%v, %b : tensor<1x100xf32>, tensor<100x250xf32>) outs(%d : tensor<1x250xf32>) -> tensor<1x250xf32>
  return %r, %s : tensor<61x250xf32>, tensor<1x250xf32>
}

// -----

// A batch of matmuls: a loop over the batch of 2-D matmuls (generics of the
// matmul's form), an scf.forall across the threads when the batch holds 2M
// multiply-adds or more; inside it, the matmuls split nothing further.
// AVX512-LABEL: func.func @batch(
// AVX512:   scf.forall (%{{.*}}) in (48)
// AVX512:     linalg.generic {{.*}}lighthouse.strategy = {cache = array<i64: 128, 128, 64>, kind = "contraction.blocked", registers = array<i64: 8, 32, 8>}
// AVX512:   scf.for
// AVX512:     linalg.generic {{.*}}lighthouse.strategy = {cache = array<i64: 16, 32, 8>, kind = "contraction.blocked", registers = array<i64: 8, 32, 8>}
// AVX2-LABEL: func.func @batch(
// AVX2:   scf.forall (%{{.*}}) in (48)
// AVX2:     linalg.generic {{.*}}lighthouse.strategy = {cache = array<i64: 128, 128, 64>, kind = "contraction.blocked", registers = array<i64: 8, 16, 8>}
func.func @batch(%a: tensor<48x128x64xf32>, %b: tensor<48x64x128xf32>, %c: tensor<48x128x128xf32>,
                 %x: tensor<2x16x8xf32>, %y: tensor<2x8x32xf32>, %z: tensor<2x16x32xf32>) -> (tensor<48x128x128xf32>, tensor<2x16x32xf32>) {
  %r = linalg.batch_matmul ins(%a, %b : tensor<48x128x64xf32>, tensor<48x64x128xf32>) outs(%c : tensor<48x128x128xf32>) -> tensor<48x128x128xf32>
  %s = linalg.batch_matmul ins(%x, %y : tensor<2x16x8xf32>, tensor<2x8x32xf32>) outs(%z : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %r, %s : tensor<48x128x128xf32>, tensor<2x16x32xf32>
}

// -----

// A 1-D convolution is a 2-D one of height 1; a 3-D one a loop over output
// depths (across the threads from 2M multiply-adds) of a loop over filter
// depths of 2-D ones (generics): the register kernel takes them.
// AVX512-LABEL: func.func @convolutions_1d_3d(
// AVX512:   tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 8, 1, 66]
// AVX512:   linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 1, 16, 0, 0, 0>}
// AVX512:   scf.forall (%{{.*}}) in (6)
// AVX512:     scf.for
// AVX512:       linalg.generic {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 2, 12, 0, 0, 0>}
// AVX2-LABEL: func.func @convolutions_1d_3d(
// AVX2:   linalg.conv_2d_nchw_fchw {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 4, 1, 8, 0, 0, 0>}
// AVX2:   scf.forall (%{{.*}}) in (6)
// AVX2:       linalg.generic {{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 4, 2, 6, 0, 0, 0>}
func.func @convolutions_1d_3d(%x: tensor<1x8x66xf32>, %w: tensor<16x8x3xf32>, %o: tensor<1x16x64xf32>,
                              %v: tensor<1x16x8x22x14xf32>, %k: tensor<32x16x3x3x3xf32>, %p: tensor<1x32x6x20x12xf32>)
    -> (tensor<1x16x64xf32>, tensor<1x32x6x20x12xf32>) {
  %r = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%x, %w : tensor<1x8x66xf32>, tensor<16x8x3xf32>) outs(%o : tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %s = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%v, %k : tensor<1x16x8x22x14xf32>, tensor<32x16x3x3x3xf32>) outs(%p : tensor<1x32x6x20x12xf32>) -> tensor<1x32x6x20x12xf32>
  return %r, %s : tensor<1x16x64xf32>, tensor<1x32x6x20x12xf32>
}

// -----

// Wide windows over many channels (a transposed 1-D convolution's: 16
// columns x 512 channels): the kernel takes windows up to 11 columns, and
// 1-D windows unroll pixels x channels x columns, so a row of 16 pixels
// takes the input channels in parts of 8 (2,048 multiply-adds).
// AVX512-LABEL: func.func @wide_windows(
// AVX512: lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 8, 1, 16, 8, 1, 0>
// AVX2-LABEL: func.func @wide_windows(
// AVX2: lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 8, 1, 16, 8, 1, 0>
func.func @wide_windows(%x: tensor<1x512x527xf32>, %w: tensor<256x512x16xf32>, %o: tensor<1x256x512xf32>) -> tensor<1x256x512xf32> {
  %r = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%x, %w : tensor<1x512x527xf32>, tensor<256x512x16xf32>) outs(%o : tensor<1x256x512xf32>) -> tensor<1x256x512xf32>
  return %r : tensor<1x256x512xf32>
}

// -----

// A row of 49 pixels over 512 channels and 2 columns (wav2vec2's last
// feature convolutions) would unroll 50,176 multiply-adds as 1-D windows:
// the input channels are taken in parts of 16 (1,568). (AVX2's kernel
// takes it in blocks of 7 pixels.)
// AVX512-LABEL: func.func @long_window_rows(
// AVX512: lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 8, 1, 49, 16, 1, 0>
// AVX2-LABEL: func.func @long_window_rows(
// AVX2: lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 4, 1, 7, 0, 0, 0>
func.func @long_window_rows(%x: tensor<1x512x99xf32>, %w: tensor<512x512x2xf32>, %o: tensor<1x512x49xf32>) -> tensor<1x512x49xf32> {
  %r = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
      ins(%x, %w : tensor<1x512x99xf32>, tensor<512x512x2xf32>) outs(%o : tensor<1x512x49xf32>) -> tensor<1x512x49xf32>
  return %r : tensor<1x512x49xf32>
}

// -----

// A reduction of the innermost loops that every operand reads contiguously
// (a mean over H x W) is collapsed into one reduced loop first.
// AVX512-LABEL: func.func @spatial_mean(
// AVX512:   tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<4x256x56x56xf32> into tensor<4x256x3136xf32>
// AVX512:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 1, 1, 0>, threads = array<i64: 2, 0, 0>, vector = array<i64: 0, 0, 64>}
// AVX2-LABEL: func.func @spatial_mean(
// AVX2:   linalg.generic {{.*}}lighthouse.strategy = {kind = "reduction.rows"
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#nc = affine_map<(n, c, h, w) -> (n, c)>
func.func @spatial_mean(%x: tensor<4x256x56x56xf32>, %s: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %r = linalg.generic {indexing_maps = [#nchw, #nc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x256x56x56xf32>) outs(%s : tensor<4x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<4x256xf32>
  return %r : tensor<4x256xf32>
}

// -----

// An empty matmul (K = 0: C is its init) is neither padded nor split.
// AVX512-LABEL: func.func @empty_matmuls(
// AVX512-NOT: tensor.pad
// AVX512-NOT: scf.for
// AVX512: return
// AVX2-LABEL: func.func @empty_matmuls(
// AVX2-NOT: tensor.pad
func.func @empty_matmuls(%a: tensor<61x0xf32>, %b: tensor<0x250xf32>, %c: tensor<61x250xf32>,
                         %x: tensor<3x61x0xf32>, %y: tensor<3x0x250xf32>, %z: tensor<3x61x250xf32>) -> (tensor<61x250xf32>, tensor<3x61x250xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<61x0xf32>, tensor<0x250xf32>) outs(%c : tensor<61x250xf32>) -> tensor<61x250xf32>
  %s = linalg.batch_matmul ins(%x, %y : tensor<3x61x0xf32>, tensor<3x0x250xf32>) outs(%z : tensor<3x61x250xf32>) -> tensor<3x61x250xf32>
  return %r, %s : tensor<61x250xf32>, tensor<3x61x250xf32>
}

// -----

// The sum of a whole tensor: its loops collapsed into one, reduced as one
// row in vectors of 64 partial sums, on one thread.
// AVX512-LABEL: func.func @whole_sum(
// AVX512:   tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<256x1000xf32> into tensor<256000xf32>
// AVX512:   linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}}lighthouse.strategy = {kind = "reduction.rows", vector = array<i64: 64>}
// AVX2-LABEL: func.func @whole_sum(
// AVX2:   linalg.generic {{.*}}lighthouse.strategy = {kind = "reduction.rows", vector = array<i64: 64>}
func.func @whole_sum(%x: tensor<256x1000xf32>, %s: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<256x1000xf32>) outs(%s : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A row's maximum and the index of its first occurrence (torch-mlir's argmax)
// become row reductions: the maximum, then the least position holding it
// (positions read from a tensor: the reduction's vector tiles would restart
// linalg.index at 0), the initial index where no element exceeds the initial
// maximum; the op itself where some maximum is NaN.
// AVX512-LABEL: func.func @argmax(
// AVX512:   %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[X:.*]] : tensor<128x1000xf32>) outs(%[[LOWEST:.*]] : tensor<128xf32>) attrs = {lighthouse.strategy = {kind = "reduction.rows"
// AVX512:     arith.maximumf
// AVX512:   %[[POS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1000xi64>)
// AVX512:     linalg.index 0
// AVX512:   %[[FIRST:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]], %[[POS]] : tensor<128x1000xf32>, tensor<128xf32>, tensor<1000xi64>) {{.*}}lighthouse.strategy = {kind = "reduction.rows", registers = array<i64: 8, 0>, vector = array<i64: 0, 8>}
// AVX512:     arith.cmpf oeq
// AVX512:     arith.minsi
// AVX512:   %[[INDEX:.*]] = linalg.generic {{.*}} ins(%[[MAX]], %[[LOWEST]], %[[FIRST]] : tensor<128xf32>, tensor<128xf32>, tensor<128xi64>) outs(%[[ZEROS:.*]] : tensor<128xi64>)
// AVX512:     arith.cmpf ogt
// AVX512:   %[[NAN:.*]] = tensor.extract
// AVX512:   %[[R:.*]]:2 = scf.if %[[NAN]]
// AVX512:     linalg.generic {{.*}} outs(%[[LOWEST]], %[[ZEROS]] : tensor<128xf32>, tensor<128xi64>)
// AVX512:   } else {
// AVX512:     scf.yield %[[MAX]], %[[INDEX]]
// AVX512:   return %[[R]]#1
// AVX2-LABEL: func.func @argmax(
// AVX2: scf.if
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @argmax(%x: tensor<128x1000xf32>) -> tensor<128xi64> {
  %zero = arith.constant 0 : i64
  %lowest = arith.constant 0xFF800000 : f32
  %ei = tensor.empty() : tensor<128xi64>
  %zeros = linalg.fill ins(%zero : i64) outs(%ei : tensor<128xi64>) -> tensor<128xi64>
  %ef = tensor.empty() : tensor<128xf32>
  %lowests = linalg.fill ins(%lowest : f32) outs(%ef : tensor<128xf32>) -> tensor<128xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x1000xf32>) outs(%lowests, %zeros : tensor<128xf32>, tensor<128xi64>) {
  ^bb0(%in: f32, %value: f32, %index: i64):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %m = arith.maximumf %in, %value : f32
    %gt = arith.cmpf ogt, %in, %value : f32
    %i = arith.select %gt, %ki, %index : i64
    linalg.yield %m, %i : f32, i64
  } -> (tensor<128xf32>, tensor<128xi64>)
  return %r#1 : tensor<128xi64>
}

// -----

// Output rows of 2047 columns, which no block of 8 to 16 pixels divides: the
// pooling is split into 2032 columns (blocks of 16) and the last 15 (one
// block), each taking the register kernel; with AVX2's 8 lanes, 2040 and 7.
// AVX512-LABEL: func.func @odd_width_pooling(
// AVX512:   %[[MAIN:.*]] = linalg.pooling_nchw_max {{{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 1, 16, 0, 0>}{{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x1x4065xf32>, tensor<1x3xf32>) outs(%{{.*}} : tensor<1x16x1x2032xf32>)
// AVX512:   %[[FIRST:.*]] = tensor.insert_slice %[[MAIN]]
// AVX512:   linalg.pooling_nchw_max {{{.*}}lighthouse.strategy = {kind = "convolution.rows", registers = array<i64: 1, 8, 1, 15, 0, 0>}{{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x1x31xf32>, tensor<1x3xf32>) outs(%{{.*}} : tensor<1x16x1x15xf32>)
// AVX2-LABEL: func.func @odd_width_pooling(
// AVX2: registers = array<i64: 1, 4, 1, 8, 0, 0>{{.*}} outs(%{{.*}} : tensor<1x16x1x2040xf32>)
// AVX2: registers = array<i64: 1, 4, 1, 7, 0, 0>{{.*}} outs(%{{.*}} : tensor<1x16x1x7xf32>)
func.func @odd_width_pooling(%x: tensor<1x16x1x4096xf32>) -> tensor<1x16x1x2047xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x16x1x2047xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x16x1x2047xf32>) -> tensor<1x16x1x2047xf32>
  %w = tensor.empty() : tensor<1x3xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>}
      ins(%x, %w : tensor<1x16x1x4096xf32>, tensor<1x3xf32>) outs(%init : tensor<1x16x1x2047xf32>) -> tensor<1x16x1x2047xf32>
  return %p : tensor<1x16x1x2047xf32>
}
