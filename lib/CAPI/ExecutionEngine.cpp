//===- ExecutionEngine.cpp - lighthouse's JIT in the C API ----------------===//

#include "lighthouse-c/ExecutionEngine.h"

#include "lighthouse/ExecutionEngine/ExecutionEngine.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

using lighthouse::ExecutionEngine;

static ExecutionEngine *unwrap(LighthouseExecutionEngine engine) {
  return static_cast<ExecutionEngine *>(engine.ptr);
}

/// Calls `onError` with the message of `error`.
static void report(llvm::Error error, MlirStringCallback onError,
                   void *userData) {
  std::string message = llvm::toString(std::move(error));
  onError(mlirStringRefCreate(message.data(), message.size()), userData);
}

LighthouseExecutionEngine lighthouseExecutionEngineCreate(
    MlirModule module, int optLevel, bool llvmLoopUnrolling, int numThreads,
    int numSharedLibs, const MlirStringRef *sharedLibPaths,
    MlirStringCallback onError, void *userData) {
  lighthouse::JITOptions options;
  options.optLevel = optLevel;
  options.loopUnrolling = llvmLoopUnrolling;
  options.threads = numThreads;
  for (int i = 0; i < numSharedLibs; ++i)
    options.sharedLibPaths.push_back(unwrap(sharedLibPaths[i]).str());
  auto engine = ExecutionEngine::create(unwrap(module), options);
  if (!engine) {
    report(engine.takeError(), onError, userData);
    return LighthouseExecutionEngine{nullptr};
  }
  return LighthouseExecutionEngine{engine->release()};
}

void lighthouseExecutionEngineDestroy(LighthouseExecutionEngine engine) {
  delete unwrap(engine);
}

void *lighthouseExecutionEngineLookup(LighthouseExecutionEngine engine,
                                      MlirStringRef name,
                                      MlirStringCallback onError,
                                      void *userData) {
  auto address = unwrap(engine)->lookup(unwrap(name));
  if (!address) {
    report(address.takeError(), onError, userData);
    return nullptr;
  }
  return *address;
}

intptr_t
lighthouseExecutionEngineGetNumObjects(LighthouseExecutionEngine engine,
                                       MlirStringCallback onError,
                                       void *userData) {
  auto objects = unwrap(engine)->objects();
  if (!objects) {
    report(objects.takeError(), onError, userData);
    return -1;
  }
  return objects->size();
}

LighthouseJITPhases
lighthouseExecutionEngineGetPhases(LighthouseExecutionEngine engine) {
  const lighthouse::JITPhases &phases = unwrap(engine)->phases();
  return LighthouseJITPhases{phases.translate, phases.split,   phases.optimize,
                             phases.codegen,   phases.weights, phases.load};
}

MlirStringRef
lighthouseExecutionEngineGetObject(LighthouseExecutionEngine engine,
                                   intptr_t index) {
  // Counted before: the objects are there, and this returns no error.
  const llvm::SmallVector<char, 0> &object =
      (*unwrap(engine)->objects())[index];
  return mlirStringRefCreate(object.data(), object.size());
}
