//===- Convolution.cpp - Convolutions and poolings for CPUs ---------------===//
//
// The convolution family: convolutions, depthwise or not, and poolings
// (linalg's ConvolutionOpInterface). 2-D NCHW ones with a stride
// of 1 or 2 along the rows are tiled into blocks of channels by one or two
// output rows of pixels for the register kernel of ConvolutionKernel.h
// (`convolution.rows`); others into single output rows, decomposed into
// 1-D windows and vectorized along the row (`convolution.windows`); NHWC
// depthwise ones (depthwise-channels-last) into blocks of a row's pixels by
// a register of channels, and NHWC dense ones (convolutions-channels-last)
// into blocks of a row's pixels by a block of output channels, 1-D windows
// vectorized along the channels; each
// is split across threads by images when the batch is large, else within
// the image when one image is.
//
//===----------------------------------------------------------------------===//

#include "ConvolutionKernel.h"
#include "OpFamilies.h"
#include "TransformBuilders.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace lighthouse::cpu {

/// The most multiply-adds (each of a vector of the block's output channels)
/// the 1-D windows strategy unrolls in one row: pixels times input channels
/// times window columns (see windowTiles). LLVM's time grows faster than
/// their count: a row of 49 pixels over 64 channels and 2 columns (6,272)
/// took 10 s to compile, over 512 channels (50,176; wav2vec2's feature
/// convolutions) over 2 minutes.
constexpr int64_t kMaxWindowTerms = 2048;

/// Whether `op` is a convolution or pooling in a layout the strategies
/// take: 2-D NCHW (ConvolutionKernel.h).
static bool isNchwWindow(linalg::LinalgOp op) {
  return asNchwWindow(op).has_value();
}

/// Whether the elements `op` reads are the output's or widen to them (a
/// narrower float or integer, an integer to a float), the casts with which
/// linalg vectorizes 1-D windows; it does not narrow (an f64 filter of an
/// f32 convolution). A pooling's window operand is only a shape.
static bool readsWidenToOutput(linalg::LinalgOp op) {
  Type output = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  auto widens = [&](Value input) {
    Type element = getElementTypeOrSelf(input.getType());
    if (element == output)
      return true;
    if (!element.isIntOrFloat() || !output.isIntOrFloat())
      return false;
    if (isa<IntegerType>(element) && isa<FloatType>(output))
      return true;
    return isa<FloatType>(element) == isa<FloatType>(output) &&
           element.getIntOrFloatBitWidth() < output.getIntOrFloatBitWidth();
  };
  ValueRange inputs = op.getDpsInputs();
  return isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp,
             linalg::DepthwiseConv2DNhwcHwcOp>(op.getOperation())
             ? llvm::all_of(inputs, widens)
             : widens(inputs[0]);
}

/// The tile sizes of one output row of a block of channels for the
/// convolution or pooling `op` (with `rowWidth`, as if its output rows were
/// that wide), or none for ops and shapes the windows strategy does not
/// handle.
static std::optional<SmallVector<int64_t>>
windowTiles(linalg::LinalgOp op, std::optional<int64_t> rowWidth) {
  // The ops transform.structured.decompose rewrites into 1-D windows.
  if (!op.hasPureTensorSemantics() ||
      !isa<linalg::Conv2DNchwFchwOp, linalg::PoolingNchwMaxOp,
           linalg::PoolingNchwSumOp>(op.getOperation()) ||
      !readsWidenToOutput(op))
    return std::nullopt;
  // Static but for the batch, which is tiled by 1.
  auto output = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
  if (!isStaticButBatch(output) ||
      !llvm::all_of(op.getDpsInputs(), [&](Value input) {
        return isStaticButBatch(input.getType()) ||
               cast<ShapedType>(input.getType()).hasStaticShape();
      }))
    return std::nullopt;
  int64_t channels = output.getDimSize(1),
          width = rowWidth.value_or(output.getDimSize(3));
  int64_t channelTile = channels <= 16 ? channels : channels % 8 == 0 ? 8 : 0;
  int64_t widthTile = width <= 64 ? width : width % 16 == 0 ? 16 : 0;
  if (!channelTile || !widthTile)
    return std::nullopt;
  // Iteration spaces: conv (n, f, oh, ow, c, kh, kw), pooling (n, c, oh, ow,
  // kh, kw); 1-D windows need unit oh and kh.
  if (isa<linalg::Conv2DNchwFchwOp>(op)) {
    // Each row of 1-D windows is vectorized over its window columns and
    // input channels at once, unrolled: the input channels are taken in the
    // largest parts that divide them and keep a row within kMaxWindowTerms
    // (a loop over the parts); a row whose window alone is wider, loops.
    auto filter = cast<ShapedType>(op.getDpsInputs()[1].getType());
    int64_t inputChannels = filter.getDimSize(1),
            columns = filter.getDimSize(3);
    int64_t bound = kMaxWindowTerms / std::max<int64_t>(widthTile * columns, 1);
    if (bound == 0)
      return std::nullopt;
    int64_t part = largestDivisorAtMost(inputChannels, bound);
    return SmallVector<int64_t>{
        1, channelTile, 1, widthTile, part == inputChannels ? 0 : part, 1, 0};
  }
  return SmallVector<int64_t>{1, channelTile, 1, widthTile, 1, 0};
}

std::optional<Strategy> windowPlan(linalg::LinalgOp op, const CPUTarget &target,
                                   std::optional<int64_t> rowWidth) {
  if (std::optional<WindowRowTile> block =
          windowRowTile(op, target, rowWidth)) {
    // Iteration spaces: conv (n, f, oh, ow, c, kh, kw), pooling (n, c, oh,
    // ow, kh, kw); the block's loops, the others untiled.
    Strategy strategy(StrategyKind::ConvolutionRows);
    strategy.registers.assign(op.getNumLoops(), 0);
    strategy.registers[0] = 1;
    strategy.registers[1] = block->channels;
    strategy.registers[2] = block->rows;
    strategy.registers[3] = block->pixels;
    return strategy;
  }
  if (std::optional<SmallVector<int64_t>> tiles = windowTiles(op, rowWidth)) {
    Strategy strategy(StrategyKind::ConvolutionWindows);
    strategy.registers = *tiles;
    return strategy;
  }
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> channelsLastTiles(int64_t width,
                                                      int64_t channels,
                                                      Type element,
                                                      const CPUTarget &target) {
  int64_t lanes = target.elementsPerRegister(element);
  int64_t channelTile = channels % lanes == 0         ? lanes
                        : channels % (lanes / 2) == 0 ? lanes / 2
                                                      : 0;
  if (!channelTile || width <= 0)
    return std::nullopt;
  // Blocks of one pixel (a row of 13) would unroll nothing.
  int64_t pixels = largestDivisorAtMost(width, kChannelsLastPixels);
  if (pixels == 1 && width > 1)
    return std::nullopt;
  // Loops (n, oh, ow, c, kh, kw): a block of a row's pixels by a register of
  // channels, whose window columns 1-D windows unroll; 8 pixels keep the
  // accumulators and a window row's input vectors in registers.
  return SmallVector<int64_t>{1, 1, pixels, channelTile, 1, 0};
}

int64_t channelsLastFilterBlock(int64_t channels, Type element,
                                const CPUTarget &target) {
  int64_t lanes = target.elementsPerRegister(element);
  return channels % (2 * lanes) == 0 ? 2 * lanes
         : channels % lanes == 0     ? lanes
                                     : 0;
}

std::optional<SmallVector<int64_t>>
channelsLastConvolutionTiles(int64_t width, int64_t outputChannels,
                             int64_t inputChannels, Type element,
                             const CPUTarget &target) {
  int64_t block = channelsLastFilterBlock(outputChannels, element, target);
  int64_t pixels = largestDivisorAtMost(width, kChannelsLastPixels);
  if (!block || pixels < kMinChannelsLastPixels)
    return std::nullopt;
  // Loops (n, oh, ow, f, kh, kw, c): a block of a row's pixels by the
  // block's output channels, over one window point and kChannelsLastDepth
  // input channels at a time, unrolled. The window's columns unrolled too
  // kept each input element's broadcast live across them: 14 of 32
  // registers spilled, 1.2-1.4x slower.
  return SmallVector<int64_t>{
      1,
      1,
      pixels,
      block,
      1,
      1,
      largestDivisorAtMost(inputChannels, kChannelsLastDepth)};
}

/// The channels-last tiles of `op` (a depthwise or dense NHWC convolution),
/// whose operands must be static but for the batch and read elements that
/// widen to the output's.
static std::optional<SmallVector<int64_t>>
channelsLastTiles(linalg::LinalgOp op, const CPUTarget &target) {
  auto output = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  auto staticButBatch = [](Value value) {
    return llvm::none_of(
        cast<ShapedType>(value.getType()).getShape().drop_front(),
        ShapedType::isDynamic);
  };
  if (!op.hasPureTensorSemantics() || !readsWidenToOutput(op) ||
      !llvm::all_of(op->getOperands(), staticButBatch))
    return std::nullopt;
  if (isa<linalg::Conv2DNhwcHwcfOp>(op.getOperation()))
    return channelsLastConvolutionTiles(
        output.getDimSize(2), output.getDimSize(3),
        cast<ShapedType>(op.getDpsInputs()[1].getType()).getDimSize(2),
        output.getElementType(), target);
  return channelsLastTiles(output.getDimSize(2), output.getDimSize(3),
                           output.getElementType(), target);
}

int64_t workPerImage(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t work = 1;
  for (int64_t range : ArrayRef(ranges).drop_front())
    work *= ShapedType::isDynamic(range) ? 1 : range;
  return work;
}

int64_t minThreadedBatch(linalg::LinalgOp op, int64_t threads) {
  int64_t perImage = std::max<int64_t>(workPerImage(op), 1);
  return std::max(threads, (kMinThreadedWork + perImage - 1) / perImage);
}

/// Splits `strategy` across `threads` threads: by images when the batch
/// holds enough work for each (or `largeBatch` says it does); else, when one
/// image does (batch 1 of a large network), by blocks of output channels (if
/// they divide evenly among the threads) or by output rows, whichever has
/// each thread read less, rows in parts of ceil(rows / threads) (then the
/// blocks of rows are kept only if they divide every part: blocks must be
/// static); else not at all.
static void chooseThreadSplit(linalg::LinalgOp op, Strategy &strategy,
                              int64_t threads, bool largeBatch) {
  if (threads < 2)
    return;
  SmallVector<int64_t> split(op.getNumLoops(), 0);
  auto output = cast<ShapedType>(op.getDpsInits()[0].getType());
  if (largeBatch || (!output.isDynamicDim(0) &&
                     output.getDimSize(0) >= minThreadedBatch(op, threads))) {
    split[0] = threads;
    strategy.threadCounts = split;
    return;
  }
  if (workPerImage(op) < kMinThreadedWork)
    return;
  // Loops 1 and 2 are the output channels and rows of a convolution
  // (n, f, oh, ...) and of a depthwise convolution or pooling (n, c, oh,
  // ...). Each thread reads the whole image (its part of it when each output
  // channel reads its own) and its part of the filters, or its part of the
  // image and the whole filters: the split reading less is taken.
  auto elements = [](Value value) {
    ArrayRef<int64_t> shape = cast<ShapedType>(value.getType()).getShape();
    return llvm::product_of(shape.drop_front());
  };
  int64_t image = elements(op.getDpsInputs()[0]),
          filters =
              elements(op.getDpsInputs()[1]) *
              cast<ShapedType>(op.getDpsInputs()[1].getType()).getDimSize(0);
  int64_t imageByChannels =
      asNchwWindow(op)->channelwise ? image / threads : image;
  int64_t rows = output.getDimSize(2);
  bool channelsDivide =
      output.getDimSize(1) % (threads * strategy.registers[1]) == 0;
  if (channelsDivide && (rows < 2 || imageByChannels + filters / threads <=
                                         image / threads + filters)) {
    split[1] = threads;
    strategy.threadCounts = split;
    return;
  }
  if (rows < 2)
    return;
  int64_t part = llvm::divideCeil(rows, std::min(threads, rows));
  if (rows % part != 0 || part % strategy.registers[2] != 0)
    strategy.registers[2] = 1;
  split[2] = part;
  strategy.threads = split;
}

/// Splits the channels-last `strategy` of `op` across `threads` threads:
/// by images as chooseThreadSplit does; else, when one image holds enough
/// work, by blocks of channels where they divide evenly, else by output
/// rows in parts of ceil(rows / threads).
static void chooseChannelsLastThreadSplit(linalg::LinalgOp op,
                                          Strategy &strategy, int64_t threads) {
  if (threads < 2)
    return;
  // Loops (n, oh, ow, c, kh, kw) of a depthwise convolution, (n, oh, ow, f,
  // kh, kw, c) of a dense one.
  SmallVector<int64_t> split(op.getNumLoops(), 0);
  auto output = cast<ShapedType>(op.getDpsInits()[0].getType());
  if (!output.isDynamicDim(0) &&
      output.getDimSize(0) >= minThreadedBatch(op, threads)) {
    split[0] = threads;
    strategy.threadCounts = split;
    return;
  }
  if (workPerImage(op) < kMinThreadedWork)
    return;
  if ((output.getDimSize(3) / strategy.registers[3]) % threads == 0) {
    split[3] = threads;
    strategy.threadCounts = split;
    return;
  }
  int64_t rows = output.getDimSize(1);
  if (rows < 2)
    return;
  split[1] = llvm::divideCeil(rows, std::min(threads, rows));
  strategy.threads = split;
}

std::optional<Strategy> selectConvolution(linalg::LinalgOp op,
                                          const SelectionContext &context) {
  if (isa<linalg::DepthwiseConv2DNhwcHwcOp, linalg::Conv2DNhwcHwcfOp>(
          op.getOperation())) {
    std::optional<SmallVector<int64_t>> tiles =
        channelsLastTiles(op, context.target);
    if (!tiles)
      return std::nullopt;
    Strategy strategy(StrategyKind::ConvolutionWindows);
    strategy.registers = *tiles;
    chooseChannelsLastThreadSplit(op, strategy, context.target.threads);
    return strategy;
  }
  if (!isNchwWindow(op))
    return std::nullopt;
  std::optional<Strategy> strategy = windowPlan(op, context.target);
  if (strategy)
    chooseThreadSplit(op, *strategy, context.target.threads,
                      op->hasAttr(kLargeBatchAttrName));
  return strategy;
}

LogicalResult verifyConvolution(Operation *op, const Strategy &strategy) {
  if (!linalg::isaConvolutionOpInterface(cast<linalg::LinalgOp>(op)) ||
      strategy.registers.empty())
    return op->emitError() << stringifyStrategyKind(strategy.kind)
                           << " takes a convolution or pooling and its "
                              "register tiles";
  if (strategy.kind == StrategyKind::ConvolutionWindows &&
      !readsWidenToOutput(cast<linalg::LinalgOp>(op)))
    return op->emitError() << stringifyStrategyKind(strategy.kind)
                           << " takes inputs whose elements are the "
                              "output's or widen to them";
  return success();
}

/// Splits the op across threads, then tiles it into blocks; the register
/// kernel computes blocks of `convolution.rows` after the transforms (see
/// runConvolutionKernels); blocks of `convolution.windows` are decomposed
/// into 1-D windows and vectorized along the row.
void buildConvolution(const BuildContext &context) {
  ImplicitLocOpBuilder &b = context.builder;
  const Strategy &strategy = context.strategy;
  tx::Handle parts = tx::splitAcrossThreads(b, context.root, strategy);
  tx::Handle rows = tx::tileWithLoops(b, parts, strategy.registers).op;
  if (strategy.kind == StrategyKind::ConvolutionWindows)
    tx::vectorize(b, tx::decompose(b, rows));
}

void runConvolutionKernels(ModuleOp module, const CPUTarget &target) {
  // The blocks carry their op's strategy (tiling clones attributes); an op
  // whose tiling failed keeps its shape, which the kernel turns down: loops.
  StringAttr rows =
      StringAttr::get(module.getContext(),
                      stringifyStrategyKind(StrategyKind::ConvolutionRows));
  SmallVector<linalg::LinalgOp> blocks;
  module.walk([&](linalg::LinalgOp op) {
    auto strategy = op->getAttrOfType<DictionaryAttr>(kStrategyAttrName);
    if (strategy && strategy.get("kind") == rows)
      blocks.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp block : blocks)
    (void)vectorizeWindowRows(rewriter, block, target);
}

} // namespace lighthouse::cpu
