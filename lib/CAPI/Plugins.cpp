//===- Plugins.cpp - Loading MLIR plugins into lighthouse -----------------===//

#include "lighthouse-c/Plugins.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Support/Error.h"

static MlirLogicalResult
reportFailure(llvm::Error error, MlirStringCallback onError, void *userData) {
  std::string message = llvm::toString(std::move(error));
  onError(mlirStringRefCreate(message.data(), message.size()), userData);
  return mlirLogicalResultFailure();
}

MlirLogicalResult lighthouseLoadPassPlugin(MlirStringRef path,
                                           MlirStringCallback onError,
                                           void *userData) {
  auto plugin = mlir::PassPlugin::load(unwrap(path).str());
  if (!plugin)
    return reportFailure(plugin.takeError(), onError, userData);
  plugin->registerPassRegistryCallbacks();
  return mlirLogicalResultSuccess();
}

MlirLogicalResult lighthouseLoadDialectPlugin(MlirDialectRegistry registry,
                                              MlirStringRef path,
                                              MlirStringCallback onError,
                                              void *userData) {
  auto plugin = mlir::DialectPlugin::load(unwrap(path).str());
  if (!plugin)
    return reportFailure(plugin.takeError(), onError, userData);
  plugin->registerDialectRegistryCallbacks(*unwrap(registry));
  return mlirLogicalResultSuccess();
}
