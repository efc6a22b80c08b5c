//===- FlattenBatchMatmuls.cpp - Shared weights make one matmul -----------===//
//
// `x @ W` with a 3-D x and a 2-D weight W reaches linalg as a batch_matmul
// whose right operand is W broadcast over the batch: a copy of W per batch
// element, then as many small matmuls. `lighthouse-flatten-batch-matmuls`
// rewrites it into one matmul of the batch's rows stacked, (B*M)xK times W,
// which needs no copy and gives the matmul schedule a taller matmul.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_FLATTENBATCHMATMULS
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

/// The 2-D value that `batched` broadcasts over its leading dimension, if it
/// is such a broadcast (linalg.broadcast, or the equivalent generic).
static Value broadcastSource(Value batched) {
  std::optional<SmallVector<int64_t>> dimensions;
  Value source;
  if (auto broadcast = batched.getDefiningOp<linalg::BroadcastOp>()) {
    dimensions = SmallVector<int64_t>(broadcast.getDimensions());
    source = broadcast.getInput();
  } else if (auto generic = batched.getDefiningOp<linalg::GenericOp>()) {
    dimensions = linalg::isaBroadcastOpInterface(generic);
    source = generic.getDpsInputs()[0];
  }
  return dimensions && *dimensions == ArrayRef<int64_t>{0} ? source : Value();
}

struct FlattenBroadcastBatchMatmul : OpRewritePattern<linalg::BatchMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::BatchMatmulOp batchMatmul,
                                PatternRewriter &rewriter) const override {
    // The matmul built below extends its operands as signed integers.
    if (!batchMatmul.hasPureTensorSemantics() ||
        batchMatmul.getIndexingMapsArray() !=
            batchMatmul.getDefaultIndexingMaps(batchMatmul.getContext()) ||
        batchMatmul.getCast() != linalg::TypeFn::cast_signed)
      return failure();
    Value weight = broadcastSource(batchMatmul.getDpsInputs()[1]);
    if (!weight)
      return failure();
    Location loc = batchMatmul.getLoc();
    Value lhs = batchMatmul.getDpsInputs()[0];
    Value init = batchMatmul.getDpsInits()[0];
    SmallVector<ReassociationIndices> stackRows = {{0, 1}, {2}};
    Value rows = tensor::CollapseShapeOp::create(rewriter, loc, lhs, stackRows);
    Value rowsInit =
        tensor::CollapseShapeOp::create(rewriter, loc, init, stackRows);
    auto matmul = linalg::MatmulOp::create(rewriter, loc, rowsInit.getType(),
                                           ValueRange{rows, weight},
                                           ValueRange{rowsInit});
    SmallVector<OpFoldResult> batchedSizes =
        tensor::getMixedSizes(rewriter, loc, init);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        batchMatmul, init.getType(), matmul.getResult(0), stackRows,
        batchedSizes);
    return success();
  }
};

class FlattenBatchMatmulsPass
    : public impl::FlattenBatchMatmulsBase<FlattenBatchMatmulsPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FlattenBroadcastBatchMatmul>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
