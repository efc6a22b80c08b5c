// RUN: lh-opt %s --split-input-file --verify-diagnostics --lighthouse-insert-runtime-checks

// Sizes no memory holds are refused at compile time.
func.func @too_large() -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{a tensor of 'tensor<4611686018427387904x4xf32>' holds more bytes than memory can}}
  %e = tensor.empty() : tensor<4611686018427387904x4xf32>
  return %e : tensor<4611686018427387904x4xf32>
}

// -----

// A static pad of -2^63 is MLIR's marker of a dynamic one, which the
// verifier lets through without the operand it stands for.
func.func @pad_of_the_dynamic_marker(%a: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %zero = arith.constant 0.5 : f32
  // expected-error @+1 {{a static pad of -9223372036854775808, MLIR's marker of a dynamic pad}}
  %r = tensor.pad %a low[-9223372036854775808, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<3x4xf32> to tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// Whichever op makes a tensor: a pad to a size no memory holds.
func.func @pad_too_large(%a: tensor<3x4xf32>, %h: index) -> tensor<9223372036854775807x6xf32> {
  %zero = arith.constant 0.5 : f32
  // expected-error @+1 {{a tensor of 'tensor<9223372036854775807x6xf32>' holds more bytes than memory can}}
  %r = tensor.pad %a low[1, 2] high[%h, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<3x4xf32> to tensor<9223372036854775807x6xf32>
  return %r : tensor<9223372036854775807x6xf32>
}
