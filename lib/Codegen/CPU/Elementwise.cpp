//===- Elementwise.cpp - Elementwise ops for CPUs -------------------------===//
//
// The elementwise family: linalg.generic ops whose loops are all parallel
// and whose operands are read element for element or broadcast. Their
// strategy, `elementwise.rows`, tiles every loop but the innermost by 1 and
// the innermost by up to 64 elements (a few vector registers), which become
// vectors; a large op is first split across threads along its outermost
// loop of `threads` iterations or more.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"
#include "TransformBuilders.h"

#include "lighthouse/Transforms/Utils/Vectorizable.h"

#include "mlir/Dialect/Linalg/Utils/Utils.h"

using namespace mlir;

namespace lighthouse::cpu {

/// Elements below which an elementwise op runs on one thread. Measured on a
/// batch norm + ReLU over 128K floats: ~20 us on one thread, ~50 us on two
/// (waking the other thread costs more than it saves); over 512K floats,
/// ~175 us on one, ~125 us on two.
constexpr int64_t kMinThreadedElements = int64_t(1) << 19;

int64_t powerOfTwoWidth(int64_t size) {
  for (int64_t width = 64; width >= 8; width /= 2)
    if (size % width == 0)
      return width;
  return 0;
}

int64_t rowVectorWidth(int64_t size) {
  if (size > 64)
    return powerOfTwoWidth(size);
  return size < 8 ? 0 : size;
}

SmallVector<int64_t> threadParts(ArrayRef<int64_t> ranges, unsigned splittable,
                                 int64_t threads) {
  // The outermost loop with an iteration for each thread (not the batch, at
  // batch 1).
  const int64_t *loop =
      llvm::find_if(ranges.take_front(splittable),
                    [&](int64_t range) { return range >= threads; });
  if (threads < 2 || loop == ranges.begin() + splittable ||
      llvm::any_of(ranges, ShapedType::isDynamic) ||
      llvm::product_of(ranges) < kMinThreadedElements)
    return {};
  // Parts of ceil(range / threads) iterations: no thread gets an empty one.
  SmallVector<int64_t> parts(ranges.size(), 0);
  parts[loop - ranges.begin()] = llvm::divideCeil(*loop, threads);
  return parts;
}

std::optional<Strategy> selectElementwise(linalg::LinalgOp op,
                                          const SelectionContext &context) {
  // Named ops that are elementwise too (fill, copy, transpose, broadcast)
  // are left to the loops, as they were before strategies had families.
  if (!isa<linalg::GenericOp>(op.getOperation()) ||
      !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      !linalg::isElementwise(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || ShapedType::isDynamic(ranges.back()))
    return std::nullopt;
  int64_t width = rowVectorWidth(ranges.back());
  // The loop split across threads: not the innermost, which is vectorized.
  SmallVector<int64_t> threads =
      threadParts(ranges, ranges.size() - 1, context.target.threads);
  // Operands broadcast along the innermost loop (per-channel constants of an
  // NCHW batch norm, a row's maximum) are only split across threads, left
  // to the loops LLVM vectorizes. Read through their unit dimensions (Cx1x1)
  // the vectorizer read them element by element into each row: measured 20x
  // slower on a batch norm. Read through (c), as lighthouse-drop-unit-dims
  // now leaves some, they would be broadcasts; not measured yet.
  // Ops that stay scalar (Vectorizable.h: a libm call per element, a type
  // LLVM packs) are only split across threads.
  unsigned innermost = ranges.size() - 1;
  bool vectorize =
      width && !staysScalar(op) && op.hasOnlyProjectedPermutations() &&
      llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
        AffineMap map = op.getMatchingIndexingMap(input);
        return map.getNumResults() == 0 || map.isFunctionOfDim(innermost);
      });
  if (!vectorize && threads.empty())
    return std::nullopt;
  Strategy strategy(StrategyKind::ElementwiseRows);
  strategy.threads = threads;
  if (vectorize) {
    strategy.vector.assign(ranges.size(), 1);
    strategy.vector.back() = width;
  }
  return strategy;
}

void buildElementwise(const BuildContext &context) {
  ImplicitLocOpBuilder &b = context.builder;
  const Strategy &strategy = context.strategy;
  tx::Handle rows = tx::splitAcrossThreads(b, context.root, strategy);
  if (!strategy.vector.empty())
    tx::vectorize(b, tx::tileWithLoops(b, rows, strategy.vector).op);
}

} // namespace lighthouse::cpu
