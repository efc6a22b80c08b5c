//===- ConvolutionsByPhase.cpp - Transposed convolutions without zeros ----===//
//
// torch-mlir lowers a transposed convolution of stride s to a convolution
// of stride 1 over its input spread out, s - 1 zeros between elements along
// each spatial dimension (a strided tensor.insert_slice into zeros): all but
// one of every s^d multiply-adds are by zeros (FCN's 16x16 stride-8
// upsampling ran at 0.03x eager's speed). Along a dimension, the outputs at
// positions a, a + s, a + 2s, ... (a phase) read only the kernel taps
// congruent to (offset - a) mod s, at consecutive input elements: each
// phase is a convolution of stride 1 over the input itself with that
// sub-kernel. The convolution becomes one per phase (s^d of them, each with
// 1/s^d of the kernel), inserted into the output with stride s.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_CONVOLUTIONSBYPHASE
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

/// A convolution's input spread out: `source` inserted into zeros with
/// `strides` along the spatial dimensions, from `offsets`.
struct SpreadInput {
  Value source;
  SmallVector<int64_t> offsets, strides;
};

bool isZero(Value value) {
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
           matchPattern(fill.getInputs()[0], m_Zero());
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// The spread-out input of a convolution of stride 1 whose input is a
/// strided insert into zeros that keeps batch and channels whole.
std::optional<SpreadInput> spreadInput(linalg::LinalgOp conv) {
  auto insert = conv.getDpsInputs()[0].getDefiningOp<tensor::InsertSliceOp>();
  if (!insert || !isZero(insert.getDest()) ||
      !insert.getSourceType().hasStaticShape() ||
      !insert.getDestType().hasStaticShape() ||
      insert.getSourceType().getRank() != insert.getDestType().getRank() ||
      ShapedType::isDynamicShape(insert.getStaticOffsets()) ||
      ShapedType::isDynamicShape(insert.getStaticStrides()))
    return std::nullopt;
  SpreadInput spread{insert.getSource(), {}, {}};
  ArrayRef<int64_t> offsets = insert.getStaticOffsets();
  ArrayRef<int64_t> strides = insert.getStaticStrides();
  for (unsigned d = 0; d < 2; ++d)
    if (offsets[d] != 0 || strides[d] != 1 ||
        insert.getSourceType().getDimSize(d) !=
            insert.getDestType().getDimSize(d))
      return std::nullopt;
  spread.offsets.assign(offsets.begin() + 2, offsets.end());
  spread.strides.assign(strides.begin() + 2, strides.end());
  if (llvm::all_of(spread.strides, [](int64_t s) { return s == 1; }))
    return std::nullopt;
  return spread;
}

/// Whether `op` is a convolution of the NC... x FC... layout, of stride and
/// dilation 1, with static shapes.
bool isUnitConvolution(Operation *op) {
  if (!isa<linalg::Conv1DNcwFcwOp, linalg::Conv2DNchwFchwOp,
           linalg::Conv3DNcdhwFcdhwOp>(op))
    return false;
  auto unit = [&](StringRef name) {
    auto values = op->getAttrOfType<DenseIntElementsAttr>(name);
    return !values || llvm::all_of(values.getValues<int64_t>(),
                                   [](int64_t v) { return v == 1; });
  };
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return unit("strides") && unit("dilations") &&
         linalgOp.hasPureTensorSemantics() &&
         llvm::all_of(op->getOperandTypes(), [](Type type) {
           return cast<RankedTensorType>(type).hasStaticShape();
         });
}

/// One phase along one spatial dimension: its outputs `outputs`, the kernel
/// taps `firstTap`, `firstTap + s`, ... (`taps` of them), and the input
/// element the first output's first tap reads (`start`, maybe out of range:
/// zeros).
struct Phase {
  int64_t outputs, firstTap, taps, start;
};

Phase phaseOf(int64_t phase, int64_t stride, int64_t offset, int64_t kernel,
              int64_t outputSize) {
  Phase p;
  p.outputs =
      outputSize > phase ? llvm::divideCeil(outputSize - phase, stride) : 0;
  p.firstTap = ((offset - phase) % stride + stride) % stride;
  p.taps =
      kernel > p.firstTap ? llvm::divideCeil(kernel - p.firstTap, stride) : 0;
  // Output phase + stride * t, tap firstTap + stride * u, reads the spread
  // input at phase + firstTap + stride * (t + u), the input's element
  // (phase + firstTap - offset) / stride + t + u; exact.
  p.start = (phase + p.firstTap - offset) / stride;
  return p;
}

void rewrite(linalg::LinalgOp conv, const SpreadInput &spread) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  Value filter = conv.getDpsInputs()[1];
  Value init = conv.getDpsInits()[0];
  auto sourceType = cast<RankedTensorType>(spread.source.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type element = initType.getElementType();
  size_t rank = spread.strides.size();
  auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Value result = init;
  // Each phase is a point of the grid of strides, visited in order.
  SmallVector<int64_t> phase(rank, 0);
  while (true) {
    SmallVector<Phase> phases;
    for (size_t d = 0; d < rank; ++d)
      phases.push_back(phaseOf(phase[d], spread.strides[d], spread.offsets[d],
                               filterType.getDimSize(2 + d),
                               initType.getDimSize(2 + d)));
    // Input elements the phase reads, along each dimension.
    bool reads = llvm::all_of(
        phases, [](const Phase &p) { return p.outputs > 0 && p.taps > 0; });
    SmallVector<OpFoldResult> inputOffsets(2, index(0)), inputSizes,
        padLow(2, index(0)), padHigh(2, index(0));
    inputSizes = {index(sourceType.getDimSize(0)),
                  index(sourceType.getDimSize(1))};
    for (size_t d = 0; reads && d < rank; ++d) {
      const Phase &p = phases[d];
      int64_t size = sourceType.getDimSize(2 + d);
      int64_t length = p.outputs + p.taps - 1;
      int64_t low = std::max<int64_t>(p.start, 0);
      int64_t high = std::min(p.start + length, size);
      reads = high > low;
      inputOffsets.push_back(index(low));
      inputSizes.push_back(index(high - low));
      padLow.push_back(index(low - p.start));
      padHigh.push_back(index(p.start + length - high));
    }
    // A phase that reads nothing is its part of `init` (the bias), which
    // `result` holds.
    if (reads) {
      SmallVector<OpFoldResult> outputOffsets(2, index(0)),
          outputSizes = {index(initType.getDimSize(0)),
                         index(initType.getDimSize(1))},
          outputStrides(2, index(1)), tapOffsets(2, index(0)),
          tapSizes = {index(filterType.getDimSize(0)),
                      index(filterType.getDimSize(1))},
          ones(2 + rank, index(1));
      SmallVector<int64_t> outputShape = {initType.getDimSize(0),
                                          initType.getDimSize(1)};
      for (size_t d = 0; d < rank; ++d) {
        outputOffsets.push_back(index(phase[d]));
        outputSizes.push_back(index(phases[d].outputs));
        outputStrides.push_back(index(spread.strides[d]));
        outputShape.push_back(phases[d].outputs);
        tapOffsets.push_back(index(phases[d].firstTap));
        tapSizes.push_back(index(phases[d].taps));
      }
      Value input = spread.source;
      if (!llvm::equal(
              getConstantIntValues(inputSizes).value_or(SmallVector<int64_t>()),
              sourceType.getShape()))
        input = tensor::ExtractSliceOp::create(b, loc, input, inputOffsets,
                                               inputSizes, ones);
      if (llvm::any_of(llvm::concat<OpFoldResult>(padLow, padHigh),
                       [](OpFoldResult v) { return !isZeroInteger(v); })) {
        Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
        input =
            tensor::PadOp::create(b, loc, Type(), input, padLow, padHigh, zero);
      }
      Value taps = tensor::ExtractSliceOp::create(b, loc, filter, tapOffsets,
                                                  tapSizes, outputStrides);
      Value phaseInit = tensor::ExtractSliceOp::create(
          b, loc, init, outputOffsets, outputSizes, outputStrides);
      Operation *phaseConv =
          clone(b, conv.getOperation(),
                TypeRange{RankedTensorType::get(outputShape, element)},
                ValueRange{input, taps, phaseInit});
      result = tensor::InsertSliceOp::create(b, loc, phaseConv->getResult(0),
                                             result, outputOffsets, outputSizes,
                                             outputStrides);
    }
    // The next phase.
    size_t d = rank;
    while (d > 0 && ++phase[d - 1] == spread.strides[d - 1])
      phase[--d] = 0;
    if (d == 0)
      break;
  }
  Operation *spreadOp = conv.getDpsInputs()[0].getDefiningOp();
  conv->getResult(0).replaceAllUsesWith(result);
  conv->erase();
  if (spreadOp->use_empty())
    spreadOp->erase();
}

class ConvolutionsByPhasePass
    : public impl::ConvolutionsByPhaseBase<ConvolutionsByPhasePass> {
public:
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SpreadInput>> found;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isUnitConvolution(op))
        return;
      if (std::optional<SpreadInput> spread = spreadInput(op))
        found.emplace_back(op, *spread);
    });
    for (auto &[conv, spread] : found)
      rewrite(conv, spread);
  }
};

} // namespace

} // namespace lighthouse
