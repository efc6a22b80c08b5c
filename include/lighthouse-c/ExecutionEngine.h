//===- ExecutionEngine.h - lighthouse's JIT ---------------------*- C -*-===//
//
// lighthouse's JIT. Unlike MLIR's ExecutionEngine, it compiles on several
// threads: the LLVM module is split into parts by function, each optimized
// and compiled to an object file on a thread of its own. It tunes LLVM's
// pipeline to lighthouse's code (no loop unrolling unless asked: the larger
// part of the JIT's time, for code that lighthouse's pipelines leave in an
// order LLVM vectorizes without it), compiles large constants (weights) into
// an object file of their own outside LLVM's pipeline, keeps the object files
// for saving, and says why it failed.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_C_EXECUTIONENGINE_H
#define LIGHTHOUSE_C_EXECUTIONENGINE_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct LighthouseExecutionEngine {
  void *ptr;
} LighthouseExecutionEngine;

/// JIT-compiles `module` (LLVM dialect, OpenMP allowed) for the host CPU as
/// position-independent code. LLVM runs its standard pipeline at `optLevel`
/// (0 to 3); `llvmLoopUnrolling` lets it unroll loops. A module of several
/// functions is compiled in `numThreads` parts at once (at most one per
/// function; 0: one per hardware thread that gets 1000 instructions or
/// more). A module with global constructors is refused. Symbols the code does
/// not define are looked up in this process and in the `numSharedLibs`
/// libraries at `sharedLibPaths`. On failure, calls `onError` with the reason
/// and returns a null engine.
MLIR_CAPI_EXPORTED LighthouseExecutionEngine lighthouseExecutionEngineCreate(
    MlirModule module, int optLevel, bool llvmLoopUnrolling, int numThreads,
    int numSharedLibs, const MlirStringRef *sharedLibPaths,
    MlirStringCallback onError, void *userData);

static inline bool
lighthouseExecutionEngineIsNull(LighthouseExecutionEngine engine) {
  return !engine.ptr;
}

/// Frees the engine and its code.
MLIR_CAPI_EXPORTED void
lighthouseExecutionEngineDestroy(LighthouseExecutionEngine engine);

/// The address of the symbol `name` of the compiled code, linking it first
/// if needed; on failure, calls `onError` with the reason and returns NULL.
MLIR_CAPI_EXPORTED void *
lighthouseExecutionEngineLookup(LighthouseExecutionEngine engine,
                                MlirStringRef name, MlirStringCallback onError,
                                void *userData);

/// How many relocatable object files the code was compiled into, the
/// weights' last (compiled on the first call: the JIT's code reads the
/// weights where the engine holds them); linked together (with lighthouse's
/// runtime libraries), they make a shared library of the module. On failure,
/// calls `onError` with the reason and returns -1.
MLIR_CAPI_EXPORTED intptr_t lighthouseExecutionEngineGetNumObjects(
    LighthouseExecutionEngine engine, MlirStringCallback onError,
    void *userData);

/// The bytes of object file `index`, owned by the engine, once
/// `lighthouseExecutionEngineGetNumObjects` has counted them.
MLIR_CAPI_EXPORTED MlirStringRef lighthouseExecutionEngineGetObject(
    LighthouseExecutionEngine engine, intptr_t index);

/// Seconds each step of the compilation took: the translation to LLVM IR
/// (weights taken out), the split into parts, LLVM's optimization and code
/// generation (summed over the parts, which run on threads), the weights'
/// object file, and loading the objects into the JIT.
typedef struct LighthouseJITPhases {
  double translate, split, optimize, codegen, weights, load;
} LighthouseJITPhases;

MLIR_CAPI_EXPORTED LighthouseJITPhases
lighthouseExecutionEngineGetPhases(LighthouseExecutionEngine engine);

#ifdef __cplusplus
}
#endif

#endif // LIGHTHOUSE_C_EXECUTIONENGINE_H
