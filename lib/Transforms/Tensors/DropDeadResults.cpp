//===- DropDeadResults.cpp - Results nobody reads, not computed -----------===//
//
// Imported models compute results they never read: a softmax's row maximum
// comes from `max.dim`, whose linalg.generic also computes the position of
// each maximum (an i64 per row, through linalg.index and a select), unused.
// Upstream's canonicalization keeps such a result, as its payload reads its
// init. `lighthouse-drop-dead-results` removes an unused result of a
// linalg.generic on tensors when the part of the payload that computes it
// feeds nothing else: the op then has one result, and the code generator
// takes it as a plain reduction.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_DROPDEADRESULTS
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

/// The payload ops that compute only what `generic` yields as result
/// `result`, or none when the result, its init or what computes it is
/// needed by another result.
std::optional<SmallVector<Operation *>> ownPayload(linalg::GenericOp generic,
                                                   unsigned result) {
  Block &body = generic.getRegion().front();
  Operation *yield = body.getTerminator();
  // Walk back from the yielded value; an op is the result's own when each
  // of its users is the yield (at `result` only) or an own op.
  llvm::SetVector<Operation *> own;
  SmallVector<Value> worklist = {yield->getOperand(result)};
  auto onlyFeedsResult = [&](Value value) {
    return llvm::all_of(value.getUses(), [&](OpOperand &use) {
      if (use.getOwner() == yield)
        return use.getOperandNumber() == result;
      return own.contains(use.getOwner());
    });
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *op = value.getDefiningOp();
    if (!op || op->getBlock() != &body || own.contains(op))
      continue;
    own.insert(op);
    llvm::append_range(worklist, op->getOperands());
  }
  // Ops were added from the yield back: check uses from the producers'
  // side, dropping ops that feed other results, to a fixed point.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *op : llvm::to_vector(own))
      if (!llvm::all_of(op->getResults(), onlyFeedsResult)) {
        own.remove(op);
        changed = true;
      }
  }
  // The yielded value itself must be own (or a block argument), and the
  // result's init must feed nothing else.
  Value yielded = yield->getOperand(result);
  if (Operation *def = yielded.getDefiningOp();
      def && def->getBlock() == &body && !own.contains(def))
    return std::nullopt;
  if (!onlyFeedsResult(
          generic.getMatchingBlockArgument(generic.getDpsInitOperand(result))))
    return std::nullopt;
  return own.takeVector();
}

struct DropDeadResult : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp generic,
                                PatternRewriter &rewriter) const override {
    if (!generic.hasPureTensorSemantics() || generic.getNumResults() < 2)
      return failure();
    for (unsigned result = 0; result < generic.getNumResults(); ++result) {
      if (!generic.getResult(result).use_empty())
        continue;
      std::optional<SmallVector<Operation *>> own = ownPayload(generic, result);
      if (!own)
        continue;
      // The same op without the result: its init, indexing map and yield
      // operand go, and the payload ops computing it.
      SmallVector<Value> inits(generic.getDpsInits());
      inits.erase(inits.begin() + result);
      SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
      maps.erase(maps.begin() + generic.getNumDpsInputs() + result);
      auto replacement = linalg::GenericOp::create(
          rewriter, generic.getLoc(), ValueRange(inits).getTypes(),
          generic.getDpsInputs(), inits, maps, generic.getIteratorTypesArray(),
          /*bodyBuild=*/nullptr, linalg::getPrunedAttributeList(generic));
      rewriter.inlineRegionBefore(generic.getRegion(), replacement.getRegion(),
                                  replacement.getRegion().begin());
      Block &body = replacement.getRegion().front();
      Operation *yield = body.getTerminator();
      rewriter.modifyOpInPlace(yield, [&] { yield->eraseOperand(result); });
      // Users before producers: the block's order, backwards.
      llvm::sort(*own, [](Operation *a, Operation *b) {
        return b->isBeforeInBlock(a);
      });
      for (Operation *op : *own)
        rewriter.eraseOp(op);
      body.eraseArgument(generic.getNumDpsInputs() + result);
      for (unsigned kept = 0, old = 0; old < generic.getNumResults(); ++old)
        if (old != result)
          rewriter.replaceAllUsesWith(generic.getResult(old),
                                      replacement.getResult(kept++));
      rewriter.eraseOp(generic);
      return success();
    }
    return failure();
  }
};

class DropDeadResultsPass
    : public impl::DropDeadResultsBase<DropDeadResultsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DropDeadResult>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
