//===- ReductionForms.cpp - Reductions in the row form ------------------===//
//
// Rewrites of reductions into the form the reduction policy takes
// (Reduction.cpp), run before selection: reduced loops read contiguously
// are collapsed into one row; rows that no vector width divides are reduced
// in parts; a row's maximum with the index of its first occurrence becomes
// row reductions of its own.
//
//===----------------------------------------------------------------------===//

#include "Families.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace lighthouse::cpu {

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

void splitRowRemainders(ModuleOp module) {
  SmallVector<linalg::LinalgOp> reductions;
  module.walk([&](linalg::LinalgOp op) {
    if (isRowReduction(op) &&
        !powerOfTwoWidth(op.getStaticLoopRanges().back()) &&
        op.getStaticLoopRanges().back() > kMinRowVector)
      reductions.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : reductions) {
    unsigned row = op.getNumLoops() - 1;
    auto rest = cast<TilingInterface>(op.getOperation());
    // A multiple of the widest vectors first, then of the narrowest: a row
    // of 3199 is reduced as 3136 + 56 elements in vectors, 7 in a loop.
    for (int64_t multiple : {kRowVectorFloats, kMinRowVector}) {
      int64_t range = cast<linalg::LinalgOp>(rest.getOperation())
                          .getStaticLoopRanges()[row];
      if (range <= multiple || range % multiple == 0)
        continue;
      rewriter.setInsertionPoint(rest);
      auto [vectors, remainder] = linalg::splitOp(
          rewriter, rest, row, rewriter.getIndexAttr(range - range % multiple));
      if (!vectors || !remainder)
        break;
      rest = remainder;
    }
  }
}

namespace {

/// A reduction of each row of `input` to its maximum (or minimum) `value`
/// and the `index` of its first occurrence, as torch-mlir lowers argmax and
/// max over a dimension:
///
///   ^bb0(%in, %value, %index):
///     %k = arith.index_cast (linalg.index <row loop>)
///     %v = arith.maximumf %in, %value
///     %c = arith.cmpf ogt, %in, %value
///     linalg.yield %v, (arith.select %c, %k, %index)
///
/// The index changes where the element exceeds every one before it (and
/// the value's initial one).
struct IndexReduction {
  linalg::GenericOp op;
  OpOperand *input;
  unsigned valueResult, indexResult;
  arith::CmpFPredicate exceeds;
  Operation *combiner;
};

} // namespace

static std::optional<IndexReduction> asIndexReduction(linalg::GenericOp op) {
  auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
  if (!op.hasPureTensorSemantics() || op.getNumResults() != 2 ||
      op.getNumDpsInputs() != 1 || op.getNumReductionLoops() != 1 ||
      !linalg::isReductionIterator(op.getIteratorTypesArray().back()) ||
      !linalgOp.hasOnlyProjectedPermutations() || op.getNumLoops() < 2 ||
      llvm::any_of(linalgOp.getStaticLoopRanges(), ShapedType::isDynamic))
    return std::nullopt;
  unsigned row = op.getNumLoops() - 1;
  OpOperand *input = op.getDpsInputOperand(0);
  AffineMap inputMap = op.getMatchingIndexingMap(input);
  if (!inputMap.getNumResults() ||
      inputMap.getResults().back() != getAffineDimExpr(row, op.getContext()) ||
      !isa<FloatType>(getElementTypeOrSelf(input->get().getType())))
    return std::nullopt;
  // Both results indexed by the rows, in order.
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.getMatchingIndexingMap(&init) != rowsMap(linalgOp))
      return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  BlockArgument in = body.getArgument(0);
  for (unsigned valueResult : {0u, 1u}) {
    unsigned indexResult = 1 - valueResult;
    BlockArgument value = body.getArgument(1 + valueResult),
                  index = body.getArgument(1 + indexResult);
    Operation *combiner = yield.getOperand(valueResult).getDefiningOp();
    auto select =
        yield.getOperand(indexResult).getDefiningOp<arith::SelectOp>();
    if (!combiner || !select || select.getFalseValue() != index ||
        !isa<arith::MaximumFOp, arith::MinimumFOp>(combiner) ||
        combiner->getOperand(0) != in || combiner->getOperand(1) != value)
      continue;
    auto compare = select.getCondition().getDefiningOp<arith::CmpFOp>();
    arith::CmpFPredicate exceeds = isa<arith::MaximumFOp>(combiner)
                                       ? arith::CmpFPredicate::OGT
                                       : arith::CmpFPredicate::OLT;
    auto cast = select.getTrueValue().getDefiningOp<arith::IndexCastOp>();
    auto position =
        cast ? cast.getIn().getDefiningOp<linalg::IndexOp>() : nullptr;
    if (!compare || compare.getPredicate() != exceeds ||
        compare.getLhs() != in || compare.getRhs() != value || !position ||
        position.getDim() != row || !cast.getType().isInteger(64))
      continue;
    // Nothing else in the body: it is the op's whole meaning.
    if (body.getOperations().size() != 6)
      return std::nullopt;
    return IndexReduction{op,          input,   valueResult,
                          indexResult, exceeds, combiner};
  }
  return std::nullopt;
}

/// Replaces `reduction` with the maximum of each row (the op's own value
/// result), the least index where the row holds it (its index result where
/// the maximum exceeds the value's initial one, else the index's initial
/// one), and, in an scf.if taken when some maximum is NaN, the op itself.
static void rewriteIndexReduction(RewriterBase &rewriter,
                                  const IndexReduction &reduction) {
  linalg::GenericOp op = reduction.op;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  MLIRContext *context = op.getContext();
  unsigned rows = op.getNumLoops() - 1;
  AffineMap inputMap = op.getMatchingIndexingMap(reduction.input);
  AffineMap rowMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  AffineMap rowsOnly = AffineMap::getMultiDimIdentityMap(rows, context);
  Value input = reduction.input->get();
  Value initialValue = op.getDpsInits()[reduction.valueResult];
  Value initialIndex = op.getDpsInits()[reduction.indexResult];
  auto indexType = cast<RankedTensorType>(initialIndex.getType());
  Type indexElement = indexType.getElementType();
  SmallVector<utils::IteratorType> rowIterators(rows + 1,
                                                utils::IteratorType::parallel);
  rowIterators.back() = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallel(rows,
                                            utils::IteratorType::parallel);
  // A new tensor of `shape` holding `value` everywhere.
  auto filled = [&](Value value, ArrayRef<int64_t> shape) {
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, shape, value.getType());
    return linalg::FillOp::create(rewriter, loc, value, empty).getResult(0);
  };

  // The maximum of each row, as the op computes it.
  Operation *combiner = reduction.combiner;
  auto maxima = linalg::GenericOp::create(
      rewriter, loc, initialValue.getType(), input, initialValue,
      ArrayRef<AffineMap>{inputMap, rowMap}, rowIterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        IRMapping operands;
        operands.map(combiner->getOperands(), args);
        linalg::YieldOp::create(b, loc,
                                b.clone(*combiner, operands)->getResult(0));
      });
  Value maximum = maxima.getResult(0);

  // The least index holding it (the type's maximum where none does).
  Value none = arith::ConstantOp::create(
      rewriter, loc, rewriter.getIntegerAttr(indexElement, INT64_MAX));
  Value noIndices = filled(none, indexType.getShape());
  // The row's positions are an input, not linalg.index in the body: the
  // reduction is split into vectors of partial results
  // (tile_reduction_using_for), whose tiles would restart them at 0.
  int64_t length = op.getStaticLoopRanges()[rows];
  auto positions = linalg::GenericOp::create(
      rewriter, loc, RankedTensorType::get({length}, indexElement),
      ValueRange{},
      tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{length},
                              indexElement)
          .getResult(),
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, context)},
      utils::IteratorType::parallel,
      [&](OpBuilder &b, Location loc, ValueRange) {
        linalg::YieldOp::create(
            b, loc,
            arith::IndexCastOp::create(b, loc, indexElement,
                                       linalg::IndexOp::create(b, loc, 0))
                .getResult());
      });
  AffineMap alongRow =
      AffineMap::get(rows + 1, 0, getAffineDimExpr(rows, context), context);
  auto first = linalg::GenericOp::create(
      rewriter, loc, indexType,
      ValueRange{input, maximum, positions.getResult(0)}, noIndices,
      ArrayRef<AffineMap>{inputMap, rowMap, alongRow, rowMap}, rowIterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value holds = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            args[0], args[1]);
        Value candidate = arith::SelectOp::create(b, loc, holds, args[2], none);
        linalg::YieldOp::create(
            b, loc,
            arith::MinSIOp::create(b, loc, candidate, args[3]).getResult());
      });

  // The index result: that index where the maximum exceeds the initial
  // value (some element did), else the initial index.
  auto indices = linalg::GenericOp::create(
      rewriter, loc, indexType,
      ValueRange{maximum, initialValue, first.getResult(0)}, initialIndex,
      ArrayRef<AffineMap>{rowsOnly, rowsOnly, rowsOnly, rowsOnly}, parallel,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value exceeds =
            arith::CmpFOp::create(b, loc, reduction.exceeds, args[0], args[1]);
        linalg::YieldOp::create(
            b, loc,
            arith::SelectOp::create(b, loc, exceeds, args[2], args[3])
                .getResult());
      });

  // Whether some maximum is NaN: the original then says where.
  Value noNaN = filled(
      arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(false)),
      {});
  auto anyNaN = linalg::GenericOp::create(
      rewriter, loc, noNaN.getType(), maximum, noNaN,
      ArrayRef<AffineMap>{rowsOnly, AffineMap::get(rows, 0, context)},
      SmallVector<utils::IteratorType>(rows, utils::IteratorType::reduction),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          args[0], args[0]);
        linalg::YieldOp::create(
            b, loc, arith::OrIOp::create(b, loc, nan, args[1]).getResult());
      });
  Value someNaN = tensor::ExtractOp::create(rewriter, loc, anyNaN.getResult(0),
                                            ValueRange{});
  auto choice = scf::IfOp::create(rewriter, loc, op->getResultTypes(), someNaN,
                                  /*addThenBlock=*/true, /*addElseBlock=*/true);
  rewriter.setInsertionPointToStart(choice.thenBlock());
  Operation *original = rewriter.clone(*op);
  scf::YieldOp::create(rewriter, loc, original->getResults());
  rewriter.setInsertionPointToStart(choice.elseBlock());
  SmallVector<Value> results(2);
  results[reduction.valueResult] = maximum;
  results[reduction.indexResult] = indices.getResult(0);
  scf::YieldOp::create(rewriter, loc, results);
  rewriter.replaceOp(op, choice.getResults());
}

void indexReductionsAsRowReductions(ModuleOp module) {
  SmallVector<IndexReduction> reductions;
  module.walk([&](linalg::GenericOp op) {
    if (std::optional<IndexReduction> reduction = asIndexReduction(op))
      reductions.push_back(*reduction);
  });
  IRRewriter rewriter(module.getContext());
  for (const IndexReduction &reduction : reductions)
    rewriteIndexReduction(rewriter, reduction);
}

} // namespace lighthouse::cpu
