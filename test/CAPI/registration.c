// Builds a program against the installed package's C API headers and
// aggregate library, then parses, verifies and prints a module through it.
//
// RUN: %cc %s -o %t -I%lighthouse_include -L%lighthouse_libs -lLighthouseCAPI -Wl,-rpath,%lighthouse_libs
// RUN: %t 2>&1 | FileCheck %s

#include "Common.h"

#include "lighthouse-c/Plugins.h"
#include "lighthouse-c/Registration.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <string.h>

static const char *kModule =
    "func.func @axpy(%a: f32, %x: tensor<4xf32>, %y: tensor<4xf32>) -> "
    "tensor<4xf32> {\n"
    "  %init = tensor.empty() : tensor<4xf32>\n"
    "  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, "
    "affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],\n"
    "                       iterator_types = [\"parallel\"]}\n"
    "      ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%init : "
    "tensor<4xf32>) {\n"
    "  ^bb0(%xi: f32, %yi: f32, %out: f32):\n"
    "    %m = arith.mulf %a, %xi : f32\n"
    "    %s = arith.addf %m, %yi : f32\n"
    "    linalg.yield %s : f32\n"
    "  } -> tensor<4xf32>\n"
    "  return %r : tensor<4xf32>\n"
    "}\n";

int main(void) {
  MlirStringRef version = lighthouseGetVersion();
  MlirStringRef mlirVersion = lighthouseGetMLIRVersion();
  // CHECK: lighthouse [[VERSION:[0-9.]+]] on MLIR [[MLIR:[0-9.]+]]
  printf("lighthouse %.*s on MLIR %.*s\n", (int)version.length, version.data,
         (int)mlirVersion.length, mlirVersion.data);

  lighthouseRegisterAllPasses();
  lighthouseRegisterAllPasses(); // Registering twice is harmless.
  MlirContext ctx = lighthouseContextCreate();

  MlirModule module = parseOrExit(ctx, kModule);
  MlirOperation op = mlirModuleGetOperation(module);
  // CHECK: verified: 1
  printf("verified: %d\n", mlirOperationVerify(op));
  // CHECK: func.func @axpy
  // CHECK: linalg.generic
  // CHECK: arith.mulf
  mlirOperationPrint(op, printToStdout, NULL);
  printf("\n");

  // A pipeline naming lighthouse's registered passes parses and runs.
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm,
      mlirStringRefCreateFromCString(
          "builtin.module(one-shot-bufferize{bufferize-function-boundaries},"
          "convert-linalg-to-loops,convert-scf-to-cf,convert-to-llvm,"
          "reconcile-unrealized-casts)"),
      printToStdout, NULL);
  // CHECK: pipeline parsed: 1
  printf("pipeline parsed: %d\n", mlirLogicalResultIsSuccess(parsed));
  // CHECK: pipeline ran: 1
  printf("pipeline ran: %d\n",
         mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op)));
  // CHECK: llvm.func @axpy
  // CHECK-NOT: linalg.
  mlirOperationPrint(op, printToStdout, NULL);
  printf("\n");

  // A library that is not a plugin: failure, and the reason.
  // CHECK: not a plugin: {{.*}}no-such-plugin.so{{.*}} -> failed: 1
  printf("not a plugin: ");
  MlirLogicalResult loaded = lighthouseLoadPassPlugin(
      mlirStringRefCreateFromCString("no-such-plugin.so"), printToStdout, NULL);
  printf(" -> failed: %d\n", mlirLogicalResultIsFailure(loaded));

  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
