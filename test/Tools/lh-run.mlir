// RUN: %lh-run %s --repeat 3 | FileCheck %s
// RUN: %lh-run %s --function scaled --dynamic-size 3 --pipeline loops --unroll-loops | FileCheck %s --check-prefix=DYN
// RUN: not %lh-run %s --function missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %lh-run %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: %lh-run --help | FileCheck %s --check-prefix=HELP

// CHECK: compiled: main(float32[2x2]) -> (float32[2x2])
// CHECK: result 0: (2, 2) float32
// CHECK: seconds per stage: pipeline {{[0-9.]+}}, jit {{[0-9.]+}}
// CHECK: run: median {{[0-9.]+}} ms over 3 runs
func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = arith.mulf %a, %a : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// DYN: compiled: scaled(float32[?x4]) -> (float32[?x4])
// DYN: result 0: (3, 4) float32
func.func @scaled(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = arith.addf %a, %a : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// MISSING: lh-run: ValueError: no function @missing in the module; it has @main, @scaled
// NOFILE: error: no such file:
// HELP: Compile a model to native code with lighthouse and run it.
// HELP: lh-run model.py

// RUN: echo "func.func @broken(" > %t.bad.mlir
// RUN: not %lh-run %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: lh-run: MLIRError: Unable to parse module assembly:
// MALFORMED: error: "{{.*}}bad.mlir":1:19: expected non-function type
