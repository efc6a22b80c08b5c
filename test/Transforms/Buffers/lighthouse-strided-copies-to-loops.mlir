// RUN: lh-opt %s --lighthouse-strided-copies-to-loops | FileCheck %s

// A copy into the interior of a padded buffer becomes linalg.copy; a copy
// between contiguous buffers stays memref.copy.
// CHECK-LABEL: func.func @pad_interior(
// CHECK-SAME:    %[[IMAGE:.*]]: memref<1x3x16x16xf32>, %[[PADDED:.*]]: memref<1x3x18x18xf32>, %[[OTHER:.*]]: memref<1x3x16x16xf32>)
// CHECK:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 0, 1, 1] [1, 3, 16, 16] [1, 1, 1, 1]
// CHECK:         linalg.copy ins(%[[IMAGE]] : memref<1x3x16x16xf32>) outs(%[[INTERIOR]] : memref<1x3x16x16xf32, strided<[972, 324, 18, 1], offset: 19>>)
// CHECK-NOT:     memref.copy %[[IMAGE]]
// CHECK:         memref.copy %[[IMAGE]], %[[OTHER]] : memref<1x3x16x16xf32> to memref<1x3x16x16xf32>
func.func @pad_interior(%image: memref<1x3x16x16xf32>, %padded: memref<1x3x18x18xf32>, %other: memref<1x3x16x16xf32>) {
  %interior = memref.subview %padded[0, 0, 1, 1] [1, 3, 16, 16] [1, 1, 1, 1]
      : memref<1x3x18x18xf32> to memref<1x3x16x16xf32, strided<[972, 324, 18, 1], offset: 19>>
  memref.copy %image, %interior : memref<1x3x16x16xf32> to memref<1x3x16x16xf32, strided<[972, 324, 18, 1], offset: 19>>
  memref.copy %image, %other : memref<1x3x16x16xf32> to memref<1x3x16x16xf32>
  return
}
