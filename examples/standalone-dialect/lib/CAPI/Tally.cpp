//===- Tally.cpp - C API of the tally dialect -----------------------------===//

#include "Tally-c/Tally.h"
#include "Tally/TallyDialect.h"
#include "Tally/TallyPasses.h"
#include "Tally/TallyTypes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(tally, tally, tally::TallyDialect)

void tallyRegisterPasses(void) {
  // Importing the Python extension and loading libtally.so as a pass plugin
  // (lighthouse.plugins) may both ask in one process: once is enough.
  static const bool registered = (tally::registerPasses(), true);
  (void)registered;
}

bool tallyTypeIsACounter(MlirType type) {
  return llvm::isa<tally::CounterType>(unwrap(type));
}

MlirTypeID tallyCounterTypeGetTypeID(void) {
  return wrap(tally::CounterType::getTypeID());
}

MlirType tallyCounterTypeGet(MlirContext context, int64_t modulus) {
  mlir::MLIRContext *ctx = unwrap(context);
  return wrap(tally::CounterType::getChecked(
      mlir::detail::getDefaultDiagnosticEmitFn(ctx), ctx, modulus));
}

int64_t tallyCounterTypeGetModulus(MlirType type) {
  return llvm::cast<tally::CounterType>(unwrap(type)).getModulus();
}
