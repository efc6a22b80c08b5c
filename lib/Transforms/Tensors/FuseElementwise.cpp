//===- FuseElementwise.cpp - Chains of elementwise ops as one -------------===//
//
// Imported models spell one layer as several elementwise ops: an inference
// batch norm is a subtraction, two multiplications and an addition, each a
// linalg.generic over the whole activation, then the ReLU is another. Each
// op is a pass over memory. `lighthouse-fuse-elementwise` merges an
// elementwise generic into the elementwise generic or the reduction that is
// its only user, so the chain reads and writes the activation once (a
// norm's variance sums the squares of x - mean as it computes them). A
// conversion (extf, truncf, ...) with several users is copied into each:
// converting again costs less than writing and reading the converted
// tensor (a layer norm's f64 copy of its input). Producers read through a
// broadcast (per-channel constants) are not merged: their values would be
// recomputed for every element; nor are ops that the default pipeline leaves to
// loops with ops it vectorizes.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"
#include "lighthouse/Transforms/Utils/Vectorizable.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

static bool isElementwiseGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() &&
         linalg::isElementwise(cast<linalg::LinalgOp>(op));
}

/// Whether `op` is a generic on tensors with one result that reduces some of
/// its loops, reading every operand through a projected permutation.
static bool isReductionGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() &&
         generic.getNumResults() == 1 && generic.getNumReductionLoops() > 0 &&
         cast<linalg::LinalgOp>(op).hasOnlyProjectedPermutations();
}

/// Whether the elementwise generic `op` only converts its one input (its
/// payload is a single cast).
static bool isConversion(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  return op.getNumDpsInputs() == 1 && body.getOperations().size() == 2 &&
         isa<CastOpInterface>(body.front()) &&
         body.front().getOperand(0) == body.getArgument(0);
}

/// Whether every use of `producer` is by `consumer` (x - mean, squared, is
/// read twice by the variance).
static bool onlyUsedBy(Operation *producer, Operation *consumer) {
  return llvm::all_of(producer->getUsers(),
                      [&](Operation *user) { return user == consumer; });
}

/// Whether the default pipeline leaves `op` to loops: staysScalar, or a gather
/// (tensor.extract in its body), which the vectorizer may turn down. Such an
/// op and one the pipeline vectorizes are kept apart, so that the merged op
/// does not leave both to loops.
static bool leftToLoops(Operation *op) {
  return staysScalar(op) || op->walk([](tensor::ExtractOp) {
                                return WalkResult::interrupt();
                              }).wasInterrupted();
}

/// Merges into an elementwise generic or a reduction the elementwise generic
/// that produces one of its operands, read element for element, when it has
/// no other user or is a conversion (copied for this user).
struct MergeProducerIntoConsumer : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseGeneric(consumer) && !isReductionGeneric(consumer))
      return failure();
    bool consumerLeftToLoops = leftToLoops(consumer);
    for (OpOperand &operand : consumer->getOpOperands()) {
      Operation *producer = operand.get().getDefiningOp();
      if (!producer || !isElementwiseGeneric(producer) ||
          (!onlyUsedBy(producer, consumer) &&
           !isConversion(cast<linalg::GenericOp>(producer))) ||
          !consumer.getMatchingIndexingMap(&operand).isPermutation() ||
          leftToLoops(producer) != consumerLeftToLoops ||
          !linalg::areElementwiseOpsFusable(&operand))
        continue;
      bool copied = !onlyUsedBy(producer, consumer);
      if (copied) {
        // This user's own copy of the conversion.
        rewriter.setInsertionPoint(consumer);
        Operation *copy = rewriter.clone(*producer);
        rewriter.modifyOpInPlace(consumer,
                                 [&] { operand.set(copy->getResult(0)); });
        producer = copy;
      }
      FailureOr<linalg::ElementwiseOpFusionResult> merged =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(merged)) {
        if (copied)
          return success(); // The copy is in place; it is merged no further.
        continue;
      }
      for (auto [original, replacement] : merged->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      // A producer read twice is merged one operand at a time.
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

class FuseElementwisePass
    : public impl::FuseElementwiseBase<FuseElementwisePass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MergeProducerIntoConsumer>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
