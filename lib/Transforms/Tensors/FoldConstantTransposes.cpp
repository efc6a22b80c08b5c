//===- FoldConstantTransposes.cpp - Transposed weights at compile time ----===//
//
// Models transpose their constant weights (`x @ W^T`): left to run time, the
// transpose of every weight runs on every call, and LLVM spends its time
// unrolling the copy loops over constants. `lighthouse-fold-constant-
// transposes` replaces each linalg.transpose of a constant with the
// transposed constant, for dense and dense_resource (imported weights)
// constants alike.
//
//===----------------------------------------------------------------------===//

#include "lighthouse/Transforms/Tensors/Passes.h"
#include "lighthouse/Transforms/Utils/Constants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace lighthouse {

#define GEN_PASS_DEF_FOLDCONSTANTTRANSPOSES
#include "lighthouse/Transforms/Tensors/Passes.h.inc"

namespace {

/// `input` (row-major, `elementSize` bytes an element, of `shape`) with its
/// dimensions permuted: result dimension i is input dimension
/// permutation[i].
static std::vector<char> transposeBytes(ArrayRef<char> input,
                                        ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> permutation,
                                        int64_t elementSize) {
  int64_t rank = shape.size();
  SmallVector<int64_t> inputStrides(rank, elementSize);
  for (int64_t i = rank - 2; i >= 0; --i)
    inputStrides[i] = inputStrides[i + 1] * shape[i + 1];
  SmallVector<int64_t> sizes, strides;
  for (int64_t dim : permutation) {
    sizes.push_back(shape[dim]);
    strides.push_back(inputStrides[dim]);
  }
  std::vector<char> output(input.size());
  // Walk the result in order, keeping the input offset of the current
  // element: an odometer over the result's indices.
  SmallVector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (char *out = output.data(), *end = out + output.size(); out != end;
       out += elementSize) {
    std::memcpy(out, input.data() + offset, elementSize);
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      offset += strides[dim];
      if (++index[dim] < sizes[dim])
        break;
      offset -= strides[dim] * sizes[dim];
      index[dim] = 0;
    }
  }
  return output;
}

struct FoldConstantTranspose : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    ElementsAttr constant;
    if (!transpose.hasPureTensorSemantics() ||
        !matchPattern(transpose.getInput(), m_Constant(&constant)))
      return failure();
    auto inputType = dyn_cast<RankedTensorType>(constant.getType());
    auto resultType =
        dyn_cast<RankedTensorType>(transpose->getResult(0).getType());
    if (!inputType || !resultType || !inputType.hasStaticShape() ||
        !resultType.hasStaticShape())
      return failure();
    Attribute folded;
    if (auto splat = dyn_cast<SplatElementsAttr>(constant)) {
      folded = splat.resizeSplat(resultType);
    } else {
      std::optional<ArrayRef<char>> bytes = elementBytes(constant);
      if (!bytes)
        return failure();
      int64_t elementSize =
          inputType.getElementType().getIntOrFloatBitWidth() / 8;
      std::vector<char> transposed =
          transposeBytes(*bytes, inputType.getShape(),
                         transpose.getPermutation(), elementSize);
      folded = DenseElementsAttr::getFromRawBuffer(resultType, transposed);
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(transpose, resultType,
                                                   cast<TypedAttr>(folded));
    return success();
  }
};

class FoldConstantTransposesPass
    : public impl::FoldConstantTransposesBase<FoldConstantTransposesPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldConstantTranspose>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

} // namespace lighthouse
