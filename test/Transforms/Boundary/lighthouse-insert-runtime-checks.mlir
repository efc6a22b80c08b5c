// RUN: lh-opt %s --split-input-file --lighthouse-insert-runtime-checks --canonicalize | FileCheck %s

// x[i]: the row index, read from %i in the body, is computed again in a loop
// over the dimension it varies along and checked there; the column index,
// the loop's position, is checked once against the loop's size (folded
// here). The generic itself keeps no check.
// CHECK-LABEL: func.func @gather_rows
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK:       %[[ROWS:.*]] = tensor.dim %[[X]], %c0
// CHECK:       scf.for %[[N:.*]] = %c0 to %c2 step %c1 {
// CHECK:         %[[RAW:.*]] = tensor.extract %[[I]][%[[N]]]
// CHECK:         %[[ROW:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
// CHECK:         cf.assert %[[OK]], "tensor.extract at {{.*}}: index out of bounds"
// CHECK:       }
// CHECK:       linalg.generic
// CHECK-NOT:     cf.assert
// CHECK:         tensor.extract %[[X]]
// CHECK:       linalg.yield
#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gather_rows(%x: tensor<?x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%i : tensor<2xi64>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%in: i64, %out: f32):
    %row = arith.index_cast %in : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %x[%row, %col] : tensor<?x3xf32>
    linalg.yield %v : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// A concatenation of two dynamic batches: the batches must agree.
// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<?x4xf32>)
// CHECK-DAG:   %[[NA:.*]] = tensor.dim %[[A]], %c0
// CHECK-DAG:   %[[NB:.*]] = tensor.dim %[[B]], %c0
// CHECK:       %[[SAME:.*]] = arith.cmpi eq, %[[NB]], %[[NA]]
// CHECK:       cf.assert %[[SAME]], "tensor.concat at {{.*}}: operands of different sizes along a dimension they are not concatenated along"
// CHECK:       tensor.concat
func.func @concat(%a: tensor<?x3xf32>, %b: tensor<?x4xf32>) -> tensor<?x7xf32> {
  %r = tensor.concat dim(1) %a, %b : (tensor<?x3xf32>, tensor<?x4xf32>) -> tensor<?x7xf32>
  return %r : tensor<?x7xf32>
}

// -----

// An elementwise op on two dynamic sizes, and a cast to the static size a
// model declares: MLIR's runtime verification of each, named after the op.
// CHECK-LABEL: func.func @add_then_cast
// CHECK:       cf.assert %{{.*}}, "linalg.generic at {{.*}}: dimension #0 of input/output operand #1 is incompatible with inferred dimension size"
// CHECK:       linalg.generic
// CHECK:       cf.assert %{{.*}}, "tensor.cast at {{.*}}: size mismatch of dim 0"
#id1 = affine_map<(d0) -> (d0)>
func.func @add_then_cast(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %c = tensor.cast %r : tensor<?xf32> to tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// An index computed from what the op accumulates cannot be computed apart:
// it is checked where it is read.
// CHECK-LABEL: func.func @index_from_the_output
// CHECK:       linalg.generic
// CHECK:         cf.assert %{{.*}}, "tensor.extract at {{.*}}
// CHECK:         tensor.extract
func.func @index_from_the_output(%x: tensor<?xf32>, %steps: tensor<?xf32>, %start: tensor<i64>) -> tensor<i64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%steps : tensor<?xf32>) outs(%start : tensor<i64>) {
  ^bb0(%step: f32, %at: i64):
    %i = arith.index_cast %at : i64 to index
    %v = tensor.extract %x[%i] : tensor<?xf32>
    %w = arith.addf %v, %step : f32
    %n = arith.fptosi %w : f32 to i64
    linalg.yield %n : i64
  } -> tensor<i64>
  return %r : tensor<i64>
}

// -----

// Turned off by the module.
// CHECK-LABEL: func.func @unchecked
// CHECK-NOT:   cf.assert
module attributes {lighthouse.runtime_checks = false} {
  func.func @unchecked(%a: tensor<?x3xf32>, %b: tensor<?x4xf32>) -> tensor<?x7xf32> {
    %r = tensor.concat dim(1) %a, %b : (tensor<?x3xf32>, tensor<?x4xf32>) -> tensor<?x7xf32>
    return %r : tensor<?x7xf32>
  }
}

// -----

// Pads given at run time are not negative; a reshape's sizes are not
// negative and hold the source's elements; a new tensor's dynamic sizes
// keep its bytes countable.
// CHECK-LABEL: func.func @sizes_given_at_run_time
// CHECK-SAME:    (%[[X:.*]]: tensor<?xf32>, %[[H:.*]]: index, %[[SHAPE:.*]]: tensor<2xi64>, %[[N:.*]]: index)
// CHECK:       %[[PAD_OK:.*]] = arith.cmpi sge, %[[H]], %c0
// CHECK:       cf.assert %[[PAD_OK]], "tensor.pad at {{.*}}: negative padding"
// CHECK:       tensor.pad
// CHECK:       %[[ROWS:.*]] = tensor.extract %[[SHAPE]][%c0]
// CHECK:       %[[COLS:.*]] = tensor.extract %[[SHAPE]][%c1]
// CHECK:       cf.assert %{{.*}}, "tensor.reshape at {{.*}}: the shape does not hold the source's elements"
// CHECK:       tensor.reshape
// CHECK:       %[[ROOM:.*]] = arith.cmpi ule, %[[N]], %{{.*}}
// CHECK:       cf.assert %[[ROOM]], "tensor.empty at {{.*}}: a tensor of these sizes holds more bytes than memory can"
// CHECK:       tensor.empty(%[[N]])
func.func @sizes_given_at_run_time(%x: tensor<?xf32>, %h: index, %shape: tensor<2xi64>, %n: index)
    -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1] high[%h] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<?xf32> to tensor<?xf32>
  %r = tensor.reshape %x(%shape) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?x1024xf32>
  return %p, %r, %e : tensor<?xf32>, tensor<?x?xf32>, tensor<?x1024xf32>
}

// -----

// An expansion into two sizes given at run time: they are not negative and
// multiply to the dimension they split; a group of static sizes (the
// 768) is MLIR's own to check.
// CHECK-LABEL: func.func @expanded_into_sizes_given_at_run_time
// CHECK-SAME:    (%[[X:.*]]: tensor<?x768xf32>, %[[B:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG:   %[[B_OK:.*]] = arith.cmpi sge, %[[B]], %c0
// CHECK-DAG:   %[[N_OK:.*]] = arith.cmpi sge, %[[N]], %c0
// CHECK-DAG:   %[[ROWS:.*]] = tensor.dim %[[X]], %c0
// CHECK-DAG:   %[[PRODUCT:.*]] = arith.muli %[[B]], %[[N]]
// CHECK-DAG:   %[[HOLDS:.*]] = arith.cmpi eq, %[[PRODUCT]], %[[ROWS]]
// CHECK:       cf.assert %{{.*}}, "tensor.expand_shape at {{.*}}: the sizes do not hold the expanded dimension"
// CHECK-NOT:   cf.assert
// CHECK:       tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2]] output_shape [%[[B]], %[[N]], 768]
func.func @expanded_into_sizes_given_at_run_time(%x: tensor<?x768xf32>, %b: index, %n: index)
    -> tensor<?x?x768xf32> {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%b, %n, 768]
      : tensor<?x768xf32> into tensor<?x?x768xf32>
  return %e : tensor<?x?x768xf32>
}

// -----

// The size of a dimension a tensor does not have: its check always fails,
// and the size, never used past it, is not left for later folds to read.
// CHECK-LABEL: func.func @dim_out_of_range
// CHECK:       cf.assert %false, "tensor.dim at {{.*}}: index is out of bounds"
// CHECK-NEXT:  return %c0 : index
func.func @dim_out_of_range(%a: tensor<?x4xf32>) -> index {
  %c = arith.constant -1 : index
  %n = tensor.dim %a, %c : tensor<?x4xf32>
  return %n : index
}

// -----

// A slice's positions along each dimension, offset + k * stride for k below
// its size, lie in the tensor it reads or writes, whichever way the stride
// goes (the count of steps against the room the offset leaves, so that
// nothing wraps); an insert's source has the sizes of the slice; a pad
// given at run time makes the static size of its result.
// CHECK-LABEL: func.func @slices_and_pads
// CHECK-SAME:    (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<?xf32>, %[[AT:.*]]: index, %[[STEP:.*]]: index, %[[N:.*]]: index, %[[H:.*]]: index)
// CHECK:       %[[BACKWARDS:.*]] = arith.cmpi slt, %[[STEP]], %c0
// CHECK:       %[[ROOM:.*]] = arith.select %[[BACKWARDS]], %[[AT]], %{{.*}}
// CHECK:       %[[STRIDE:.*]] = arith.select %[[BACKWARDS]], %{{.*}}, %{{.*}}
// CHECK:       %[[STEPS:.*]] = arith.divui %[[ROOM]], %[[STRIDE]]
// CHECK:       cf.assert %{{.*}}, "tensor.extract_slice at {{.*}}: the slice runs out of the source"
// CHECK:       tensor.extract_slice %[[A]][%[[AT]]] [3] [%[[STEP]]]
// CHECK:       cf.assert %{{.*}}, "tensor.insert_slice at {{.*}}: the slice runs out of the destination"
// CHECK:       %[[INSERTED:.*]] = tensor.dim %[[B]], %c0
// CHECK:       %[[SAME:.*]] = arith.cmpi eq, %[[INSERTED]], %[[N]]
// CHECK:       cf.assert %[[SAME]], "tensor.insert_slice at {{.*}}: the inserted tensor's sizes differ from the slice's"
// CHECK:       tensor.insert_slice %[[B]] into %[[A]][%[[AT]]] [%[[N]]] [1]
// CHECK:       %[[PADDED:.*]] = arith.addi %{{.*}}, %{{.*}}
// CHECK:       %[[SIZED:.*]] = arith.cmpi eq, %[[PADDED]], %c12
// CHECK:       cf.assert %[[SIZED]], "tensor.pad at {{.*}}: the padded sizes differ from the result type's"
// CHECK:       tensor.pad %[[A]] low[1] high[%[[H]]]
func.func @slices_and_pads(%a: tensor<8xf32>, %b: tensor<?xf32>, %at: index, %step: index,
                           %n: index, %h: index) -> (tensor<3xf32>, tensor<8xf32>, tensor<12xf32>) {
  %s = tensor.extract_slice %a[%at] [3] [%step] : tensor<8xf32> to tensor<3xf32>
  %i = tensor.insert_slice %b into %a[%at] [%n] [1] : tensor<?xf32> into tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1] high[%h] {
  ^bb0(%k: index):
    tensor.yield %zero : f32
  } : tensor<8xf32> to tensor<12xf32>
  return %s, %i, %p : tensor<3xf32>, tensor<8xf32>, tensor<12xf32>
}
