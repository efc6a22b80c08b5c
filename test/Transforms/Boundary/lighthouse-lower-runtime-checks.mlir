// RUN: lh-opt %s --lighthouse-lower-runtime-checks | FileCheck %s

// Each distinct message becomes one global; each assert a call of the runtime
// when its condition fails.
// CHECK-DAG:   llvm.mlir.global private constant @[[SIZE:lighthouse_check[_0-9]*]]("sizes differ\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[ZERO:lighthouse_check[_0-9]*]]("zero divisor\00")
// CHECK-DAG:   func.func private @lighthouseRuntimeCheckFailed(!llvm.ptr)
// CHECK-LABEL: func.func @checks
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         %[[FAILED:.*]] = arith.xori %{{.*}}, %[[TRUE]] : i1
// CHECK:         scf.if %[[FAILED]] {
// CHECK:           %[[MESSAGE:.*]] = llvm.mlir.addressof @[[SIZE]] : !llvm.ptr
// CHECK:           func.call @lighthouseRuntimeCheckFailed(%[[MESSAGE]]) : (!llvm.ptr) -> ()
// CHECK:         }
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             llvm.mlir.addressof @[[ZERO]]
// CHECK:         scf.if
// CHECK:           llvm.mlir.addressof @[[SIZE]]
// CHECK-NOT:     cf.assert
func.func @checks(%n: index, %m: index, %d: i32) {
  %same = arith.cmpi eq, %n, %m : index
  cf.assert %same, "sizes differ"
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  scf.for %i = %c0 to %n step %c1 {
    %nonzero = arith.cmpi ne, %d, %zero : i32
    cf.assert %nonzero, "zero divisor"
  }
  cf.assert %same, "sizes differ"
  return
}

// A nested module gets its own declaration and globals.
// CHECK-LABEL: module @inner
// CHECK-DAG:     llvm.mlir.global private constant @{{.*}}("inner check\00")
// CHECK-DAG:     func.func private @lighthouseRuntimeCheckFailed(!llvm.ptr)
// CHECK:         func.func @nested
// CHECK:           func.call @lighthouseRuntimeCheckFailed
module @inner {
  func.func @nested(%ok: i1) {
    cf.assert %ok, "inner check"
    return
  }
}

// In a parallel loop a failed check keeps aborting: it may fail on another
// thread than the caller's.
// CHECK-LABEL: func.func @parallel
// CHECK:         scf.forall
// CHECK-NEXT:      cf.assert %{{.*}}, "in a thread"
func.func @parallel(%ok: i1) {
  scf.forall (%i) in (2) {
    cf.assert %ok, "in a thread"
  }
  return
}
