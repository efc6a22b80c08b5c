// RUN: lh-opt %s --pass-pipeline="builtin.module(func.func(lighthouse-pads-in-place))" | FileCheck %s
// RUN: lh-opt %s --pass-pipeline="builtin.module(func.func(lighthouse-pads-in-place),eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize)" | FileCheck %s --check-prefix=BUFFERS

#identity = affine_map<(n, c, h, w) -> (n, c, h, w)>

// A padded ReLU: a fill of the padded tensor and an insert of the ReLU's
// result. Once bufferized, the ReLU writes into the interior of the padded
// buffer: no second buffer, no copy.
// CHECK-LABEL: func.func @relu_then_pad
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x4x10x10xf32>
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<1x4x10x10xf32>)
// CHECK:         tensor.insert_slice %{{.*}} into %[[FILL]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK-NOT:     tensor.pad
// BUFFERS-LABEL: func.func @relu_then_pad
// BUFFERS:         %[[PADDED:.*]] = memref.alloc() {{.*}} : memref<1x4x10x10xf32>
// BUFFERS:         linalg.fill {{.*}} outs(%[[PADDED]] : memref<1x4x10x10xf32>)
// BUFFERS:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// BUFFERS:         linalg.generic {{.*}} outs(%[[INTERIOR]] : memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>)
// BUFFERS-NOT:     memref.alloc
// BUFFERS-NOT:     memref.copy
// BUFFERS:         return %[[PADDED]]
func.func @relu_then_pad(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x4x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#identity, #identity],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x8x8xf32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x8x8xf32>
  %padded = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  return %padded : tensor<1x4x10x10xf32>
}

// A padded argument is still copied, into the interior of the padded buffer.
// BUFFERS-LABEL: func.func @argument_then_pad
// BUFFERS:         %[[PADDED:.*]] = memref.alloc() {{.*}} : memref<1x4x10x10xf32>
// BUFFERS:         linalg.fill
// BUFFERS:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// BUFFERS:         memref.copy %arg0, %[[INTERIOR]]
func.func @argument_then_pad(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  return %padded : tensor<1x4x10x10xf32>
}

// A padding value that depends on the position is a tensor.generate.
// CHECK-LABEL: func.func @position_dependent_padding
// CHECK:         %[[PADDED:.*]] = tensor.generate
// CHECK:           arith.sitofp
// CHECK:         tensor.insert_slice %arg0 into %[[PADDED]][0, 1] [4, 8] [1, 1]
// CHECK-NOT:     tensor.pad
func.func @position_dependent_padding(%x: tensor<4x8xf32>) -> tensor<4x10xf32> {
  %padded = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    %c = arith.index_cast %j : index to i32
    %f = arith.sitofp %c : i32 to f32
    tensor.yield %f : f32
  } : tensor<4x8xf32> to tensor<4x10xf32>
  return %padded : tensor<4x10xf32>
}
