//===- ConvolutionForms.cpp - Convolutions in the kernel's 2-D form -------===//
//
// Rewrites of convolutions into the 2-D NCHW form the convolution policy and
// its register kernel take (Convolution.cpp), run before selection: a 1-D
// convolution is a 2-D one of height 1; a 3-D convolution is a loop over
// output depths of a loop over filter depths of 2-D ones, each adding its
// filter slice's contribution to one output slice. Left as they came, each
// was a scalar loop nest (3-D: 0.03x to 0.07x eager's speed).
//
//===----------------------------------------------------------------------===//

#include "Families.h"

#include "lighthouse/Transforms/Vectorizable.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

/// Loops (n, f, od, oh, ow, c, kd, kh, kw) of a 3-D NCDHW convolution.
constexpr unsigned kOutputDepth = 2, kFilterDepth = 6;

static void convolutions3DAs2D(ModuleOp module,
                               const SelectionContext &context) {
  SmallVector<linalg::Conv3DNcdhwFcdhwOp> convolutions;
  module.walk([&](linalg::Conv3DNcdhwFcdhwOp op) {
    if (op.hasPureTensorSemantics() && !staysScalar(op) &&
        llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic) &&
        !llvm::is_contained(op.getStaticLoopRanges(), 0))
      convolutions.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::Conv3DNcdhwFcdhwOp op : convolutions) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // Output depths across the threads when the whole holds work for them;
    // each depth's 2-D convolutions then run on its thread.
    bool threaded = context.target.threads > 1 && ranges[kOutputDepth] > 1 &&
                    llvm::product_of(ranges) >= kMinThreadedWork;
    FailureOr<linalg::LinalgOp> depth =
        tileLoopByOne(rewriter, op, kOutputDepth, threaded);
    if (failed(depth))
      continue;
    FailureOr<linalg::LinalgOp> slice =
        tileLoopByOne(rewriter, *depth, kFilterDepth, /*acrossThreads=*/false);
    if (succeeded(slice))
      dropUnitLoops(rewriter, *slice, {kOutputDepth, kFilterDepth});
  }
}

void convolutionsAs2D(ModuleOp module, const SelectionContext &context) {
  convolutions1DAs2D(module);
  convolutions3DAs2D(module, context);
}

} // namespace lighthouse::cpu
