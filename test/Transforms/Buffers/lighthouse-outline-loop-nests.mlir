// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-outline-loop-nests{nests-per-function=2 merge-equivalent=false})" | FileCheck %s
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-outline-loop-nests{nests-per-function=2 merge-equivalent=false},convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)" | FileCheck %s --check-prefix=LLVM
// RUN: not lh-opt %s --pass-pipeline="builtin.module(lighthouse-outline-loop-nests{nests-per-function=0})" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: nests-per-function must be at least 1, got 0

memref.global "private" constant @weights : memref<8xf32> = dense<2.0>

// Three nests, at most two a function: the first two and the alloc between
// them move into one function, which returns the alloc that the caller still
// uses; the third into another, which returns the sum. Constants and the
// global's address are recomputed in the callees, not passed.
// CHECK-LABEL: func.func @three_nests(
// CHECK-SAME:      %[[A:.*]]: memref<8xf32>
// CHECK:         %[[BUFFER:.*]] = call @three_nests_nests(%[[A]]) : (memref<8xf32>) -> memref<8xf32>
// CHECK-NEXT:    %[[SUM:.*]] = call @three_nests_nests_0(%[[BUFFER]]) : (memref<8xf32>) -> f32
// CHECK-NEXT:    memref.dealloc %[[BUFFER]]
// CHECK-NEXT:    return %[[SUM]]
// CHECK:       func.func private @three_nests_nests(%[[ARG:.*]]: memref<8xf32>) -> memref<8xf32> attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-DAG:     arith.constant 1.000000e+00 : f32
// CHECK-DAG:     memref.get_global @weights
// CHECK:         scf.for
// CHECK:         %[[ALLOC:.*]] = memref.alloc()
// CHECK:         scf.for
// CHECK:         return %[[ALLOC]]
// CHECK:       func.func private @three_nests_nests_0(%{{.*}}: memref<8xf32>) -> f32 attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK:         scf.for
// LLVM-LABEL: llvm.func @three_nests(
// LLVM:         llvm.call @three_nests_nests(
// LLVM:         llvm.call @three_nests_nests_0(
// LLVM:       llvm.func internal @three_nests_nests({{.*}} attributes {passthrough = ["noinline"]
// LLVM:       llvm.func internal @three_nests_nests_0({{.*}}) -> f32 attributes {passthrough = ["noinline"]
func.func @three_nests(%a: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %weights = memref.get_global @weights : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  %buffer = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    %w = memref.load %weights[%i] : memref<8xf32>
    %y = arith.mulf %x, %w : f32
    memref.store %y, %buffer[%i] : memref<8xf32>
  }
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %buffer[%i] : memref<8xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  memref.dealloc %buffer : memref<8xf32>
  return %sum : f32
}

// Stack memory stays with the caller, which passes it on: the alloca ends a
// run.
// CHECK-LABEL: func.func @stack(
// CHECK:         call @stack_nests(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    %[[SCRATCH:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:    call @stack_nests_1(%{{.*}}, %[[SCRATCH]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:    return
func.func @stack(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  %scratch = memref.alloca() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %scratch[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %scratch[%i] : memref<8xf32>
    memref.store %x, %a[%i] : memref<8xf32>
  }
  return
}

// Saving and restoring the stack pointer, and an allocation on the stack
// nested in an op, stay in the caller too; the nests between them move.
// CHECK-LABEL: func.func @stack_pointer(
// CHECK:         call @stack_pointer_nests(
// CHECK-NEXT:    %[[SAVED:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT:    call @stack_pointer_nests_2(
// CHECK-NEXT:    llvm.intr.stackrestore %[[SAVED]]
// CHECK-NEXT:    %[[NESTED:.*]] = scf.if
// CHECK:           memref.alloca
// CHECK:         call @stack_pointer_nests_3(%[[NESTED]], %{{.*}})
func.func @stack_pointer(%a: memref<8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  %saved = llvm.intr.stacksave : !llvm.ptr
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  llvm.intr.stackrestore %saved : !llvm.ptr
  %nested = scf.if %flag -> memref<8xf32> {
    %scratch = memref.alloca() : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %one, %scratch[%i] : memref<8xf32>
    }
    scf.yield %scratch : memref<8xf32>
  } else {
    scf.yield %a : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %nested[%i] : memref<8xf32>
    memref.store %x, %a[%i] : memref<8xf32>
  }
  return
}

// A constant between nests stays in the caller, for the caller's own uses;
// the callee computes it again rather than taking it as an argument, so its
// loops keep their constant bounds.
// CHECK-LABEL: func.func @constant_between(
// CHECK:         call @constant_between_nests(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:         return %[[FOUR]]
// CHECK:       func.func private @constant_between_nests(%{{.*}}: memref<8xf32>)
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.for
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C4]]
func.func @constant_between(%a: memref<8xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c4 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  return %c4 : index
}

// No more nests than a function keeps: unchanged. A nest inside an scf.if
// counts as one.
// CHECK-LABEL: func.func @two_nests(
// CHECK-NOT:     call
// CHECK:         scf.for
// CHECK:         scf.if
// CHECK:           scf.for
// CHECK-NOT:     call
// CHECK:         return
func.func @two_nests(%a: memref<8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %one, %a[%i] : memref<8xf32>
  }
  scf.if %flag {
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %one, %a[%i] : memref<8xf32>
    }
  }
  return
}
