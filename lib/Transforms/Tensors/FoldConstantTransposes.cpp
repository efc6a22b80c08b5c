//===- FoldConstantTransposes.cpp - Transposed weights at compile time ----===//
//
// Models transpose their constant weights (`x @ W^T`): left to run time, the
// transpose of every weight runs on every call, and LLVM spends its time
// unrolling the copy loops over constants. `lighthouse-fold-constant-
// transposes` replaces each linalg.transpose of a constant with the
// transposed constant, for dense and dense_resource (imported weights)
// constants alike.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"
#include "lighthouse/Transforms/Utils/Constants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_FOLDCONSTANTTRANSPOSES
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

struct FoldConstantTranspose : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    ElementsAttr constant;
    if (!transpose.hasPureTensorSemantics() ||
        !matchPattern(transpose.getInput(), m_Constant(&constant)))
      return failure();
    std::optional<ElementsAttr> folded =
        transposeConstant(constant, transpose.getPermutation());
    if (!folded)
      return failure();
    auto resultType = cast<RankedTensorType>(folded->getType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(transpose, resultType,
                                                   cast<TypedAttr>(*folded));
    return success();
  }
};

class FoldConstantTransposesPass
    : public impl::FoldConstantTransposesBase<FoldConstantTransposesPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldConstantTranspose>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
