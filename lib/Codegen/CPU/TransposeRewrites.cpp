//===- TransposeRewrites.cpp - Transposes carried to their inverses -------===//
//
// The convolution forms compute convolutions in NHWC between transposes of
// their image and of their output (patchesAsMatmuls, depthwiseChannelsLast).
// Between two such convolutions, the ops in between (a norm's scale and
// shift, an activation, a residual sum, the next image's padding) ran in
// NCHW, so each convolution paid two passes over its image and output to
// change layouts: MobileNet-V3-small had 74 transposes. Carried past those
// ops, each transpose meets its inverse and both go. A residual sum reads
// its shortcut in NCHW; transposed into NHWC, the sum runs there too.
//
//===----------------------------------------------------------------------===//

#include "OpFamilies.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse::cpu {

namespace {

/// The permutations between NCHW and NHWC, the convolution forms' layouts.
/// Transposes of others (attention's heads) stay where they are: their
/// forms read them where they are.
bool isLayoutChange(ArrayRef<int64_t> permutation) {
  return permutation == ArrayRef(kToChannelsLast) ||
         permutation == ArrayRef(kFromChannelsLast);
}

/// The layout change `value` comes from, if `map` reads it in the loops'
/// order and every user of the transpose moves it on: elementwise ops,
/// which it moves past, and transposes, which it folds with. A transpose
/// another op keeps would stay, and its copy after the elementwise op would
/// be one transpose more.
linalg::TransposeOp transposeRead(Value value, AffineMap map) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !map.isIdentity() ||
      !isLayoutChange(transpose.getPermutation()))
    return linalg::TransposeOp();
  bool movesOn = llvm::all_of(transpose->getUsers(), [](Operation *user) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    return isa<linalg::TransposeOp>(user) ||
           (generic && generic.getNumLoops() == generic.getNumParallelLoops());
  });
  return movesOn ? transpose : linalg::TransposeOp();
}

/// Whether every use of the elementwise op's `result` goes into NHWC
/// through at most kMaxOpsBetweenLayouts elementwise ops and pads (the next
/// residual block's padded convolution), or is an elementwise op that reads
/// a transpose out of NHWC besides, which then runs in NHWC too (the next
/// block's residual sum): then the op runs in NHWC at the cost of one
/// transpose of another operand into NHWC, and its result's transposes out
/// of NHWC and back meet. Were one use to stay in NCHW (the model's
/// result), the result's transpose out would stay too, and the operand's
/// would be one more.
bool goesIntoChannelsLast(Value result) {
  auto intoNhwc = [](Operation *op) {
    return isTransposeBy(op, kToChannelsLast);
  };
  auto outOfNhwc = [](Value input) {
    Operation *op = input.getDefiningOp();
    return op && isTransposeBy(op, kFromChannelsLast);
  };
  return !result.use_empty() &&
         llvm::all_of(result.getUses(), [&](OpOperand &use) {
           auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
           bool runsInNhwc =
               generic && linalg::isElementwise(generic) &&
               generic.getMatchingIndexingMap(&use).isIdentity() &&
               llvm::any_of(generic.getDpsInputs(), outOfNhwc);
           return runsInNhwc || useGoesTo(use, kMaxOpsBetweenLayouts, intoNhwc);
         });
}

/// An elementwise generic of static shape whose full operands are all
/// transposes by one permutation P (the others broadcast along some loops)
/// computes in the layout before P instead, and its result is transposed by
/// P: the transpose moves past it, toward its inverse. When P is out of
/// NHWC, one other full operand read in the loops' order may be transposed
/// into NHWC for it (goesIntoChannelsLast): ResNet's residual sums then run
/// in NHWC, and the transposes around them meet.
struct ElementwiseBeforeTranspose : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    // linalg.index would name other loops after the rewrite.
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.hasIndexSemantics() ||
        op.getNumLoops() != op.getNumParallelLoops() ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)) ||
        !cast<RankedTensorType>(op.getResult(0).getType()).hasStaticShape())
      return failure();
    unsigned rank = op.getNumLoops();
    // Each input's layout change, if it reads one.
    SmallVector<linalg::TransposeOp> reads;
    for (OpOperand *input : op.getDpsInputOperands())
      reads.push_back(
          transposeRead(input->get(), op.getMatchingIndexingMap(input)));
    auto first = llvm::find_if(reads, [](linalg::TransposeOp read) {
      return static_cast<bool>(read);
    });
    if (first == reads.end())
      return failure();
    ArrayRef<int64_t> permutation = first->getPermutation();
    OpOperand *intoChannelsLast = nullptr;
    for (auto [input, transpose] :
         llvm::zip_equal(op.getDpsInputOperands(), reads)) {
      AffineMap map = op.getMatchingIndexingMap(input);
      bool alike = transpose && transpose.getPermutation() == permutation;
      if (alike || (map.isProjectedPermutation(/*allowZeroInResults=*/true) &&
                    !map.isPermutation()))
        continue;
      // Others must broadcast (a norm's per-channel scale, a
      // squeeze-and-excitation's per-image one): a full operand not so
      // transposed would be read across its layout; but for one, which
      // is transposed into NHWC.
      if (intoChannelsLast || transpose || !map.isIdentity() ||
          permutation != ArrayRef(kFromChannelsLast) ||
          !goesIntoChannelsLast(op.getResult(0)))
        return failure();
      intoChannelsLast = input;
    }
    // Old loop i is loop permutation[i] of the layout before the transpose.
    SmallVector<AffineExpr> oldLoops;
    for (int64_t dim : permutation)
      oldLoops.push_back(rewriter.getAffineDimExpr(dim));
    AffineMap oldInNew =
        AffineMap::get(rank, 0, oldLoops, rewriter.getContext());
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (auto [input, transpose] :
         llvm::zip_equal(op.getDpsInputOperands(), reads)) {
      if (transpose) {
        inputs.push_back(transpose.getInput());
        maps.push_back(identity);
      } else if (input == intoChannelsLast) {
        inputs.push_back(
            transposed(rewriter, op.getLoc(), input->get(), kToChannelsLast));
        maps.push_back(identity);
      } else {
        inputs.push_back(input->get());
        maps.push_back(op.getMatchingIndexingMap(input).compose(oldInNew));
      }
    }
    maps.push_back(identity);
    auto firstType = cast<RankedTensorType>(first->getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, firstType.getShape(),
                                         resultType.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
        maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                                generic.getRegion().begin());
    rewriter.replaceOp(
        op, transposed(rewriter, loc, generic.getResult(0), permutation));
    return success();
  }
};

/// A transpose of a constant-padded transpose pads the transposed tensor
/// instead, where the two transposes then meet.
struct TransposeBeforePad : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto pad = op.getInput().getDefiningOp<tensor::PadOp>();
    auto inner = pad ? pad.getSource().getDefiningOp<linalg::TransposeOp>()
                     : linalg::TransposeOp();
    // The pad padded once, for this transpose alone; static, as the
    // transposes the convolution forms make.
    if (!inner || !pad->hasOneUse() || !isLayoutChange(op.getPermutation()) ||
        !isLayoutChange(inner.getPermutation()) ||
        !pad.getSourceType().hasStaticShape())
      return failure();
    Value value = pad.getConstantPaddingValue();
    if (!value)
      return failure();
    ArrayRef<int64_t> permutation = op.getPermutation();
    SmallVector<OpFoldResult> low, high;
    for (int64_t dim : permutation) {
      low.push_back(pad.getMixedLowPad()[dim]);
      high.push_back(pad.getMixedHighPad()[dim]);
    }
    Location loc = op.getLoc();
    Value source = transposed(rewriter, loc, pad.getSource(), permutation);
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, op.getResult()[0].getType(),
                                               source, low, high, value,
                                               pad.getNofold());
    return success();
  }
};

} // namespace

void transposesToTheirInverses(ModuleOp module) {
  if (!module.walk([](linalg::TransposeOp) { return WalkResult::interrupt(); })
           .wasInterrupted())
    return;
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  patterns.add<ElementwiseBeforeTranspose, TransposeBeforePad>(context);
  // Transposes that meet fold into one, or none; a transposed fill (a
  // convolution's zeros moved into NHWC) is a fill.
  linalg::TransposeOp::getCanonicalizationPatterns(patterns, context);
  linalg::FillOp::getCanonicalizationPatterns(patterns, context);
  // Folds remove the transposes that meet (their permutations compose to
  // none); merging the model's constants is left to the canonicalizations
  // after the forms.
  (void)applyPatternsGreedily(module, std::move(patterns),
                              GreedyRewriteConfig().enableConstantCSE(false));
}

} // namespace lighthouse::cpu
