// RUN: lh-opt %s --pass-pipeline="builtin.module(func.func(lighthouse-pads-in-place))" | FileCheck %s
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-read-only-arguments,func.func(lighthouse-pads-in-place),canonicalize,eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-deallocation-pipeline)" | FileCheck %s --check-prefix=BUFFERS

#identity = affine_map<(n, c, h, w) -> (n, c, h, w)>

// A padded ReLU: fills of the padded tensor's borders (rows 0 and 9, then
// columns 0 and 9 of every row) and an insert of the ReLU's result. Once
// bufferized, the ReLU writes into the interior of the padded buffer: no
// second buffer, no copy, and the interior is written once.
// CHECK-LABEL: func.func @relu_then_pad
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x4x10x10xf32>
// CHECK:         %[[TOP:.*]] = tensor.extract_slice %[[EMPTY]][0, 0, 0, 0] [1, 4, 1, 10] [1, 1, 1, 1]
// CHECK:         %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[TOP]] : tensor<1x4x1x10xf32>)
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %[[FILLED]] into %[[EMPTY]][0, 0, 0, 0] [1, 4, 1, 10] [1, 1, 1, 1]
// CHECK:         tensor.extract_slice %[[PADDED]][0, 0, 9, 0] [1, 4, 1, 10] [1, 1, 1, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 4, 10, 1] [1, 1, 1, 1]
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0, 9] [1, 4, 10, 1] [1, 1, 1, 1]
// CHECK:         tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK-NOT:     tensor.pad
// BUFFERS-LABEL: func.func @relu_then_pad
// BUFFERS:         %[[PADDED:.*]] = memref.alloc() {{.*}} : memref<1x4x10x10xf32>
// BUFFERS:         %[[TOP:.*]] = memref.subview %[[PADDED]][0, 0, 0, 0] [1, 4, 1, 10] [1, 1, 1, 1]
// BUFFERS:         linalg.fill {{.*}} outs(%[[TOP]] :
// BUFFERS-COUNT-3: linalg.fill
// BUFFERS:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// BUFFERS:         linalg.generic {{.*}} outs(%[[INTERIOR]] : memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>)
// BUFFERS-NOT:     memref.alloc
// BUFFERS-NOT:     memref.copy
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

// The case of padded convolutions and poolings: a convolution computed into
// the interior of its consumer's padded input.
// BUFFERS-LABEL: func.func @conv_then_pad
// BUFFERS:         %[[PADDED:.*]] = memref.alloc() {{.*}} : memref<1x4x10x10xf32>
// BUFFERS:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// BUFFERS:         linalg.fill {{.*}} outs(%[[INTERIOR]]
// BUFFERS:         linalg.conv_2d_nchw_fchw {{.*}} outs(%[[INTERIOR]]
// BUFFERS-NOT:     memref.copy
func.func @conv_then_pad(%x: tensor<1x3x10x10xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %padded = tensor.pad %conv low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  return %padded : tensor<1x4x10x10xf32>
}

// A dynamic batch: the padded tensor's size is read off the ReLU's input,
// and the ReLU still writes into the padded buffer.
// BUFFERS-LABEL: func.func @dynamic_batch_then_pad
// BUFFERS:         %[[PADDED:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?x4x10x10xf32>
// BUFFERS:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 0, 1, 1]
// BUFFERS:         linalg.generic {{.*}} outs(%[[INTERIOR]]
// BUFFERS-NOT:     memref.copy
func.func @dynamic_batch_then_pad(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %batch = tensor.dim %x, %c0 : tensor<?x4x8x8xf32>
  %empty = tensor.empty(%batch) : tensor<?x4x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#identity, #identity],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x4x8x8xf32>) outs(%empty : tensor<?x4x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x4x8x8xf32>
  %padded = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x4x8x8xf32> to tensor<?x4x10x10xf32>
  return %padded : tensor<?x4x10x10xf32>
}

// A tensor that another op then overwrites (the doubled ReLU, returned
// too): the ReLU is computed in the padded buffer, and the doubling works
// on a copy of it.
// BUFFERS-LABEL: func.func @written_in_place_then_pad
// BUFFERS:         %[[PADDED:.*]] = memref.alloc() {{.*}} : memref<1x4x10x10xf32>
// BUFFERS:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 0, 1, 1]
// BUFFERS:         linalg.generic {{.*}} outs(%[[INTERIOR]]
// BUFFERS:         %[[DOUBLED:.*]] = memref.alloc() {{.*}} : memref<1x4x8x8xf32>
// BUFFERS:         memref.copy %[[INTERIOR]], %[[DOUBLED]]
// BUFFERS:         linalg.generic {{.*}} outs(%[[DOUBLED]]
// BUFFERS:         return %[[PADDED]], %[[DOUBLED]]
func.func @written_in_place_then_pad(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x10x10xf32>, tensor<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x4x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#identity, #identity],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x8x8xf32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x8x8xf32>
  %doubled = linalg.generic {indexing_maps = [#identity],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%relu : tensor<1x4x8x8xf32>) {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  } -> tensor<1x4x8x8xf32>
  %padded = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  return %padded, %doubled : tensor<1x4x10x10xf32>, tensor<1x4x8x8xf32>
}


// A roll by nothing: the concatenation's empty operand (cast to a dynamic
// size) is dropped, and the other one is the result.
// CHECK-LABEL: func.func @concat_of_an_empty_operand(
// CHECK-SAME:    %[[X:.*]]: tensor<1x8x4xf32>)
// CHECK:         %[[ALL:.*]] = tensor.cast %[[X]] : tensor<1x8x4xf32> to tensor<1x?x4xf32>
// CHECK-NOT:     tensor.concat
// CHECK:         %[[R:.*]] = tensor.cast %[[ALL]] : tensor<1x?x4xf32> to tensor<1x8x4xf32>
// CHECK:         return %[[R]] : tensor<1x8x4xf32>
func.func @concat_of_an_empty_operand(%x: tensor<1x8x4xf32>) -> tensor<1x8x4xf32> {
  %all = tensor.cast %x : tensor<1x8x4xf32> to tensor<1x?x4xf32>
  %none = tensor.extract_slice %x[0, 0, 0] [1, 0, 4] [1, 1, 1] : tensor<1x8x4xf32> to tensor<1x0x4xf32>
  %empty = tensor.cast %none : tensor<1x0x4xf32> to tensor<1x?x4xf32>
  %r = tensor.concat dim(1) %all, %empty : (tensor<1x?x4xf32>, tensor<1x?x4xf32>) -> tensor<1x8x4xf32>
  return %r : tensor<1x8x4xf32>
}


// Of three, the two that are not empty stay concatenated.
// CHECK-LABEL: func.func @concat_of_three(
// CHECK:         %[[R:.*]] = tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
// CHECK:         return %[[R]]
func.func @concat_of_three(%a: tensor<2x4xf32>, %b: tensor<0x4xf32>, %c: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %r = tensor.concat dim(0) %a, %b, %c : (tensor<2x4xf32>, tensor<0x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}
