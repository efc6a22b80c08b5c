// RUN: lh-opt %s --split-input-file --verify-diagnostics --lighthouse-lower-tm-tensor

// Nothing is known about tm_tensor ops but what the lowering checks: ops it
// has no lowering for, and ops not as torch-mlir builds them, are errors.

func.func @unknown(%q: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tm_tensor.attention' op cannot be lowered by lighthouse: no lowering of this op}}
  %r = "tm_tensor.attention"(%q, %q, %q, %q) <{operandSegmentSizes = array<i32: 3, 1>}> : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @no_segments(%x: tensor<5xf32>, %acc: tensor<f32>) -> tensor<5xf32> {
  // expected-error @+1 {{cannot be lowered by lighthouse: expected operandSegmentSizes for ins and outs}}
  %r:2 = "tm_tensor.scan"(%x, %x, %acc) <{dimension = 0 : i64, inclusive = true}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (tensor<5xf32>, tensor<5xf32>, tensor<f32>) -> (tensor<5xf32>, tensor<f32>)
  return %r#0 : tensor<5xf32>
}

// -----

func.func @dimension_out_of_range(%x: tensor<5xf32>, %acc: tensor<f32>) -> tensor<5xf32> {
  // expected-error @+1 {{expected a dimension in [0, 1)}}
  %r:2 = "tm_tensor.scan"(%x, %x, %acc) <{dimension = 3 : i64, inclusive = true, operandSegmentSizes = array<i32: 1, 2>}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (tensor<5xf32>, tensor<5xf32>, tensor<f32>) -> (tensor<5xf32>, tensor<f32>)
  return %r#0 : tensor<5xf32>
}

// -----

func.func @map_out_of_range(%u: tensor<3xf32>, %i: tensor<3x1xi64>, %orig: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{dimension_map names dimension 2 of 1}}
  %r = "tm_tensor.scatter"(%u, %i, %orig) <{dimension_map = array<i64: 2>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%new: f32, %old: f32):
    "tm_tensor.yield"(%new) : (f32) -> ()
  }) : (tensor<3xf32>, tensor<3x1xi64>, tensor<6xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// -----

func.func @comparator_not_i1(%v: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected the region to yield one 'i1'}}
  %r = "tm_tensor.sort"(%v) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 0, 1>}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @unranked(%v: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{expected ranked tensor operands}}
  %r = "tm_tensor.sort"(%v) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 0, 1>}> ({
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    "tm_tensor.yield"(%lt) : (i1) -> ()
  }) : (tensor<*xf32>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

func.func @no_dimension_map(%u: tensor<3xf32>, %i: tensor<3x1xi64>, %orig: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{expected a dimension_map}}
  %r = "tm_tensor.scatter"(%u, %i, %orig) <{operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%new: f32, %old: f32):
    "tm_tensor.yield"(%new) : (f32) -> ()
  }) : (tensor<3xf32>, tensor<3x1xi64>, tensor<6xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}
