//===- ExecutionEngine.h - lighthouse's JIT ---------------------*- C -*-===//
//
// An MLIR ExecutionEngine whose LLVM optimization pipeline lighthouse tunes:
// the C API's mlirExecutionEngineCreate always unrolls loops in LLVM, the
// larger part of the JIT's time on lighthouse's code, which its pipelines
// leave in an order LLVM vectorizes without unrolling; and it does not say
// why it failed.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_C_EXECUTIONENGINE_H
#define LIGHTHOUSE_C_EXECUTIONENGINE_H

#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// JIT-compiles `module` (LLVM dialect, OpenMP allowed) for the host CPU as
/// position-independent code that can be dumped to an object file. LLVM runs
/// its standard pipeline at `optLevel` (0 to 3); `llvmLoopUnrolling` lets it
/// unroll loops. Symbols the code does not define are looked up in the
/// `numSharedLibs` libraries at `sharedLibPaths`. On failure, calls `onError`
/// with the reason and returns a null engine.
MLIR_CAPI_EXPORTED MlirExecutionEngine lighthouseExecutionEngineCreate(
    MlirModule module, int optLevel, bool llvmLoopUnrolling, int numSharedLibs,
    const MlirStringRef *sharedLibPaths, MlirStringCallback onError,
    void *userData);

#ifdef __cplusplus
}
#endif

#endif // LIGHTHOUSE_C_EXECUTIONENGINE_H
