//===- Transpose.cpp - Transposes for CPUs --------------------------------===//
//
// The transpose family: linalg.transpose ops that move the innermost
// dimension (x.T, x @ w.T's w.T, permutes of the last axis). Copied element
// by element, each written element of a row reads from another row of the
// input, a cache line and soon a page apart: 2304x768 floats took 9.8 ms
// (numpy's copy of the transposed view: 9.4 ms). The strategy,
// `transpose.tiles`, tiles the output into blocks of 16 rows of the input's
// innermost dimension by 8 of the output's, each read as 8 contiguous runs of
// 16 and written as 16 of 8, vectorized into a vector.transpose: 1.2-1.4 ms
// (blocks of 16x8 and 32x8 measured best of 8x8 to 64x16, 1 thread, for
// every lowering of vector.transpose).
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"
#include "TransformBuilders.h"

using namespace mlir;

namespace lighthouse::cpu {

/// Elements of a block along the input's innermost dimension and along the
/// output's.
constexpr int64_t kInputRun = 16, kOutputRun = 8;

std::optional<Strategy> selectTranspose(linalg::TransposeOp op,
                                        const SelectionContext &context) {
  auto type = dyn_cast<RankedTensorType>(op.getInit().getType());
  ArrayRef<int64_t> permutation = op.getPermutation();
  int64_t rank = permutation.size();
  if (!op.hasPureTensorSemantics() || !type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat() || rank < 2 ||
      permutation.back() == rank - 1)
    return std::nullopt;
  // The output dimension that reads the input's innermost one.
  int64_t reading = llvm::find(permutation, rank - 1) - permutation.begin();
  ArrayRef<int64_t> sizes = type.getShape();
  int64_t run = sizes[reading] % kInputRun == 0 ? kInputRun : kOutputRun;
  if (sizes[reading] % run || sizes.back() % kOutputRun)
    return std::nullopt;
  Strategy strategy(StrategyKind::TransposeTiles);
  strategy.vector.assign(rank, 1);
  strategy.vector[reading] = run;
  strategy.vector.back() = kOutputRun;
  // Each thread's part, a whole number of blocks.
  strategy.threads = threadParts(sizes, rank, context.target.threads);
  for (auto [part, block] : llvm::zip(strategy.threads, strategy.vector))
    if (part)
      part = llvm::alignTo(part, block);
  return strategy;
}

LogicalResult verifyTranspose(Operation *op, const Strategy &strategy) {
  if (!isa<linalg::TransposeOp>(op) ||
      strategy.vector.size() != cast<linalg::LinalgOp>(op).getNumLoops())
    return op->emitError() << "transpose.tiles takes a linalg.transpose "
                              "and a block size per loop";
  return success();
}

void buildTranspose(const BuildContext &context) {
  ImplicitLocOpBuilder &b = context.builder;
  tx::Handle parts = tx::splitAcrossThreads(b, context.root, context.strategy);
  tx::vectorize(b, tx::tileWithLoops(b, parts, context.strategy.vector).op);
}

} // namespace lighthouse::cpu
