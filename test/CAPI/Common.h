// What lighthouse's C API tests share (included, not a test itself).

#ifndef LIGHTHOUSE_TEST_CAPI_COMMON_H
#define LIGHTHOUSE_TEST_CAPI_COMMON_H

#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>

/// An MlirStringCallback printing what it is given to stdout.
static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/// `source` parsed in `ctx`; exits the test when it does not parse.
static MlirModule parseOrExit(MlirContext ctx, const char *source) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    exit(1);
  }
  return module;
}

#endif // LIGHTHOUSE_TEST_CAPI_COMMON_H
