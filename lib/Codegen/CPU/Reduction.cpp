//===- Reduction.cpp - Row reductions for CPUs ----------------------------===//
//
// The reduction family: linalg.generic ops that reduce their innermost loop
// into a result indexed by the others (a softmax's row maxima and sums, a
// norm's means and variances, sum/mean/max over the last dimension). Left to
// loops, each row is a scalar chain of dependent adds: LLVM does not
// reassociate floating-point sums, so it does not vectorize them. The
// strategy, `reduction.rows`, splits the rows across threads, tiles them
// into blocks, and splits the reduction (tile_reduction_using_for) into
// vectors of partial results, several independent accumulators a row,
// combined once at the end of the row. Rows that no vector width divides
// are reduced in parts first (`splitRowRemainders`).
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"
#include "TransformBuilders.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace lighthouse::cpu {

/// Whether `op`'s payload combines its input into its result with an
/// operation the vectorizer has a vector reduction for.
static bool hasVectorCombiner(linalg::GenericOp op) {
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1)
    return false;
  return isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MinSIOp,
             arith::MaxSIOp>(combiners.front());
}

AffineMap rowsMap(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  SmallVector<AffineExpr> rows;
  for (unsigned loop = 0; loop + 1 < loops; ++loop)
    rows.push_back(getAffineDimExpr(loop, op.getContext()));
  // (d0) -> () for a whole tensor reduced to one value.
  return AffineMap::get(loops, 0, rows, op.getContext());
}

bool reducesRows(linalg::LinalgOp op) {
  return isa<linalg::GenericOp>(op.getOperation()) &&
         op.hasPureTensorSemantics() && op->getNumResults() == 1 &&
         op.getNumReductionLoops() == 1 &&
         linalg::isReductionIterator(op.getIteratorTypesArray().back()) &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)) == rowsMap(op);
}

bool readsRowsContiguously(linalg::LinalgOp op) {
  AffineExpr reduced = getAffineDimExpr(op.getNumLoops() - 1, op.getContext());
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    return map.getNumResults() && map.getResults().back() == reduced;
  });
}

bool isRowReduction(linalg::LinalgOp op) {
  if (!reducesRows(op) || !op.hasOnlyProjectedPermutations() ||
      !readsRowsContiguously(op) ||
      llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  Type result = getElementTypeOrSelf(op->getResult(0));
  return (result.isF32() || result.isF64() || result.isInteger(32) ||
          result.isInteger(64)) &&
         llvm::all_of(op.getDpsInputs(),
                      [&](Value input) {
                        Type element = getElementTypeOrSelf(input.getType());
                        return isa<FloatType>(element) ||
                               element.isInteger(32) || element.isInteger(64);
                      }) &&
         hasVectorCombiner(cast<linalg::GenericOp>(op.getOperation()));
}

std::optional<Strategy> selectReduction(linalg::LinalgOp op,
                                        const SelectionContext &context) {
  if (!isRowReduction(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned rowLoops = op.getNumLoops() - 1;
  // Vectors of partial results: the widest of 64, 32, 16 and 8 elements that
  // divides the row.
  int64_t width = powerOfTwoWidth(ranges.back());
  if (!width)
    return std::nullopt;
  Strategy strategy(StrategyKind::ReductionRows);
  strategy.vector.assign(ranges.size(), 0);
  strategy.vector.back() = width;
  // A whole tensor reduced to one value: one row, on one thread.
  if (rowLoops == 0)
    return strategy;
  strategy.threads = threadParts(ranges, rowLoops, context.target.threads);
  // Blocks of rows: enough rows that their partial results fill 64 elements
  // (independent accumulators), taken from the innermost row loop.
  strategy.registers.assign(ranges.size(), 1);
  strategy.registers.back() = 0;
  int64_t innerRows = ranges[rowLoops - 1];
  if (!strategy.threads.empty() && strategy.threads[rowLoops - 1])
    innerRows = strategy.threads[rowLoops - 1];
  strategy.registers[rowLoops - 1] =
      largestDivisorAtMost(innerRows, kRowVectorFloats / width);
  return strategy;
}

LogicalResult verifyReduction(Operation *op, const Strategy &strategy) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (linalgOp.getNumReductionLoops() != 1 ||
      strategy.vector.size() != linalgOp.getNumLoops() ||
      !strategy.vector.back())
    return op->emitError() << "reduction.rows takes an op reducing one loop "
                              "and a vector size per loop, the reduced "
                              "one's nonzero";
  return success();
}

void buildReduction(const BuildContext &context) {
  ImplicitLocOpBuilder &b = context.builder;
  const Strategy &strategy = context.strategy;
  tx::Handle parts = tx::splitAcrossThreads(b, context.root, strategy);
  tx::Handle rows = strategy.registers.empty()
                        ? parts
                        : tx::tileWithLoops(b, parts, strategy.registers).op;
  auto split =
      transform::TileReductionUsingForOp::create(b, rows, strategy.vector);
  for (Value fill : split.getFillOp())
    tx::vectorize(b, fill);
  tx::vectorize(b, split.getSplitOp());
  tx::vectorize(b, split.getCombiningOp());
}

} // namespace lighthouse::cpu
