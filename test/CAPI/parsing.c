// lighthouseParseModuleContained through the installed C API: a module, the
// diagnostics of text that does not parse, and a crash of MLIR's parser,
// which ends in the child process and not in this one.
//
// RUN: %cc %s -o %t -I%lighthouse_include -L%lighthouse_libs -lLighthouseCAPI -Wl,-rpath,%lighthouse_libs
// RUN: %t 2>&1 | FileCheck %s

#include "Common.h"

#include "lighthouse-c/Parsing.h"
#include "lighthouse-c/Registration.h"

#include <signal.h>
#include <stdbool.h>

static void printDiagnostic(bool isNote, MlirStringRef file, unsigned line,
                            unsigned column, MlirStringRef message,
                            void *userData) {
  (void)userData;
  printf("%s %.*s:%u:%u: %.*s\n", isNote ? "note" : "error", (int)file.length,
         file.data, line, column, (int)message.length, message.data);
}

static MlirModule parse(MlirContext ctx, const char *source,
                        LighthouseParseOutcome *outcome, int *signal) {
  return lighthouseParseModuleContained(
      ctx, mlirStringRefCreateFromCString(source),
      mlirStringRefCreateFromCString("in.mlir"), printDiagnostic, NULL, outcome,
      signal);
}

int main(void) {
  MlirContext ctx = lighthouseContextCreate();
  LighthouseParseOutcome outcome;
  int signal;

  // CHECK: parsed: 1 0
  MlirModule module =
      parse(ctx, "func.func @f(%a: i32) -> i32 { return %a : i32 }", &outcome,
            &signal);
  printf("parsed: %d %d\n", !mlirModuleIsNull(module),
         outcome == LighthouseParseParsed ? 0 : 1);
  // CHECK: func.func @f
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  mlirModuleDestroy(module);

  // CHECK: error in.mlir:1:25: use of undeclared SSA value name
  // CHECK: failed: 1
  module = parse(ctx, "func.func @f() { return %x : i32 }", &outcome, &signal);
  printf("failed: %d\n",
         mlirModuleIsNull(module) && outcome == LighthouseParseFailed);

  // MLIR 22's parser dies on an index array.
  // CHECK: crashed: 1 SIGSEGV: 1
  module =
      parse(ctx, "func.func @f() attributes {a = array<index: 1>} { return }",
            &outcome, &signal);
  printf("crashed: %d SIGSEGV: %d\n",
         mlirModuleIsNull(module) && outcome == LighthouseParseCrashed,
         signal == SIGSEGV);

  // CHECK: still here
  printf("still here\n");
  mlirContextDestroy(ctx);
  return 0;
}
