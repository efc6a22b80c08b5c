//===- TallyTypes.cpp - Types of the tally dialect ------------------------===//

#include "Tally/TallyTypes.h"
#include "Tally/TallyDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#define GET_TYPEDEF_CLASSES
#include "tallyTypes.cpp.inc"

LogicalResult
tally::CounterType::verify(function_ref<InFlightDiagnostic()> emitError,
                           int64_t modulus) {
  if (modulus <= 0)
    return emitError() << "a counter wraps around at a positive modulus, got "
                       << modulus;
  return success();
}

// Here rather than in TallyDialect.cpp: it needs the type classes above.
void tally::TallyDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tallyTypes.cpp.inc"
      >();
}
