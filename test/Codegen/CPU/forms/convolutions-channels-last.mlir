// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1" | FileCheck %s
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=1 skip=convolutions-channels-last" | FileCheck %s --check-prefix=SKIP
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx2 threads=1" | FileCheck %s --check-prefix=AVX2
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-prepare-forms="target=avx512 threads=2" | FileCheck %s --check-prefix=THREADS
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-schedule="target=avx512 threads=1" | FileCheck %s --check-prefix=STRATEGY

// A residual block (ResNet's): two padded 3x3 convolutions of 64 channels,
// a ReLU between them, the residual sum and a ReLU after. Both run in NHWC,
// each in a loop over 2 blocks of 32 output channels whose filters are
// packed at compile time; the ReLU and the second pad run in NHWC between
// them: the image goes into NHWC once (padded), and the second convolution's
// output out of it before the residual sum, whose other operand is NCHW.
// CHECK-LABEL: func.func @basic_block
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x64x18x18xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:           linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x18x18x64xf32>, tensor<3x3x64x32xf32>) outs(%{{.*}} : tensor<1x16x16x32xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<1x16x16x64xf32>)
// CHECK:           arith.maximumf
// CHECK:         tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         scf.for
// CHECK:           linalg.conv_2d_nhwc_hwcf
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x16x16x64xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT:     linalg.transpose
// CHECK:         return
// On 2 threads, its filters (36,864 floats) larger than its image (20,736),
// the two blocks are split across the threads, each reading half of the
// filters (where the image is the larger, the strategy splits each block's
// rows instead).
// THREADS-LABEL: func.func @basic_block
// THREADS:         scf.forall (%{{.*}}) = (0) to (64) step (32)
// THREADS:           linalg.conv_2d_nhwc_hwcf
// THREADS:         scf.forall (%{{.*}}) = (0) to (64) step (32)
// THREADS:           linalg.conv_2d_nhwc_hwcf
// SKIP-LABEL:  func.func @basic_block
// SKIP-NOT:      linalg.transpose
// SKIP-COUNT-2:  linalg.conv_2d_nchw_fchw
// Each block: 8 pixels of a row by 32 channels, over a loop of window rows,
// of window columns, of 8 input channels at a time, each input element
// broadcast into an FMA on the block's channels.
// STRATEGY-LABEL: func.func @basic_block
// STRATEGY:         scf.for {{.*}} -> (vector<1x8x32xf32>)
// STRATEGY:           scf.for {{.*}} -> (vector<1x8x32xf32>)
// STRATEGY:             scf.for {{.*}} -> (vector<1x8x32xf32>)
// STRATEGY-COUNT-64:      vector.fma {{.*}} : vector<32xf32>
#map = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @basic_block(%x: tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32> {
  %w1 = arith.constant dense<0.01> : tensor<64x64x3x3xf32>
  %w2 = arith.constant dense<0.02> : tensor<64x64x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x64x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %p1 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x64x16x16xf32> to tensor<1x64x18x18xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p1, %w1 : tensor<1x64x18x18xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %r1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x64x16x16xf32>) outs(%empty : tensor<1x64x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x16x16xf32>
  %p2 = tensor.pad %r1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x64x16x16xf32> to tensor<1x64x18x18xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p2, %w2 : tensor<1x64x18x18xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %r2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %x : tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>) outs(%empty : tensor<1x64x16x16xf32>) {
  ^bb0(%in: f32, %res: f32, %out: f32):
    %s = arith.addf %in, %res : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x16x16xf32>
  return %r2 : tensor<1x64x16x16xf32>
}

// -----

// Two residual blocks: each residual sum runs in NHWC. The first's
// shortcut, the image, is transposed into NHWC for it: its result goes into
// NHWC (the second block's convolution) or into a sum that runs there (the
// second block's); the second's reads two transposes out of NHWC. Three
// transposes are left: the image into NHWC, padded for the first
// convolution and plain for the first shortcut, and the result out of it.
// CHECK-LABEL: func.func @two_blocks
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x32x18x18xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.transpose ins(%arg0 : tensor<1x32x16x16xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x16x32xf32>, tensor<1x16x16x32xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x16x32xf32>, tensor<1x16x16x32xf32>)
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x16x16x32xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT:     linalg.transpose
// CHECK:         return
// SKIP-LABEL:  func.func @two_blocks
// SKIP-NOT:      linalg.transpose
// SKIP:          return
#map = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @two_blocks(%x: tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32> {
  %w = arith.constant dense<0.01> : tensor<32x32x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x32x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %p1a = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
  %c1a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p1a, %w : tensor<1x32x18x18xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %r1a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1a : tensor<1x32x16x16xf32>) outs(%empty : tensor<1x32x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x16x16xf32>
  %p1b = tensor.pad %r1a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
  %c1b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p1b, %w : tensor<1x32x18x18xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %r1b = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1b, %x : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) outs(%empty : tensor<1x32x16x16xf32>) {
  ^bb0(%in: f32, %res: f32, %out: f32):
    %s = arith.addf %in, %res : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x16x16xf32>
  %p2a = tensor.pad %r1b low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
  %c2a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p2a, %w : tensor<1x32x18x18xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %r2a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2a : tensor<1x32x16x16xf32>) outs(%empty : tensor<1x32x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x16x16xf32>
  %p2b = tensor.pad %r2a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
  %c2b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p2b, %w : tensor<1x32x18x18xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %r2b = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2b, %r1b : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) outs(%empty : tensor<1x32x16x16xf32>) {
  ^bb0(%in: f32, %res: f32, %out: f32):
    %s = arith.addf %in, %res : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x16x16xf32>
  return %r2b : tensor<1x32x16x16xf32>
}

// -----

// A residual sum whose result is also the function's: its transpose out of
// NHWC stays for that use, so the sum stays in NCHW and its shortcut (the
// image) is not transposed into NHWC for it, which would be one transpose
// more. The image goes into NHWC padded, for the convolution alone.
// CHECK-LABEL: func.func @sum_also_returned
// CHECK-NOT:     linalg.transpose ins(%arg0
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %arg0 : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>)
// CHECK:         return
#map = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @sum_also_returned(%x: tensor<1x32x16x16xf32>) -> (tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) {
  %w = arith.constant dense<0.01> : tensor<32x32x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x32x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x32x18x18xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %x : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) outs(%empty : tensor<1x32x16x16xf32>) {
  ^bb0(%in: f32, %res: f32, %out: f32):
    %s = arith.addf %in, %res : f32
    linalg.yield %s : f32
  } -> tensor<1x32x16x16xf32>
  %ps = tensor.pad %sum low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
  %next = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%ps, %w : tensor<1x32x18x18xf32>, tensor<32x32x3x3xf32>) outs(%init : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
  return %next, %sum : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>
}

// -----

// A strided block's shortcut, a 1x1 convolution of stride 2 of the image
// a channels-last convolution made, is a matmul of every other NHWC pixel:
// the residual sum runs in NHWC (on the matmul's rows), and no transpose is
// left between the first convolution and the sum.
// CHECK-LABEL: func.func @strided_shortcut
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x32x34x34xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} strides = dense<2>
// CHECK-NOT:     linalg.transpose
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 16, 16, 32] [1, 2, 2, 1]
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<256x32xf32>, tensor<32x64xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<256x64xf32>, tensor<256x64xf32>)
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x16x16x64xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         return
#map = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @strided_shortcut(%image: tensor<1x32x32x32xf32>) -> tensor<1x64x16x16xf32> {
  %w0 = arith.constant dense<0.03> : tensor<32x32x3x3xf32>
  %w = arith.constant dense<0.01> : tensor<64x32x3x3xf32>
  %ws = arith.constant dense<0.02> : tensor<64x32x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty0 = tensor.empty() : tensor<1x32x32x32xf32>
  %init0 = linalg.fill ins(%zero : f32) outs(%empty0 : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %p0 = tensor.pad %image low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x32xf32> to tensor<1x32x34x34xf32>
  %c0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p0, %w0 : tensor<1x32x34x34xf32>, tensor<32x32x3x3xf32>) outs(%init0 : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c0 : tensor<1x32x32x32xf32>) outs(%empty0 : tensor<1x32x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x32x32xf32>
  %empty = tensor.empty() : tensor<1x64x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x32xf32> to tensor<1x32x34x34xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x32x34x34xf32>, tensor<64x32x3x3xf32>) outs(%init : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %s = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %ws : tensor<1x32x32x32xf32>, tensor<64x32x1x1xf32>) outs(%init : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %s : tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>) outs(%empty : tensor<1x64x16x16xf32>) {
  ^bb0(%in: f32, %res: f32, %out: f32):
    %a = arith.addf %in, %res : f32
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x16x16xf32>
  return %r : tensor<1x64x16x16xf32>
}

// -----

// The packed filter, for AVX2 (blocks of two registers of 8 lanes; AVX-512's
// one block of 32 is the whole filter): block b, window point (kh, kw),
// input channel c holds output channels 16b to 16b + 15 contiguously; its
// first 4 values are the filter's W[0..3][0][0][0].
// AVX2-LABEL: func.func @packed
// AVX2:         %[[BLOCKS:.*]] = arith.constant dense<"0x000040BF000080BE0000803E0000403F{{.*}}"> : tensor<2x1x2x4x16xf32>
// AVX2:         scf.for %[[F:.*]] = %c0 to %c32 step %c16
// AVX2:           %[[B:.*]] = affine.apply #{{.*}}(%[[F]])
// AVX2:           %[[W:.*]] = tensor.extract_slice %[[BLOCKS]][%[[B]], 0, 0, 0, 0] [1, 1, 2, 4, 16] [1, 1, 1, 1, 1] : tensor<2x1x2x4x16xf32> to tensor<1x2x4x16xf32>
// AVX2:           linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x8x9x4xf32>, tensor<1x2x4x16xf32>)
func.func @packed(%x: tensor<1x4x8x9xf32>, %init: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = arith.constant dense<[
      [[[-0.75, 0.125]], [[-0.625, 0.25]], [[-0.5, 0.375]], [[-0.375, 0.5]]],
      [[[-0.25, 0.625]], [[-0.125, 0.75]], [[0.0, -0.75]], [[0.125, -0.625]]],
      [[[0.25, -0.5]], [[0.375, -0.375]], [[0.5, -0.25]], [[0.625, -0.125]]],
      [[[0.75, 0.0]], [[-0.75, 0.125]], [[-0.625, 0.25]], [[-0.5, 0.375]]],
      [[[-0.375, 0.5]], [[-0.25, 0.625]], [[-0.125, 0.75]], [[0.0, -0.75]]],
      [[[0.125, -0.625]], [[0.25, -0.5]], [[0.375, -0.375]], [[0.5, -0.25]]],
      [[[0.625, -0.125]], [[0.75, 0.0]], [[-0.75, 0.125]], [[-0.625, 0.25]]],
      [[[-0.5, 0.375]], [[-0.375, 0.5]], [[-0.25, 0.625]], [[-0.125, 0.75]]],
      [[[0.0, -0.75]], [[0.125, -0.625]], [[0.25, -0.5]], [[0.375, -0.375]]],
      [[[0.5, -0.25]], [[0.625, -0.125]], [[0.75, 0.0]], [[-0.75, 0.125]]],
      [[[-0.625, 0.25]], [[-0.5, 0.375]], [[-0.375, 0.5]], [[-0.25, 0.625]]],
      [[[-0.125, 0.75]], [[0.0, -0.75]], [[0.125, -0.625]], [[0.25, -0.5]]],
      [[[0.375, -0.375]], [[0.5, -0.25]], [[0.625, -0.125]], [[0.75, 0.0]]],
      [[[-0.75, 0.125]], [[-0.625, 0.25]], [[-0.5, 0.375]], [[-0.375, 0.5]]],
      [[[-0.25, 0.625]], [[-0.125, 0.75]], [[0.0, -0.75]], [[0.125, -0.625]]],
      [[[0.25, -0.5]], [[0.375, -0.375]], [[0.5, -0.25]], [[0.625, -0.125]]],
      [[[0.75, 0.0]], [[-0.75, 0.125]], [[-0.625, 0.25]], [[-0.5, 0.375]]],
      [[[-0.375, 0.5]], [[-0.25, 0.625]], [[-0.125, 0.75]], [[0.0, -0.75]]],
      [[[0.125, -0.625]], [[0.25, -0.5]], [[0.375, -0.375]], [[0.5, -0.25]]],
      [[[0.625, -0.125]], [[0.75, 0.0]], [[-0.75, 0.125]], [[-0.625, 0.25]]],
      [[[-0.5, 0.375]], [[-0.375, 0.5]], [[-0.25, 0.625]], [[-0.125, 0.75]]],
      [[[0.0, -0.75]], [[0.125, -0.625]], [[0.25, -0.5]], [[0.375, -0.375]]],
      [[[0.5, -0.25]], [[0.625, -0.125]], [[0.75, 0.0]], [[-0.75, 0.125]]],
      [[[-0.625, 0.25]], [[-0.5, 0.375]], [[-0.375, 0.5]], [[-0.25, 0.625]]],
      [[[-0.125, 0.75]], [[0.0, -0.75]], [[0.125, -0.625]], [[0.25, -0.5]]],
      [[[0.375, -0.375]], [[0.5, -0.25]], [[0.625, -0.125]], [[0.75, 0.0]]],
      [[[-0.75, 0.125]], [[-0.625, 0.25]], [[-0.5, 0.375]], [[-0.375, 0.5]]],
      [[[-0.25, 0.625]], [[-0.125, 0.75]], [[0.0, -0.75]], [[0.125, -0.625]]],
      [[[0.25, -0.5]], [[0.375, -0.375]], [[0.5, -0.25]], [[0.625, -0.125]]],
      [[[0.75, 0.0]], [[-0.75, 0.125]], [[-0.625, 0.25]], [[-0.5, 0.375]]],
      [[[-0.375, 0.5]], [[-0.25, 0.625]], [[-0.125, 0.75]], [[0.0, -0.75]]],
      [[[0.125, -0.625]], [[0.25, -0.5]], [[0.375, -0.375]], [[0.5, -0.25]]]]> : tensor<32x4x1x2xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x8x9xf32>, tensor<32x4x1x2xf32>) outs(%init : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %r : tensor<1x32x8x8xf32>
}

// -----

// Left to the other forms and the register kernel: a filter given at run
// time (a packed copy would be made on every call), a stem of 3 input
// channels, a pointwise convolution, rows of 13 pixels (blocks of one).
// CHECK-LABEL: func.func @left
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK:         return
func.func @left(%x: tensor<1x64x18x18xf32>, %w: tensor<64x64x3x3xf32>, %stem: tensor<1x3x18x18xf32>, %odd: tensor<1x64x15x15xf32>) -> (tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>, tensor<1x64x18x18xf32>, tensor<1x64x13x13xf32>) {
  %ws = arith.constant dense<0.01> : tensor<64x3x3x3xf32>
  %wp = arith.constant dense<0.01> : tensor<64x64x1x1xf32>
  %wo = arith.constant dense<0.01> : tensor<64x64x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %ep = tensor.empty() : tensor<1x64x18x18xf32>
  %initp = linalg.fill ins(%zero : f32) outs(%ep : tensor<1x64x18x18xf32>) -> tensor<1x64x18x18xf32>
  %eo = tensor.empty() : tensor<1x64x13x13xf32>
  %inito = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x64x13x13xf32>) -> tensor<1x64x13x13xf32>
  %r0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x64x18x18xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %r1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%stem, %ws : tensor<1x3x18x18xf32>, tensor<64x3x3x3xf32>) outs(%init : tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %r2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %wp : tensor<1x64x18x18xf32>, tensor<64x64x1x1xf32>) outs(%initp : tensor<1x64x18x18xf32>) -> tensor<1x64x18x18xf32>
  %r3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%odd, %wo : tensor<1x64x15x15xf32>, tensor<64x64x3x3xf32>) outs(%inito : tensor<1x64x13x13xf32>) -> tensor<1x64x13x13xf32>
  return %r0, %r1, %r2, %r3 : tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>, tensor<1x64x18x18xf32>, tensor<1x64x13x13xf32>
}
