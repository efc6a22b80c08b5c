//===- TallyOps.cpp - Operations of the tally dialect ---------------------===//

#include "Tally/TallyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;

#define GET_OP_CLASSES
#include "tallyOps.cpp.inc"

LogicalResult tally::AdvanceOp::verify() {
  if (getStepsAttr().getInt() < 0)
    return emitOpError("counts forward only: steps must not be negative, got ")
           << getStepsAttr().getInt();
  return success();
}

OpFoldResult tally::AdvanceOp::fold(FoldAdaptor) {
  int64_t modulus = getType().getModulus();
  int64_t steps = getStepsAttr().getInt() % modulus;
  // A full turn (or several) leaves the count where it was.
  if (steps == 0)
    return getCounter();
  // advance(advance(c, a), b) is advance(c, a + b): fold in place, keeping
  // the steps below the modulus so that they never overflow.
  if (auto previous = getCounter().getDefiningOp<AdvanceOp>()) {
    int64_t previousSteps = previous.getStepsAttr().getInt() % modulus;
    getCounterMutable().assign(previous.getCounter());
    setSteps((steps + previousSteps) % modulus);
    return getResult();
  }
  return {};
}
