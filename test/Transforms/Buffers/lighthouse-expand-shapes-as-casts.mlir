// RUN: lh-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(lighthouse-expand-shapes-as-casts))" | FileCheck %s
// RUN: lh-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(lighthouse-expand-shapes-as-casts,expand-strided-metadata))" | FileCheck %s --check-prefix=METADATA

// Rows of a batch and a sequence, both dynamic, back into [b, n, 768]: a
// cast of the source's buffer, strides n * 768, 768, 1.
// CHECK-DAG:   #[[ROWS:.*]] = affine_map<()[s0] -> (s0 * 768)>
// CHECK-LABEL: func.func @batch_and_sequence(
// CHECK-SAME:    %[[A:.*]]: memref<?x768xf32>, %[[B:.*]]: index, %[[N:.*]]: index)
// CHECK:         %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK:         %[[STRIDE:.*]] = affine.apply #[[ROWS]]()[%[[N]]]
// CHECK:         memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[B]], %[[N]], 768], strides: [%[[STRIDE]], 768, 1] : memref<f32> to memref<?x?x768xf32>
// CHECK-NOT:     memref.expand_shape
// METADATA-LABEL: func.func @batch_and_sequence(
// METADATA-NOT:   memref.expand_shape
// METADATA:       memref.reinterpret_cast
func.func @batch_and_sequence(%a: memref<?x768xf32>, %b: index, %n: index) -> memref<1x1x64xf32, strided<[?, 768, 1], offset: ?>> {
  %c0 = arith.constant 0 : index
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%b, %n, 768] : memref<?x768xf32> into memref<?x?x768xf32>
  %s = memref.subview %e[%c0, %c0, 64] [1, 1, 64] [1, 1, 1] : memref<?x?x768xf32> to memref<1x1x64xf32, strided<[?, 768, 1], offset: ?>>
  return %s : memref<1x1x64xf32, strided<[?, 768, 1], offset: ?>>
}

// -----

// A strided source: the innermost dimension of a group steps as the source
// dimension did, the offset is the source's.
// CHECK-DAG:   #[[OUTER:.*]] = affine_map<()[s0, s1] -> (s0 * s1)>
// CHECK-LABEL: func.func @strided_source(
// CHECK-SAME:    %[[A:.*]]: memref<?x4xf32, strided<[?, 1], offset: ?>>, %[[X:.*]]: index, %[[Y:.*]]: index)
// CHECK:         %[[BASE:.*]], %[[OFFSET:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK:         %[[STRIDE:.*]] = affine.apply #[[OUTER]]()[%[[STRIDES]]#0, %[[Y]]]
// CHECK:         memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]], sizes: [%[[X]], %[[Y]], 4], strides: [%[[STRIDE]], %[[STRIDES]]#0, 1]
func.func @strided_source(%a: memref<?x4xf32, strided<[?, 1], offset: ?>>, %x: index, %y: index) -> memref<?x?x4xf32, strided<[?, ?, 1], offset: ?>> {
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%x, %y, 4] : memref<?x4xf32, strided<[?, 1], offset: ?>> into memref<?x?x4xf32, strided<[?, ?, 1], offset: ?>>
  return %e : memref<?x?x4xf32, strided<[?, ?, 1], offset: ?>>
}

// -----

// One dynamic size per group: expand-strided-metadata takes it as it is.
// CHECK-LABEL: func.func @one_dynamic_size(
// CHECK:         memref.expand_shape
// CHECK-NOT:     memref.reinterpret_cast
func.func @one_dynamic_size(%a: memref<?x768xf32>, %b: index) -> memref<?x12x64xf32> {
  %e = memref.expand_shape %a [[0], [1, 2]] output_shape [%b, 12, 64] : memref<?x768xf32> into memref<?x12x64xf32>
  return %e : memref<?x12x64xf32>
}
