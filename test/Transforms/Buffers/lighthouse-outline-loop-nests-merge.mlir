// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-outline-loop-nests)" | FileCheck %s
// RUN: lh-opt %s --pass-pipeline="builtin.module(lighthouse-outline-loop-nests,convert-scf-to-cf,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)" | FileCheck %s --check-prefix=LLVM

memref.global "private" constant @w1 : memref<8xf32> = dense<2.0>
memref.global "private" constant @w2 : memref<8xf32> = dense<3.0>
memref.global "private" constant @w3 : memref<8xf32> = dense<4.0>
memref.global "private" constant @wide : memref<16xf32> = dense<5.0>

// Two layers: the same nest on the weights of each. One function computes
// both, taking the weights as an argument; each call passes its own.
// CHECK-LABEL: func.func @layers(
// CHECK-SAME:      %[[A:.*]]: memref<8xf32>
// CHECK-NOT:     memref.get_global
// CHECK:         %[[W1:.*]] = memref.get_global @w1
// CHECK-NEXT:    call @layers_nests(%[[A]], %[[W1]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:    %[[W2:.*]] = memref.get_global @w2
// CHECK-NEXT:    call @layers_nests(%[[A]], %[[W2]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:    return
// CHECK:       func.func private @layers_nests(%[[X:.*]]: memref<8xf32>, %[[W:.*]]: memref<8xf32>)
// CHECK-NOT:     memref.get_global
// CHECK:         memref.load %[[W]]
// CHECK-NOT:   func.func private @layers_nests_
// LLVM-LABEL: llvm.func @layers(
// LLVM-COUNT-2: llvm.call @layers_nests(
// LLVM-NOT:   llvm.func internal @layers_nests_
func.func @layers(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %w1 = memref.get_global @w1 : memref<8xf32>
  %w2 = memref.get_global @w2 : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    %w = memref.load %w1[%i] : memref<8xf32>
    %y = arith.mulf %x, %w : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    %w = memref.load %w2[%i] : memref<8xf32>
    %y = arith.mulf %x, %w : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  return
}

// Nests that differ in anything but their globals' names stay apart: a
// constant (a scale of 2 and of 3), a global of another type, the order of
// an op's operands. Without a twin, they read their globals themselves.
// CHECK-LABEL: func.func @different(
// CHECK:         call @[[F1:different_nests[_0-9]*]](%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    call @[[F2:different_nests[_0-9]*]](%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    call @[[F3:different_nests[_0-9]*]](%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    call @[[F4:different_nests[_0-9]*]](%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    call @[[F5:different_nests[_0-9]*]](%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-DAG:   func.func private @[[F1]](%{{.*}}: memref<8xf32>)
// CHECK-DAG:   func.func private @[[F2]](%{{.*}}: memref<8xf32>)
// CHECK-DAG:   func.func private @[[F3]](%{{.*}}: memref<8xf32>)
// CHECK-DAG:   func.func private @[[F4]](%{{.*}}: memref<8xf32>)
// CHECK-DAG:   func.func private @[[F5]](%{{.*}}: memref<8xf32>)
// CHECK-DAG:     memref.get_global @w1
// CHECK-DAG:     memref.get_global @w2
// CHECK-DAG:     memref.get_global @wide
func.func @different(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %w1 = memref.get_global @w1 : memref<8xf32>
  %w2 = memref.get_global @w2 : memref<8xf32>
  %w3 = memref.get_global @w3 : memref<8xf32>
  %wide = memref.get_global @wide : memref<16xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %w = memref.load %w1[%i] : memref<8xf32>
    %y = arith.mulf %w, %two : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %w = memref.load %w2[%i] : memref<8xf32>
    %y = arith.mulf %w, %three : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %w = memref.load %wide[%i] : memref<16xf32>
    %y = arith.mulf %w, %two : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %w = memref.load %w3[%i] : memref<8xf32>
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.subf %x, %w : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %w = memref.load %w3[%i] : memref<8xf32>
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.subf %w, %x : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  return
}
