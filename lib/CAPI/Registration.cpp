//===- Registration.cpp - lighthouse's registrations in the C API --------===//

#include "lighthouse-c/Registration.h"

#include "lighthouse/Dialect/OpaqueDialects.h"
#include "lighthouse/InitAll.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

void lighthouseRegisterAllDialects(MlirDialectRegistry registry) {
  lighthouse::registerAllDialects(*unwrap(registry));
}

void lighthouseRegisterOpaqueTorchDialect(MlirDialectRegistry registry) {
  unwrap(registry)
      ->insert<lighthouse::OpaqueTorchDialect,
               lighthouse::OpaqueTorchConversionDialect>();
}

void lighthouseRegisterAllPasses(void) { lighthouse::registerAllPasses(); }

MlirContext lighthouseContextCreate(void) {
  mlir::DialectRegistry registry;
  lighthouse::registerAllDialects(registry);
  return wrap(new mlir::MLIRContext(registry));
}

MlirStringRef lighthouseGetVersion(void) {
  return mlirStringRefCreateFromCString(LIGHTHOUSE_VERSION);
}

MlirStringRef lighthouseGetMLIRVersion(void) {
  return mlirStringRefCreateFromCString(LIGHTHOUSE_MLIR_VERSION);
}
