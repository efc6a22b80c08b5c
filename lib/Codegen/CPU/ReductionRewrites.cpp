//===- ReductionRewrites.cpp - Reductions in the row form -----------------===//
//
// Rewrites of reductions into the form the reduction policy takes
// (Reduction.cpp), run before selection: reduced loops read contiguously
// are collapsed into one row; chains of row reductions and the elementwise
// ops that read their results (a softmax, a norm) run rows at a time; rows
// that no vector width divides are reduced in parts; a row's maximum with
// the index of its first occurrence becomes row reductions of its own.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/CSE.h"

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

/// Floats of a block of rows of a row chain: 32 KB, a core's L1 data cache,
/// so that the chain's later ops read the rows its first one brought in.
constexpr int64_t kRowChainFloats = 8192;

/// Whether `op` belongs to the row chain of an op over `ranges` (rows then
/// the row): a fill, an elementwise op or a row reduction over the same
/// loops, or an elementwise op over the rows alone (a norm's reciprocal
/// deviation).
static bool isRowChainOp(Operation *op, ArrayRef<int64_t> ranges) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return false;
  if (isa<linalg::FillOp>(op))
    return true;
  if (!isa<linalg::GenericOp>(op))
    return false;
  SmallVector<int64_t> own = linalgOp.getStaticLoopRanges();
  if (ArrayRef(own) == ranges)
    return linalg::isElementwise(linalgOp) || reducesRows(linalgOp);
  return ArrayRef(own) == ranges.drop_back() && linalg::isElementwise(linalgOp);
}

/// Whether `op` ends a row chain: an elementwise generic of static sizes,
/// in a function's body, that reads the result of a row reduction over the
/// same loops (a softmax's division by the row's sum).
static bool endsRowChain(linalg::GenericOp op) {
  auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (!isa<func::FuncOp>(op->getParentOp()) || !op.hasPureTensorSemantics() ||
      op->getNumResults() != 1 || ranges.size() < 2 ||
      llvm::any_of(ranges, ShapedType::isDynamic) ||
      !linalg::isElementwise(linalgOp))
    return false;
  // The reduction reads its rows contiguously: a softmax over channels
  // (NCHW's dimension 1) reads each row across the channel planes, which
  // blocks of rows would read a few floats at a time (0.6x the speed of
  // whole-tensor passes).
  return llvm::any_of(op.getDpsInputs(), [&](Value input) {
    auto producer = input.getDefiningOp<linalg::LinalgOp>();
    return producer && reducesRows(producer) &&
           ArrayRef(producer.getStaticLoopRanges()) == ArrayRef(ranges) &&
           readsRowsContiguously(producer);
  });
}

void rowChainsInRowLoops(ModuleOp module, const SelectionContext &context) {
  IRRewriter rewriter(module.getContext());
  DenseSet<Operation *> untiled;
  while (true) {
    // The last chain first: its ops are then erased, and the chains before
    // it (a softmax's exp(x - max), read by its sum) are in it.
    linalg::GenericOp end;
    module.walk([&](linalg::GenericOp op) {
      if (!untiled.contains(op) && endsRowChain(op))
        end = op;
    });
    if (!end)
      return;
    auto linalgOp = cast<linalg::LinalgOp>(end.getOperation());
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    // Rows of each outer loop one at a time, of the innermost row loop as
    // many as fill kRowChainFloats (a divisor of them: blocks of static
    // sizes), or all of them when no divisor comes near and they fit half
    // of L2 (ViT's 197 tokens: blocks of 1 row cost more in loop overhead
    // than they saved); across the threads when the whole op would be split
    // across them.
    unsigned rowLoop = ranges.size() - 2;
    int64_t wanted = std::max<int64_t>(kRowChainFloats / ranges.back(), 1);
    int64_t rows = largestDivisorAtMost(ranges[rowLoop], wanted);
    int64_t elementBytes =
        llvm::divideCeil(getElementTypeOrSelf(end->getResult(0).getType())
                             .getIntOrFloatBitWidth(),
                         8);
    if (2 * rows <= wanted && ranges[rowLoop] * ranges.back() * elementBytes <=
                                  context.target.l2Bytes / 2)
      rows = ranges[rowLoop];
    SmallVector<OpFoldResult> sizes(ranges.size() - 1,
                                    rewriter.getIndexAttr(1));
    sizes[rowLoop] = rewriter.getIndexAttr(rows);
    sizes.push_back(rewriter.getIndexAttr(0));
    bool threaded =
        !threadParts(ranges, ranges.size() - 1, context.target.threads).empty();
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setTileSizes(sizes).setLoopType(
        threaded ? scf::SCFTilingOptions::LoopType::ForallOp
                 : scf::SCFTilingOptions::LoopType::ForOp);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!isRowChainOp(producer.getOwner(), ranges))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(end);
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(end.getOperation()), options);
    if (failed(fused) || fused->loops.empty()) {
      untiled.insert(end);
      continue;
    }
    rewriter.replaceOp(end, fused->replacements.lookup(end->getResult(0)));
    // The producers fused for each op that reads them (a softmax's maximum,
    // read by its exp and its division) are computed once; the originals
    // are erased where nothing else reads them.
    Operation *loop = fused->loops.front();
    DominanceInfo dominance(loop);
    eliminateCommonSubExpressions(rewriter, dominance, loop);
    SmallVector<Operation *> originals(fused->fusedProducers.begin(),
                                       fused->fusedProducers.end());
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&producer : originals)
        if (producer && producer->use_empty()) {
          rewriter.eraseOp(producer);
          producer = nullptr;
          erased = true;
        }
    }
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
