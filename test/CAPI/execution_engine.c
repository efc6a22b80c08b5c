// JIT-compiles a module of two functions through the installed package's C
// API, in two parts on two threads, and calls both through their packed
// entry points; a symbol nothing defines is an error naming it.
//
// RUN: %cc %s -o %t -I%lighthouse_include -L%lighthouse_libs -lLighthouseCAPI -Wl,-rpath,%lighthouse_libs
// RUN: %t 2>&1 | FileCheck %s

#include "Common.h"

#include "lighthouse-c/ExecutionEngine.h"
#include "lighthouse-c/Registration.h"
#include "mlir-c/IR.h"

#include <stdio.h>

static const char *kModule = "llvm.func @twice(%x: f64) -> f64 {\n"
                             "  %r = llvm.fadd %x, %x : f64\n"
                             "  llvm.return %r : f64\n"
                             "}\n"
                             "llvm.func @square(%x: f64) -> f64 {\n"
                             "  %r = llvm.fmul %x, %x : f64\n"
                             "  llvm.return %r : f64\n"
                             "}\n";

/// Calls the packed entry point `name` with 3.0.
static double call(LighthouseExecutionEngine engine, const char *name) {
  void (*entry)(void **) = (void (*)(void **))lighthouseExecutionEngineLookup(
      engine, mlirStringRefCreateFromCString(name), printToStdout, NULL);
  if (!entry)
    return -1.0;
  double x = 3.0, result = 0.0;
  void *packed[] = {&x, &result};
  entry(packed);
  return result;
}

int main(void) {
  MlirContext ctx = lighthouseContextCreate();
  MlirModule module = parseOrExit(ctx, kModule);
  LighthouseExecutionEngine engine = lighthouseExecutionEngineCreate(
      module, /*optLevel=*/3, /*llvmLoopUnrolling=*/false, /*numThreads=*/2,
      /*numSharedLibs=*/0, NULL, printToStdout, NULL);
  if (lighthouseExecutionEngineIsNull(engine)) {
    fprintf(stderr, "JIT failed\n");
    return 1;
  }
  // CHECK: object files: 2
  printf("object files: %d\n", (int)lighthouseExecutionEngineGetNumObjects(
                                   engine, printToStdout, NULL));
  // CHECK-NEXT: ELF: 1
  MlirStringRef object = lighthouseExecutionEngineGetObject(engine, 1);
  printf("ELF: %d\n", object.length > 4 && object.data[1] == 'E' &&
                          object.data[2] == 'L' && object.data[3] == 'F');
  // CHECK-NEXT: twice: 6.0 square: 9.0
  printf("twice: %.1f ", call(engine, "_mlir_twice"));
  printf("square: %.1f\n", call(engine, "_mlir_square"));
  // CHECK-NEXT: {{.*}}no_such_symbol{{.*}}
  // CHECK-NEXT: missing: -1.0
  double missing = call(engine, "no_such_symbol");
  printf("\nmissing: %.1f\n", missing);

  lighthouseExecutionEngineDestroy(engine);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
