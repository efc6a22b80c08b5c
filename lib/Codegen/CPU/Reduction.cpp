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
// combined once at the end of the row.
//
//===----------------------------------------------------------------------===//

#include "Families.h"
#include "TransformBuilders.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace lighthouse::cpu {

/// Elements reduced at once along a row: up to 64 (4 AVX-512 registers of
/// f32, 8 of f64), so that independent accumulators hide the latency of the
/// adds.
constexpr int64_t kRowVectorFloats = 64;

/// Whether `op`'s payload combines its input into its result with a float
/// operation the vectorizer has a vector reduction for.
static bool hasVectorCombiner(linalg::GenericOp op) {
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1)
    return false;
  return isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(combiners.front());
}

void collapseReducedLoops(ModuleOp module) {
  SmallVector<linalg::GenericOp> reductions;
  module.walk([&](linalg::GenericOp op) {
    unsigned reduced = op.getNumReductionLoops();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (op.hasPureTensorSemantics() && op.getNumResults() == 1 &&
        reduced >= 2 &&
        llvm::all_of(ArrayRef(iterators).take_back(reduced),
                     linalg::isReductionIterator) &&
        cast<linalg::LinalgOp>(op.getOperation())
            .hasOnlyProjectedPermutations())
      reductions.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : reductions) {
    unsigned loops = op.getNumLoops(), reduced = op.getNumReductionLoops();
    SmallVector<ReassociationIndices> folded = {
        llvm::to_vector(llvm::seq<int64_t>(loops - reduced, loops))};
    // Only when every operand reads the reduced loops as its innermost
    // dimensions, in order (a contiguous run of elements).
    if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), folded))
      continue;
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, folded, rewriter);
    if (succeeded(collapsed))
      rewriter.replaceOp(op, collapsed->results);
  }
}

std::optional<Strategy> selectReduction(linalg::LinalgOp op,
                                        const SelectionContext &context) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumReductionLoops() != 1 ||
      !linalg::isReductionIterator(op.getIteratorTypesArray().back()) ||
      !op.hasOnlyProjectedPermutations() ||
      !isa<Float32Type, Float64Type>(getElementTypeOrSelf(op->getResult(0))) ||
      !llvm::all_of(op->getOperandTypes(), [&](Type type) {
        return isa<FloatType>(getElementTypeOrSelf(type));
      }))
    return std::nullopt;
  // The result is indexed by the rows, in order: (d0, ..., dn-2).
  unsigned rowLoops = op.getNumLoops() - 1;
  AffineMap resultMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<AffineExpr> rows;
  for (unsigned loop = 0; loop < rowLoops; ++loop)
    rows.push_back(getAffineDimExpr(loop, op.getContext()));
  if (resultMap.getResults() != ArrayRef<AffineExpr>(rows))
    return std::nullopt;
  // Some input is read along the reduction, innermost (contiguous rows).
  AffineExpr reduced = getAffineDimExpr(rowLoops, op.getContext());
  if (llvm::none_of(op.getDpsInputOperands(), [&](OpOperand *input) {
        AffineMap map = op.getMatchingIndexingMap(input);
        return map.getNumResults() && map.getResults().back() == reduced;
      }))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      !hasVectorCombiner(generic))
    return std::nullopt;
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
