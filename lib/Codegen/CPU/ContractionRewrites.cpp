//===- ContractionRewrites.cpp - Contractions into the blocked form -------===//
//
// Rewrites of contractions into the canonical form the contraction policy
// takes (Contraction.cpp), run before selection: a matmul whose sizes are
// not multiples of the register tile computed on operands padded with
// zeros; a batch of matmuls as a loop of 2-D matmuls over the batch.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"

#include "lighthouse/Transforms/Utils/Constants.h"
#include "lighthouse/Transforms/Utils/Vectorizable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace lighthouse::cpu {

std::optional<SmallVector<int64_t>>
paddedSizes(ArrayRef<int64_t> sizes, const SelectionContext &context) {
  if (llvm::is_contained(sizes, 0))
    return std::nullopt;
  SmallVector<int64_t> padded;
  double work = 1, paddedWork = 1;
  // Fewer rows than a register tile's are a tile of their own.
  for (auto [size, tile] : llvm::zip(sizes, registerTilesOf(sizes, context))) {
    padded.push_back(llvm::alignTo(size, tile));
    work *= size;
    paddedWork *= padded.back();
  }
  if (paddedWork > kMaxPaddedWork * work)
    return std::nullopt;
  return padded;
}

/// Whether `op`, of `sizes`, is split across threads where it is.
static bool splitsAcrossThreads(linalg::LinalgOp op, ArrayRef<int64_t> sizes,
                                const SelectionContext &context) {
  return context.target.threads > 1 && !op->getParentOfType<scf::ForallOp>() &&
         llvm::product_of(sizes) >= kMinThreadedWork;
}

/// Pads the rows of `padded`, `sizes` padded to register tiles, to whole
/// register tiles per thread where the matmul holds work for the threads
/// but neither M nor N splits into whole tiles between them: the blocked
/// strategy splits only those, and ran MobileNet-V2's 196x576x96 (200 rows
/// padded, 25 tiles) on one thread; 208 rows split in two.
static void rowsForThreads(linalg::LinalgOp op, ArrayRef<int64_t> sizes,
                           SmallVectorImpl<int64_t> &padded,
                           const SelectionContext &context) {
  int64_t threads = context.target.threads;
  SmallVector<int64_t> tiles = registerTilesOf(padded, context);
  if (!splitsAcrossThreads(op, sizes, context) ||
      padded[kM] % (threads * tiles[kM]) == 0 ||
      padded[kN] % (threads * tiles[kN]) == 0)
    return;
  int64_t rows = llvm::alignTo(sizes[kM], threads * tiles[kM]);
  if (rows * padded[kN] * padded[kK] <=
      kMaxPaddedWork * llvm::product_of(sizes))
    padded[kM] = rows;
}

/// `value` padded with zeros to `shape`: a constant padded now, once (a
/// weight), else a tensor.pad, which the pipeline computes in place (the
/// producer writes into the padded tensor).
static Value padWithZeros(OpBuilder &b, Location loc, Value value,
                          ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  SmallVector<int64_t> high;
  for (auto [size, padded] : llvm::zip(type.getShape(), shape))
    high.push_back(padded - size);
  ElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant)))
    if (std::optional<ElementsAttr> padded =
            padConstantWithZeros(constant, high))
      return arith::ConstantOp::create(b, loc, paddedType,
                                       cast<TypedAttr>(*padded));
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return tensor::createPadHighOp(paddedType, value, zero, /*nofold=*/false, loc,
                                 b);
}

void padToRegisterTiles(ModuleOp module, const SelectionContext &context) {
  SmallVector<linalg::LinalgOp> matmuls;
  module.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && isCanonicalMatmul(op) &&
        !staysScalar(op) &&
        llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic) &&
        llvm::all_of(op->getOperandTypes(), [](Type type) {
          return Builder(type.getContext())
                     .getZeroAttr(getElementTypeOrSelf(type)) != nullptr;
        }))
      matmuls.push_back(op);
  });
  for (linalg::LinalgOp op : matmuls) {
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    std::optional<SmallVector<int64_t>> paddedOrNone =
        paddedSizes(sizes, context);
    if (!paddedOrNone)
      continue;
    rowsForThreads(op, sizes, *paddedOrNone, context);
    if (*paddedOrNone == sizes)
      continue;
    ArrayRef<int64_t> padded = *paddedOrNone;
    // A copy of B, padded on every call, is as much work as a matmul of a
    // few rows (a tile of its own, fewer than the register tile's): only a
    // constant B, padded now, is.
    if (sizes[kM] < context.registerTiles[kM] &&
        (padded[kK] != sizes[kK] || padded[kN] != sizes[kN]) &&
        !matchPattern(op.getDpsInputs()[1], m_Constant()))
      continue;
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value lhs =
        padWithZeros(b, loc, op.getDpsInputs()[0], {padded[kM], padded[kK]});
    Value rhs =
        padWithZeros(b, loc, op.getDpsInputs()[1], {padded[kK], padded[kN]});
    // C: a fill of the padded shape when it is a fill (each block of C then
    // fills itself), else padded.
    Value init = op.getDpsInits()[0];
    auto fill = init.getDefiningOp<linalg::FillOp>();
    auto initType = cast<RankedTensorType>(init.getType());
    if (fill && init.hasOneUse() && fill.hasPureTensorSemantics()) {
      Value empty = tensor::EmptyOp::create(
          b, loc, ArrayRef<int64_t>{padded[kM], padded[kN]},
          initType.getElementType());
      init = linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
                 .getResult(0);
    } else {
      init = padWithZeros(b, loc, init, {padded[kM], padded[kN]});
    }
    Type resultType = init.getType();
    Operation *paddedOp =
        clone(b, op, TypeRange{resultType}, ValueRange{lhs, rhs, init});
    Value result = tensor::ExtractSliceOp::create(
        b, loc, initType, paddedOp->getResult(0),
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(sizes[kM]),
                               b.getIndexAttr(sizes[kN])},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    if (fill && fill->use_empty())
      fill->erase();
  }
}

/// The only user of `value`, if it has one and it is an `OpTy`.
template <typename OpTy> static OpTy onlyUser(Value value) {
  return value.hasOneUse() ? dyn_cast<OpTy>(*value.user_begin()) : OpTy();
}

/// `generic`, which reads `matrix` through `expand` (its rows split into
/// images' pixels) with the identity map, computed on 2-D operands instead:
/// the loops `expand` splits one again. Its result is expanded back.
static FailureOr<linalg::GenericOp>
collapsedConsumer(RewriterBase &rewriter, linalg::GenericOp generic,
                  tensor::ExpandShapeOp expand) {
  OpOperand &use = *expand.getResult().use_begin();
  if (!generic.isDpsInput(&use) ||
      !generic.getMatchingIndexingMap(&use).isIdentity())
    return failure();
  SmallVector<ReassociationIndices> folded;
  for (const ReassociationIndices &group : expand.getReassociationIndices())
    if (group.size() > 1)
      folded.push_back(group);
  // Each operand must read the split loops together (a per-image operand,
  // read through (d0, d3), would not).
  if (!linalg::areDimSequencesPreserved(generic.getIndexingMapsArray(), folded))
    return failure();
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(generic, folded, rewriter);
  if (failed(collapsed))
    return failure();
  rewriter.replaceOp(generic, collapsed->results);
  auto result = cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
  // Its operand is the collapse of the expansion: the matrix itself. Both
  // go, or their uses would keep the matrix's slice.
  for (OpOperand &operand : result->getOpOperands()) {
    auto collapse = operand.get().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || collapse.getSrc() != expand.getResult() ||
        collapse.getType() != expand.getSrcType())
      continue;
    rewriter.modifyOpInPlace(result, [&] { operand.set(expand.getSrc()); });
    if (collapse->use_empty())
      rewriter.eraseOp(collapse);
  }
  if (expand->use_empty())
    rewriter.eraseOp(expand);
  return result;
}

/// The value of `value` if it is a constant or a reshape of one (a
/// per-channel bias, collapsed from its `Cx1x1` form).
static std::optional<ElementsAttr> reshapedConstant(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  ElementsAttr constant;
  if (!matchPattern(value, m_Constant(&constant)))
    return std::nullopt;
  return reshapeConstant(constant, type.getShape());
}

/// `generic`, which reads `slice` (of a padded matmul's result, from its
/// origin) with the identity map, computed on the whole padded matrix
/// instead, and sliced after; its operands along the padded loops are
/// constants, padded with zeros now. None if another operand would need a
/// copy (a residual of the unpadded size).
static FailureOr<linalg::GenericOp>
paddedConsumer(RewriterBase &rewriter, linalg::GenericOp generic,
               tensor::ExtractSliceOp slice) {
  OpOperand &use = *slice.getResult().use_begin();
  auto padded = cast<RankedTensorType>(slice.getSourceType());
  // Only a slice that leaves out padding (pad-to-register-tiles' bound on
  // it): not a user's slice of a few columns of many.
  auto sliceType = cast<RankedTensorType>(slice.getType());
  if (!generic.isDpsInput(&use) ||
      !generic.getMatchingIndexingMap(&use).isIdentity() ||
      !slice.hasZeroOffset() || !slice.hasUnitStride() ||
      !padded.hasStaticShape() || !sliceType.hasStaticShape() ||
      generic.getNumLoops() != padded.getRank() ||
      padded.getNumElements() > kMaxPaddedWork * sliceType.getNumElements())
    return failure();
  OpBuilder b(generic);
  Location loc = generic.getLoc();
  SmallVector<Value> inputs;
  for (OpOperand *operand : generic.getDpsInputOperands()) {
    if (operand == &use) {
      inputs.push_back(slice.getSource());
      continue;
    }
    auto type = cast<RankedTensorType>(operand->get().getType());
    AffineMap map = generic.getMatchingIndexingMap(operand);
    SmallVector<int64_t> shape;
    for (AffineExpr expr : map.getResults())
      shape.push_back(
          padded.getDimSize(cast<AffineDimExpr>(expr).getPosition()));
    if (type.getShape() == ArrayRef<int64_t>(shape)) {
      inputs.push_back(operand->get());
      continue;
    }
    std::optional<ElementsAttr> constant = reshapedConstant(operand->get());
    if (!constant)
      return failure();
    Value value =
        arith::ConstantOp::create(b, loc, type, cast<TypedAttr>(*constant));
    inputs.push_back(padWithZeros(b, loc, value, shape));
  }
  Type element = getElementTypeOrSelf(generic.getResult(0).getType());
  Value init = tensor::EmptyOp::create(b, loc, padded.getShape(), element);
  auto result = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
      generic.getIndexingMapsArray(), generic.getIteratorTypesArray());
  rewriter.cloneRegionBefore(generic.getRegion(), result.getRegion(),
                             result.getRegion().begin());
  Value sliced = tensor::ExtractSliceOp::create(
      b, loc, cast<RankedTensorType>(generic.getResult(0).getType()),
      result.getResult(0), slice.getMixedOffsets(), slice.getMixedSizes(),
      slice.getMixedStrides());
  rewriter.replaceOp(generic, sliced);
  if (slice->use_empty())
    rewriter.eraseOp(slice);
  return result;
}

void consumersOnMatrices(ModuleOp module, const SelectionContext &context) {
  if (!context.fuseConsumers)
    return;
  SmallVector<linalg::LinalgOp> matmuls;
  module.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && isCanonicalMatmul(op) &&
        op->getParentOfType<scf::ForallOp>() == nullptr)
      matmuls.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp matmul : matmuls) {
    // The chain of consumers, each computed on the matrix of the one before.
    Value matrix = matmul->getResult(0);
    while (true) {
      auto slice = onlyUser<tensor::ExtractSliceOp>(matrix);
      Value rows = slice ? slice.getResult() : matrix;
      auto expand = onlyUser<tensor::ExpandShapeOp>(rows);
      auto generic =
          onlyUser<linalg::GenericOp>(expand ? expand.getResult() : rows);
      // A consumer whose result is padded (a depthwise convolution's image)
      // writes into the padded tensor where it is; computed on the matrix,
      // its result would be copied there instead.
      if (!generic ||
          !isElementwiseConsumer(
              generic, getElementTypeOrSelf(matmul->getResult(0).getType())) ||
          onlyUser<tensor::PadOp>(generic.getResult(0)) ||
          onlyUser<tensor::InsertSliceOp>(generic.getResult(0)))
        break;
      if (expand) {
        FailureOr<linalg::GenericOp> collapsed =
            collapsedConsumer(rewriter, generic, expand);
        if (failed(collapsed))
          break;
        generic = *collapsed;
      }
      if (slice) {
        FailureOr<linalg::GenericOp> whole =
            paddedConsumer(rewriter, generic, slice);
        if (failed(whole))
          break;
        generic = *whole;
      }
      if (!expand && !slice)
        break;
      matrix = generic.getResult(0);
    }
  }
}

/// The blocks of a constant B (K x N) of `columns` columns: N / columns
/// blocks of K x columns, each contiguous.
static std::optional<ElementsAttr> columnBlocksOf(ElementsAttr b,
                                                  int64_t columns) {
  auto type = cast<RankedTensorType>(b.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  std::optional<ElementsAttr> split =
      reshapeConstant(b, {k, n / columns, columns});
  if (!split)
    return std::nullopt;
  return transposeConstant(*split, {1, 0, 2});
}

/// The columns of B's blocks for `op`, of `sizes`, or 0 to leave it: for
/// fewer rows than a register tile's, one register tile's columns (a tile
/// loops over all of K, and reads its panel in order); else the most
/// columns, in whole register tiles, up to a block of C's in cache, that
/// split N evenly, and into as many blocks per thread when threaded.
static int64_t columnBlockWidth(linalg::LinalgOp op, ArrayRef<int64_t> sizes,
                                const SelectionContext &context) {
  int64_t tile = registerTilesOf(sizes, context)[kN];
  if (sizes[kM] < context.registerTiles[kM])
    return sizes[kN] % tile == 0 && sizes[kN] > tile ? tile : 0;
  int64_t parts =
      splitsAcrossThreads(op, sizes, context) ? context.target.threads : 1;
  if (sizes[kN] % parts)
    return 0;
  for (int64_t width = context.cacheTiles[kN] / tile * tile; width >= tile;
       width -= tile)
    if (sizes[kN] / parts % width == 0)
      return sizes[kN] > width ? width : 0;
  return 0;
}

void constantBInColumnBlocks(ModuleOp module, const SelectionContext &context) {
  SmallVector<std::tuple<linalg::LinalgOp, ElementsAttr, int64_t>> matmuls;
  module.walk([&](linalg::LinalgOp op) {
    ElementsAttr b;
    if (!op.hasPureTensorSemantics() || !isCanonicalMatmul(op) ||
        staysScalar(op) ||
        llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic) ||
        !matchPattern(op.getDpsInputs()[1], m_Constant(&b)))
      return;
    if (int64_t width = columnBlockWidth(op, op.getStaticLoopRanges(), context))
      matmuls.emplace_back(op, b, width);
  });
  IRRewriter rewriter(module.getContext());
  for (auto [op, b, columns] : matmuls) {
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    int64_t blocks = sizes[kN] / columns;
    std::optional<ElementsAttr> packed = columnBlocksOf(b, columns);
    if (!packed)
      continue;
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value blocksOfB =
        arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(*packed));
    // C (M x N) as M x blocks x columns; the loops (p, m, j, k).
    Value init = op.getDpsInits()[0];
    auto initType = cast<RankedTensorType>(init.getType());
    auto splitType = RankedTensorType::get({sizes[kM], blocks, columns},
                                           initType.getElementType());
    SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
    Value split =
        tensor::ExpandShapeOp::create(rewriter, loc, splitType, init, groups);
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr p = getAffineDimExpr(0, ctx), m = getAffineDimExpr(1, ctx),
               j = getAffineDimExpr(2, ctx), k = getAffineDimExpr(3, ctx);
    SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {m, k}, ctx),
                                   AffineMap::get(4, 0, {p, k, j}, ctx),
                                   AffineMap::get(4, 0, {m, p, j}, ctx)};
    SmallVector<utils::IteratorType> iterators(3,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto generic =
        linalg::GenericOp::create(rewriter, loc, TypeRange{splitType},
                                  ValueRange{op.getDpsInputs()[0], blocksOfB},
                                  ValueRange{split}, maps, iterators);
    rewriter.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                               generic.getRegion().end());
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, initType, generic.getResult(0), groups);
    rewriter.replaceOp(op, result);
    // A loop over the blocks, across the threads when the whole holds work
    // for them; in it, a matmul of all rows by one block.
    FailureOr<linalg::LinalgOp> one =
        tileLoopByOne(rewriter, cast<linalg::LinalgOp>(generic.getOperation()),
                      /*loop=*/0, splitsAcrossThreads(op, sizes, context));
    if (succeeded(one))
      dropUnitLoops(rewriter, *one, {0});
  }
}

void splitBatchMatmuls(ModuleOp module, const SelectionContext &context) {
  SmallVector<linalg::LinalgOp> batches;
  module.walk([&](linalg::LinalgOp op) {
    // Batches of static sizes whose matmuls the blocked strategy then takes
    // (whole register tiles, padded or not): a loop of loops ran slower than
    // the loops of the whole batch (ViT's 197-token attention, 2.6x).
    if (op.hasPureTensorSemantics() &&
        isCanonicalMatmul(op, /*batched=*/true) && !staysScalar(op) &&
        llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic) &&
        paddedSizes(ArrayRef(op.getStaticLoopRanges()).drop_front(), context))
      batches.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : batches) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // The batch across the threads when the whole holds work for them (an
    // scf.forall of an iteration per matmul, which OpenMP shares out), else
    // a loop; the matmul of one batch element then as a 2-D generic of the
    // matmul's form.
    bool threaded = context.target.threads > 1 && ranges[0] > 1 &&
                    llvm::product_of(ranges) >= kMinThreadedWork;
    FailureOr<linalg::LinalgOp> one =
        tileLoopByOne(rewriter, op, /*loop=*/0, threaded);
    if (succeeded(one))
      dropUnitLoops(rewriter, *one, {0});
  }
}

} // namespace lighthouse::cpu
