//===- SingleRowReductions.cpp - One row reduced by a vector reduction ----===//
//
// lower-vector-multi-reduction lowers every vector.multi_reduction one way,
// `inner-parallel`: the reduced dimension made outermost, then one
// elementwise op per reduced lane. That suits a block of rows (8 rows of 8
// partial sums: 7 vector ops on 8 rows at once), but a block of one row, the
// 64 partial maxima of a softmax row, becomes 64 extracts and 63 scalar ops,
// for a row of 197 floats read in 3 vector steps. Reduced instead by
// vector.reduction, LLVM combines the lanes as a tree of shuffles (log2 64
// = 6 steps): a 12x197x197 softmax took 448 us, 208 us so.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Buffers/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_SINGLEROWREDUCTIONS
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

namespace {

/// A multi_reduction whose kept dimensions are all of size 1: the vector
/// holds one row, flattened and reduced by vector.reduction.
struct ReduceSingleRow : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp reduction,
                                PatternRewriter &rewriter) const override {
    VectorType source = reduction.getSourceVectorType();
    if (source.isScalable() || reduction.isMasked())
      return failure();
    ArrayRef<bool> reduced = reduction.getReductionMask();
    for (auto [dim, size] : llvm::enumerate(source.getShape()))
      if (!reduced[dim] && size != 1)
        return failure();
    if (source.getNumElements() < 2)
      return failure();
    Location loc = reduction.getLoc();
    Type element = source.getElementType();
    Value row = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({source.getNumElements()}, element),
        reduction.getSource());
    Value accumulator = reduction.getAcc();
    auto kept = dyn_cast<VectorType>(accumulator.getType());
    if (kept)
      accumulator = vector::ExtractOp::create(
          rewriter, loc, accumulator, SmallVector<int64_t>(kept.getRank(), 0));
    Value value = vector::ReductionOp::create(
        rewriter, loc, reduction.getKind(), row, accumulator);
    if (kept)
      value = vector::BroadcastOp::create(rewriter, loc, kept, value);
    rewriter.replaceOp(reduction, value);
    return success();
  }
};

class SingleRowReductionsPass
    : public impl::SingleRowReductionsBase<SingleRowReductionsPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReduceSingleRow>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
