//===- OddTransfersAsMasked.cpp - Odd vectors read under masks ------------===//
//
// LLVM splits a load or store of a vector whose lanes are not a power of two
// into power-of-two parts: a row of 14 floats is read as 8 + 4 + 2, joined by
// inserts, 5 instructions where one would do. Depthwise 5x5 convolutions of
// 14x14 images (MobileNet-V3's) spent most of their time so, at 0.43x
// onnxruntime's speed. `lighthouse-odd-transfers-as-masked` reads and writes
// such a vector as one of the next power of two under a mask of its lanes
// (one masked move on AVX-512, one vmaskmov on AVX2); the arithmetic on the
// vector, which LLVM widens to the next power of two anyway, is unchanged.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Buffers/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_ODDTRANSFERSASMASKED
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

namespace {

/// The vector of the next power of two lanes that `transfer` would move
/// instead, or none when it moves a power of two already, is masked, may
/// read or write out of bounds (its lowering masks it already), or is not a
/// 1-D transfer along the innermost dimension.
static std::optional<VectorType> widened(VectorTransferOpInterface transfer) {
  VectorType type = transfer.getVectorType();
  if (type.getRank() != 1 || type.isScalable() || transfer.getMask() ||
      !transfer.getPermutationMap().isMinorIdentity() ||
      !transfer.isDimInBounds(0))
    return std::nullopt;
  int64_t lanes = type.getDimSize(0);
  if (lanes < 2 || llvm::isPowerOf2_64(lanes))
    return std::nullopt;
  return VectorType::get({static_cast<int64_t>(llvm::PowerOf2Ceil(lanes))},
                         type.getElementType());
}

/// A mask of the first `lanes` lanes of `wide`.
static Value firstLanes(PatternRewriter &rewriter, Location loc,
                        VectorType wide, int64_t lanes) {
  return vector::ConstantMaskOp::create(
      rewriter, loc, VectorType::get(wide.getShape(), rewriter.getI1Type()),
      ArrayRef<int64_t>{lanes});
}

struct ReadUnderMask : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    std::optional<VectorType> wide = widened(read);
    if (!wide)
      return failure();
    Location loc = read.getLoc();
    int64_t lanes = read.getVectorType().getDimSize(0);
    auto masked = vector::TransferReadOp::create(
        rewriter, loc, *wide, read.getBase(), read.getIndices(),
        read.getPermutationMapAttr(), read.getPadding(),
        firstLanes(rewriter, loc, *wide, lanes), read.getInBoundsAttr());
    rewriter.replaceOpWithNewOp<vector::ExtractStridedSliceOp>(
        read, masked, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{lanes},
        ArrayRef<int64_t>{1});
    return success();
  }
};

struct WriteUnderMask : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferWriteOp write,
                                PatternRewriter &rewriter) const override {
    std::optional<VectorType> wide = widened(write);
    if (!wide)
      return failure();
    Location loc = write.getLoc();
    int64_t lanes = write.getVectorType().getDimSize(0);
    // The lanes past the vector are never written: any value fills them.
    Value zeros = arith::ConstantOp::create(rewriter, loc, *wide,
                                            rewriter.getZeroAttr(*wide));
    Value vector = vector::InsertStridedSliceOp::create(
        rewriter, loc, write.getVector(), zeros, ArrayRef<int64_t>{0},
        ArrayRef<int64_t>{1});
    rewriter.replaceOpWithNewOp<vector::TransferWriteOp>(
        write, vector, write.getBase(), write.getIndices(),
        write.getPermutationMapAttr(), firstLanes(rewriter, loc, *wide, lanes),
        write.getInBoundsAttr());
    return success();
  }
};

class OddTransfersAsMaskedPass
    : public impl::OddTransfersAsMaskedBase<OddTransfersAsMaskedPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReadUnderMask, WriteUnderMask>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
