//===- Plugins.h - Loading MLIR plugins into lighthouse ---------*- C -*-===//
//
// Standard MLIR dialect and pass plugins (shared libraries exporting
// mlirGetDialectPluginInfo / mlirGetPassPluginInfo, as lh-opt's
// --load-dialect-plugin and --load-pass-plugin take them), loaded into the
// process that uses lighthouse's C API or Python bindings. A plugin must be
// built against the MLIR lighthouse holds (lighthouse's SDK does so).
//
//===----------------------------------------------------------------------===//

#ifndef LIGHTHOUSE_C_PLUGINS_H
#define LIGHTHOUSE_C_PLUGINS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Loads the pass plugin at `path` and registers its passes in the global
/// registry, so that pipeline strings can name them. On failure, calls
/// `onError` with the reason (the library cannot be opened, or is not an
/// MLIR pass plugin of this MLIR version) and returns failure.
MLIR_CAPI_EXPORTED MlirLogicalResult lighthouseLoadPassPlugin(
    MlirStringRef path, MlirStringCallback onError, void *userData);

/// Loads the dialect plugin at `path` and appends its dialects to
/// `registry`. On failure, calls `onError` with the reason and returns
/// failure.
MLIR_CAPI_EXPORTED MlirLogicalResult
lighthouseLoadDialectPlugin(MlirDialectRegistry registry, MlirStringRef path,
                            MlirStringCallback onError, void *userData);

#ifdef __cplusplus
}
#endif

#endif // LIGHTHOUSE_C_PLUGINS_H
