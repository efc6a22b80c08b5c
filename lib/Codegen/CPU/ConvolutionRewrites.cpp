//===- ConvolutionRewrites.cpp - Convolutions into the kernel's 2-D form --===//
//
// Rewrites of convolutions into the 2-D NCHW form the convolution policy and
// its register kernel take (Convolution.cpp), run before selection: a 1-D
// convolution is a 2-D one of height 1; a 3-D convolution is a loop over
// output depths of a loop over filter depths of 2-D ones, each adding its
// filter slice's contribution to one output slice; a grouped convolution is
// a loop over its groups of 2-D ones. Left as they came, each was a loop
// nest (3-D: 0.03x to 0.07x eager's speed). A depthwise convolution next to
// a pointwise one runs in NHWC, its pointwise neighbours as matmuls of NHWC
// pixels (the transposes between them then fold: TransposeRewrites.cpp);
// another's loops are put in a pooling's order, the kernel's. A dense
// convolution of a constant filter runs in NHWC, its filter packed in
// blocks of output channels. A convolution
// whose windows tile the image without overlap, wider than the kernel's stride
// of 2, or with one window per image, or whose output rows are too narrow for
// the kernel's vectors, is a matmul of the image's patches; one whose window is
// a pixel wide along a strided dimension (ResNet's 1x1 stride-2 shortcuts)
// reads every stride-th pixel, picked out first. One that neither strategy
// takes only for its rows' width is split in two that each takes; one with a
// dynamic batch is versioned on the batch size.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionKernel.h"
#include "OpFamilies.h"

#include "lighthouse/Transforms/Utils/Constants.h"
#include "lighthouse/Transforms/Utils/Vectorizable.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace lighthouse::cpu {

/// `value` (an N x C x W image or output, an F x C x K filter) with a unit
/// dimension inserted before its last: the 2-D form's height of 1.
static Value withUnitRow(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.end() - 1, 1);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t dim = 0; dim + 1 < type.getRank(); ++dim)
    reassociation.push_back({dim});
  int64_t last = type.getRank() - 1;
  reassociation.push_back({last, last + 1});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      reassociation);
}

static void convolutions1DAs2D(ModuleOp module) {
  SmallVector<linalg::Conv1DNcwFcwOp> convolutions;
  module.walk([&](linalg::Conv1DNcwFcwOp op) {
    if (op.hasPureTensorSemantics())
      convolutions.push_back(op);
  });
  for (linalg::Conv1DNcwFcwOp op : convolutions) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value image = withUnitRow(b, loc, op.getDpsInputs()[0]);
    Value filter = withUnitRow(b, loc, op.getDpsInputs()[1]);
    Value init = withUnitRow(b, loc, op.getDpsInits()[0]);
    auto rowOf = [&](DenseIntElementsAttr attr) {
      return b.getI64TensorAttr({1, *attr.getValues<int64_t>().begin()});
    };
    auto conv = linalg::Conv2DNchwFchwOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{image, filter},
        ValueRange{init},
        {b.getNamedAttr("strides", rowOf(op.getStrides())),
         b.getNamedAttr("dilations", rowOf(op.getDilations()))});
    Value result = tensor::CollapseShapeOp::create(
        b, loc, op->getResult(0).getType(), conv.getResult(0),
        cast<tensor::ExpandShapeOp>(init.getDefiningOp())
            .getReassociationIndices());
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

/// Whether `op`, a convolution on tensors, has static sizes, none of them
/// 0, and is computed in vectors: the rewrites into loops of 2-D ones take
/// it.
static bool isStaticVectorConvolution(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && !staysScalar(op) &&
         llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic) &&
         !llvm::is_contained(op.getStaticLoopRanges(), 0);
}

/// Replaces `op` by loops over its `loops`, each tiled by 1, of the op of
/// one iteration without them: the first loop an scf.forall across the
/// threads when the whole holds work for them (each iteration's op then
/// runs on its thread), the others scf.for.
static void asLoopsOfOps(IRRewriter &rewriter, linalg::LinalgOp op,
                         ArrayRef<unsigned> loops,
                         const SelectionContext &context) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool threaded = context.target.threads > 1 && ranges[loops.front()] > 1 &&
                  llvm::product_of(ranges) >= kMinThreadedWork;
  for (unsigned loop : loops) {
    FailureOr<linalg::LinalgOp> tiled =
        tileLoopByOne(rewriter, op, loop, threaded && loop == loops.front());
    if (failed(tiled))
      return;
    op = *tiled;
  }
  dropUnitLoops(rewriter, op, loops);
}

/// Rewrites each `ConvolutionOp` that isStaticVectorConvolution into loops
/// over its `loops` (asLoopsOfOps).
template <typename ConvolutionOp>
static void asLoopsOfOps(ModuleOp module, ArrayRef<unsigned> loops,
                         const SelectionContext &context) {
  SmallVector<ConvolutionOp> convolutions;
  module.walk([&](ConvolutionOp op) {
    if (isStaticVectorConvolution(op))
      convolutions.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (ConvolutionOp op : convolutions)
    asLoopsOfOps(rewriter, op, loops, context);
}

/// A 3-D NCDHW convolution's loops (n, f, od, oh, ow, c, kd, kh, kw): over
/// output and filter depths, each iteration is a 2-D one.
constexpr unsigned kOutputDepth = 2, kFilterDepth = 6;
/// A grouped 2-D convolution's loops (n, g, f, oh, ow, c, kh, kw), NGCHW
/// with GFCHW filters (torch's and ONNX's grouped convolutions but the
/// depthwise ones): over the groups, each iteration is a 2-D one. Left as
/// they came, they were loops (ResNeXt's 32 groups of 4 channels: 0.77x
/// eager at 1 thread, 0.40x at 2).
constexpr unsigned kGroup = 1;

void convolutionsAs2D(ModuleOp module, const SelectionContext &context) {
  convolutions1DAs2D(module);
  asLoopsOfOps<linalg::Conv3DNcdhwFcdhwOp>(module, {kOutputDepth, kFilterDepth},
                                           context);
  asLoopsOfOps<linalg::Conv2DNgchwGfchwOp>(module, {kGroup}, context);
}

/// The 2-D NCHW convolutions that isStaticVectorConvolution and `takes`,
/// given the filter's shape (F, C, KH, KW) and the strides.
static SmallVector<linalg::Conv2DNchwFchwOp>
convolutions2D(ModuleOp module,
               llvm::function_ref<bool(linalg::Conv2DNchwFchwOp,
                                       ArrayRef<int64_t>, ArrayRef<int64_t>)>
                   takes) {
  SmallVector<linalg::Conv2DNchwFchwOp> convolutions;
  module.walk([&](linalg::Conv2DNchwFchwOp op) {
    SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
    if (isStaticVectorConvolution(op) &&
        takes(op,
              cast<RankedTensorType>(op.getDpsInputs()[1].getType()).getShape(),
              strides))
      convolutions.push_back(op);
  });
  return convolutions;
}

void stridedPointsAsSlices(ModuleOp module) {
  for (linalg::Conv2DNchwFchwOp op : convolutions2D(
           module, [](linalg::Conv2DNchwFchwOp, ArrayRef<int64_t> filter,
                      ArrayRef<int64_t> strides) {
             return (filter[2] == 1 && strides[0] > 1) ||
                    (filter[3] == 1 && strides[1] > 1);
           })) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value image = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
    auto imageType = cast<RankedTensorType>(image.getType());
    ArrayRef<int64_t> filterShape =
        cast<RankedTensorType>(filter.getType()).getShape();
    ArrayRef<int64_t> outputShape =
        cast<RankedTensorType>(op.getDpsInits()[0].getType()).getShape();
    SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
    // Along a dimension where the window is one pixel, the pixels read are
    // every stride-th one, as many as the output has.
    SmallVector<int64_t> shape(imageType.getShape()), steps(4, 1);
    for (unsigned dim : {0u, 1u})
      if (filterShape[2 + dim] == 1 && strides[dim] > 1) {
        shape[2 + dim] = outputShape[2 + dim];
        steps[2 + dim] = strides[dim];
        strides[dim] = 1;
      }
    SmallVector<OpFoldResult> zeros(4, b.getIndexAttr(0));
    Value read = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(shape, imageType.getElementType()), image,
        zeros, getAsIndexOpFoldResult(b.getContext(), shape),
        getAsIndexOpFoldResult(b.getContext(), steps));
    // Copied into an image of its own: the kernel reads rows of pixels
    // that are next to each other.
    Value pixels =
        linalg::CopyOp::create(
            b, loc, read,
            tensor::EmptyOp::create(b, loc, shape, imageType.getElementType())
                .getResult())
            .getResult(0);
    auto conv = linalg::Conv2DNchwFchwOp::create(
        b, loc, op->getResultTypes(), ValueRange{pixels, filter},
        op.getDpsInits(),
        {b.getNamedAttr("strides", b.getI64VectorAttr(strides)),
         b.getNamedAttr("dilations", op.getDilations())});
    op->replaceAllUsesWith(conv->getResults());
    op->erase();
  }
}

/// The loops (n, oh, ow, c, kh, kw) of linalg's depthwise_conv_2d_nchw_chw
/// in the order of a pooling's, (n, c, oh, ow, kh, kw): new loop i is old
/// loop kDepthwiseAsPooling[i].
constexpr unsigned kDepthwiseAsPooling[] = {0, 3, 1, 2, 4, 5};

void depthwiseAsChannelWindows(ModuleOp module) {
  SmallVector<linalg::DepthwiseConv2DNchwChwOp> convolutions;
  module.walk([&](linalg::DepthwiseConv2DNchwChwOp op) {
    if (op.hasPureTensorSemantics() && !staysScalar(op))
      convolutions.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::DepthwiseConv2DNchwChwOp op : convolutions) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (succeeded(generic))
      (void)linalg::interchangeGenericOp(rewriter, *generic,
                                         kDepthwiseAsPooling);
  }
}

Value transposed(OpBuilder &b, Location loc, Value value,
                 ArrayRef<int64_t> permutation) {
  ElementsAttr constant;
  // A reshaped constant (a depthwise filter C x 1 x KH x KW as C x KH x KW)
  // is reshaped now, then transposed.
  Operation *reshape = value.getDefiningOp();
  if (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
          reshape) &&
      matchPattern(reshape->getOperand(0), m_Constant(&constant)))
    if (std::optional<ElementsAttr> shaped = reshapeConstant(
            constant, cast<RankedTensorType>(value.getType()).getShape()))
      value = arith::ConstantOp::create(b, loc, cast<TypedAttr>(*shaped));
  if (matchPattern(value, m_Constant(&constant)))
    if (std::optional<ElementsAttr> folded =
            transposeConstant(constant, permutation))
      return arith::ConstantOp::create(b, loc, cast<TypedAttr>(*folded));
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, value, init, permutation)
      .getResult()[0];
}

bool comesFrom(Value value, int ops, llvm::function_ref<bool(Operation *)> is) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  if (is(op))
    return true;
  if (ops == 0)
    return false;
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return comesFrom(pad.getSource(), ops - 1, is);
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && linalg::isElementwise(generic) &&
         llvm::any_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
           return generic.getMatchingIndexingMap(input).isIdentity() &&
                  comesFrom(input->get(), ops - 1, is);
         });
}

bool useGoesTo(OpOperand &use, int ops,
               llvm::function_ref<bool(Operation *)> is) {
  Operation *user = use.getOwner();
  if (is(user))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(user);
  bool passes = isa<tensor::PadOp>(user) ||
                (generic && linalg::isElementwise(generic) &&
                 generic.getMatchingIndexingMap(&use).isIdentity());
  return ops > 0 && passes && user->getNumResults() == 1 &&
         goesTo(user->getResult(0), ops - 1, is);
}

bool goesTo(Value value, int ops, llvm::function_ref<bool(Operation *)> is) {
  return llvm::any_of(value.getUses(),
                      [&](OpOperand &use) { return useGoesTo(use, ops, is); });
}

bool isTransposeBy(Operation *op, ArrayRef<int64_t> permutation) {
  auto transpose = dyn_cast<linalg::TransposeOp>(op);
  return transpose && transpose.getPermutation() == permutation;
}

/// Whether `op` is a 2-D NCHW convolution of a 1x1 window that
/// patchesAsMatmuls takes (static, vectorized), of stride 1 unless
/// `strided`.
static bool isPointwiseWindow(Operation *op, bool strided) {
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op);
  if (!conv || !isStaticVectorConvolution(conv))
    return false;
  ArrayRef<int64_t> filter =
      cast<RankedTensorType>(conv.getDpsInputs()[1].getType()).getShape();
  return filter[2] == 1 && filter[3] == 1 &&
         (strided || llvm::all_of(conv.getStrides().getValues<int64_t>(),
                                  [](int64_t stride) { return stride == 1; }));
}
static bool isPointwise(Operation *op) {
  return isPointwiseWindow(op, /*strided=*/false);
}

void depthwiseChannelsLast(ModuleOp module, const SelectionContext &context) {
  SmallVector<linalg::DepthwiseConv2DNchwChwOp> convolutions;
  module.walk([&](linalg::DepthwiseConv2DNchwChwOp op) {
    // Of one element type: a float, as the strategy's vectors.
    auto output = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    Type element = output.getElementType();
    if (op.hasPureTensorSemantics() && isa<FloatType>(element) &&
        llvm::all_of(op->getOperands(),
                     [&](Value operand) {
                       auto type = cast<RankedTensorType>(operand.getType());
                       return type.getElementType() == element &&
                              type.hasStaticShape();
                     }) &&
        channelsLastTiles(output.getDimSize(3), output.getDimSize(1), element,
                          context.target) &&
        (comesFrom(op.getDpsInputs()[0], kMaxOpsBetweenLayouts, isPointwise) ||
         goesTo(op.getResult(0), kMaxOpsBetweenLayouts, isPointwise)))
      convolutions.push_back(op);
  });
  for (linalg::DepthwiseConv2DNchwChwOp op : convolutions) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    // A fill stays a fill (transposesToTheirInverses).
    Value channelsLastInit =
        transposed(b, loc, op.getDpsInits()[0], kToChannelsLast);
    auto conv = linalg::DepthwiseConv2DNhwcHwcOp::create(
        b, loc, TypeRange{channelsLastInit.getType()},
        ValueRange{transposed(b, loc, op.getDpsInputs()[0], kToChannelsLast),
                   transposed(b, loc, op.getDpsInputs()[1], {1, 2, 0})},
        ValueRange{channelsLastInit},
        {b.getNamedAttr("strides", op.getStrides()),
         b.getNamedAttr("dilations", op.getDilations())});
    op->getResult(0).replaceAllUsesWith(
        transposed(b, loc, conv.getResult(0), kFromChannelsLast));
    op->erase();
  }
}

/// `value` in `shape`, its dimensions grouped as `groups` say; a constant
/// reshaped now.
static Value reshaped(OpBuilder &b, Location loc, Value value,
                      ArrayRef<int64_t> shape,
                      ArrayRef<ReassociationIndices> groups) {
  ElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant)))
    if (std::optional<ElementsAttr> folded = reshapeConstant(constant, shape))
      return arith::ConstantOp::create(b, loc, cast<TypedAttr>(*folded));
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(value.getType()).getElementType());
  if (type.getRank() > cast<RankedTensorType>(value.getType()).getRank())
    return tensor::ExpandShapeOp::create(b, loc, type, value, groups);
  return tensor::CollapseShapeOp::create(b, loc, type, value, groups);
}

/// Whether the windows of `op` tile its image without overlap, wider than
/// the kernel's stride of 2 (ViT's 16x16 patches), or are one per image: a
/// squeeze-and-excitation's 1x1 convolutions of a pooled image are
/// matrix-vector products, whose input channels 1-D windows unrolled (576
/// in MobileNet-V3-small's largest): 23,000 multiply-adds of code that took
/// 7 of its 12 s to compile, and ran slower. Their patches are the image
/// rearranged (tiledPatches).
static bool tilesImage(linalg::Conv2DNchwFchwOp op, ArrayRef<int64_t> filter,
                       ArrayRef<int64_t> strides) {
  ArrayRef<int64_t> output =
      cast<RankedTensorType>(op.getDpsInits()[0].getType()).getShape();
  bool oneWindow = output[2] == 1 && output[3] == 1;
  bool tiling = strides[0] == filter[2] && strides[1] == filter[3] &&
                (strides[0] > 2 || strides[1] > 2);
  return llvm::all_of(op.getDilations().getValues<int64_t>(),
                      [](int64_t d) { return d == 1; }) &&
         (oneWindow || tiling);
}

/// Whether the register kernel, whose vectors run along output rows, takes
/// `op` in blocks that leave a quarter or more of a register's lanes idle
/// (ResNet's and MobileNet's last stages: rows of 7 pixels of AVX-512's 16
/// lanes), where a matmul of gathered patches (gatheredPatches), which runs
/// along output channels, is one the blocked strategy takes (padded to
/// whole register tiles). ResNet-18's 512-channel 3x3 convolutions of 7x7
/// images, 1 thread: 82 GFLOPS in rows of 7, against 196 for the matmul of
/// the same sizes; the patches cost 1/F of the matmul's reads. Rows too
/// narrow for the kernel are the 1-D windows', which run along channels.
static bool rowsWasteLanes(linalg::Conv2DNchwFchwOp op,
                           ArrayRef<int64_t> filter,
                           const SelectionContext &context) {
  std::optional<WindowRowTile> block = windowRowTile(op, context.target);
  if (!block)
    return false;
  int64_t lanes = context.target.elementsPerRegister(
      getElementTypeOrSelf(op.getDpsInits()[0].getType()));
  ArrayRef<int64_t> output =
      cast<RankedTensorType>(op.getDpsInits()[0].getType()).getShape();
  int64_t rows = output[0] * output[2] * output[3],
          columns = filter[1] * filter[2] * filter[3];
  return 4 * block->pixels < 3 * llvm::alignTo(block->pixels, lanes) &&
         filter[0] >= lanes &&
         paddedSizes({rows, filter[0], columns}, context).has_value();
}

/// Whether `op` is a pointwise convolution next to a channels-last one: its
/// image comes from a transpose out of NHWC, or its output goes to a
/// transpose into NHWC, through elementwise ops (MobileNet's and
/// EfficientNet's expansions and projections around their depthwise
/// convolutions, ResNet's strided shortcuts). As a matmul of NHWC pixels
/// (every stride-th) by the filter, it keeps the channels-last layout
/// between them, and the transposes meet their inverses
/// (transposesToTheirInverses).
static bool pointwiseNextToChannelsLast(linalg::Conv2DNchwFchwOp op) {
  auto fromNhwc = [](Operation *op) {
    return isTransposeBy(op, kFromChannelsLast);
  };
  auto toNhwc = [](Operation *op) {
    return isTransposeBy(op, kToChannelsLast);
  };
  return isPointwiseWindow(op, /*strided=*/true) &&
         (comesFrom(op.getDpsInputs()[0], kMaxOpsBetweenLayouts, fromNhwc) ||
          goesTo(op.getResult(0), kMaxOpsBetweenLayouts, toNhwc));
}

/// `image` (N x C x H x W) as rows of patches, one per output pixel (n, oh,
/// ow), of windows that tile it without overlap: a rearrangement, its
/// columns (c, kh, kw).
static Value tiledPatches(OpBuilder &b, Location loc, Value image,
                          ArrayRef<int64_t> filter,
                          ArrayRef<int64_t> outputShape) {
  ArrayRef<int64_t> imageShape =
      cast<RankedTensorType>(image.getType()).getShape();
  int64_t n = imageShape[0], c = imageShape[1], kh = filter[2], kw = filter[3],
          oh = outputShape[2], ow = outputShape[3];
  // The rows and columns the windows cover (a remainder is never read).
  if (imageShape[2] != oh * kh || imageShape[3] != ow * kw) {
    SmallVector<OpFoldResult> zeros(4, b.getIndexAttr(0)),
        ones(4, b.getIndexAttr(1)),
        sizes = {b.getIndexAttr(n), b.getIndexAttr(c), b.getIndexAttr(oh * kh),
                 b.getIndexAttr(ow * kw)};
    image = tensor::ExtractSliceOp::create(b, loc, image, zeros, sizes, ones);
  }
  Value patches = transposed(b, loc,
                             reshaped(b, loc, image, {n, c, oh, kh, ow, kw},
                                      {{0}, {1}, {2, 3}, {4, 5}}),
                             {0, 2, 4, 1, 3, 5});
  return reshaped(b, loc, patches, {n * oh * ow, c * kh * kw},
                  {{0, 1, 2}, {3, 4, 5}});
}

/// `image` (N x C x H x W) as rows of patches, one per output pixel (n, oh,
/// ow), of overlapping windows, strided and dilated: the image in NHWC, then
/// for each of the window's KH x KW points the pixels it reads, a strided
/// slice whose channels are contiguous, copied into the patches; columns
/// (kh, kw, c).
static Value gatheredPatches(OpBuilder &b, Location loc, Value image,
                             ArrayRef<int64_t> filter,
                             ArrayRef<int64_t> outputShape,
                             ArrayRef<int64_t> strides,
                             ArrayRef<int64_t> dilations) {
  auto imageType = cast<RankedTensorType>(image.getType());
  Type element = imageType.getElementType();
  int64_t n = imageType.getDimSize(0), c = imageType.getDimSize(1),
          kh = filter[2], kw = filter[3], oh = outputShape[2],
          ow = outputShape[3];
  Value pixels = transposed(b, loc, image, kToChannelsLast);
  // A pointwise window's patches are the pixels.
  if (kh == 1 && kw == 1 &&
      llvm::all_of(strides, [](int64_t stride) { return stride == 1; }))
    return reshaped(b, loc, pixels, {n * oh * ow, c}, {{0, 1, 2}, {3}});
  Value patches =
      tensor::EmptyOp::create(b, loc, {n, oh, ow, kh, kw, c}, element);
  auto indices = [&](ArrayRef<int64_t> values) {
    return getAsIndexOpFoldResult(b.getContext(), values);
  };
  for (int64_t row = 0; row < kh; ++row)
    for (int64_t column = 0; column < kw; ++column) {
      Value points = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({n, oh, ow, c}, element), pixels,
          indices({0, row * dilations[0], column * dilations[1], 0}),
          indices({n, oh, ow, c}), indices({1, strides[0], strides[1], 1}));
      patches = tensor::InsertSliceOp::create(
          b, loc, points, patches, indices({0, 0, 0, row, column, 0}),
          indices({n, oh, ow, 1, 1, c}), indices({1, 1, 1, 1, 1, 1}));
    }
  return reshaped(b, loc, patches, {n * oh * ow, kh * kw * c},
                  {{0, 1, 2}, {3, 4, 5}});
}

void patchesAsMatmuls(ModuleOp module, const SelectionContext &context) {
  for (linalg::Conv2DNchwFchwOp op : convolutions2D(
           module, [&](linalg::Conv2DNchwFchwOp op, ArrayRef<int64_t> filter,
                       ArrayRef<int64_t> strides) {
             return tilesImage(op, filter, strides) ||
                    rowsWasteLanes(op, filter, context) ||
                    pointwiseNextToChannelsLast(op);
           })) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value image = op.getDpsInputs()[0], filter = op.getDpsInputs()[1],
          init = op.getDpsInits()[0];
    ArrayRef<int64_t> filterShape =
        cast<RankedTensorType>(filter.getType()).getShape();
    ArrayRef<int64_t> outputShape =
        cast<RankedTensorType>(init.getType()).getShape();
    SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>()),
        dilations(op.getDilations().getValues<int64_t>());
    int64_t n = outputShape[0], f = filterShape[0], c = filterShape[1],
            kh = filterShape[2], kw = filterShape[3], oh = outputShape[2],
            ow = outputShape[3];
    // Patches as rows, (n, oh, ow) x K; the filter as K x f, K in the
    // patches' order of (c, kh, kw).
    Value patches, weights;
    if (tilesImage(op, filterShape, strides)) {
      patches = tiledPatches(b, loc, image, filterShape, outputShape);
      weights = transposed(
          b, loc, reshaped(b, loc, filter, {f, c * kh * kw}, {{0}, {1, 2, 3}}),
          {1, 0});
    } else {
      patches = gatheredPatches(b, loc, image, filterShape, outputShape,
                                strides, dilations);
      weights = reshaped(b, loc, transposed(b, loc, filter, {2, 3, 1, 0}),
                         {kh * kw * c, f}, {{0, 1, 2}, {3}});
    }
    // C as (n, oh, ow) x f.
    Value rows = reshaped(b, loc, transposed(b, loc, init, kToChannelsLast),
                          {n * oh * ow, f}, {{0, 1, 2}, {3}});
    Value product =
        linalg::MatmulOp::create(b, loc, TypeRange{rows.getType()},
                                 ValueRange{patches, weights}, ValueRange{rows})
            .getResult(0);
    Value result = transposed(
        b, loc, reshaped(b, loc, product, {n, oh, ow, f}, {{0, 1, 2}, {3}}),
        kFromChannelsLast);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

/// `filter` (KH x KW x C x F, constant) in blocks of `block` output
/// channels, each contiguous: F / block x KH x KW x C x block.
static std::optional<ElementsAttr> filterBlocksOf(ElementsAttr filter,
                                                  int64_t block) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(filter.getType()).getShape();
  std::optional<ElementsAttr> split = reshapeConstant(
      filter, {shape[0], shape[1], shape[2], shape[3] / block, block});
  if (!split)
    return std::nullopt;
  return transposeConstant(*split, {3, 0, 1, 2, 4});
}

/// Whether `op` is a dense 2-D NCHW convolution that the channels-last
/// strategy takes (channelsLastConvolutionTiles) and patchesAsMatmuls does
/// not:
/// a constant filter of a window wider than a pixel, of as many input
/// channels as a register's half holds at least (a network's stem, of 3,
/// stays: its broadcasts would feed 3 multiply-adds a window point).
static bool takesChannelsLast(linalg::Conv2DNchwFchwOp op,
                              ArrayRef<int64_t> filter,
                              ArrayRef<int64_t> strides,
                              const SelectionContext &context) {
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  int64_t lanes = context.target.elementsPerRegister(element);
  return isa<FloatType>(element) &&
         llvm::all_of(op->getOperandTypes(),
                      [&](Type type) {
                        return getElementTypeOrSelf(type) == element;
                      }) &&
         matchPattern(op.getDpsInputs()[1], m_Constant()) &&
         filter[2] * filter[3] > 1 && filter[1] >= lanes / 2 &&
         channelsLastConvolutionTiles(
             cast<RankedTensorType>(op.getDpsInits()[0].getType())
                 .getDimSize(3),
             filter[0], filter[1], element, context.target) &&
         !tilesImage(op, filter, strides) &&
         !rowsWasteLanes(op, filter, context);
}

/// Whether the loop over `op`'s blocks of `block` output channels is split
/// across `threads` threads: one image of enough work for them (a batch
/// that holds it is split by images, in each block), blocks that divide
/// evenly among them, and filters larger than the image, which each thread
/// then reads in part (ResNet's later stages); otherwise each block's rows
/// are split (the strategy's), and each thread reads its rows of the image
/// and all of the block's filters.
static bool splitsBlocksAcrossThreads(linalg::Conv2DNhwcHwcfOp op,
                                      int64_t block, int64_t threads) {
  auto elements = [](Value value) {
    return llvm::product_of(
        cast<ShapedType>(value.getType()).getShape().drop_front());
  };
  ArrayRef<int64_t> filter =
      cast<ShapedType>(op.getDpsInputs()[1].getType()).getShape();
  int64_t images =
      cast<ShapedType>(op.getDpsInits()[0].getType()).getDimSize(0);
  return threads > 1 && (filter[3] / block) % threads == 0 &&
         workPerImage(op) >= kMinThreadedWork &&
         images < minThreadedBatch(op, threads) &&
         llvm::product_of(filter) >= elements(op.getDpsInputs()[0]);
}

void convolutionsChannelsLast(ModuleOp module,
                              const SelectionContext &context) {
  IRRewriter rewriter(module.getContext());
  for (linalg::Conv2DNchwFchwOp op : convolutions2D(
           module, [&](linalg::Conv2DNchwFchwOp op, ArrayRef<int64_t> filter,
                       ArrayRef<int64_t> strides) {
             return takesChannelsLast(op, filter, strides, context);
           })) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value filter =
        transposed(rewriter, loc, op.getDpsInputs()[1], kFilterChannelsLast);
    auto filterType = cast<RankedTensorType>(filter.getType());
    Value init =
        transposed(rewriter, loc, op.getDpsInits()[0], kToChannelsLast);
    auto conv = linalg::Conv2DNhwcHwcfOp::create(
        rewriter, loc, TypeRange{init.getType()},
        ValueRange{
            transposed(rewriter, loc, op.getDpsInputs()[0], kToChannelsLast),
            filter},
        ValueRange{init},
        {rewriter.getNamedAttr("strides", op.getStrides()),
         rewriter.getNamedAttr("dilations", op.getDilations())});
    rewriter.replaceOp(
        op, transposed(rewriter, loc, conv.getResult(0), kFromChannelsLast));
    // A loop over blocks of output channels, each of whose filters reads
    // its own contiguous block: across all of them, the rows of KH x KW x C
    // x F are F floats apart, 1 KiB at F = 256, which maps a block's
    // filters onto a few cache sets (ResNet-18's 256-channel layer ran at
    // half the speed of its 64-channel one).
    int64_t block = channelsLastFilterBlock(
        filterType.getDimSize(3), filterType.getElementType(), context.target);
    ElementsAttr constant;
    if (block == filterType.getDimSize(3) ||
        !matchPattern(filter, m_Constant(&constant)))
      continue;
    std::optional<ElementsAttr> blocks = filterBlocksOf(constant, block);
    if (!blocks)
      continue;
    rewriter.setInsertionPoint(conv);
    Value blocksOfFilter =
        arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(*blocks));
    scf::SCFTilingOptions options;
    SmallVector<OpFoldResult> sizes(conv.getNumLoops(),
                                    rewriter.getIndexAttr(0));
    sizes[kChannelsLastOutputChannels] = rewriter.getIndexAttr(block);
    options.setTileSizes(sizes);
    if (splitsBlocksAcrossThreads(conv, block, context.target.threads))
      options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(conv.getOperation()), options);
    if (failed(tiled))
      continue;
    rewriter.replaceOp(conv, tiled->replacements);
    auto one = cast<linalg::Conv2DNhwcHwcfOp>(tiled->tiledOps.front());
    auto slice = one.getDpsInputs()[1].getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice)
      continue;
    // The block's filters: block f / block of the blocks.
    rewriter.setInsertionPoint(slice);
    OpFoldResult first = slice.getMixedOffsets()[3];
    AffineExpr d0 = rewriter.getAffineDimExpr(0);
    OpFoldResult index = affine::makeComposedFoldedAffineApply(
        rewriter, loc, d0.floorDiv(block), {first});
    SmallVector<OpFoldResult> offsets(5, rewriter.getIndexAttr(0)),
        shape = {rewriter.getIndexAttr(1)},
        strides(5, rewriter.getIndexAttr(1));
    offsets[0] = index;
    for (int64_t size : slice.getType().getShape())
      shape.push_back(rewriter.getIndexAttr(size));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        slice, slice.getType(), blocksOfFilter, offsets, shape, strides);
  }
}

void splitWindowRemainders(ModuleOp module, const SelectionContext &context) {
  int64_t pixels =
      context.target.elementsPerRegister(Float32Type::get(module.getContext()));
  // Each op with the width of its first part.
  SmallVector<std::pair<linalg::LinalgOp, int64_t>> windows;
  module.walk([&](linalg::LinalgOp op) {
    if (!asNchwWindow(op) || windowPlan(op, context.target))
      return;
    int64_t width =
        cast<ShapedType>(op.getDpsInits()[0].getType()).getDimSize(3);
    if (!ShapedType::isDynamic(width) && width > pixels &&
        windowPlan(op, context.target, width - width % pixels))
      windows.emplace_back(op, width - width % pixels);
  });
  IRRewriter rewriter(module.getContext());
  for (auto [op, first] : windows) {
    rewriter.setInsertionPoint(op);
    // Loop 3 is the output columns of a convolution (n, f, oh, ow, ...) and
    // of a pooling (n, c, oh, ow, ...).
    (void)linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()), 3,
                          rewriter.getIndexAttr(first));
  }
}

void versionOnBatchSize(ModuleOp module, const SelectionContext &context) {
  int64_t threads = context.target.threads;
  if (threads < 2)
    return;
  SmallVector<linalg::LinalgOp> windows;
  module.walk([&](linalg::LinalgOp op) {
    if (asNchwWindow(op) &&
        cast<ShapedType>(op.getDpsInits()[0].getType()).isDynamicDim(0) &&
        windowPlan(op, context.target))
      windows.push_back(op);
  });
  for (linalg::LinalgOp op : windows) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Value batch = tensor::DimOp::create(builder, loc, op.getDpsInits()[0], 0);
    Value large =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, batch,
                              arith::ConstantIndexOp::create(
                                  builder, loc, minThreadedBatch(op, threads)));
    auto branch = scf::IfOp::create(builder, loc, op->getResultTypes(), large,
                                    /*withElseRegion=*/true);
    for (Block *block : {branch.thenBlock(), branch.elseBlock()}) {
      builder.setInsertionPointToStart(block);
      Operation *copy = builder.clone(*op);
      if (block == branch.thenBlock())
        copy->setAttr(kLargeBatchAttrName, builder.getUnitAttr());
      scf::YieldOp::create(builder, loc, copy->getResults());
    }
    op->replaceAllUsesWith(branch.getResults());
    op->erase();
  }
}

} // namespace lighthouse::cpu
