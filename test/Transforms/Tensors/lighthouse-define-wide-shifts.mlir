// RUN: lh-opt %s --split-input-file --lighthouse-define-wide-shifts | FileCheck %s

// A shift by an amount only known at run time: out of range (read as
// unsigned, so negative too), a left shift gives 0.
// CHECK-LABEL: func.func @left
// CHECK-SAME:    (%[[X:.*]]: i32, %[[N:.*]]: i32)
// CHECK:       %[[S:.*]] = arith.shli %[[X]], %[[N]] : i32
// CHECK:       %[[WIDTH:.*]] = arith.constant 32 : i32
// CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[N]], %[[WIDTH]] : i32
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:       %[[R:.*]] = arith.select %[[IN]], %[[S]], %[[ZERO]] : i32
// CHECK:       return %[[R]]
func.func @left(%x: i32, %n: i32) -> i32 {
  %r = arith.shli %x, %n : i32
  return %r : i32
}

// -----

// An arithmetic right shift gives the sign, on vectors as on scalars.
// CHECK-LABEL: func.func @arithmetic_right
// CHECK-SAME:    (%[[X:.*]]: vector<4xi8>, %[[N:.*]]: vector<4xi8>)
// CHECK:       %[[S:.*]] = arith.shrsi %[[X]], %[[N]] : vector<4xi8>
// CHECK:       %[[WIDTH:.*]] = arith.constant dense<8> : vector<4xi8>
// CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[N]], %[[WIDTH]] : vector<4xi8>
// CHECK:       %[[SEVEN:.*]] = arith.constant dense<7> : vector<4xi8>
// CHECK:       %[[SIGN:.*]] = arith.shrsi %[[X]], %[[SEVEN]] : vector<4xi8>
// CHECK:       arith.select %[[IN]], %[[S]], %[[SIGN]] : vector<4xi1>, vector<4xi8>
func.func @arithmetic_right(%x: vector<4xi8>, %n: vector<4xi8>) -> vector<4xi8> {
  %r = arith.shrsi %x, %n : vector<4xi8>
  return %r : vector<4xi8>
}

// -----

// A constant amount in range is left as it is (the sign shift above is one).
// CHECK-LABEL: func.func @constant_in_range
// CHECK-NEXT:  arith.constant 3
// CHECK-NEXT:  arith.shrui
// CHECK-NEXT:  return
func.func @constant_in_range(%x: i64) -> i64 {
  %c3 = arith.constant 3 : i64
  %r = arith.shrui %x, %c3 : i64
  return %r : i64
}

// -----

// Index values shift as the 64 bits they are on lighthouse's targets.
// CHECK-LABEL: func.func @index
// CHECK:       arith.shrsi %{{.*}}, %{{.*}} : index
// CHECK:       %[[WIDTH:.*]] = arith.constant 64 : index
// CHECK:       arith.cmpi ult, %{{.*}}, %[[WIDTH]] : index
// CHECK:       arith.constant 63 : index
func.func @index(%x: index, %n: index) -> index {
  %r = arith.shrsi %x, %n : index
  return %r : index
}
