//===- ContiguousInnermostLoop.cpp - Loop order LLVM vectorizes -----------===//
//
// convert-linalg-to-loops nests the loops in the op's iteration order, which
// puts a contraction's reduction innermost (matmul: i, j, k). LLVM cannot
// vectorize a floating-point reduction without reassociating it, so such a
// loop stays scalar, and is only made fast by LLVM fully unrolling it into
// the loop around it: costly to compile, and not possible when the bound is
// dynamic. `lighthouse-contiguous-innermost-loop` moves the output's last
// dimension innermost instead (matmul: i, k, j; NCHW convolution: the
// output's row), when every operand it indexes is contiguous along it. The
// innermost loop is then a parallel one over unit-stride accesses, which
// LLVM vectorizes as it is.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Buffers/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_CONTIGUOUSINNERMOSTLOOP
#include "lighthouse/Transforms/Buffers/Passes.h.inc"

namespace {

/// Whether `expr` steps by one element when loop `dim` steps by one: `dim`
/// itself, or `dim` plus terms of other loops (a window: `ow + kw`).
static bool isUnitStrideIn(AffineExpr expr, unsigned dim) {
  if (auto dimExpr = dyn_cast<AffineDimExpr>(expr))
    return dimExpr.getPosition() == dim;
  auto sum = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!sum || sum.getKind() != AffineExprKind::Add)
    return false;
  AffineExpr lhs = sum.getLHS(), rhs = sum.getRHS();
  if (rhs.isFunctionOfDim(dim))
    std::swap(lhs, rhs);
  return !rhs.isFunctionOfDim(dim) && isUnitStrideIn(lhs, dim);
}

/// The loop to put innermost in `op`, if its innermost loop is a reduction
/// and the output's last dimension is a parallel loop along which every
/// operand that it indexes is contiguous.
static std::optional<unsigned> contiguousParallelLoop(linalg::LinalgOp op) {
  unsigned innermost = op.getNumLoops() - 1;
  if (op.getNumLoops() < 2 || op.getNumDpsInits() != 1 ||
      !linalg::isReductionIterator(op.getIteratorTypesArray()[innermost]))
    return std::nullopt;
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outputMap.getNumResults() == 0)
    return std::nullopt;
  auto lastDim = dyn_cast<AffineDimExpr>(outputMap.getResults().back());
  if (!lastDim || !linalg::isParallelIterator(
                      op.getIteratorTypesArray()[lastDim.getPosition()]))
    return std::nullopt;
  unsigned dim = lastDim.getPosition();
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isFunctionOfDim(dim))
      continue;
    auto buffer = dyn_cast<MemRefType>(operand.get().getType());
    if (!buffer || !buffer.isLastDimUnitStride())
      return std::nullopt;
    ArrayRef<AffineExpr> results = map.getResults();
    if (!isUnitStrideIn(results.back(), dim) ||
        llvm::any_of(results.drop_back(),
                     [&](AffineExpr e) { return e.isFunctionOfDim(dim); }))
      return std::nullopt;
  }
  return dim;
}

class ContiguousInnermostLoopPass
    : public impl::ContiguousInnermostLoopBase<ContiguousInnermostLoopPass> {
public:
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, unsigned>> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      if (std::optional<unsigned> dim = contiguousParallelLoop(op))
        candidates.emplace_back(op, *dim);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, dim] : candidates) {
      // The loops in their order, `dim` moved last.
      SmallVector<unsigned> order;
      for (unsigned loop = 0, e = op.getNumLoops(); loop < e; ++loop)
        if (loop != dim)
          order.push_back(loop);
      order.push_back(dim);
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order)))
        return signalPassFailure();
    }
  }
};

} // namespace

} // namespace lighthouse
