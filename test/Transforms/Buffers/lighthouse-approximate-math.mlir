// RUN: lh-opt %s --split-input-file --lighthouse-approximate-math | FileCheck %s

// f32 tanh, on vectors and scalars, becomes arithmetic: no call is left.
// CHECK-LABEL: func.func @tanh
// CHECK-NOT: math.tanh
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: arith.divf {{.*}} : vector<16xf32>
// CHECK-NOT: math.tanh
// CHECK: arith.divf {{.*}} : f32
// CHECK-NOT: math.tanh
func.func @tanh(%v: vector<16xf32>, %s: f32) -> (vector<16xf32>, f32) {
  %a = math.tanh %v : vector<16xf32>
  %b = math.tanh %s : f32
  return %a, %b : vector<16xf32>, f32
}

// -----

// erf, exp, expm1, log, log1p and log2 too.
// CHECK-LABEL: func.func @others
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: return
func.func @others(%x: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
  %a = math.erf %x : vector<8xf32>
  %b = math.exp %x : vector<8xf32>
  %c = math.expm1 %x : vector<8xf32>
  %d = math.log %x : vector<8xf32>
  %e = math.log1p %x : vector<8xf32>
  %f = math.log2 %x : vector<8xf32>
  return %a, %b, %c, %d, %e, %f : vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
}

// -----

// A log's denormal inputs are scaled by 2^24 into the normal range, and the
// result corrected by 24 ln 2.
// CHECK-LABEL: func.func @log_of_denormals
// CHECK: %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK: %[[DENORMAL:.*]] = arith.cmpf olt, %{{.*}}, %[[MIN]] : f32
// CHECK: %[[SCALE:.*]] = arith.constant 0x4B800000 : f32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[SHIFT:.*]] = arith.constant 16.6355324 : f32
// CHECK: arith.subf %{{.*}}, %[[SHIFT]] : f32
// CHECK: arith.select %[[DENORMAL]]
func.func @log_of_denormals(%x: f32) -> f32 {
  %y = math.log %x : f32
  return %y : f32
}

// -----

// f64 and sin are left to libm: the approximations are f32's, and sin's
// range reduction loses accuracy on large arguments.
// CHECK-LABEL: func.func @kept
// CHECK: math.tanh {{.*}} : f64
// CHECK: math.sin {{.*}} : f32
func.func @kept(%x: f64, %y: f32) -> (f64, f32) {
  %a = math.tanh %x : f64
  %b = math.sin %y : f32
  return %a, %b : f64, f32
}
