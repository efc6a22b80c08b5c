// RUN: lh-opt %s --split-input-file --lighthouse-lower-tm-tensor | FileCheck %s
// The whole CPU pipeline bufferizes the loops in place: each tensor written
// is copied once from the argument it starts as (arguments are read-only),
// none per iteration.
// RUN: lh-opt %s --split-input-file --lighthouse-cpu-loops | FileCheck %s --check-prefix=LLVM

// tm_tensor ops are spelled in the generic form: lighthouse holds them as
// unknown operations of a stand-in dialect.

// An inclusive running sum along dimension 1: the first element is copied,
// the others combine the previous output with the input, and the
// accumulator keeps the last.
// CHECK-LABEL: func.func @cumsum
// CHECK-SAME:    (%[[X:.*]]: tensor<3x5xf32>, %[[OUT:.*]]: tensor<3x5xf32>, %[[ACC:.*]]: tensor<3xf32>)
// CHECK:       scf.for %[[I:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O:[^ ]+]] = %[[OUT]], %[[A:[^ ]+]] = %[[ACC]])
// CHECK:         scf.for %[[J:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O2:[^ ]+]] = %[[O]], %[[A2:[^ ]+]] = %[[A]])
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[J]]
// CHECK:           scf.if %[[FIRST]]
// CHECK:             %[[V:.*]] = tensor.extract %[[X]][%[[I]], %[[J]]]
// CHECK:             tensor.insert %[[V]] into %[[O2]][%[[I]], %[[J]]]
// CHECK:           } else {
// CHECK:             %[[PREV:.*]] = arith.subi %[[J]]
// CHECK:             %[[P:.*]] = tensor.extract %[[O2]][%[[I]], %[[PREV]]]
// CHECK:             %[[C:.*]] = tensor.extract %[[X]][%[[I]], %[[J]]]
// CHECK:             %[[S:.*]] = arith.addf %[[P]], %[[C]] : f32
// CHECK-NOT:         tm_tensor
// CHECK:             tensor.insert %[[S]] into %[[O2]][%[[I]], %[[J]]]
// CHECK:             tensor.insert %[[S]] into %[[A2]][%[[I]]]
// CHECK-NOT:   tm_tensor
// LLVM-LABEL: llvm.func @cumsum(
// LLVM-COUNT-2: llvm.intr.memcpy
// LLVM-NOT:   llvm.intr.memcpy
// LLVM-LABEL: llvm.func @_mlir_ciface_cumsum
func.func @cumsum(%x: tensor<3x5xf32>, %out: tensor<3x5xf32>, %acc: tensor<3xf32>) -> tensor<3x5xf32> {
  %r:2 = "tm_tensor.scan"(%x, %out, %acc) <{dimension = 1 : i64, inclusive = true, operandSegmentSizes = array<i32: 1, 2>}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3xf32>) -> (tensor<3x5xf32>, tensor<3xf32>)
  return %r#0 : tensor<3x5xf32>
}

// -----

// index_put with accumulate: rows of updates added at the rows the indices
// name. Negative indices count from the end; the index is checked.
// CHECK-LABEL: func.func @index_add
// CHECK-SAME:    (%[[U:.*]]: tensor<3x1x4xf32>, %[[IDX:.*]]: tensor<3x1xi64>, %[[ORIG:.*]]: tensor<6x4xf32>)
// CHECK-DAG:   %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
// CHECK:       scf.for %[[N:[^ ]+]] =
// CHECK:         scf.for %[[J:[^ ]+]] =
// CHECK:           scf.for %[[K:[^ ]+]] = {{.*}} iter_args(%[[T:[^ ]+]] =
// CHECK:             %[[RAW:.*]] = tensor.extract %[[IDX]][%[[N]], %{{.*}}]
// CHECK:             %[[I:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK:             %[[NEG:.*]] = arith.cmpi slt, %[[I]]
// CHECK:             %[[WRAPPED:.*]] = arith.addi %[[I]], %[[C6]]
// CHECK:             %[[ROW0:.*]] = arith.select %[[NEG]], %[[WRAPPED]], %[[I]]
// CHECK:             %[[ROW:.*]] = arith.addi %[[ROW0]], %[[J]]
// CHECK:             %[[IN0:.*]] = arith.cmpi ult, %[[ROW]], %[[C6]]
// CHECK:             %[[IN1:.*]] = arith.cmpi ult, %[[K]], %[[C4]]
// CHECK:             cf.assert %{{.*}}, "scatter index out of bounds"
// CHECK:             %[[NEW:.*]] = tensor.extract %[[U]][%[[N]], %[[J]], %[[K]]]
// CHECK:             %[[OLD:.*]] = tensor.extract %[[T]][%[[ROW]], %[[K]]]
// CHECK:             %[[SUM:.*]] = arith.addf %[[OLD]], %[[NEW]]
// CHECK:             tensor.insert %[[SUM]] into %[[T]][%[[ROW]], %[[K]]]
// LLVM-LABEL: llvm.func @index_add(
// LLVM-COUNT-1: llvm.intr.memcpy
// LLVM:       llvm.call @lighthouseRuntimeCheckFailed
// LLVM-NOT:   llvm.intr.memcpy
// LLVM-LABEL: llvm.func @_mlir_ciface_index_add
func.func @index_add(%u: tensor<3x1x4xf32>, %i: tensor<3x1xi64>, %orig: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %r = "tm_tensor.scatter"(%u, %i, %orig) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%new: f32, %old: f32):
    %s = arith.addf %old, %new : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<3x1x4xf32>, tensor<3x1xi64>, tensor<6x4xf32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// -----

// A sort of values and their positions along a dynamic dimension: rounds of
// merges into scratch tensors and back, the comparator asked both ways.
// CHECK-LABEL: func.func @argsort
// CHECK-SAME:    (%[[V:.*]]: tensor<4x?xf32>, %[[P:.*]]: tensor<4x?xi64>)
// CHECK:       %[[N:.*]] = tensor.dim %[[V]], %{{.*}}
// CHECK-DAG:   bufferization.alloc_tensor(%[[N]]) : tensor<4x?xf32>
// CHECK-DAG:   bufferization.alloc_tensor(%[[N]]) : tensor<4x?xi64>
// CHECK:       scf.for
// CHECK:         scf.while
// CHECK:           arith.cmpi slt, %{{.*}}, %[[N]]
// CHECK:           scf.condition
// CHECK:         } do {
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               arith.cmpf oge
// CHECK:               arith.cmpf oge
// CHECK:               arith.select
// CHECK-COUNT-2:       tensor.insert
// CHECK:           scf.for
// CHECK:             scf.for
// LLVM-LABEL: llvm.func @argsort(
// LLVM-COUNT-2: llvm.intr.memcpy
// LLVM-NOT:   llvm.intr.memcpy
// LLVM-LABEL: llvm.func @_mlir_ciface_argsort
func.func @argsort(%v: tensor<4x?xf32>, %p: tensor<4x?xi64>) -> (tensor<4x?xf32>, tensor<4x?xi64>) {
  %r:2 = "tm_tensor.sort"(%v, %p) <{dimension = 1 : i64, operandSegmentSizes = array<i32: 0, 2>}> ({
  ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
    %ge = arith.cmpf oge, %a, %b : f32
    "tm_tensor.yield"(%ge) : (i1) -> ()
  }) : (tensor<4x?xf32>, tensor<4x?xi64>) -> (tensor<4x?xf32>, tensor<4x?xi64>)
  return %r#0, %r#1 : tensor<4x?xf32>, tensor<4x?xi64>
}

// -----

// The 2 largest of each row, without input positions: each element is
// carried down the k places.
// CHECK-LABEL: func.func @topk
// CHECK:       scf.for %{{.*}} =
// CHECK:         scf.for %[[J:[^ ]+]] =
// CHECK:           %[[POS:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[POS]],
// CHECK-COUNT-2:     arith.cmpf ogt
// CHECK-COUNT-2:     tensor.insert
// LLVM-LABEL: llvm.func @topk(
// LLVM-COUNT-2: llvm.intr.memcpy
// LLVM-NOT:   llvm.intr.memcpy
// LLVM-LABEL: llvm.func @_mlir_ciface_topk
func.func @topk(%x: tensor<3x5xf32>, %tv: tensor<3x2xf32>, %ti: tensor<3x2xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %r:2 = "tm_tensor.topk"(%x, %tv, %ti) <{dimension = 1 : i64, operandSegmentSizes = array<i32: 1, 2>}> ({
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    "tm_tensor.yield"(%gt) : (i1) -> ()
  }) : (tensor<3x5xf32>, tensor<3x2xf32>, tensor<3x2xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %r#0, %r#1 : tensor<3x2xf32>, tensor<3x2xi64>
}
