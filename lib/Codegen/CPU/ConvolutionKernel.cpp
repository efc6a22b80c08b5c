//===- ConvolutionKernel.cpp - The convolution register kernel ------------===//

#include "ConvolutionKernel.h"

#include "OpFamilies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace lighthouse::cpu {

/// Registers of accumulators for one output row of a block: a quarter of
/// the target's (8 of AVX-512's 32).
static int64_t rowAccumulatorRegisters(const CPUTarget &target) {
  return std::max<int64_t>(target.vectorRegisters / 4, 1);
}
/// Output rows of a block, when the output's height divides by them: each
/// broadcast weight then feeds an FMA per row, and the block's sums take
/// half of the registers, leaving the others for the image rows and the
/// weights.
constexpr int64_t kBlockRows = 2;
/// Rows narrower than this are vectorized along the channels instead (the
/// 1-D windows), as a vector of a few pixels would leave most lanes idle.
constexpr int64_t kMinRowPixels = 4;
/// The most window columns the kernel unrolls.
constexpr int64_t kMaxWindowColumns = 11;
/// The largest stride along the rows: a block's pixels are read as one span
/// of the image row, (pixels - 1) * stride + 1 wide, then picked out of it.
constexpr int64_t kMaxRowStride = 2;

bool isStaticButBatch(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 4 &&
         llvm::none_of(tensor.getShape().drop_front(), ShapedType::isDynamic);
}

std::optional<NchwWindow> asNchwWindow(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaConvolutionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(op);
  if (failed(dims))
    return std::nullopt;
  // Loops: a convolution's (n, f, oh, ow, c, kh, kw), a depthwise
  // convolution's or a pooling's (n, c, oh, ow, kh, kw). To the interface, a
  // pooling's channels are batch dimensions (they index the image and the
  // output, not the window), a depthwise convolution's are depth dimensions
  // (they index all three).
  using Loops = SmallVector<unsigned, 2>;
  bool convolution = dims->batch == Loops{0} &&
                     dims->outputChannel == Loops{1} &&
                     dims->inputChannel == Loops{4} &&
                     dims->filterLoop == Loops{5, 6} && dims->depth.empty();
  bool channelwise = dims->outputChannel.empty() &&
                     dims->inputChannel.empty() &&
                     dims->filterLoop == Loops{4, 5};
  bool depthwise =
      channelwise && dims->batch == Loops{0} && dims->depth == Loops{1};
  bool pooling =
      channelwise && dims->batch == Loops{0, 1} && dims->depth.empty();
  if ((!convolution && !depthwise && !pooling) ||
      dims->outputImage != Loops{2, 3})
    return std::nullopt;
  // NCHW image and output, FCHW filters or KHxKW windows: each operand's
  // dimensions in that order.
  MLIRContext *context = op.getContext();
  auto readsLoops = [&](AffineMap map, ArrayRef<unsigned> loops) {
    return map.getNumResults() == loops.size() &&
           llvm::all_of(llvm::zip(map.getResults(), loops), [&](auto pair) {
             return std::get<0>(pair) ==
                    getAffineDimExpr(std::get<1>(pair), context);
           });
  };
  unsigned channel = convolution ? 4 : 1, rows = convolution ? 5 : 4;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap image = maps[0];
  if (!readsLoops(maps[2], {0, 1, 2, 3}) ||
      !readsLoops(maps[1], convolution ? ArrayRef<unsigned>{1, 4, 5, 6}
                           : depthwise ? ArrayRef<unsigned>{1, 4, 5}
                                       : ArrayRef<unsigned>{4, 5}) ||
      image.getNumResults() != 4 ||
      image.getResult(0) != getAffineDimExpr(0, context) ||
      image.getResult(1) != getAffineDimExpr(channel, context) ||
      !image.getResult(2).isFunctionOfDim(2) ||
      !image.getResult(2).isFunctionOfDim(rows) ||
      !image.getResult(3).isFunctionOfDim(3) ||
      !image.getResult(3).isFunctionOfDim(rows + 1))
    return std::nullopt;
  NchwWindow window;
  window.image = op.getDpsInputs()[0];
  window.window = op.getDpsInputs()[1];
  window.output = op.getDpsInits()[0];
  window.channelwise = channelwise;
  window.strides = dims->strides;
  window.dilations = dims->dilations;
  // What it does with each element of its window, for floats: a
  // convolution's body (depthwise or not) multiplies and adds; a pooling's
  // takes a max or adds.
  Operation *combine =
      op.getBlock()->getTerminator()->getOperand(0).getDefiningOp();
  auto multiplies = [](Operation *add) {
    return llvm::any_of(add->getOperands(), [](Value operand) {
      return isa_and_nonnull<arith::MulFOp>(operand.getDefiningOp());
    });
  };
  if (isa_and_nonnull<arith::AddFOp>(combine) && pooling != multiplies(combine))
    window.reduction =
        pooling ? WindowReduction::Add : WindowReduction::MultiplyAdd;
  else if (isa_and_nonnull<arith::MaximumFOp>(combine) && pooling)
    window.reduction = WindowReduction::Max;
  return window;
}

/// `op` as a window op the register kernel takes: a float reduction it
/// knows, and a window (filter, or pooling window) of static shape.
static std::optional<NchwWindow> asKernelWindow(linalg::LinalgOp op) {
  std::optional<NchwWindow> window = asNchwWindow(op);
  if (!window || !window->reduction)
    return std::nullopt;
  auto windowType = dyn_cast<RankedTensorType>(window->window.getType());
  if (!windowType || !windowType.hasStaticShape())
    return std::nullopt;
  // Filters are F x C x KH x KW, depthwise filters C x KH x KW, pooling
  // windows KH x KW.
  int64_t rank = windowType.getRank();
  window->windowRows = windowType.getDimSize(rank - 2);
  window->windowColumns = windowType.getDimSize(rank - 1);
  window->inputChannels = window->channelwise ? 1 : windowType.getDimSize(1);
  return window;
}

std::optional<WindowRowTile> windowRowTile(linalg::LinalgOp op,
                                           const CPUTarget &target,
                                           std::optional<int64_t> rowWidth) {
  std::optional<NchwWindow> window = asKernelWindow(op);
  if (!window || !op.hasPureTensorSemantics() ||
      !llvm::all_of(
          op->getOperandTypes(),
          [](Type type) { return getElementTypeOrSelf(type).isF32(); }) ||
      !isStaticButBatch(window->image.getType()) ||
      !isStaticButBatch(window->output.getType()) ||
      window->windowColumns > kMaxWindowColumns ||
      window->strides[1] > kMaxRowStride)
    return std::nullopt;
  auto outputType = cast<RankedTensorType>(window->output.getType());
  int64_t width = rowWidth.value_or(outputType.getDimSize(3));
  // Pixels of a block: up to one register.
  int64_t floatsPerRegister =
      target.elementsPerRegister(Float32Type::get(op.getContext()));
  int64_t pixels = width <= floatsPerRegister
                       ? width
                       : largestDivisorAtMost(width, floatsPerRegister);
  // A row of few pixels that does not divide (a prime width) would make
  // many narrow vectors. A depthwise convolution loads its pixels for each
  // channel, where a convolution's are shared by the block's channels: a
  // block of 14 pixels (of 56) would be loaded in parts of 8, 4 and 2 for
  // every multiply-add. It takes whole registers or whole rows; wider rows
  // are split (Convolution.cpp's splitWindowRemainders): 56 = 48 + 8.
  bool depthwise =
      window->channelwise && *window->reduction == WindowReduction::MultiplyAdd;
  if (pixels < kMinRowPixels ||
      (pixels < floatsPerRegister / 2 && pixels != width) ||
      (depthwise && pixels != width && pixels != floatsPerRegister))
    return std::nullopt;
  int64_t registersPerRow = llvm::divideCeil(pixels, floatsPerRegister);
  int64_t channels =
      largestDivisorAtMost(outputType.getDimSize(1),
                           rowAccumulatorRegisters(target) / registersPerRow);
  int64_t rows = outputType.getDimSize(2) % kBlockRows == 0 ? kBlockRows : 1;
  return WindowRowTile{channels, rows, pixels};
}

LogicalResult vectorizeWindowRows(RewriterBase &rewriter, linalg::LinalgOp op,
                                  const CPUTarget &target) {
  std::optional<NchwWindow> window = asKernelWindow(op);
  if (!window || !op.hasPureTensorSemantics())
    return failure();
  Value image = window->image, filter = window->window, output = window->output;
  auto imageType = dyn_cast<RankedTensorType>(image.getType());
  auto outputType = dyn_cast<RankedTensorType>(output.getType());
  if (!imageType || !outputType || !imageType.hasStaticShape() ||
      !outputType.hasStaticShape())
    return failure();
  Type elementType = outputType.getElementType();
  bool multiplies = *window->reduction == WindowReduction::MultiplyAdd;
  if (!isa<FloatType>(elementType) ||
      imageType.getElementType() != elementType ||
      (multiplies && getElementTypeOrSelf(filter.getType()) != elementType))
    return failure();
  ArrayRef<int64_t> outputShape = outputType.getShape();
  ArrayRef<int64_t> strides = window->strides, dilations = window->dilations;
  int64_t rowStride = strides[1];
  int64_t channels = outputShape[1], rows = outputShape[2],
          pixels = outputShape[3];
  int64_t span = (pixels - 1) * rowStride + 1;
  int64_t windowRows = window->windowRows,
          windowColumns = window->windowColumns;
  // Blocks as windowRowTile makes them: accumulators that fit the registers.
  int64_t registersPerRow =
      llvm::divideCeil(pixels, target.elementsPerRegister(elementType));
  if (channels * rows * registersPerRow >
      rowAccumulatorRegisters(target) * kBlockRows)
    return failure();
  if (outputShape[0] != 1 || rows > kBlockRows || rowStride > kMaxRowStride ||
      (rows - 1) * strides[0] + (windowRows - 1) * dilations[0] >=
          imageType.getDimSize(2) ||
      (windowColumns - 1) * dilations[1] + span > imageType.getDimSize(3))
    return failure();

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value zero = constant(0), one = constant(1);
  Value windowRowCount = constant(windowRows);
  Value rowDilation = dilations[0] == 1 ? one : constant(dilations[0]);
  SmallVector<Value> channelIndices, rowIndices, imageRowOffsets,
      windowColumnIndices, imageColumns;
  for (int64_t f = 0; f < channels; ++f)
    channelIndices.push_back(constant(f));
  for (int64_t r = 0; r < rows; ++r) {
    rowIndices.push_back(constant(r));
    imageRowOffsets.push_back(constant(r * strides[0]));
  }
  for (int64_t kw = 0; kw < windowColumns; ++kw) {
    windowColumnIndices.push_back(constant(kw));
    imageColumns.push_back(constant(kw * dilations[1]));
  }
  Value padding = arith::ConstantOp::create(
      rewriter, loc, elementType, rewriter.getFloatAttr(elementType, 0.0));
  auto rowType = VectorType::get({pixels}, elementType);
  // A strided span is read in whole registers: a vector of 31 floats (16
  // pixels at a stride of 2) was loaded in five parts (16, 8, 4, 2, 1), one
  // of 32 is two loads, masked where it passes the image's last column.
  int64_t lanes = target.elementsPerRegister(elementType);
  int64_t spanRead = rowStride == 1 ? span : llvm::alignTo(span, lanes);
  auto spanType = VectorType::get({spanRead}, elementType);
  // The block's pixels in the span of the image row that covers them.
  SmallVector<int64_t> strided;
  for (int64_t i = 0; i < pixels; ++i)
    strided.push_back(i * rowStride);
  SmallVector<bool> inBounds = {true};

  // One vector of accumulators per output row and channel of the block, row
  // by row: accumulators[r * channels + f].
  SmallVector<Value> accumulators;
  for (Value r : rowIndices)
    for (Value f : channelIndices)
      accumulators.push_back(vector::TransferReadOp::create(
          rewriter, loc, rowType, output, ValueRange{zero, f, r, zero}, padding,
          ArrayRef<bool>(inBounds)));

  // For each input channel and window row, each window column: a
  // convolution loads the pixels of each output row once (and, strided,
  // shuffles them), and broadcasts each weight once, used by an FMA per
  // output row; a depthwise convolution or a pooling loads the pixels of
  // each channel and output row and takes their max or sum, or an FMA with
  // the channel's weight.
  auto accumulateWindowRow = [&](OpBuilder &b, Location loc, Value c, Value kh,
                                 ValueRange accumulators) {
    SmallVector<Value> next(accumulators);
    Value windowRow =
        dilations[0] == 1 ? kh : arith::MulIOp::create(b, loc, kh, rowDilation);
    SmallVector<Value> imageRows;
    for (auto [r, offset] : llvm::enumerate(imageRowOffsets))
      imageRows.push_back(
          r == 0
              ? windowRow
              : arith::AddIOp::create(b, loc, windowRow, offset).getResult());
    auto loadPixels = [&](Value channel, Value imageRow, int64_t kw) {
      bool spanInBounds =
          kw * dilations[1] + spanRead <= imageType.getDimSize(3);
      Value pixels = vector::TransferReadOp::create(
          b, loc, spanType, image,
          ValueRange{zero, channel, imageRow, imageColumns[kw]}, padding,
          ArrayRef<bool>{spanInBounds});
      if (rowStride != 1)
        pixels = vector::ShuffleOp::create(b, loc, pixels, pixels, strided);
      return pixels;
    };
    for (int64_t kw = 0; kw < windowColumns; ++kw) {
      if (window->channelwise) {
        for (auto [f, channel] : llvm::enumerate(channelIndices)) {
          Value weights;
          if (multiplies)
            weights = vector::BroadcastOp::create(
                b, loc, rowType,
                tensor::ExtractOp::create(
                    b, loc, filter,
                    ValueRange{channel, kh, windowColumnIndices[kw]}));
          for (auto [r, imageRow] : llvm::enumerate(imageRows)) {
            Value &accumulator = next[r * channels + f];
            Value pixels = loadPixels(channel, imageRow, kw);
            switch (*window->reduction) {
            case WindowReduction::MultiplyAdd:
              accumulator =
                  vector::FMAOp::create(b, loc, pixels, weights, accumulator);
              break;
            case WindowReduction::Max:
              accumulator =
                  arith::MaximumFOp::create(b, loc, pixels, accumulator);
              break;
            case WindowReduction::Add:
              accumulator = arith::AddFOp::create(b, loc, pixels, accumulator);
              break;
            }
          }
        }
        continue;
      }
      SmallVector<Value> pixelRows;
      for (Value imageRow : imageRows)
        pixelRows.push_back(loadPixels(c, imageRow, kw));
      for (auto [f, channel] : llvm::enumerate(channelIndices)) {
        Value weight = tensor::ExtractOp::create(
            b, loc, filter,
            ValueRange{channel, c, kh, windowColumnIndices[kw]});
        Value broadcast = vector::BroadcastOp::create(b, loc, rowType, weight);
        for (auto [r, pixelRow] : llvm::enumerate(pixelRows)) {
          Value &sum = next[r * channels + f];
          sum = vector::FMAOp::create(b, loc, pixelRow, broadcast, sum);
        }
      }
    }
    scf::YieldOp::create(b, loc, next);
  };
  auto windowRowLoop = [&](OpBuilder &b, Location loc, Value c,
                           ValueRange accumulators) {
    return scf::ForOp::create(
        b, loc, zero, windowRowCount, one, accumulators,
        [&](OpBuilder &b, Location loc, Value kh, ValueRange accumulators) {
          accumulateWindowRow(b, loc, c, kh, accumulators);
        });
  };
  // A convolution's window rows for each input channel; a depthwise
  // convolution's or a pooling's alone.
  scf::ForOp loops =
      !window->channelwise
          ? scf::ForOp::create(
                rewriter, loc, zero, constant(window->inputChannels), one,
                accumulators,
                [&](OpBuilder &b, Location loc, Value c,
                    ValueRange accumulators) {
                  scf::YieldOp::create(
                      b, loc,
                      windowRowLoop(b, loc, c, accumulators).getResults());
                })
          : windowRowLoop(rewriter, loc, Value(), accumulators);

  Value result = output;
  for (auto [r, row] : llvm::enumerate(rowIndices))
    for (auto [f, channel] : llvm::enumerate(channelIndices))
      result =
          vector::TransferWriteOp::create(
              rewriter, loc, loops.getResult(r * channels + f), result,
              ValueRange{zero, channel, row, zero}, ArrayRef<bool>(inBounds))
              .getResult();
  rewriter.replaceOp(op, result);
  return success();
}

} // namespace lighthouse::cpu
