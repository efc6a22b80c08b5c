//===- ExpandShapesAsCasts.cpp - Dynamic expansions as casts --------------===//
//
// `expand-strided-metadata` computes the sizes of a `memref.expand_shape`
// group by dividing the source size by the group's static sizes, which
// leaves all but one dynamic size unset: on `[b*n, d]` into `[b, n, d]` (ONNX
// BERT for any batch and length reshapes its hidden states so) it crashed.
// The op itself gives every size; a reinterpret cast with them and the
// strides they imply is what the pass would have produced.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Buffers/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_EXPANDSHAPESASCASTS
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

namespace {

/// Whether `op` splits a dimension into two or more dynamic sizes.
static bool splitsIntoDynamicSizes(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  return llvm::any_of(op.getReassociationIndices(), [&](const auto &group) {
    return llvm::count_if(
               group, [&](int64_t dim) { return type.isDynamicDim(dim); }) > 1;
  });
}

struct ExpandShapeAsCast : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!splitsIntoDynamicSizes(op))
      return rewriter.notifyMatchFailure(op, "no group of dynamic sizes");
    MemRefType type = op.getResultType();
    SmallVector<int64_t> typeStrides;
    int64_t typeOffset;
    if (failed(type.getStridesAndOffset(typeStrides, typeOffset)))
      return rewriter.notifyMatchFailure(op, "result is not strided");
    Location loc = op.getLoc();
    auto source =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sourceStrides =
        source.getConstifiedMixedStrides();
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    // Within a group, each dimension steps over the sizes inside it; the
    // innermost steps as the source dimension did.
    AffineExpr s0, s1;
    bindSymbols(rewriter.getContext(), s0, s1);
    SmallVector<OpFoldResult> strides(type.getRank());
    for (auto [sourceDim, group] :
         llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride = sourceStrides[sourceDim];
      for (int64_t dim : llvm::reverse(group)) {
        strides[dim] = stride;
        stride = affine::makeComposedFoldedAffineApply(rewriter, loc, s0 * s1,
                                                       {stride, sizes[dim]});
      }
    }
    // What the result type states is a fact; the rest is computed.
    for (auto [stride, typeStride] : llvm::zip(strides, typeStrides))
      if (!ShapedType::isDynamic(typeStride))
        stride = rewriter.getIndexAttr(typeStride);
    for (auto [dim, size] : llvm::enumerate(sizes))
      if (!type.isDynamicDim(dim))
        size = rewriter.getIndexAttr(type.getDimSize(dim));
    OpFoldResult offset = ShapedType::isDynamic(typeOffset)
                              ? source.getConstifiedMixedOffset()
                              : rewriter.getIndexAttr(typeOffset);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, type, source.getBaseBuffer(), offset, sizes, strides);
    return success();
  }
};

class ExpandShapesAsCastsPass
    : public impl::ExpandShapesAsCastsBase<ExpandShapesAsCastsPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeAsCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
