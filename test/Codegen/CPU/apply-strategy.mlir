// Strategies written by hand, applied without selection: each kind's builder
// alone, and the errors of strategies that do not fit their op.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-apply-strategy --verify-diagnostics | FileCheck %s

// Rows of 16 of a 4x32 elementwise op: tiled into 1x16 rows, vectorized, and
// the strategy removed.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK: math.exp {{.*}} : vector<1x16xf32>
// CHECK-NOT: lighthouse.strategy
#id = affine_map<(i, j) -> (i, j)>
func.func @rows(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %e = tensor.empty() : tensor<4x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>)
      attrs = {lighthouse.strategy = {kind = "elementwise.rows", vector = array<i64: 1, 16>}} {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// -----

// A matmul in register tiles of 4x16x4 inside one 16x32 block of C: FMAs on
// vectors of 16.
// CHECK-LABEL: func.func @matmul
// CHECK: vector.fma {{.*}} : vector<16xf32>
func.func @matmul(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul {lighthouse.strategy = {kind = "contraction.blocked", cache = array<i64: 16, 32, 8>, registers = array<i64: 4, 16, 4>}}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// The strategy is applied with the matmul, its fill and its fused bias in a
// function of their own, inlined back after: the function's ops, the clone
// of the fill among them, compute in place, and no function or call is left.
// CHECK-LABEL: func.func @matmul_bias
// CHECK-NOT: call
// CHECK: linalg.fill
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: arith.addf {{.*}} : vector<{{.*}}16xf32>
// CHECK: return
// CHECK-NOT: func.func private @__lighthouse_root
#row = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @matmul_bias(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m = linalg.matmul {lighthouse.strategy = {kind = "contraction.blocked", cache = array<i64: 16, 32, 8>, registers = array<i64: 4, 16, 4>, consumers = 1, fill_c, vector = array<i64: 1, 16>}}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>)
      attrs = {lighthouse.strategy = {kind = "fused"}} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

func.func @unknown_kind(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{lighthouse.strategy: unknown kind 'tiles'}}
  %r = linalg.add {lighthouse.strategy = {kind = "tiles"}} ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @too_many_sizes(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{lighthouse.strategy: 2 sizes for an op of 1 loops}}
  %r = linalg.add {lighthouse.strategy = {kind = "elementwise.rows", vector = array<i64: 1, 4>}} ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @not_a_matmul(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{contraction.blocked takes a matmul C(m, n) += A(m, k) * B(k, n)}}
  %r = linalg.add {lighthouse.strategy = {kind = "contraction.blocked", registers = array<i64: 4>}} ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @missing_consumers(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @below {{contraction.blocked names 1 consumers; the chain of single-use generics has 0}}
  %r = linalg.matmul {lighthouse.strategy = {kind = "contraction.blocked", cache = array<i64: 16, 32, 8>, registers = array<i64: 4, 16, 4>, consumers = 1}}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

func.func @two_thread_splits(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{lighthouse.strategy: `threads` and `thread_counts` exclude each other}}
  %r = linalg.add {lighthouse.strategy = {kind = "elementwise.rows", threads = array<i64: 2>, thread_counts = array<i64: 2>}} ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @negative_size(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{lighthouse.strategy: `vector` must be an array<i64> of sizes >= 0}}
  %r = linalg.add {lighthouse.strategy = {kind = "elementwise.rows", vector = array<i64: -4>}} ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%y : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// An op of no iterations computes nothing: its loop of size 0 is no tile size.
func.func @no_iterations(%x: tensor<4x0xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{lighthouse.strategy is for ops with iterations; this op has a loop of size 0 (its results are its inits)}}
  %r = linalg.generic {lighthouse.strategy = {kind = "reduction.rows", vector = array<i64: 0, 8>}, indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x0xf32>) outs(%y : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// linalg vectorizes 1-D windows casting their inputs to the output's type by
// widening only.
func.func @windows_narrowing(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf64>, %y: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @below {{convolution.windows takes inputs whose elements are the output's or widen to them}}
  %r = linalg.conv_2d_nchw_fchw {lighthouse.strategy = {kind = "convolution.windows", registers = array<i64: 1, 4, 1, 6, 0, 1, 0>}, dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
       ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf64>) outs(%y : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}
