//===- Vectorizable.cpp - Ops the default pipeline leaves to loops --------===//

#include "lighthouse/Transforms/Utils/Vectorizable.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace lighthouse {

bool staysScalar(Operation *op) {
  if (llvm::any_of(op->getOperandTypes(), [](Type type) {
        Type element = getElementTypeOrSelf(type);
        return (element.isIntOrFloat() &&
                element.getIntOrFloatBitWidth() < 8) ||
               element.isBF16();
      }))
    return true;
  return op->walk([](math::FPowIOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

} // namespace lighthouse
