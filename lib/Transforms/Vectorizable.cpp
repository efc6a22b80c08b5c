//===- Vectorizable.cpp - Ops the fast pipeline leaves to loops -----------===//

#include "lighthouse/Transforms/Vectorizable.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace lighthouse {

bool staysScalar(Operation *op) {
  if (llvm::any_of(op->getOperandTypes(), [](Type type) {
        return getElementTypeOrSelf(type).isInteger(1);
      }))
    return true;
  return op->walk([](math::FPowIOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

} // namespace lighthouse
