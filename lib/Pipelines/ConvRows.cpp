//===- ConvRows.cpp - NCHW convolutions as rows of outer products ---------===//

#include "ConvRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace lighthouse {

/// Floats in a vector register: the schedule's register tiles, the
/// matmul's as these, are sized for AVX-512.
constexpr int64_t kFloatsPerRegister = 16;
/// Registers of accumulators for one output row of a block: a quarter of
/// AVX-512's.
constexpr int64_t kRowAccumulatorRegisters = 8;
/// Output rows of a block, when the output's height divides by them: each
/// broadcast weight then feeds an FMA per row, and the block's sums take
/// half of AVX-512's registers, leaving the others for the image rows and
/// the weights.
constexpr int64_t kBlockRows = 2;
/// Pixels of a block: up to one register.
constexpr int64_t kConvRowPixels = kFloatsPerRegister;
/// Rows narrower than this are vectorized along the channels instead (the
/// 1-D windows), as a vector of a few pixels would leave most lanes idle.
constexpr int64_t kMinConvRowPixels = 4;
/// The most window columns the kernel unrolls.
constexpr int64_t kMaxWindowColumns = 11;
/// The largest stride along the rows: a block's pixels are read as one span
/// of the image row, (pixels - 1) * stride + 1 wide, then picked out of it.
constexpr int64_t kMaxRowStride = 2;

static int64_t largestDivisorAtMost(int64_t n, int64_t bound) {
  for (int64_t d = std::min(n, bound); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

bool isStaticButBatch(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 4 &&
         llvm::none_of(tensor.getShape().drop_front(), ShapedType::isDynamic);
}

std::optional<ConvRowTile> convRowTile(linalg::Conv2DNchwFchwOp conv) {
  Value image = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1],
        output = conv.getDpsInits()[0];
  if (!conv.hasPureTensorSemantics() ||
      !llvm::all_of(conv->getOperandTypes(), [](Type type) {
        return getElementTypeOrSelf(type).isF32();
      }) ||
      !isStaticButBatch(image.getType()) || !isStaticButBatch(output.getType()))
    return std::nullopt;
  auto filterType = cast<RankedTensorType>(filter.getType());
  if (!filterType.hasStaticShape() ||
      filterType.getDimSize(3) > kMaxWindowColumns ||
      conv.getStrides().getValues<int64_t>()[1] > kMaxRowStride)
    return std::nullopt;
  auto outputType = cast<RankedTensorType>(output.getType());
  int64_t width = outputType.getDimSize(3);
  int64_t pixels = width <= kConvRowPixels
                       ? width
                       : largestDivisorAtMost(width, kConvRowPixels);
  // A row of few pixels that does not divide (a prime width) would make
  // many narrow vectors.
  if (pixels < kMinConvRowPixels ||
      (pixels < kConvRowPixels / 2 && pixels != width))
    return std::nullopt;
  int64_t registersPerRow = llvm::divideCeil(pixels, kFloatsPerRegister);
  int64_t channels = largestDivisorAtMost(
      outputType.getDimSize(1), kRowAccumulatorRegisters / registersPerRow);
  int64_t rows = outputType.getDimSize(2) % kBlockRows == 0 ? kBlockRows : 1;
  return ConvRowTile{channels, rows, pixels};
}

LogicalResult vectorizeConvRow(RewriterBase &rewriter,
                               linalg::Conv2DNchwFchwOp conv) {
  Value image = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1],
        output = conv.getDpsInits()[0];
  auto imageType = dyn_cast<RankedTensorType>(image.getType());
  auto filterType = dyn_cast<RankedTensorType>(filter.getType());
  auto outputType = dyn_cast<RankedTensorType>(output.getType());
  if (!conv.hasPureTensorSemantics() || !imageType || !filterType ||
      !outputType || !imageType.hasStaticShape() ||
      !filterType.hasStaticShape() || !outputType.hasStaticShape())
    return failure();
  Type elementType = outputType.getElementType();
  if (!isa<FloatType>(elementType) ||
      imageType.getElementType() != elementType ||
      filterType.getElementType() != elementType)
    return failure();
  ArrayRef<int64_t> outputShape = outputType.getShape();
  auto dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  auto strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  int64_t rowStride = strides[1];
  int64_t channels = outputShape[1], rows = outputShape[2],
          pixels = outputShape[3];
  int64_t span = (pixels - 1) * rowStride + 1;
  int64_t inputChannels = filterType.getDimSize(1),
          windowRows = filterType.getDimSize(2),
          windowColumns = filterType.getDimSize(3);
  // Blocks as convRowTile makes them: sums that fit the registers.
  if (channels * rows * llvm::divideCeil(pixels, kFloatsPerRegister) >
      kRowAccumulatorRegisters * kBlockRows)
    return failure();
  if (outputShape[0] != 1 || rows > kBlockRows || rowStride > kMaxRowStride ||
      (rows - 1) * strides[0] + (windowRows - 1) * dilations[0] >=
          imageType.getDimSize(2) ||
      (windowColumns - 1) * dilations[1] + span > imageType.getDimSize(3))
    return failure();

  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value zero = constant(0), one = constant(1);
  Value inputChannelCount = constant(inputChannels);
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
  auto spanType = VectorType::get({span}, elementType);
  // The block's pixels in the span of the image row that covers them.
  SmallVector<int64_t> strided;
  for (int64_t i = 0; i < pixels; ++i)
    strided.push_back(i * rowStride);
  SmallVector<bool> inBounds = {true};

  // One vector of accumulators per output row and channel of the block, row
  // by row: sums[r * channels + f].
  SmallVector<Value> sums;
  for (Value r : rowIndices)
    for (Value f : channelIndices)
      sums.push_back(vector::TransferReadOp::create(
          rewriter, loc, rowType, output, ValueRange{zero, f, r, zero},
          padding, ArrayRef<bool>(inBounds)));

  // For each input channel and window row: each window column's pixels are
  // one load per output row (and, strided, a shuffle); each weight is one
  // broadcast, used by an FMA per output row.
  auto accumulateWindowRow = [&](OpBuilder &b, Location loc, Value c,
                                 Value kh, ValueRange sums) {
    SmallVector<Value> next(sums);
    Value windowRow =
        dilations[0] == 1 ? kh : arith::MulIOp::create(b, loc, kh, rowDilation);
    SmallVector<Value> imageRows;
    for (auto [r, offset] : llvm::enumerate(imageRowOffsets))
      imageRows.push_back(r == 0 ? windowRow
                                 : arith::AddIOp::create(b, loc, windowRow,
                                                         offset)
                                       .getResult());
    for (int64_t kw = 0; kw < windowColumns; ++kw) {
      SmallVector<Value> pixelRows;
      for (Value imageRow : imageRows) {
        Value pixelRow = vector::TransferReadOp::create(
            b, loc, spanType, image,
            ValueRange{zero, c, imageRow, imageColumns[kw]}, padding,
            ArrayRef<bool>(inBounds));
        if (rowStride != 1)
          pixelRow =
              vector::ShuffleOp::create(b, loc, pixelRow, pixelRow, strided);
        pixelRows.push_back(pixelRow);
      }
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
  auto loops = scf::ForOp::create(
      rewriter, loc, zero, inputChannelCount, one, sums,
      [&](OpBuilder &b, Location loc, Value c, ValueRange sums) {
        auto windowRowLoop = scf::ForOp::create(
            b, loc, zero, windowRowCount, one, sums,
            [&](OpBuilder &b, Location loc, Value kh, ValueRange sums) {
              accumulateWindowRow(b, loc, c, kh, sums);
            });
        scf::YieldOp::create(b, loc, windowRowLoop.getResults());
      });

  Value result = output;
  for (auto [r, row] : llvm::enumerate(rowIndices))
    for (auto [f, channel] : llvm::enumerate(channelIndices))
      result = vector::TransferWriteOp::create(
                   rewriter, loc, loops.getResult(r * channels + f), result,
                   ValueRange{zero, channel, row, zero},
                   ArrayRef<bool>(inBounds))
                   .getResult();
  rewriter.replaceOp(conv, result);
  return success();
}

} // namespace lighthouse
