//===- Registration.h - lighthouse's registrations in the C API -*- C -*-===//
//
// Stable C entry points that make lighthouse's dialects, dialect extensions,
// interface models and passes available to an MLIR context. They are backed
// by the same registration list as lighthouse's Python site initializer and
// tools (lighthouse/InitAll.h), so every front end sees the same MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_C_REGISTRATION_H
#define LIGHTHOUSE_C_REGISTRATION_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Appends lighthouse's dialects, their extensions and external interface
/// models, and the LLVM IR translations of the builtin and llvm dialects to
/// `registry`.
MLIR_CAPI_EXPORTED void
lighthouseRegisterAllDialects(MlirDialectRegistry registry);

/// Appends stand-ins for torch-mlir's `torch` and `torch_c` dialects to
/// `registry`: they accept any operation, type and attribute of their
/// namespaces without knowing them, so that torch-mlir's importers can build
/// their IR in a lighthouse context. Not part of
/// lighthouseRegisterAllDialects.
MLIR_CAPI_EXPORTED void
lighthouseRegisterOpaqueTorchDialect(MlirDialectRegistry registry);

/// Registers lighthouse's passes and pass pipelines in the global registry, so
/// that pipeline strings can name them. Safe to call more than once.
MLIR_CAPI_EXPORTED void lighthouseRegisterAllPasses(void);

/// Creates a context with lighthouse's dialects registered (not yet loaded).
/// The caller owns the context and destroys it with mlirContextDestroy.
MLIR_CAPI_EXPORTED MlirContext lighthouseContextCreate(void);

/// Returns lighthouse's version, for example "0.1.0".
MLIR_CAPI_EXPORTED MlirStringRef lighthouseGetVersion(void);

/// Returns the version of the MLIR lighthouse was built against, for example
/// "22.1.8".
MLIR_CAPI_EXPORTED MlirStringRef lighthouseGetMLIRVersion(void);

#ifdef __cplusplus
}
#endif

#endif // LIGHTHOUSE_C_REGISTRATION_H
