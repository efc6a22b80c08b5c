//===- FuseElementwise.cpp - Chains of elementwise ops as one -------------===//
//
// Imported models spell one layer as several elementwise ops: an inference
// batch norm is a subtraction, two multiplications and an addition, each a
// linalg.generic over the whole activation, then the ReLU is another. Each
// op is a pass over memory. `lighthouse-fuse-elementwise` merges an
// elementwise generic into the elementwise generic that is its only user,
// so the chain reads and writes the activation once. Producers read through
// a broadcast (per-channel constants) are not merged: their values would be
// recomputed for every element.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Pipelines/Pipelines.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {
namespace {

static bool isElementwiseGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() &&
         linalg::isElementwise(cast<linalg::LinalgOp>(op));
}

class FuseElementwisePass
    : public PassWrapper<FuseElementwisePass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseElementwisePass)

  StringRef getArgument() const override {
    return "lighthouse-fuse-elementwise";
  }
  StringRef getDescription() const override {
    return "Merge each elementwise linalg.generic on tensors into the "
           "elementwise generic that is its only user and reads it element "
           "for element";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
          return producer && producer->hasOneUse() &&
                 isElementwiseGeneric(producer) &&
                 isElementwiseGeneric(consumer) &&
                 consumer.getMatchingIndexingMap(operand).isPermutation();
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void registerFuseElementwisePass() { PassRegistration<FuseElementwisePass>(); }

} // namespace lighthouse
